"""The express create+submit's two statements (PostgreSQL): all it reads in one round trip,
all it writes in another.

The read finds the key, its organization and the three rows the request names, each as
its repository's `visible_…` statement would for an organization key (the organization's
own rows; balance accounts of customers only), and whether the Idempotency-Key is taken.
The write is one statement, hence one transaction: the guarded hold on the source balance
(the general path's `ledger.place_hold`, the account's row lock held to the commit only),
and, only when the hold was placed, the transfer, its legs, its events and the stored
answer. Nothing is written when the hold is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from asyncpg import Connection, Record

from corridor.accounts.service import CUSTOMER_BALANCE
from corridor.ledger.service import OPEN
from corridor.models.idempotency import IdempotencyRecord
from corridor.organizations.configuration import from_document
from corridor.transfers.express.rows import (
    ACCOUNT,
    CUSTOMER,
    EVENT,
    EXTERNAL,
    KEPT_ANSWER,
    LEG,
    TRANSFER,
)
from corridor.transfers.express.submit import Found, Submitted, Wanted

_READ = f"""
SELECT k.id AS key_id, k.kind AS key_kind, k.scopes AS key_scopes,
       k.secret_hash AS key_secret_hash, k.revoked_at AS key_revoked_at,
       k.organization_id AS organization_id, o.kind AS organization_kind,
       o.configuration AS organization_configuration,
       {CUSTOMER.select_list("c")},
       {ACCOUNT.select_list("a")},
       {EXTERNAL.select_list("e")},
       i.id IS NOT NULL AS idempotency_key_taken
FROM api_keys AS k
JOIN organizations AS o ON o.id = k.organization_id
LEFT JOIN customers AS c ON c.organization_id = k.organization_id AND c.id = $2
LEFT JOIN ledger_accounts AS a
  ON a.organization_id = k.organization_id AND a.kind = $3 AND a.id = $4
LEFT JOIN external_accounts AS e ON e.organization_id = k.organization_id AND e.id = $5
LEFT JOIN idempotency_records AS i ON i.organization_id = k.organization_id AND i.key = $6
WHERE k.secret_hash = $1
"""


@dataclass(frozen=True, slots=True)
class KeyRow:
    """The key the credential hashes to, with its organization's kind and configuration."""

    key_id: str
    kind: str
    scopes: list[str]
    secret_hash: str
    revoked_at: datetime | None
    organization_id: str
    organization_kind: str
    configuration: dict[str, Any]
    idempotency_key_taken: bool


def read_statement(
    *, secret_hash: str, wanted: Wanted, idempotency_key: str | None
) -> tuple[str, list[Any]]:
    """The read and its parameters (the benchmark runs it alone, benchmarks/http_submit.py)."""
    parameters = [
        secret_hash,
        wanted.customer_id,
        CUSTOMER_BALANCE,
        wanted.account_id,
        wanted.external_account_id,
        idempotency_key,
    ]
    return _READ, parameters


async def read(
    connection: Connection, *, secret_hash: str, wanted: Wanted, idempotency_key: str | None
) -> tuple[KeyRow, Found] | None:
    """The key (None: no such key) and the rows the request names."""
    statement, parameters = read_statement(
        secret_hash=secret_hash, wanted=wanted, idempotency_key=idempotency_key
    )
    row: Record | None = await connection.fetchrow(statement, *parameters)
    if row is None:
        return None
    key = KeyRow(
        key_id=row["key_id"],
        kind=row["key_kind"],
        scopes=row["key_scopes"],
        secret_hash=row["key_secret_hash"],
        revoked_at=row["key_revoked_at"],
        organization_id=row["organization_id"],
        organization_kind=row["organization_kind"],
        configuration=row["organization_configuration"] or {},
        idempotency_key_taken=row["idempotency_key_taken"],
    )
    found = Found(
        customer=CUSTOMER.instance(row, "c"),
        account=ACCOUNT.instance(row, "a"),
        external=EXTERNAL.instance(row, "e"),
        configuration=from_document(key.configuration),
    )
    return key, found


_HOLD = """
hold AS (
  UPDATE ledger_accounts
  SET pending_debits = pending_debits + $1::BIGINT, updated_at = $2::TIMESTAMP WITH TIME ZONE
  WHERE id = $3::VARCHAR AND organization_id = $4::VARCHAR AND status = $5::VARCHAR
    AND (allow_negative OR posted_balance - pending_debits >= $1::BIGINT)
  RETURNING id
)"""
_HOLD_PARAMETERS = 5


@cache
def _write(legs: int, events: int, keeps_answer: bool) -> str:
    """The write for a transfer of `legs` legs and `events` events (and the stored answer
    of its Idempotency-Key): the hold first, every insert only when it was placed."""
    first = _HOLD_PARAMETERS + 1
    parts = [_HOLD]
    parts.append(f"new_transfer AS ({TRANSFER.insert_rows(first, 1, source='hold')} RETURNING id)")
    first += len(TRANSFER.columns)
    parts.append(f"new_legs AS ({LEG.insert_rows(first, legs, source='new_transfer')})")
    first += legs * len(LEG.columns)
    parts.append(f"new_events AS ({EVENT.insert_rows(first, events, source='new_transfer')})")
    first += events * len(EVENT.columns)
    if keeps_answer:
        answer = KEPT_ANSWER.insert_rows(first, 1, source="new_transfer")
        parts.append(f"kept_answer AS ({answer})")
    return "WITH " + ",\n".join(parts) + "\nSELECT count(*) FROM hold"


def write_statement(
    submitted: Submitted, *, kept_answer: IdempotencyRecord | None, now: datetime
) -> tuple[str, list[Any]]:
    """The write and its parameters."""
    transfer = submitted.transfer
    assert transfer.hold_account_id is not None and transfer.hold_amount is not None
    parameters: list[Any] = [
        transfer.hold_amount,
        now,
        transfer.hold_account_id,
        transfer.organization_id,
        OPEN,
    ]
    parameters += TRANSFER.values(transfer)
    parameters += LEG.parameters(submitted.legs)
    parameters += EVENT.parameters(submitted.events)
    kept: Sequence[IdempotencyRecord] = [kept_answer] if kept_answer is not None else []
    parameters += KEPT_ANSWER.parameters(kept)
    statement = _write(len(submitted.legs), len(submitted.events), kept_answer is not None)
    return statement, parameters


async def write(
    connection: Connection,
    submitted: Submitted,
    *,
    kept_answer: IdempotencyRecord | None,
    now: datetime,
) -> bool:
    """Place the hold and write the rest, in one statement; False when the hold was refused
    (the account is short or not open), and then nothing was written."""
    statement, parameters = write_statement(submitted, kept_answer=kept_answer, now=now)
    return bool(await connection.fetchval(statement, *parameters))
