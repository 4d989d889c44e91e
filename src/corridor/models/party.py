"""Parties money goes to or comes from: counterparties, external bank accounts, external wallets."""

from __future__ import annotations
