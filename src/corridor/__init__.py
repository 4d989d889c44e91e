"""Corridor: an open payments service."""

__version__ = "0.1.0"
