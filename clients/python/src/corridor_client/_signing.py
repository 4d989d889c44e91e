"""Signing requests as an agent (RFC 9421, Corridor's API.md 9): given the agent's private
key (Ed25519 or ECDSA P-256), every request carries `Signature-Input` and `Signature`
(label sig1) covering @method, @target-uri and, with a body, content-digest (RFC 9530),
with created, a fresh nonce and the keyid (the key's RFC 7638 thumbprint). The signature
base is the `http-message-signatures` library's. A retried request is signed anew."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from datetime import datetime
from typing import Any

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver
from http_message_signatures.algorithms import ECDSA_P256_SHA256, ED25519

SigningKey = ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def public_jwk(key: SigningKey) -> dict[str, str]:
    """The public JSON Web Key of `key`: what an owner binds to the agent
    (POST /v1/agents/{agentId}/signing-keys)."""
    public = key.public_key()
    if isinstance(public, ed25519.Ed25519PublicKey):
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519", "x": _b64url(raw)}
    numbers = public.public_numbers()
    if public.curve.name != "secp256r1":
        raise ValueError("Corridor accepts Ed25519 and ECDSA P-256 keys")
    return {
        "kty": "EC",
        "crv": "P-256",
        "x": _b64url(numbers.x.to_bytes(32, "big")),
        "y": _b64url(numbers.y.to_bytes(32, "big")),
    }


def key_id(key: SigningKey) -> str:
    """The RFC 7638 thumbprint of the public key (the `keyid` Corridor knows it by)."""
    jwk = public_jwk(key)
    members = ("crv", "kty", "x") if jwk["kty"] == "OKP" else ("crv", "kty", "x", "y")
    canonical = json.dumps({name: jwk[name] for name in members}, separators=(",", ":"))
    return _b64url(hashlib.sha256(canonical.encode()).digest())


def load_signing_key(key: Any) -> SigningKey:
    """A private key object, or its PEM text or bytes."""
    if isinstance(key, ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey):
        return key
    if isinstance(key, str):
        key = key.encode()
    loaded = serialization.load_pem_private_key(key, password=None)
    if not isinstance(loaded, ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey):
        raise ValueError("Corridor accepts Ed25519 and ECDSA P-256 keys")
    return loaded


class _Resolver(HTTPSignatureKeyResolver):
    def __init__(self, key: SigningKey) -> None:
        self.key = key

    def resolve_private_key(self, key_id: str) -> Any:
        return self.key

    def resolve_public_key(self, key_id: str) -> Any:
        return self.key.public_key()


class RequestSigner:
    """Signs httpx requests in place with one agent signing key."""

    def __init__(self, key: Any) -> None:
        self.key = load_signing_key(key)
        self.key_id = key_id(self.key)
        algorithm = (
            ED25519 if isinstance(self.key, ed25519.Ed25519PrivateKey) else ECDSA_P256_SHA256
        )
        self._signer = HTTPMessageSigner(
            signature_algorithm=algorithm, key_resolver=_Resolver(self.key)
        )

    def sign(self, request: httpx.Request, *, created: datetime | None = None) -> httpx.Request:
        """Add Signature-Input, Signature and (with a body) Content-Digest; `created`
        defaults to now."""
        body = request.read()
        covered = ["@method", "@target-uri"]
        self._signer.sign(
            _Message(request),
            key_id=self.key_id,
            created=created,
            nonce=secrets.token_urlsafe(24),
            label="sig1",
            include_alg=False,
            covered_component_ids=covered,
            body=body if body else None,
        )
        return request


class _Message:
    """An httpx request as the library reads and writes it."""

    def __init__(self, request: httpx.Request) -> None:
        self.method = request.method
        self.url = str(request.url)
        self.headers = request.headers
