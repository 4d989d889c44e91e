"""Posting journal entries under row locks, the system's own accounts, and recomputed balances.

Every function works inside the caller's transaction and never commits: an entry commits
with the state change that caused it (and that change's outbox event), or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit import metrics
from corridor.kit.ids import new_id
from corridor.ledger import repository, rules
from corridor.ledger.errors import AccountNotOpen, BalanceLimitExceeded, InsufficientFunds
from corridor.models.ledger import JournalEntry, LedgerAccount, Posting

OPEN = "OPEN"
kind_chars_max = 40
description_chars_max = 500


@dataclass(frozen=True, slots=True)
class PostedEntry:
    journal_entry: JournalEntry
    postings: list[Posting]

    def posting_on(self, account_id: str) -> Posting:
        """The entry's (last) posting on that account."""
        return [posting for posting in self.postings if posting.account_id == account_id][-1]


async def post_entry(
    session: AsyncSession,
    *,
    organization_id: str,
    kind: str,
    description: str,
    lines: Sequence[rules.Line],
    transfer_id: str | None = None,
    now: datetime,
) -> PostedEntry:
    """Write a balanced entry and move the balances of its accounts.

    Locks every account the entry touches, in id order, before reading its balance, so
    concurrent entries on one account apply one after the other. Raises InsufficientFunds
    when a customer account would be left with less than nothing available.
    """
    entry = rules.check_entry(lines)
    if not 1 <= len(kind) <= kind_chars_max or len(description) > description_chars_max:
        raise rules.InvalidEntry("entry kind or description out of bounds")
    accounts = await repository.lock_accounts(session, [line.account_id for line in entry])
    by_id = {account.id: account for account in accounts}
    for line in entry:
        account = by_id.get(line.account_id)
        if account is None or account.organization_id != organization_id:
            raise rules.InvalidEntry(f"no account {line.account_id} in {organization_id}")
    for account in accounts:
        if account.status != OPEN:
            raise AccountNotOpen(account_id=account.id, status=account.status)
    plan = rules.plan_entry({account.id: _state_of(account) for account in accounts}, entry)
    if isinstance(plan, rules.Overdraft):
        raise InsufficientFunds(
            account_id=plan.account_id, available=plan.available, currency=plan.currency
        )
    if isinstance(plan, rules.BalanceOutOfRange):
        raise BalanceLimitExceeded(account_id=plan.account_id)
    return await _write(
        session,
        organization_id=organization_id,
        kind=kind,
        description=description,
        plan=plan,
        accounts=by_id,
        transfer_id=transfer_id,
        now=now,
    )


def _state_of(account: LedgerAccount) -> rules.AccountState:
    return rules.AccountState(
        account_id=account.id,
        currency=account.currency,
        allow_negative=account.allow_negative,
        posted=account.posted_balance,
        pending_debits=account.pending_debits,
        pending_credits=account.pending_credits,
    )


async def _write(
    session: AsyncSession,
    *,
    organization_id: str,
    kind: str,
    description: str,
    plan: rules.EntryPlan,
    accounts: dict[str, LedgerAccount],
    transfer_id: str | None,
    now: datetime,
) -> PostedEntry:
    journal_entry = JournalEntry(
        id=new_id("jnl"),
        organization_id=organization_id,
        kind=kind,
        description=description,
        transfer_id=transfer_id,
        created_at=now,
    )
    session.add(journal_entry)
    # The entry row first: postings refer to it, and no relationship orders the inserts.
    await session.flush()
    postings = [
        Posting(
            id=new_id("pst"),
            organization_id=organization_id,
            journal_entry_id=journal_entry.id,
            account_id=planned.line.account_id,
            currency=planned.line.currency,
            amount=planned.line.amount,
            balance_after=planned.balance_after,
            kind=kind,
            transfer_id=transfer_id,
            created_at=now,
        )
        for planned in plan.postings
    ]
    session.add_all(postings)
    _count_when_committed(session, kind, [posting.currency for posting in postings])
    for account_id, state in plan.accounts_after.items():
        account = accounts[account_id]
        account.posted_balance = state.posted
        account.updated_at = now
    await session.flush()
    return PostedEntry(journal_entry=journal_entry, postings=postings)


def _count_when_committed(session: AsyncSession, kind: str, currencies: list[str]) -> None:
    """corridor_ledger_entries_total and corridor_ledger_postings_total, once committed."""
    entry_kind = metrics.bounded(kind)

    def count() -> None:
        metrics.LEDGER_ENTRIES.labels(entry_kind).inc()
        for currency in currencies:
            metrics.LEDGER_POSTINGS.labels(entry_kind, metrics.bounded(currency)).inc()

    metrics.after_commit(session, count)


async def place_hold(
    session: AsyncSession, *, organization_id: str, account_id: str, amount: int, now: datetime
) -> None:
    """Reserve `amount` of an account's available balance (pending debits rise by it).

    Nothing is posted: the money stays in the account but can no longer be spent, until
    the hold is captured or released. Raises InsufficientFunds when the account has less
    available (a customer account never holds more than it has).
    """
    if type(amount) is not int or amount <= 0:
        raise rules.InvalidEntry(f"a hold is a positive int amount, not {amount!r}")
    if await repository.hold_if_available(
        session,
        organization_id=organization_id,
        account_id=account_id,
        amount=amount,
        open_status=OPEN,
        now=now,
    ):
        return
    # Refused: read it (locked, so the answer is current) to say why.
    account = await _locked_account(session, organization_id=organization_id, account_id=account_id)
    if account.status != OPEN:
        raise AccountNotOpen(account_id=account.id, status=account.status)
    raise InsufficientFunds(
        account_id=account.id,
        available=account.posted_balance - account.pending_debits,
        currency=account.currency,
    )


async def release_hold(
    session: AsyncSession, *, organization_id: str, account_id: str, amount: int, now: datetime
) -> LedgerAccount:
    """Give a held amount back to the account's available balance."""
    account = await _locked_account(session, organization_id=organization_id, account_id=account_id)
    _assert_held(account, amount)
    account.pending_debits -= amount
    account.updated_at = now
    await session.flush()
    return account


async def capture_hold(
    session: AsyncSession,
    *,
    organization_id: str,
    account_id: str,
    amount: int,
    credit_account_id: str,
    kind: str,
    description: str,
    transfer_id: str | None = None,
    now: datetime,
) -> PostedEntry:
    """Turn a hold into a posted debit of the account, credited to `credit_account_id`.

    Both accounts are locked in id order first; the hold is released and the entry posted
    in the same transaction, so the available balance never moves.
    """
    await repository.lock_accounts(session, [account_id, credit_account_id])
    account = await _locked_account(session, organization_id=organization_id, account_id=account_id)
    _assert_held(account, amount)
    account.pending_debits -= amount
    await session.flush()
    return await post_entry(
        session,
        organization_id=organization_id,
        kind=kind,
        description=description,
        lines=rules.movement(
            debit_account_id=account_id,
            credit_account_id=credit_account_id,
            amount=amount,
            currency=account.currency,
        ),
        transfer_id=transfer_id,
        now=now,
    )


async def _locked_account(
    session: AsyncSession, *, organization_id: str, account_id: str
) -> LedgerAccount:
    found = await repository.lock_accounts(session, [account_id])
    if not found or found[0].organization_id != organization_id:
        raise rules.InvalidEntry(f"no account {account_id} in {organization_id}")
    return found[0]


async def available_balance(session: AsyncSession, *, organization_id: str, account_id: str) -> int:
    """What the account has available (posted less held), read under its lock: an entry
    in the same transaction can take up to this much."""
    account = await _locked_account(session, organization_id=organization_id, account_id=account_id)
    return account.posted_balance - account.pending_debits


def _assert_held(account: LedgerAccount, amount: int) -> None:
    if type(amount) is not int or not 0 < amount <= account.pending_debits:
        raise rules.InvalidEntry(
            f"{account.id} holds {account.pending_debits}, cannot release {amount!r}"
        )


def system_purpose(kind: str, currency: str) -> str:
    return f"SYSTEM:{kind}:{currency}"


async def system_account(
    session: AsyncSession, *, organization_id: str, kind: str, currency: str, now: datetime
) -> LedgerAccount:
    """The organization's system account of this kind and currency, opened on first use.

    System accounts may go negative: SANDBOX_FUNDING, for one, is where sandbox money
    comes from. Two transactions opening the same one at once both end with the same row:
    the loser's insert hits the unique (organization, purpose) constraint inside a
    savepoint, and it reads the winner's row instead.
    """
    assert kind != rules.CUSTOMER_BALANCE, "customer accounts open with the customer"
    purpose = system_purpose(kind, currency)
    existing = await repository.account_by_purpose(
        session, organization_id=organization_id, purpose=purpose
    )
    if existing is not None:
        return existing
    account = LedgerAccount(
        id=new_id("acc"),
        organization_id=organization_id,
        customer_id=None,
        kind=kind,
        purpose=purpose,
        currency=currency,
        status=OPEN,
        allow_negative=True,
        posted_balance=0,
        pending_debits=0,
        pending_credits=0,
        created_at=now,
        updated_at=now,
    )
    try:
        async with session.begin_nested():
            session.add(account)
    except IntegrityError:
        winner = await repository.account_by_purpose(
            session, organization_id=organization_id, purpose=purpose
        )
        assert winner is not None, "the unique constraint fired, so the row exists"
        return winner
    return account


async def recompute_balance(session: AsyncSession, account_id: str) -> int:
    """The account's posted balance recomputed from its postings (must equal posted_balance)."""
    return await repository.sum_of_postings(session, account_id)
