"""`python -m corridor.cli`: the `corridor` command."""

from corridor.cli import main

main()
