"""Transfers and their legs, quotes, deposits, virtual accounts and fixed routes."""

from __future__ import annotations
