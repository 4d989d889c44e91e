"""Transfers: drafts, submission, flows and legs, the engine, deposits and funding."""
