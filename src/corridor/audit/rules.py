"""Pure rules of the audit chain: its kinds, a record's hash, and the verification of a
chain (used alike by `corridor audit verify` and the console).

A record's `hash` is `sha256:` and the hex SHA-256 of the RFC 8785 (JSON Canonicalization
Scheme) bytes of the record as the API shows it (`GET /v1/audit-events`) without its
`hash` member. The first record of an organization links to `GENESIS_HASH`."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import rfc8785

from corridor.kit.clock import isoformat_z

HASH_PREFIX = "sha256:"
# What sequence 1 links to: no record before it.
GENESIS_HASH = HASH_PREFIX + "0" * 64


class AuditKind(StrEnum):
    """What a record is of; mandates (`agent.mandate.*`) are added by their branch."""

    PAYMENT_ALLOWED = "agent.payment.allowed"
    PAYMENT_PARKED = "agent.payment.parked"
    PAYMENT_DENIED = "agent.payment.denied"
    APPROVAL_APPROVED = "agent.approval.approved"
    APPROVAL_DECLINED = "agent.approval.declined"
    KEY_ISSUED = "agent.key.issued"
    KEY_REVOKED = "agent.key.revoked"
    AGENT_CREATED = "agent.created"
    AGENT_UPDATED = "agent.updated"
    AGENT_REVOKED = "agent.revoked"
    TOOL_CONFIRMED = "tool.call.confirmed"
    TOOL_REFUSED = "tool.call.refused"
    MANDATE_CREATED = "agent.mandate.created"
    MANDATE_CONSUMED = "agent.mandate.consumed"
    MANDATE_REVOKED = "agent.mandate.revoked"


class AuditOutcome(StrEnum):
    ALLOWED = "allowed"
    PARKED = "parked"
    DENIED = "denied"
    APPROVED = "approved"
    DECLINED = "declined"
    ISSUED = "issued"
    REVOKED = "revoked"
    CREATED = "created"
    UPDATED = "updated"
    CONFIRMED = "confirmed"
    REFUSED = "refused"
    CONSUMED = "consumed"


def stored_moment(at: datetime) -> datetime:
    """The moment a record keeps: to the millisecond, as the API shows it, so the stored
    row and the hashed item never differ."""
    return at.replace(microsecond=at.microsecond // 1000 * 1000)


def item(
    *,
    id: str,
    sequence: int,
    kind: str,
    agent_id: str | None,
    transfer_id: str | None,
    mandate_id: str | None,
    actor: Mapping[str, Any],
    outcome: str,
    detail: Mapping[str, Any],
    created_at: datetime,
    previous_hash: str,
) -> dict[str, Any]:
    """The record as the API shows it, without `hash`: what the hash covers."""
    return {
        "id": id,
        "sequence": sequence,
        "kind": kind,
        "agentId": agent_id,
        "transferId": transfer_id,
        "mandateId": mandate_id,
        "actor": dict(actor),
        "outcome": outcome,
        "detail": dict(detail),
        "createdAt": isoformat_z(created_at),
        "previousHash": previous_hash,
    }


def canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON."""
    return rfc8785.dumps(value)


def hash_of(unhashed: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the canonical JSON of an item without its `hash`."""
    body = {key: value for key, value in unhashed.items() if key != "hash"}
    return HASH_PREFIX + hashlib.sha256(canonical(body)).hexdigest()


@dataclass(frozen=True, slots=True)
class Verification:
    """A chain's check: `count` records hold; or the first bad `sequence` and why."""

    count: int
    bad_sequence: int | None = None
    reason: str | None = None

    @property
    def holds(self) -> bool:
        return self.bad_sequence is None


def verify(items: Iterable[Mapping[str, Any]], head: tuple[int, str] | None = None) -> Verification:
    """Recompute every hash and link of one organization's chain, given in sequence order
    (API shape, with `hash`): sequences 1, 2, 3… with no gap, each `previousHash` the hash
    of the one before (GENESIS_HASH for the first), each `hash` its content's. With the
    organization's `head` (its last sequence and hash), a record removed from the end
    shows too."""
    expected_sequence = 1
    previous = GENESIS_HASH
    count = 0
    for record in items:
        sequence = record["sequence"]
        if sequence != expected_sequence:
            return Verification(
                count,
                min(sequence, expected_sequence),
                f"sequence {expected_sequence} expected, found {sequence} (a record is "
                "missing or repeated)",
            )
        if record["previousHash"] != previous:
            return Verification(
                count, sequence, "previousHash is not the hash of the record before"
            )
        if hash_of(record) != record["hash"]:
            return Verification(count, sequence, "hash does not match the record's content")
        previous = record["hash"]
        expected_sequence += 1
        count += 1
    if head is not None:
        head_sequence, head_hash = head
        if head_sequence != count or (count and head_hash != previous):
            return Verification(
                count,
                count + 1 if head_sequence > count else count,
                f"the chain ends at sequence {count}, its head records sequence "
                f"{head_sequence} (records missing or altered at the end)",
            )
    return Verification(count)


def actor_of(kind: str, actor_id: str) -> dict[str, str]:
    return {"type": kind, "id": actor_id}


@dataclass(frozen=True, slots=True)
class AuditFilters:
    agent_id: str | None = None
    transfer_id: str | None = None
    kind: str | None = None
    created_after: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
