"""Sandbox clocks (API.md 9): an organization advances its own time in the sandbox."""
