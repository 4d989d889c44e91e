"""Monthly statements of a balance account, checked against the ledger as they are made,
and the month's transfers that passed through the account without touching its balance."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit.schemas import Amount
from corridor.models.ledger import LedgerAccount
from corridor.statements import repository, rules
from corridor.statements.errors import NoSuchPeriod, StatementTooLarge
from corridor.statements.rules import Movement, Period
from corridor.statements.schemas import (
    NonBalanceItemRead,
    NonBalanceStatementRead,
    PartyRead,
    StatementLineRead,
    StatementRead,
)

READ_SCOPE = Scope.ACCOUNTS_READ


@dataclass(frozen=True, slots=True)
class Month:
    account: LedgerAccount
    period: Period
    end: datetime
    complete: bool

    @property
    def query_end(self) -> datetime:
        """Exclusive bound of what the month holds: a running month includes `now` itself."""
        return self.end if self.complete else self.end + timedelta(microseconds=1)


async def _month(
    session: AsyncSession, caller: Caller, account_id: str, period_text: str, now: datetime
) -> Month:
    caller.require_scope(READ_SCOPE)
    account = await accounts.get_account(session, caller=caller, account_id=account_id)
    period = rules.parse_period(period_text)
    if period is None:
        raise NoSuchPeriod("must be a month as YYYY-MM, e.g. 2026-01")
    problem = rules.period_problem(period, opened_at=account.created_at, now=now)
    if problem is not None:
        raise NoSuchPeriod(problem)
    complete = period.end <= now
    return Month(account, period, period.end if complete else now, complete)


async def monthly_statement(
    session: AsyncSession, *, caller: Caller, account_id: str, period: str, now: datetime
) -> StatementRead:
    """Opening balance, every balance transaction of the UTC month with the running
    balance, closing balance, totals in and out. The current month runs to `now`."""
    month = await _month(session, caller, account_id, period, now)
    account = month.account
    opening = await repository.balance_before(session, account.id, month.period.start)
    found = await repository.postings_between(
        session, account.id, month.period.start, month.query_end, limit=rules.statement_lines_max
    )
    if len(found) > rules.statement_lines_max:
        raise StatementTooLarge(rules.statement_lines_max)
    made = rules.figures(
        opening,
        [
            Movement(
                id=posting.id,
                at=posting.created_at,
                amount=posting.amount,
                kind=posting.kind,
                transfer_id=posting.transfer_id,
                description=description,
            )
            for posting, description in found
        ],
    )
    assert account.customer_id is not None
    organization, customer = await repository.names(
        session, account.organization_id, account.customer_id
    )

    def amount(value: int) -> Amount:
        return Amount.of(value, account.currency)

    return StatementRead(
        account_id=account.id,
        currency=account.currency,
        period=month.period.label,
        period_start=month.period.start,
        period_end=month.end,
        complete=month.complete,
        organization=PartyRead(id=organization.id, name=organization.name),
        customer=PartyRead(id=customer.id, name=customer.name),
        opening_balance=amount(made.opening),
        total_in=amount(made.total_in),
        total_out=amount(made.total_out),
        closing_balance=amount(made.closing),
        transactions=[
            StatementLineRead(
                id=line.movement.id,
                created_at=line.movement.at,
                direction="CREDIT" if line.movement.amount >= 0 else "DEBIT",
                amount=amount(abs(line.movement.amount)),
                balance_after=amount(line.balance_after),
                type=line.movement.kind,
                transfer_id=line.movement.transfer_id,
                description=line.movement.description,
            )
            for line in made.lines
        ],
        generated_at=now,
    )


async def non_balance_statement(
    session: AsyncSession, *, caller: Caller, account_id: str, period: str, now: datetime
) -> NonBalanceStatementRead:
    """The month's deposits to the account's virtual accounts (its `vba_`, fixed routes'
    accounts, deposit wallets) whose transfers went on without touching the balance."""
    month = await _month(session, caller, account_id, period, now)
    found = await repository.deposits_passed_through(
        session,
        month.account.id,
        month.period.start,
        month.query_end,
        limit=rules.statement_lines_max,
    )
    if len(found) > rules.statement_lines_max:
        raise StatementTooLarge(rules.statement_lines_max)
    return NonBalanceStatementRead(
        account_id=month.account.id,
        currency=month.account.currency,
        period=month.period.label,
        period_start=month.period.start,
        period_end=month.end,
        complete=month.complete,
        transfers=[
            NonBalanceItemRead(
                transfer_id=item.transfer.id,
                deposit_id=item.deposit.id,
                received_at=item.deposit.received_at,
                virtual_account_id=item.virtual_account.id,
                virtual_account_type=item.virtual_account.type,
                fixed_route_id=item.transfer.fixed_route_id,
                amount_received=Amount.of(item.deposit.amount, item.deposit.currency),
                destination_amount=Amount.of(
                    item.transfer.destination_amount, item.transfer.destination_currency
                ),
                flow=item.transfer.flow,
                status=item.transfer.status,
            )
            for item in found
        ],
        generated_at=now,
    )
