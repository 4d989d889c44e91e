"""Checks `make lint` runs beside ruff and mypy (import-linter contract types of our own)."""
