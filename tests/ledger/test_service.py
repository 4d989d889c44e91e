"""Posting entries in the database: balances, postings, refusals, system accounts."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from corridor.ledger import rules, service
from corridor.ledger.errors import AccountNotOpen, InsufficientFunds
from corridor.models.ledger import JournalEntry, LedgerAccount, Posting


async def test_posting_an_entry_moves_both_balances_and_records_balance_after(books):
    accounts = await books.customer_accounts()
    funding = await books.system_account(rules.SANDBOX_FUNDING, "USD")

    posted = await books.move(debit=funding, credit=accounts["USD"], amount=12550, currency="USD")

    assert posted.journal_entry.id.startswith("jnl_")
    assert [posting.id[:4] for posting in posted.postings] == ["pst_", "pst_"]
    assert posted.posting_on(accounts["USD"]).balance_after == 12550
    assert posted.posting_on(funding).balance_after == -12550
    assert (await books.account(accounts["USD"])).posted_balance == 12550
    assert (await books.account(funding)).posted_balance == -12550
    async with books.database.session(write=False) as session:
        rows = (
            await session.execute(
                select(Posting).where(Posting.journal_entry_id == posted.journal_entry.id)
            )
        ).scalars()
        assert sum(row.amount for row in rows) == 0
        entry = await session.get(JournalEntry, posted.journal_entry.id)
        assert entry is not None and entry.kind == "TEST"
    for account_id in (funding, accounts["USD"]):
        await books.assert_balance_is_sum_of_postings(account_id)


async def test_debit_beyond_available_is_insufficient_funds_and_writes_nothing(books):
    first, second = await books.customer_accounts(), await books.customer_accounts()
    await books.fund(first["USD"], 1000, "USD")

    with pytest.raises(InsufficientFunds) as refused:
        await books.move(debit=first["USD"], credit=second["USD"], amount=1001, currency="USD")

    assert refused.value.status == 409
    assert refused.value.code == "insufficient_funds"
    assert refused.value.extra["accountId"] == first["USD"]
    assert refused.value.extra["available"] == {
        "currency": "USD",
        "exponent": 2,
        "value": "1000",
        "displayValue": "10.00",
    }
    assert (await books.account(first["USD"])).posted_balance == 1000
    assert (await books.account(second["USD"])).posted_balance == 0
    await books.assert_balance_is_sum_of_postings(first["USD"])


async def test_exactly_the_available_balance_can_be_spent(books):
    first, second = await books.customer_accounts(), await books.customer_accounts()
    await books.fund(first["USDC"], 5_000_000, "USDC")
    posted = await books.move(
        debit=first["USDC"], credit=second["USDC"], amount=5_000_000, currency="USDC"
    )
    assert posted.posting_on(first["USDC"]).balance_after == 0
    assert (await books.account(second["USDC"])).posted_balance == 5_000_000


async def test_pending_debits_reduce_what_may_be_spent(books):
    first, second = await books.customer_accounts(), await books.customer_accounts()
    await books.fund(first["USD"], 1000, "USD")
    async with books.database.session() as session, session.begin():
        account = await session.get(LedgerAccount, first["USD"])
        account.pending_debits = 600
    with pytest.raises(InsufficientFunds) as refused:
        await books.move(debit=first["USD"], credit=second["USD"], amount=401, currency="USD")
    assert refused.value.extra["available"]["value"] == "400"
    await books.move(debit=first["USD"], credit=second["USD"], amount=400, currency="USD")


async def test_unbalanced_or_malformed_entries_are_refused_before_any_write(books):
    accounts = await books.customer_accounts()
    funding = await books.system_account(rules.SANDBOX_FUNDING, "USD")
    malformed = [
        [rules.Line(funding, -100, "USD"), rules.Line(accounts["USD"], 99, "USD")],
        [rules.Line(funding, -100, "USD")],
        [rules.Line(funding, 0, "USD"), rules.Line(accounts["USD"], 0, "USD")],
        # Balanced overall, but a USDC line on a USD account.
        [rules.Line(funding, -100, "USD"), rules.Line(accounts["USDC"], 100, "USD")],
    ]
    for lines in malformed:
        async with books.database.session() as session, session.begin():
            with pytest.raises(rules.InvalidEntry):
                await service.post_entry(
                    session,
                    organization_id=books.organization_id,
                    kind="TEST",
                    description="malformed",
                    lines=lines,
                    now=books.now(),
                )
    assert (await books.account(accounts["USD"])).posted_balance == 0
    assert (await books.account(funding)).posted_balance == 0


async def test_an_entry_cannot_touch_another_organizations_account(books, make_tenant, app):
    from tests.ledger.conftest import LedgerBooks

    other = LedgerBooks(app=app, organization_id=(await make_tenant()).organization_id)
    theirs = await other.customer_accounts()
    funding = await books.system_account(rules.SANDBOX_FUNDING, "USD")
    with pytest.raises(rules.InvalidEntry):
        await books.move(debit=funding, credit=theirs["USD"], amount=100, currency="USD")
    assert (await other.account(theirs["USD"])).posted_balance == 0


async def test_an_account_that_is_not_open_takes_no_postings(books):
    accounts = await books.customer_accounts()
    async with books.database.session() as session, session.begin():
        (await session.get(LedgerAccount, accounts["USD"])).status = "CLOSED"
    with pytest.raises(AccountNotOpen) as refused:
        await books.fund(accounts["USD"], 100, "USD")
    assert refused.value.extra == {"currentStatus": "CLOSED"}


async def test_system_account_is_opened_once_per_kind_and_currency(books):
    first = await books.system_account(rules.SANDBOX_FUNDING, "USD")
    again = await books.system_account(rules.SANDBOX_FUNDING, "USD")
    other_currency = await books.system_account(rules.SANDBOX_FUNDING, "EUR")
    assert first == again != other_currency
    account = await books.account(first)
    assert account.allow_negative is True
    assert account.customer_id is None
    assert account.kind == rules.SANDBOX_FUNDING


async def test_concurrent_openings_of_a_system_account_end_with_one_row(books):
    opened = await asyncio.gather(*(books.system_account("SETTLEMENT", "GBP") for _ in range(8)))
    assert len(set(opened)) == 1
    async with books.database.session(write=False) as session:
        rows = (
            await session.execute(
                select(LedgerAccount).where(
                    LedgerAccount.organization_id == books.organization_id,
                    LedgerAccount.purpose == service.system_purpose("SETTLEMENT", "GBP"),
                )
            )
        ).scalars()
        assert len(list(rows)) == 1


async def test_recomputed_balances_match_after_many_entries(books):
    first, second = await books.customer_accounts(), await books.customer_accounts()
    await books.fund(first["USD"], 10_000, "USD")
    for amount in (1, 250, 999, 3000):
        await books.move(debit=first["USD"], credit=second["USD"], amount=amount, currency="USD")
    await books.move(debit=second["USD"], credit=first["USD"], amount=100, currency="USD")
    assert await books.assert_balance_is_sum_of_postings(first["USD"]) == 10_000 - 4250 + 100
    assert await books.assert_balance_is_sum_of_postings(second["USD"]) == 4250 - 100


async def test_losing_the_race_to_open_a_system_account_returns_the_winners_row(books, monkeypatch):
    winner = await books.system_account("SETTLEMENT", "MXN")
    lookup = service.repository.account_by_purpose
    calls = []

    async def missing_the_first_time(session, **where):
        # As if the winner committed between our lookup and our insert.
        calls.append(where)
        return None if len(calls) == 1 else await lookup(session, **where)

    monkeypatch.setattr(service.repository, "account_by_purpose", missing_the_first_time)
    async with books.database.session() as session, session.begin():
        account = await service.system_account(
            session,
            organization_id=books.organization_id,
            kind="SETTLEMENT",
            currency="MXN",
            now=books.now(),
        )
        assert account.id == winner
        # The transaction is still usable after the savepoint rolled back.
        assert await service.recompute_balance(session, winner) == 0
    assert len(calls) == 2
