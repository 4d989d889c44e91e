"""The double-entry ledger: journal entries, postings, balances and their invariants."""
