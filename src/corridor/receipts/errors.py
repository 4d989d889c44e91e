"""Receipts' errors."""

from __future__ import annotations


class ReceiptInvalid(ValueError):
    """A receipt that does not verify: not a compact JWS, an unknown `kid`, a bad
    signature, or a payload that is not a JSON object. Raised by the offline check
    (`verify`, `corridor receipts verify`); never an HTTP answer."""
