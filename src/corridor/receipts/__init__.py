"""Signed receipts of agent payments (API.md 9): compact JWS (EdDSA) over each decision and
outcome of a payment an agent made, verifiable offline against /.well-known/jwks.json."""
