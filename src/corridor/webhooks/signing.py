"""Standard Webhooks signing: secrets, signatures and the headers of a delivery (pure).

A signature is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
keyed with the secret's bytes. During a rotation's grace period a delivery carries one
signature per valid secret, space-separated, so receivers holding either secret verify it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from corridor.kit.clock import as_utc, isoformat_z

SECRET_PREFIX = "whsec_"
secret_bytes_default = 32
secret_bytes_min = 24
secret_bytes_max = 64
# Spec 6 and 8: the secret a rotation replaces stays valid for 24 hours.
rotation_grace_s = 24 * 60 * 60
# Old secrets kept at most (each only while its grace period lasts).
previous_secrets_max = 5


class SecretError(ValueError):
    """The text is not a usable whsec_ secret."""


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(secret_bytes_default)).decode()


def secret_key_bytes(secret: str) -> bytes:
    """The HMAC key inside a `whsec_<base64>` secret."""
    if not secret.startswith(SECRET_PREFIX):
        raise SecretError(f"must start with {SECRET_PREFIX}")
    encoded = secret[len(SECRET_PREFIX) :]
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise SecretError(f"must be {SECRET_PREFIX} followed by base64") from None
    if not secret_bytes_min <= len(key) <= secret_bytes_max:
        raise SecretError(f"must hold {secret_bytes_min} to {secret_bytes_max} bytes of key")
    return key


def sign(secret: str, *, message_id: str, timestamp_s: int, body: bytes) -> str:
    """One `v1,<base64>` signature of the message."""
    signed = f"{message_id}.{timestamp_s}.".encode() + body
    digest = hmac.new(secret_key_bytes(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signature_header(
    secrets_in_use: Sequence[str], *, message_id: str, timestamp_s: int, body: bytes
) -> str:
    """The webhook-signature header: one signature per secret, newest secret first."""
    assert secrets_in_use, "a delivery is always signed"
    return " ".join(
        sign(secret, message_id=message_id, timestamp_s=timestamp_s, body=body)
        for secret in secrets_in_use
    )


def delivery_headers(
    secrets_in_use: Sequence[str], *, message_id: str, at: datetime, body: bytes
) -> dict[str, str]:
    timestamp_s = int(as_utc(at).timestamp())
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp_s),
        "webhook-signature": signature_header(
            secrets_in_use, message_id=message_id, timestamp_s=timestamp_s, body=body
        ),
    }


# --- Rotation -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreviousSecret:
    key: str
    expires_at: datetime

    def to_document(self) -> dict[str, str]:
        return {"key": self.key, "expiresAt": isoformat_z(self.expires_at)}

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> PreviousSecret:
        expires = datetime.fromisoformat(str(document["expiresAt"]).replace("Z", "+00:00"))
        return cls(key=str(document["key"]), expires_at=as_utc(expires))


def still_valid(previous: Iterable[PreviousSecret], now: datetime) -> list[PreviousSecret]:
    return [secret for secret in previous if secret.expires_at > now]


def rotated(
    current: str, previous: Sequence[PreviousSecret], *, now: datetime
) -> list[PreviousSecret]:
    """The previous secrets after `current` is replaced: it joins them for the grace period,
    expired ones leave, and at most `previous_secrets_max` (the newest) are kept."""
    replaced = PreviousSecret(key=current, expires_at=now + timedelta(seconds=rotation_grace_s))
    return [replaced, *still_valid(previous, now)][:previous_secrets_max]


def secrets_in_use(current: str, previous: Sequence[PreviousSecret], *, now: datetime) -> list[str]:
    """Every secret a delivery made at `now` is signed with: the current one first."""
    return [current, *(secret.key for secret in still_valid(previous, now))]
