"""A transfer's money in the ledger: the movements each leg makes (entries) and their postings."""
