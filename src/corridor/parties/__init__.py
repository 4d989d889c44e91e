"""Parties: counterparties, external bank accounts and external wallets."""
