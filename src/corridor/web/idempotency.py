"""Idempotency-Key semantics of API.md section 3.

A request with a key first claims it in a short transaction committed before its work (a
unique row per organization and key, made or taken over in one statement; on PostgreSQL the
first transaction of the request's own session, web/context.py), so a concurrent duplicate
finds the claim and gets 409. The first request's answer is written to that row in the same
transaction as its work; a 4xx answer is stored too, a 5xx answer releases the claim so a
retry runs afresh.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.models.idempotency import IdempotencyRecord
from corridor.web import repository
from corridor.web.errors import IdempotencyKeyInProgress, IdempotencyKeyReused

idempotency_key_chars_max = 255
in_progress_lease_s = 300


@dataclass(frozen=True, slots=True)
class Claim:
    record_id: str


@dataclass(frozen=True, slots=True)
class StoredResponse:
    status: int
    body: str


def fingerprint(method: str, path: str, body: bytes, *, caller: str) -> str:
    """Same caller, method, path and JSON body (whatever its spacing or key order) → same
    fingerprint. The caller is part of it so a stored answer (a key's secret, a resource the
    other caller may not read) is never replayed to anyone but the caller who got it first."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError):
        canonical = body
    digest = hashlib.sha256()
    for part in (caller.encode(), b"\n", method.upper().encode(), b"\n", path.encode(), b"\n"):
        digest.update(part)
    digest.update(canonical)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class KeyUse:
    """A request's use of an Idempotency-Key: whose, which, the request's fingerprint, when,
    and how long its row is kept."""

    organization_id: str
    key: str
    request_fingerprint: str
    now: datetime
    lifetime_s: int

    def row_values(self) -> dict[str, Any]:
        """The key's row as a claim makes it (IN_PROGRESS): leased, kept `lifetime_s`."""
        return {
            "id": new_id("idk"),
            "organization_id": self.organization_id,
            "key": self.key,
            "request_fingerprint": self.request_fingerprint,
            "created_at": self.now,
            "locked_until": self.now + timedelta(seconds=in_progress_lease_s),
            "expires_at": self.now + timedelta(seconds=self.lifetime_s),
        }


async def claim(database: Database, use: KeyUse) -> Claim | StoredResponse:
    """Claim the key for this request in a transaction of its own, or return the stored
    answer of the first one."""
    async with database.session() as session, session.begin():
        return await claim_in(session, use)


async def claim_in(session: AsyncSession, use: KeyUse) -> Claim | StoredResponse:
    """`claim` in the session's transaction, which the caller commits before the request's
    work: one statement claims the key (or takes over an expired or abandoned claim); only
    when the key's row stands is it read (the statement locked it: it cannot go before the
    read), to replay its answer or refuse."""
    values = use.row_values()
    record_id = await repository.claim_idempotency_record(session, values, now=use.now)
    if record_id is not None:
        return Claim(record_id=record_id)
    existing = await repository.idempotency_record(session, use.organization_id, use.key)
    if existing is None:
        raise IdempotencyKeyInProgress()  # swept between the statements: never on a lock
    return _answer_for(existing, use.request_fingerprint)


def completed_record(use: KeyUse, *, status: int, body: str) -> IdempotencyRecord:
    """The key's row holding its first answer, for a request that writes it together with
    its work in one statement and claims nothing beforehand (the express create+submit):
    a concurrent duplicate waits for that statement on the key's unique index, then finds
    the answer to replay."""
    return IdempotencyRecord(
        **use.row_values(), state="COMPLETED", response_status=status, response_body=body
    )


def _answer_for(existing: IdempotencyRecord, request_fingerprint: str) -> StoredResponse:
    if existing.request_fingerprint != request_fingerprint:
        raise IdempotencyKeyReused()
    if existing.state == "IN_PROGRESS":
        raise IdempotencyKeyInProgress()
    assert existing.response_status is not None and existing.response_body is not None
    return StoredResponse(status=existing.response_status, body=existing.response_body)


async def complete(session: AsyncSession, claimed: Claim, *, status: int, body: str) -> None:
    """Store the answer; call inside the work's own transaction, before it commits."""
    await repository.complete_idempotency_record(
        session, claimed.record_id, status=status, body=body
    )


async def complete_separately(
    database: Database, claimed: Claim, *, status: int, body: str
) -> None:
    """Store a refusal (4xx) after the work's transaction rolled back."""
    async with database.session() as session, session.begin():
        await complete(session, claimed, status=status, body=body)


async def release(database: Database, claimed: Claim) -> None:
    async with database.session() as session, session.begin():
        await repository.delete_idempotency_record(session, claimed.record_id)


async def delete_expired(session: AsyncSession, *, now: datetime) -> int:
    return await repository.delete_expired_idempotency_records(session, now=now)
