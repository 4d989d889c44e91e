"""Double-entry rules: what makes a journal entry valid, and the balances it leaves behind.

Pure: nothing here touches the database or the web, so the rules are tested in
microseconds and read like the ledger's definition.

Amounts are Python ints of minor units, credit-positive: a line of +500 credits an
account (its balance rises by 500), a line of -500 debits it.

An entry is valid when it has at least two lines (and at most `lines_per_entry_max`),
every amount is a non-zero int, and its lines sum to zero in each currency. An invalid
entry is a bug in the code that built it, never a client's mistake: `check_entry`
raises `InvalidEntry`, an assertion that stays on under `python -O`.

The balances of an account:

    available = posted − pendingDebits     what may be spent now
    pending   = pendingCredits             on its way in, not yet spendable
    total     = available + pending

`posted` is the sum of the account's postings. Holds (pendingDebits, pendingCredits) are
kept beside it on the account row and never posted.

Applying an entry (`plan_entry`) has two expected failures, returned as named results
rather than raised: `Overdraft`, when an account that may not go negative (a customer's
balance account, allow_negative False) would be left with available < 0 by an entry
that takes money from it; and `BalanceOutOfRange`, when a balance would leave the
64-bit column it is stored in. An entry that only adds to an account is never refused
for its balance.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

lines_per_entry_max = 100
# Balances are stored in a BIGINT column (signed 64 bits).
balance_minor_units_max = 2**63 - 1

# Account kinds: a customer's balance account, and the system's own accounts.
CUSTOMER_BALANCE = "CUSTOMER_BALANCE"
SANDBOX_FUNDING = "SANDBOX_FUNDING"

# Entry kinds (the `type` of a balance transaction).
ENTRY_SANDBOX_FUNDING = "SANDBOX_FUNDING"


class InvalidEntry(AssertionError):
    """An entry that breaks double entry: always a bug in the code that built it."""


@dataclass(frozen=True, slots=True)
class Line:
    """One posting to be: a signed amount in minor units on one account, credit positive."""

    account_id: str
    amount: int
    currency: str


def check_entry(lines: Iterable[Line]) -> tuple[Line, ...]:
    """The lines, once they are known to make a balanced entry; InvalidEntry otherwise."""
    checked = tuple(lines)
    if not 2 <= len(checked) <= lines_per_entry_max:
        raise InvalidEntry(
            f"an entry has 2 to {lines_per_entry_max} lines, this one has {len(checked)}"
        )
    for line in checked:
        if type(line.amount) is not int or line.amount == 0:
            raise InvalidEntry(f"amount {line.amount!r} on {line.account_id} is not a non-zero int")
        if not line.account_id or not line.currency:
            raise InvalidEntry("every line names an account and a currency")
    unbalanced = {code: total for code, total in sums_by_currency(checked).items() if total != 0}
    if unbalanced:
        raise InvalidEntry(f"lines do not sum to zero per currency: {unbalanced}")
    return checked


def sums_by_currency(lines: Iterable[Line]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for line in lines:
        totals[line.currency] = totals.get(line.currency, 0) + line.amount
    return totals


def movement(
    *, debit_account_id: str, credit_account_id: str, amount: int, currency: str
) -> tuple[Line, ...]:
    """The two lines that move `amount` from one account to another in one currency."""
    if type(amount) is not int or amount <= 0:
        raise InvalidEntry(f"a movement moves a positive int amount, not {amount!r}")
    if debit_account_id == credit_account_id:
        raise InvalidEntry("a movement needs two different accounts")
    return check_entry(
        [
            Line(debit_account_id, -amount, currency),
            Line(credit_account_id, amount, currency),
        ]
    )


@dataclass(frozen=True, slots=True)
class Balances:
    available: int
    pending: int
    total: int


def balances(*, posted: int, pending_debits: int, pending_credits: int) -> Balances:
    available = posted - pending_debits
    return Balances(available=available, pending=pending_credits, total=available + pending_credits)


@dataclass(frozen=True, slots=True)
class AccountState:
    """What the rules need to know of an account to apply an entry to it."""

    account_id: str
    currency: str
    allow_negative: bool
    posted: int
    pending_debits: int = 0
    pending_credits: int = 0

    @property
    def available(self) -> int:
        return self.posted - self.pending_debits


@dataclass(frozen=True, slots=True)
class PlannedPosting:
    line: Line
    # The account's posted balance once this line (and the entry's lines before it) apply.
    balance_after: int


@dataclass(frozen=True, slots=True)
class EntryPlan:
    postings: tuple[PlannedPosting, ...]
    accounts_after: Mapping[str, AccountState]


@dataclass(frozen=True, slots=True)
class Overdraft:
    """The entry would take more from an account than it has available."""

    account_id: str
    currency: str
    available: int
    debit: int


@dataclass(frozen=True, slots=True)
class BalanceOutOfRange:
    """The entry would push a balance outside what its column can hold."""

    account_id: str
    currency: str


def plan_entry(
    accounts: Mapping[str, AccountState], lines: Sequence[Line]
) -> EntryPlan | Overdraft | BalanceOutOfRange:
    """Apply a checked entry to the accounts it touches, or say why it may not be applied."""
    entry = check_entry(lines)
    for line in entry:
        account = accounts.get(line.account_id)
        if account is None:
            raise InvalidEntry(f"line on unknown account {line.account_id}")
        if account.currency != line.currency:
            raise InvalidEntry(
                f"line in {line.currency} on {line.account_id}, an account in {account.currency}"
            )
    after = dict(accounts)
    postings = []
    for line in entry:
        account = after[line.account_id]
        account = replace(account, posted=account.posted + line.amount)
        after[line.account_id] = account
        postings.append(PlannedPosting(line=line, balance_after=account.posted))
    refusal = _refusal(accounts, after, entry)
    if refusal is not None:
        return refusal
    touched = {line.account_id for line in entry}
    return EntryPlan(
        postings=tuple(postings),
        accounts_after={account_id: after[account_id] for account_id in touched},
    )


def _refusal(
    before: Mapping[str, AccountState], after: Mapping[str, AccountState], entry: Sequence[Line]
) -> Overdraft | BalanceOutOfRange | None:
    # Accounts in a fixed order, so the same entry is always refused for the same reason.
    for account_id in sorted({line.account_id for line in entry}):
        old, new = before[account_id], after[account_id]
        if (
            abs(new.posted) > balance_minor_units_max
            or abs(new.available) > balance_minor_units_max
        ):
            return BalanceOutOfRange(account_id=account_id, currency=new.currency)
        taken = old.posted - new.posted
        if taken > 0 and not new.allow_negative and new.available < 0:
            return Overdraft(
                account_id=account_id,
                currency=new.currency,
                available=old.available,
                debit=taken,
            )
    return None
