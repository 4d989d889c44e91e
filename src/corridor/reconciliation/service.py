"""Reconciliation's use cases: import a statement (every line matched or an exception,
`reconciliation.exception` for each exception), list the exceptions, resolve one."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit.ids import new_id
from corridor.kit.money import CURRENCIES
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.bank_file import BankFileEntry
from corridor.models.event import emit
from corridor.models.reconciliation import BankStatement, StatementLine
from corridor.models.transfer import Deposit
from corridor.rails import bai2files, iso20022
from corridor.reconciliation import repository, rules
from corridor.reconciliation.errors import LineNotAnException, UnreadableStatement
from corridor.reconciliation.schemas import BankStatementLineRead

EXCEPTION = "reconciliation.exception"
RESOLVED = "reconciliation.resolved"
statement_lines_max = 50_000
description_chars_max = 500


def _candidates(entries: list[BankFileEntry]) -> dict[tuple[str, str], rules.Candidate]:
    """Each payment under its reference and its transfer id, on the statement's side: a
    payout is money out (DEBIT), a pull money in (CREDIT); a returned payment is also the
    other side (a returned payout comes back in, a returned pull goes back out)."""
    found: dict[tuple[str, str], rules.Candidate] = {}
    for entry in entries:
        sides = ["DEBIT" if entry.direction == "CREDIT" else "CREDIT"]
        if entry.status == "RETURNED":
            sides.append(entry.direction)
        for side in sides:
            # The return's side is booked when the return came back: its day is not known.
            on = entry.settles_at.date() if side == sides[0] else None
            candidate = rules.Candidate(entry.transfer_id, side, entry.amount, entry.currency, on)
            found[(entry.reference, side)] = candidate
            found.setdefault((entry.transfer_id, side), candidate)
    return found


def _arrivals(deposits: list[Deposit]) -> dict[str, list[rules.Arrival]]:
    """Deposits under the reference they quoted, in order of arrival."""
    found: dict[str, list[rules.Arrival]] = {}
    for deposit in deposits:
        if deposit.reference:
            found.setdefault(deposit.reference, []).append(
                rules.Arrival(
                    deposit.id,
                    deposit.transfer_id,
                    deposit.amount,
                    deposit.currency,
                    deposit.received_at.date(),
                )
            )
    return found


def _emit_line(session: AsyncSession, event_type: str, line: StatementLine, now: datetime) -> None:
    emit(
        session,
        organization_id=line.organization_id,
        event_type=event_type,
        data=BankStatementLineRead.of(line).model_dump(mode="json", by_alias=True),
        tags=[
            line.id,
            line.statement_id,
            *([line.transfer_id] if line.transfer_id else []),
            *([line.deposit_id] if line.deposit_id else []),
        ],
        at=now,
    )


async def import_statement(
    session: AsyncSession, *, caller: Caller, name: str, content: str, now: datetime
) -> BankStatement:
    """Read a camt.053 or a BAI2 file and match its lines; the same statement again
    changes nothing."""
    caller.require_scope(Scope.TRANSFERS_WRITE)
    sha256 = hashlib.sha256(content.encode()).hexdigest()
    known = await repository.statement_by_sha(session, caller.organization_id, sha256)
    if known is not None:
        return known
    statement_format = "BAI2" if bai2files.looks_like_bai2(content) else "CAMT_053"
    try:
        if statement_format == "BAI2":
            parsed = bai2files.read_statement(content)
        else:
            parsed = iso20022.read_statement(content)
    except (iso20022.IsoMessageError, bai2files.Bai2Error) as error:
        raise UnreadableStatement(str(error)) from error
    if len(parsed.entries) > statement_lines_max:
        raise UnreadableStatement(f"more than {statement_lines_max} lines")
    references = [entry.reference for entry in parsed.entries if entry.reference]
    entries = await repository.entries_named(session, caller.organization_id, references)
    candidates = _candidates(entries)
    matched = await repository.matched_keys(session, caller.organization_id, references)
    credits = [
        entry.reference
        for entry in parsed.entries
        if entry.reference and entry.direction == "CREDIT"
    ]
    deposits = await repository.deposits_named(session, caller.organization_id, credits)
    arrivals = _arrivals(deposits)
    matched_deposits = await repository.matched_deposit_ids(
        session, caller.organization_id, [deposit.id for deposit in deposits]
    )
    statement = BankStatement(
        id=new_id("stm"),
        organization_id=caller.organization_id,
        format=statement_format,
        statement_id=(parsed.statement_id or "")[:64] or None,
        account=(parsed.account or "")[:64] or None,
        name=name[:200],
        sha256=sha256,
        line_count=len(parsed.entries),
        matched_count=0,
        exception_count=0,
        created_at=now,
    )
    session.add(statement)
    for number, entry in enumerate(parsed.entries, start=1):
        currency = CURRENCIES.get(entry.currency)
        amount = rules.minor_units(entry.amount, currency.exponent) if currency else None
        outcome = rules.match(
            reference=entry.reference,
            direction=entry.direction,
            amount=amount,
            currency=entry.currency,
            candidates=candidates,
            matched=matched,
            arrivals=arrivals,
            matched_deposits=matched_deposits,
            booked=rules.booked_day(entry.booked_on),
        )
        line = StatementLine(
            id=new_id("stl"),
            organization_id=caller.organization_id,
            statement_id=statement.id,
            line_number=number,
            direction=entry.direction,
            amount=amount if amount is not None else 0,
            currency=entry.currency[:10],
            booked_on=entry.booked_on,
            reference=(entry.reference or "")[:64] or None,
            description=(entry.description or "")[:description_chars_max] or None,
            status=outcome.status,
            transfer_id=outcome.transfer_id,
            deposit_id=outcome.deposit_id,
            exception_reason=outcome.reason,
            created_at=now,
        )
        session.add(line)
        if outcome.status == "MATCHED":
            statement.matched_count += 1
        else:
            statement.exception_count += 1
            _emit_line(session, EXCEPTION, line, now)
    return statement


async def list_lines(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    status: str | None,
    statement_id: str | None,
) -> Page[StatementLine]:
    caller.require_scope(Scope.TRANSFERS_READ)
    statement = repository.listed_lines(caller, status=status, statement_id=statement_id)
    return await fetch_page(session, statement, StatementLine.id, page)


async def get_line(session: AsyncSession, *, caller: Caller, line_id: str) -> StatementLine:
    caller.require_scope(Scope.TRANSFERS_READ)
    return await repository.line_of(session, caller, line_id, locked=False)


async def get_statement(
    session: AsyncSession, *, caller: Caller, statement_id: str
) -> BankStatement:
    caller.require_scope(Scope.TRANSFERS_READ)
    return await repository.statement_of(session, caller, statement_id)


async def resolve_exception(
    session: AsyncSession,
    *,
    caller: Caller,
    line_id: str,
    resolution: str,
    transfer_id: str | None,
    now: datetime,
) -> StatementLine:
    """An operator says what an exception was; it leaves the exceptions list."""
    caller.require_scope(Scope.TRANSFERS_WRITE)
    line = await repository.line_of(session, caller, line_id, locked=True)
    if line.status != "EXCEPTION":
        raise LineNotAnException(line.status)
    line.status, line.resolution = "RESOLVED", resolution
    line.transfer_id = transfer_id or line.transfer_id
    line.resolved_by, line.resolved_at = caller.actor_id, now
    _emit_line(session, RESOLVED, line, now)
    return line
