"""Fixed routes: standing instructions that turn each deposit into a transfer."""
