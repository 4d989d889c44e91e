"""Transfers: the unit of work of spec 1, from DRAFT to a final state.

The API surface sits at the top: `endpoints.py` (routes), `schemas/` (shapes),
`service.py` (drafts: create, update, read, list), `actions.py` (submit, cancel, fund,
review, authorize), `lifecycle.py` (the state machine applied, with its events),
`repository.py` (every query), `errors.py`, `events.py`, and `plugins.py`, the seams where
agents, quotes and fixed routes take part without transfers importing them.

The machinery sits in sub-packages: `rules/` (pure: states, flows, fees, FX, pricing),
`planning/` (resolve, price and write a draft's legs), `engine/` (carry legs out over the
rails), `money/` (ledger movements and postings), `returns/` (refunds and returned
payouts) and `deposits/` (instructions, virtual accounts, matching what arrives).
"""
