"""A customer's treasury: its balances per currency, and their value in the organization's
reporting currency at the sandbox reference rates."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.kit import fx
from corridor.kit.schemas import Amount
from corridor.organizations.configuration import from_document
from corridor.treasury import repository, rules
from corridor.treasury.schemas import CurrencyBalanceRead, TreasuryBalancesRead

READ_SCOPE = Scope.ACCOUNTS_READ
history_days_default = 30
history_days_max = 366


async def treasury_balances(
    session: AsyncSession, *, caller: Caller, customer_id: str, now: datetime
) -> TreasuryBalancesRead:
    caller.require_scope(READ_SCOPE)
    customer = await customers.get_customer(session, caller=caller, customer_id=customer_id)
    accounts = await repository.balance_accounts(session, caller, customer.id)
    organization = await repository.organization(session, customer.organization_id)
    reporting = from_document(organization.configuration).reporting_currency
    holdings = rules.holdings(
        rules.AccountFigures(
            account.currency,
            account.posted_balance,
            account.pending_debits,
            account.pending_credits,
        )
        for account in accounts
    )
    balances = []
    total_available = total = 0
    unpriced = []
    for holding in holdings:
        valued = rules.valuation(holding, reporting)
        if valued.available is None or valued.total is None:
            unpriced.append(holding.currency)
        else:
            total_available += valued.available
            total += valued.total
        balances.append(_currency_balance(holding, valued, reporting))
    return TreasuryBalancesRead(
        customer_id=customer.id,
        reporting_currency=reporting,
        balances=balances,
        available=Amount.of(total_available, reporting),
        total=Amount.of(total, reporting),
        unpriced_currencies=unpriced,
        rate_provider=fx.REFERENCE_PROVIDER,
        rates_as_of=fx.REFERENCE_RATES_AS_OF,
        as_of=now,
    )


async def organization_balances(session: AsyncSession, *, caller: Caller) -> list[rules.Holding]:
    """The organization's customer balances per currency (the console's home page)."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    return [
        rules.holding_of(figures)
        for figures in await repository.figures_per_currency(session, caller)
    ]


async def balance_history(
    session: AsyncSession, *, caller: Caller, now: datetime, days: int = history_days_default
) -> list[rules.BalanceHistory]:
    """The organization's posted customer balances per currency at the end of each of the
    last `days` UTC days (today: now), from the ledger's postings (the console's chart)."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    assert 1 <= days <= history_days_max
    calendar = rules.history_days(now.astimezone(UTC).date(), days)
    # Postings of the days after the first: walking back from now needs no more.
    since = datetime.combine(calendar[0], time(), tzinfo=UTC) + timedelta(days=1)
    posted_now = {
        figures.currency: figures.posted
        for figures in await repository.figures_per_currency(session, caller)
    }
    net = await repository.net_postings_per_day(session, caller, since)
    return rules.balance_history(posted_now, net, calendar)


def _currency_balance(
    holding: rules.Holding, valued: rules.Valuation, reporting: str
) -> CurrencyBalanceRead:
    code = holding.currency
    return CurrencyBalanceRead(
        currency=code,
        available=Amount.of(holding.available, code),
        held=Amount.of(holding.held, code),
        pending=Amount.of(holding.pending, code),
        total=Amount.of(holding.total, code),
        accounts=holding.accounts,
        rate=fx.format_rate(valued.rate) if valued.rate is not None else None,
        available_in_reporting_currency=(
            Amount.of(valued.available, reporting) if valued.available is not None else None
        ),
        total_in_reporting_currency=(
            Amount.of(valued.total, reporting) if valued.total is not None else None
        ),
    )
