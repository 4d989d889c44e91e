"""The service's receipt signing keys and compact JWS (EdDSA over Ed25519) with joserfc.

Keys are the service's, not an organization's. The first is made on first need and
inserted if absent (generation 1 is unique), so several processes needing it at once end
up sharing one; `rotate` makes a new active key and retires the others, which stay in the
JWKS so the receipts they signed still verify. Private keys are kept encrypted under the
server key (models.base.EncryptedText, kit/secretbox.py).
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, OKPKey
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit import metrics
from corridor.models.receipt import ReceiptSigningKey
from corridor.receipts import repository
from corridor.receipts.errors import ReceiptInvalid
from corridor.receipts.rules import ALG, KEY_ACTIVE

# Private keys read back once per process (kid → key): a receipt is signed in the
# transaction of a payment, without a decryption each time.
_private_keys: dict[str, OKPKey] = {}

# The active key, read again at most this often per process and database: an agent's
# payment signs its receipt without a query for the key. A rotation in this process is
# seen at once; one in another process (`corridor receipts rotate-key`) within this many
# seconds, and receipts signed meanwhile by the retired key still verify (it stays in
# the JWKS).
active_key_reread_s = 30.0


@dataclass(frozen=True, slots=True)
class SigningKey:
    kid: str
    private: OKPKey


# database URL → (monotonic deadline, the active key)
_active: dict[str, tuple[float, SigningKey]] = {}


@contextmanager
def _quiet() -> Iterator[None]:
    """joserfc warns that RFC 9864 deprecates the polymorphic "EdDSA"; API.md 9 names it,
    and with Ed25519 keys only it means exactly Ed25519."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*EdDSA is deprecated.*")
        yield


def new_key_values(*, generation: int, now: datetime) -> dict[str, Any]:
    key = OKPKey.generate_key("Ed25519")
    kid = key.thumbprint()
    public = {**key.as_dict(private=False), "kid": kid, "alg": ALG, "use": "sig"}
    return {
        "kid": kid,
        "generation": generation,
        "alg": ALG,
        "public_jwk": public,
        "private_jwk": json.dumps(key.as_dict(private=True)),
        "status": KEY_ACTIVE,
        "created_at": now,
    }


def _database_of(session: AsyncSession) -> str:
    return str(session.get_bind().engine.url)


async def signing_key(session: AsyncSession, *, now: datetime) -> SigningKey:
    """The active key (kept `active_key_reread_s`); the first one is made here when there
    is none yet."""
    database = _database_of(session)
    kept = _active.get(database)
    if kept is not None and time.monotonic() < kept[0]:
        return kept[1]
    row = await repository.active_key(session)
    if row is None:
        await repository.insert_key_if_absent(session, new_key_values(generation=1, now=now))
        row = await repository.active_key(session)
        assert row is not None, "generation 1 was inserted, by this process or another"
    key = SigningKey(row.kid, _private(row))
    _active[database] = (time.monotonic() + active_key_reread_s, key)
    return key


def _forget_active(database: str) -> None:
    _active.pop(database, None)


async def rotate(session: AsyncSession, *, now: datetime) -> ReceiptSigningKey:
    """A new active key; the others are retired (still published, no longer signing)."""
    values = new_key_values(generation=await repository.last_generation(session) + 1, now=now)
    session.add(ReceiptSigningKey(**values))
    await session.flush()
    await repository.retire_keys_except(session, values["kid"])
    key = await repository.active_key(session)
    assert key is not None and key.kid == values["kid"]
    # Forgotten now and again once committed: a signing in between re-read the old key.
    database = _database_of(session)
    _forget_active(database)
    metrics.after_commit(session, lambda: _forget_active(database))
    return key


def _private(key: ReceiptSigningKey) -> OKPKey:
    private = _private_keys.get(key.kid)
    if private is None:
        private = OKPKey.import_key(json.loads(key.private_jwk))
        _private_keys[key.kid] = private
    return private


def sign(key: SigningKey, payload: bytes) -> str:
    with _quiet():
        return jws.serialize_compact(
            {"alg": ALG, "kid": key.kid}, payload, key.private, algorithms=[ALG]
        )


def jwks_of(public_jwks: list[dict[str, Any]]) -> dict[str, Any]:
    """The JWKS document: public parts only."""
    return {"keys": public_jwks}


def verify(token: str, jwks: dict[str, Any]) -> dict[str, Any]:
    """The payload of a receipt that verifies against `jwks`; ReceiptInvalid otherwise."""
    token = token.strip()
    if token.count(".") != 2:
        raise ReceiptInvalid("not a compact JWS (three dot-separated parts)")
    try:
        with _quiet():
            header = jws.extract_compact(token.encode()).headers()
    except (JoseError, ValueError, TypeError) as error:
        raise ReceiptInvalid(f"the JWS does not parse: {error}") from None
    kid = header.get("kid")
    if header.get("alg") != ALG:
        raise ReceiptInvalid(f"unexpected alg {header.get('alg')!r} (receipts use {ALG})")
    published = [key for key in jwks.get("keys", []) if isinstance(key, dict)]
    matching = [key for key in published if key.get("kid") == kid]
    if not matching:
        raise ReceiptInvalid(f"unknown kid {kid!r}: no key of the JWKS has it")
    try:
        keys = KeySet.import_key_set({"keys": matching})
    except (JoseError, ValueError, KeyError, TypeError) as error:
        raise ReceiptInvalid(f"the JWKS key {kid!r} does not load: {error}") from None
    try:
        with _quiet():
            verified = jws.deserialize_compact(token, keys, algorithms=[ALG])
    except JoseError as error:
        raise ReceiptInvalid(f"bad signature ({error.error})") from None
    except (ValueError, TypeError) as error:
        raise ReceiptInvalid(f"the JWS does not parse: {error}") from None
    try:
        payload = json.loads(verified.payload)
    except ValueError:
        raise ReceiptInvalid("the payload is not JSON") from None
    if not isinstance(payload, dict):
        raise ReceiptInvalid("the payload is not a JSON object")
    return payload
