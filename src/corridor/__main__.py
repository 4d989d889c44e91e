"""`python -m corridor`: the `corridor` command."""

from corridor.cli import app

app()
