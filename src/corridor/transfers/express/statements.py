"""The express create+submit's two statements (PostgreSQL): all it reads in one round trip,
all it writes in another.

The read finds the key, its organization and the three rows the request names, each as
its repository's `visible_…` statement would for an organization key (the organization's
own rows; balance accounts of customers only), with the version of each row it relies on
(PostgreSQL's `xmin`, which every UPDATE of a row changes). The write is one statement,
hence one transaction: it checks those versions are still current (a row changed since
it was read writes nothing, as if read now), places the guarded hold on the source balance
(the general path's `ledger.place_hold`; the account's row lock held to the commit only)
and, only when both held, writes the transfer, its legs, its events and the stored answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
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
       k.xmin::text::bigint AS key_version, o.xmin::text::bigint AS organization_version,
       c.xmin::text::bigint AS customer_version, e.xmin::text::bigint AS external_version,
       {CUSTOMER.select_list("c")},
       {ACCOUNT.select_list("a")},
       {EXTERNAL.select_list("e")}
FROM api_keys AS k
JOIN organizations AS o ON o.id = k.organization_id
LEFT JOIN customers AS c ON c.organization_id = k.organization_id AND c.id = $2
LEFT JOIN ledger_accounts AS a
  ON a.organization_id = k.organization_id AND a.kind = $3 AND a.id = $4
LEFT JOIN external_accounts AS e ON e.organization_id = k.organization_id AND e.id = $5
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


@dataclass(frozen=True, slots=True)
class Versions:
    """The versions (xmin) of the rows a create+submit was worked out from. The source
    account has none: the hold checks what matters of it (open, funded) as it writes, and
    what else was read of it (its customer, its currency) never changes."""

    key: int
    organization: int
    customer: int | None
    external: int | None


@dataclass(frozen=True, slots=True)
class Read:
    key: KeyRow
    found: Found
    versions: Versions


def read_statement(*, secret_hash: str, wanted: Wanted) -> tuple[str, list[Any]]:
    """The read and its parameters (the benchmark runs it alone, benchmarks/http_submit.py)."""
    parameters = [
        secret_hash,
        wanted.customer_id,
        CUSTOMER_BALANCE,
        wanted.account_id,
        wanted.external_account_id,
    ]
    return _READ, parameters


async def read(connection: Connection, *, secret_hash: str, wanted: Wanted) -> Read | None:
    """The key (None: no such key) and the rows the request names, with their versions."""
    statement, parameters = read_statement(secret_hash=secret_hash, wanted=wanted)
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
    )
    found = Found(
        customer=CUSTOMER.instance(row, "c"),
        account=ACCOUNT.instance(row, "a"),
        external=EXTERNAL.instance(row, "e"),
        configuration=from_document(key.configuration),
    )
    versions = Versions(
        key=row["key_version"],
        organization=row["organization_version"],
        customer=row["customer_version"],
        external=row["external_version"],
    )
    return Read(key, found, versions)


class Written(Enum):
    WRITTEN = "written"
    # A row read since changed (the key revoked, the customer or account edited, …).
    STALE = "stale"
    # The source account is not open, or holds less than the amount.
    HOLD_REFUSED = "hold refused"


_CURRENT = """
current AS (
  SELECT 1 FROM api_keys AS k, organizations AS o, customers AS c, external_accounts AS e
  WHERE k.id = $6::VARCHAR AND k.xmin::text::bigint = $7::BIGINT
    AND o.id = $8::VARCHAR AND o.xmin::text::bigint = $9::BIGINT
    AND c.id = $10::VARCHAR AND c.xmin::text::bigint = $11::BIGINT
    AND e.id = $12::VARCHAR AND e.xmin::text::bigint = $13::BIGINT
)"""
_HOLD = """
hold AS (
  UPDATE ledger_accounts
  SET pending_debits = pending_debits + $1::BIGINT, updated_at = $2::TIMESTAMP WITH TIME ZONE
  WHERE id = $3::VARCHAR AND organization_id = $4::VARCHAR AND status = $5::VARCHAR
    AND (allow_negative OR posted_balance - pending_debits >= $1::BIGINT)
    AND EXISTS (SELECT 1 FROM current)
  RETURNING id
)"""
_GUARD_PARAMETERS = 13


@cache
def _write(legs: int, events: int, keeps_answer: bool) -> str:
    """The write for a transfer of `legs` legs and `events` events (and the stored answer
    of its Idempotency-Key): the versions checked, the hold, every insert only when both
    held; it answers whether the versions were current and whether the hold was placed."""
    first = _GUARD_PARAMETERS + 1
    parts = [_CURRENT, _HOLD]
    parts.append(f"new_transfer AS ({TRANSFER.insert_rows(first, 1, source='hold')} RETURNING id)")
    first += len(TRANSFER.columns)
    parts.append(f"new_legs AS ({LEG.insert_rows(first, legs, source='new_transfer')})")
    first += legs * len(LEG.columns)
    parts.append(f"new_events AS ({EVENT.insert_rows(first, events, source='new_transfer')})")
    first += events * len(EVENT.columns)
    if keeps_answer:
        answer = KEPT_ANSWER.insert_rows(first, 1, source="new_transfer")
        parts.append(f"kept_answer AS ({answer})")
    answer_row = "SELECT EXISTS (SELECT 1 FROM current), EXISTS (SELECT 1 FROM hold)"
    return "WITH " + ",\n".join(parts) + "\n" + answer_row


def write_statement(
    submitted: Submitted,
    *,
    read: Read,
    kept_answer: IdempotencyRecord | None,
    now: datetime,
) -> tuple[str, list[Any]]:
    """The write and its parameters."""
    transfer = submitted.transfer
    assert transfer.hold_account_id is not None and transfer.hold_amount is not None
    assert read.found.customer is not None and read.found.external is not None
    versions = read.versions
    parameters: list[Any] = [
        transfer.hold_amount,
        now,
        transfer.hold_account_id,
        transfer.organization_id,
        OPEN,
        read.key.key_id,
        versions.key,
        read.key.organization_id,
        versions.organization,
        read.found.customer.id,
        versions.customer,
        read.found.external.id,
        versions.external,
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
    read: Read,
    kept_answer: IdempotencyRecord | None,
    now: datetime,
) -> Written:
    """Check the versions, place the hold and write the rest, in one statement; nothing is
    written unless it answers WRITTEN."""
    statement, parameters = write_statement(submitted, read=read, kept_answer=kept_answer, now=now)
    current, held = await connection.fetchrow(statement, *parameters)
    if not current:
        return Written.STALE
    return Written.WRITTEN if held else Written.HOLD_REFUSED
