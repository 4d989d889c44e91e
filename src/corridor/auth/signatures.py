"""Signed agent requests (RFC 9421, API.md 9): once an agent has a signing key, every
request made with its agent key carries `Signature-Input` and `Signature` (label `sig1`)
covering `@method`, `@target-uri` and, with a body, `content-digest` (RFC 9530), with
`created`, `nonce` and `keyid` parameters. The signature base and the digest are the
`http-message-signatures` library's; this module chooses the key, the window and the
nonce rule.

Refusals are 401: `signature_required` (no signature on a request that needs one),
`signature_invalid` (unknown key, bad signature, a component or parameter missing, a body
that does not match its digest), `signature_expired` (`created` outside the 5-minute
window), `nonce_reused` (a nonce this key already used within the window; nonces are rows,
so every process sees them).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import http_sf
from http_message_signatures import (
    HTTPMessageVerifier,
    HTTPSignatureKeyResolver,
    InvalidSignature,
)
from http_message_signatures.algorithms import ECDSA_P256_SHA256, ED25519
from http_message_signatures.exceptions import HTTPMessageSignaturesException
from joserfc.errors import JoseError
from joserfc.jwk import ECKey, OKPKey
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth import repository
from corridor.kit.db import Database
from corridor.kit.errors import Unauthorized, ValidationFailed
from corridor.models.signing import AgentSigningKey, SignatureNonce

LABEL = "sig1"
window_s = 5 * 60
# How far in the future a `created` may be (clocks differ a little).
future_skew_s = 5
nonce_chars_max = 200
nonces_pruned_per_request_max = 100
ALGORITHMS = {"ed25519": ED25519, "ecdsa-p256-sha256": ECDSA_P256_SHA256}


class SignatureRefused(Unauthorized):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _required() -> SignatureRefused:
    return SignatureRefused(
        "signature_required",
        "This agent signs its requests: send Signature-Input and Signature (RFC 9421, label "
        "sig1) covering @method, @target-uri and content-digest, with created, nonce, keyid",
    )


def _invalid(reason: str) -> SignatureRefused:
    return SignatureRefused("signature_invalid", f"The request signature is not valid: {reason}")


# --- Public keys ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PublicKey:
    key_id: str
    algorithm: str
    jwk: dict[str, Any]


def public_key_of(jwk: Any) -> PublicKey:
    """An Ed25519 (OKP) or ECDSA P-256 (EC) public JWK, checked by joserfc; its RFC 7638
    thumbprint is its key id. A private key is refused: only the public part is kept."""
    if not isinstance(jwk, dict):
        raise ValidationFailed("publicKeyJwk", "must be a JSON Web Key object")
    if "d" in jwk:
        raise ValidationFailed("publicKeyJwk", "send the public key only (no 'd')")
    kty, crv = jwk.get("kty"), jwk.get("crv")
    try:
        if kty == "OKP" and crv == "Ed25519":
            key: OKPKey | ECKey = OKPKey.import_key(jwk)
            algorithm = "ed25519"
        elif kty == "EC" and crv == "P-256":
            key = ECKey.import_key(jwk)
            algorithm = "ecdsa-p256-sha256"
        else:
            raise ValidationFailed(
                "publicKeyJwk", "must be an Ed25519 (kty OKP) or P-256 (kty EC) public key"
            )
    except (JoseError, ValueError, TypeError) as error:
        raise ValidationFailed("publicKeyJwk", f"is not a valid key: {error}") from None
    public = key.as_dict(private=False)
    return PublicKey(key_id=key.thumbprint(), algorithm=algorithm, jwk=public)


def _cryptography_key(row: AgentSigningKey) -> Any:
    importer = OKPKey if row.algorithm == "ed25519" else ECKey
    return importer.import_key(row.public_key_jwk).public_key


# --- Verification --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SignedRequest:
    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes


class _Message:
    """The request as the library reads it."""

    def __init__(self, request: SignedRequest) -> None:
        self.method = request.method.upper()
        self.url = request.url
        self.headers = dict(request.headers.items())


class _OneKey(HTTPSignatureKeyResolver):
    def __init__(self, row: AgentSigningKey) -> None:
        self.row = row

    def resolve_public_key(self, key_id: str) -> Any:
        return _cryptography_key(self.row) if key_id == self.row.key_id else None

    def resolve_private_key(self, key_id: str) -> Any:
        raise KeyError(key_id)


class _Verifier(HTTPMessageVerifier):
    """The library's verifier, its clock the server's (the window is checked before)."""

    def validate_created_and_expires(self, sig_input: Any, max_age: Any = None) -> None:
        return None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def _signature_input(headers: Mapping[str, str]) -> tuple[list[str], dict[str, Any]]:
    """The covered components and parameters of label sig1, as the client sent them."""
    raw = _header(headers, "signature-input")
    if raw is None or _header(headers, "signature") is None:
        raise _required()
    try:
        parsed: Any = http_sf.parse(raw.encode(), tltype="dictionary")
    except Exception:
        raise _invalid("Signature-Input is not a structured field dictionary") from None
    if not isinstance(parsed, dict) or set(parsed) != {LABEL}:
        raise _invalid(f"send exactly one signature, labelled {LABEL}")
    members, parameters = parsed[LABEL]
    if not isinstance(members, list) or not isinstance(parameters, dict):
        raise _invalid(f"{LABEL} must list its covered components")
    return [str(member[0]) for member in members], dict(parameters)


async def _live_keys(session: AsyncSession, agent_id: str) -> list[AgentSigningKey]:
    return await repository.live_signing_keys(session, agent_id)


async def agent_signs(session: AsyncSession, agent_id: str) -> bool:
    return bool(await _live_keys(session, agent_id))


async def verify(
    session: AsyncSession, *, agent_id: str, request: SignedRequest, now: dt.datetime
) -> SignatureNonce | None:
    """Check the request's signature when the agent has signing keys; the nonce to keep
    (`keep_nonce`), or None when the agent does not sign."""
    keys = await _live_keys(session, agent_id)
    if not keys:
        return None
    covered, parameters = _signature_input(request.headers)
    for needed in ("created", "nonce", "keyid"):
        if needed not in parameters:
            raise _invalid(f"the {needed!r} parameter is missing")
    wanted = {"@method", "@target-uri"} | ({"content-digest"} if request.body else set())
    missing = sorted(wanted - set(covered))
    if missing:
        raise _invalid(f"it must cover {', '.join(missing)}")
    nonce, created = parameters["nonce"], parameters["created"]
    if not isinstance(nonce, str) or not nonce or len(nonce) > nonce_chars_max:
        raise _invalid(f"nonce must be a string of 1 to {nonce_chars_max} characters")
    if not isinstance(created, int) or isinstance(created, bool):
        raise _invalid("created must be an integer (seconds since the epoch)")
    age_s = now.timestamp() - created
    if age_s > window_s or age_s < -future_skew_s:
        raise SignatureRefused(
            "signature_expired",
            f"The signature was created {int(age_s)} s from now; it must be within "
            f"{window_s // 60} minutes",
        )
    row = next((key for key in keys if key.key_id == parameters["keyid"]), None)
    if row is None:
        raise _invalid("keyid names no signing key of this agent")
    verifier = _Verifier(signature_algorithm=ALGORITHMS[row.algorithm], key_resolver=_OneKey(row))
    try:
        verifier.verify(
            _Message(request),
            max_age=None,
            require_components=sorted(wanted),
            body=request.body,
        )
    except (InvalidSignature, HTTPMessageSignaturesException) as error:
        raise _invalid(str(error) or type(error).__name__) from None
    return SignatureNonce(
        key_id=row.key_id,
        nonce=nonce,
        expires_at=dt.datetime.fromtimestamp(created + window_s, tz=dt.UTC),
    )


async def keep_nonce(database: Database, nonce: SignatureNonce, now: dt.datetime) -> None:
    """Record the nonce in a transaction of its own (used once, whatever the request
    does next); a second use within the window is refused. Lapsed nonces are pruned."""
    async with database.session(write=True) as session:
        try:
            async with session.begin():
                session.add(nonce)
                await session.flush()
                await repository.prune_nonces(
                    session, lapsed_before=now, limit=nonces_pruned_per_request_max
                )
        except IntegrityError:
            raise SignatureRefused(
                "nonce_reused", "This signature's nonce was used already: sign each request anew"
            ) from None
