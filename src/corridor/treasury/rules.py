"""Treasury's pure rules: a customer's balances summed per currency and valued in one
reporting currency at the reference rate (no spread: a valuation, not a trade)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal

from corridor.kit import fx


@dataclass(frozen=True, slots=True)
class Holding:
    """One currency across the customer's accounts, in minor units."""

    currency: str
    available: int = 0
    held: int = 0
    pending: int = 0
    accounts: int = 0

    @property
    def total(self) -> int:
        """As an account balance's total: available + pending (incoming)."""
        return self.available + self.pending


@dataclass(frozen=True, slots=True)
class AccountFigures:
    currency: str
    posted: int
    pending_debits: int
    pending_credits: int


@dataclass(frozen=True, slots=True)
class CurrencyFigures:
    """Accounts of one currency summed (the organization's balances)."""

    currency: str
    posted: int
    pending_debits: int
    pending_credits: int
    accounts: int


def holding_of(figures: CurrencyFigures) -> Holding:
    """The same arithmetic as `holdings`, over figures already summed per currency."""
    return Holding(
        figures.currency,
        available=figures.posted - figures.pending_debits,
        held=figures.pending_debits,
        pending=figures.pending_credits,
        accounts=figures.accounts,
    )


def holdings(accounts: Iterable[AccountFigures]) -> list[Holding]:
    """Per currency, in currency order: available = posted − holds; held = holds (pending
    debits); pending = incoming (pending credits)."""
    found: dict[str, Holding] = {}
    for account in accounts:
        current = found.get(account.currency, Holding(account.currency))
        found[account.currency] = replace(
            current,
            available=current.available + account.posted - account.pending_debits,
            held=current.held + account.pending_debits,
            pending=current.pending + account.pending_credits,
            accounts=current.accounts + 1,
        )
    return [found[code] for code in sorted(found)]


@dataclass(frozen=True, slots=True)
class Valuation:
    currency: str
    # Reporting-currency major units per major unit of `currency`; None when unpriced.
    rate: Decimal | None
    available: int | None
    total: int | None


def valuation(holding: Holding, reporting_currency: str) -> Valuation:
    """The holding in the reporting currency, each figure rounded down to a minor unit."""
    try:
        rate = fx.rate_for(holding.currency, reporting_currency)
    except fx.NoRate:
        return Valuation(holding.currency, None, None, None)
    unspread = replace(rate, spread=Decimal(0))
    return Valuation(
        holding.currency,
        rate.reference,
        _converted(holding.available, unspread),
        _converted(holding.total, unspread),
    )


def _converted(amount: int, rate: fx.Rate) -> int:
    """Negative figures convert like positive ones (rounded toward zero)."""
    converted = fx.convert(abs(amount), rate).output_minor
    return converted if amount >= 0 else -converted


@dataclass(frozen=True, slots=True)
class DayBalance:
    day: date
    posted: int  # minor units at the end of the day (UTC)


@dataclass(frozen=True, slots=True)
class BalanceHistory:
    """One currency's posted customer balances at the end of each day, oldest first."""

    currency: str
    days: list[DayBalance]


def history_days(today: date, days: int) -> list[date]:
    """The `days` calendar days ending with `today`, oldest first."""
    return [today - timedelta(days=back) for back in range(days - 1, -1, -1)]


def balance_history(
    posted_now: dict[str, int], net_per_day: dict[tuple[str, date], int], days: list[date]
) -> list[BalanceHistory]:
    """Walk back from today's posted balances: the end of a day is the next day's end
    minus what was posted on the next day (`net_per_day`: the postings' sum per currency
    and UTC day, credit positive). Every currency with a balance or a posting, sorted."""
    currencies = sorted(set(posted_now) | {currency for currency, _ in net_per_day})
    histories = []
    for currency in currencies:
        balance = posted_now.get(currency, 0)
        ends = []
        for day in reversed(days):
            ends.append(DayBalance(day, balance))
            balance -= net_per_day.get((currency, day), 0)
        histories.append(BalanceHistory(currency, list(reversed(ends))))
    return histories
