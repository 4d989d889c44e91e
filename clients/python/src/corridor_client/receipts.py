"""Checking Corridor's signed receipts offline (API.md 9): a receipt is a compact JWS
(EdDSA over Ed25519) whose header names the `kid` of a key of the server's
`/.well-known/jwks.json`. `verify` needs only that JWKS and the `cryptography` package.

    listed = client.transfers.receipts("tfr_…")
    jwks = httpx.get("https://api.example.com/.well-known/jwks.json").json()
    payload = verify(listed.data[0].jws, jwks)   # ReceiptInvalid when it does not verify
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

__all__ = ["ReceiptInvalid", "verify"]


class ReceiptInvalid(ValueError):
    """The receipt is not a compact JWS, names a kid the JWKS lacks, or its signature is
    bad."""


def _b64decode(part: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        raise ReceiptInvalid("not base64url") from None


def verify(jws: str, jwks: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt's payload once its signature verifies against `jwks` (the JSON of
    /.well-known/jwks.json); ReceiptInvalid otherwise."""
    parts = jws.strip().split(".")
    if len(parts) != 3:
        raise ReceiptInvalid("not a compact JWS (three dot-separated parts)")
    protected, payload, signature = parts
    try:
        header = json.loads(_b64decode(protected))
    except ValueError:
        raise ReceiptInvalid("the JWS header is not JSON") from None
    if not isinstance(header, dict) or header.get("alg") != "EdDSA":
        raise ReceiptInvalid("receipts are signed with alg EdDSA")
    kid = header.get("kid")
    key = next(
        (
            item
            for item in jwks.get("keys", [])
            if isinstance(item, Mapping) and item.get("kid") == kid
        ),
        None,
    )
    if key is None:
        raise ReceiptInvalid(f"unknown kid {kid!r}: no key of the JWKS has it")
    if key.get("kty") != "OKP" or key.get("crv") != "Ed25519" or "x" not in key:
        raise ReceiptInvalid(f"the key {kid!r} is not an Ed25519 public key")
    try:
        public = Ed25519PublicKey.from_public_bytes(_b64decode(str(key["x"])))
    except ValueError:
        raise ReceiptInvalid(f"the key {kid!r} is not an Ed25519 public key") from None
    try:
        public.verify(_b64decode(signature), f"{protected}.{payload}".encode())
    except InvalidSignature:
        raise ReceiptInvalid("bad signature") from None
    try:
        claims = json.loads(_b64decode(payload))
    except ValueError:
        raise ReceiptInvalid("the payload is not JSON") from None
    if not isinstance(claims, dict):
        raise ReceiptInvalid("the payload is not a JSON object")
    return claims
