"""Idempotency-Key semantics of API.md section 3.

A request with a key first claims it in a short transaction of its own (a unique row per
organization and key), so a concurrent duplicate finds the claim and gets 409. The first
request's answer is written to that row in the same transaction as its work; a 4xx answer
is stored too, a 5xx answer releases the claim so a retry runs afresh.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
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


async def claim(
    database: Database,
    *,
    organization_id: str,
    key: str,
    request_fingerprint: str,
    now: datetime,
    lifetime_s: int,
) -> Claim | StoredResponse:
    """Claim the key for this request, or return the stored answer of the first one."""
    for _ in range(3):
        try:
            async with database.session() as session, session.begin():
                existing = await repository.idempotency_record(session, organization_id, key)
                if (
                    existing is not None
                    and existing.expires_at > now
                    and not _abandoned(existing, now)
                ):
                    return _answer_for(existing, request_fingerprint)
                if existing is not None:
                    await session.delete(existing)
                    await session.flush()
                record = _record(
                    organization_id=organization_id,
                    key=key,
                    request_fingerprint=request_fingerprint,
                    now=now,
                    lifetime_s=lifetime_s,
                )
                session.add(record)
                await session.flush()
                return Claim(record_id=record.id)
        except IntegrityError:
            continue  # another request claimed the key between our read and our insert: look again
    raise IdempotencyKeyInProgress()


def completed_record(
    *,
    organization_id: str,
    key: str,
    request_fingerprint: str,
    status: int,
    body: str,
    now: datetime,
    lifetime_s: int,
) -> IdempotencyRecord:
    """The key's row holding its first answer, for a request that writes it together with
    its work in one statement and claims nothing beforehand (the express create+submit):
    a concurrent duplicate waits for that statement on the key's unique index, then finds
    the answer to replay."""
    record = _record(
        organization_id=organization_id,
        key=key,
        request_fingerprint=request_fingerprint,
        now=now,
        lifetime_s=lifetime_s,
    )
    record.state, record.response_status, record.response_body = "COMPLETED", status, body
    return record


def _record(
    *, organization_id: str, key: str, request_fingerprint: str, now: datetime, lifetime_s: int
) -> IdempotencyRecord:
    """A key's row as a claim makes it: IN_PROGRESS, leased, kept `lifetime_s`."""
    return IdempotencyRecord(
        id=new_id("idk"),
        organization_id=organization_id,
        key=key,
        request_fingerprint=request_fingerprint,
        state="IN_PROGRESS",
        created_at=now,
        locked_until=now + timedelta(seconds=in_progress_lease_s),
        expires_at=now + timedelta(seconds=lifetime_s),
    )


def _answer_for(existing: IdempotencyRecord, request_fingerprint: str) -> StoredResponse:
    if existing.request_fingerprint != request_fingerprint:
        raise IdempotencyKeyReused()
    if existing.state == "IN_PROGRESS":
        raise IdempotencyKeyInProgress()
    assert existing.response_status is not None and existing.response_body is not None
    return StoredResponse(status=existing.response_status, body=existing.response_body)


def _abandoned(record: IdempotencyRecord, now: datetime) -> bool:
    return record.state == "IN_PROGRESS" and record.locked_until <= now


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
