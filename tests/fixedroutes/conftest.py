"""Fixtures of the fixed route tests: the transfer tests' ACTIVE customer and rails."""

from __future__ import annotations

from tests.transfers.conftest import customer, install_rail

__all__ = ["customer", "install_rail"]
