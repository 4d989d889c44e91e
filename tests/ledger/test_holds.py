"""Holds: reserving part of an available balance, then capturing or releasing it."""

from __future__ import annotations

import asyncio

import pytest

from corridor.ledger import rules, service
from corridor.ledger.errors import InsufficientFunds
from corridor.models.ledger import LedgerAccount


async def _hold(books, account_id: str, amount: int):
    async with books.database.session() as session, session.begin():
        return await service.place_hold(
            session,
            organization_id=books.organization_id,
            account_id=account_id,
            amount=amount,
            now=books.now(),
        )


async def _release(books, account_id: str, amount: int):
    async with books.database.session() as session, session.begin():
        return await service.release_hold(
            session,
            organization_id=books.organization_id,
            account_id=account_id,
            amount=amount,
            now=books.now(),
        )


async def _capture(books, account_id: str, amount: int, credit_account_id: str):
    async with books.database.session() as session, session.begin():
        return await service.capture_hold(
            session,
            organization_id=books.organization_id,
            account_id=account_id,
            amount=amount,
            credit_account_id=credit_account_id,
            kind="TEST_CAPTURE",
            description="capture",
            now=books.now(),
        )


async def test_a_hold_reduces_available_but_not_posted(books):
    accounts = await books.customer_accounts()
    await books.fund(accounts["USD"], 1000, "USD")
    await _hold(books, accounts["USD"], 600)
    account = await books.account(accounts["USD"])
    assert (account.posted_balance, account.pending_debits) == (1000, 600)
    shown = rules.balances(posted=1000, pending_debits=600, pending_credits=0)
    assert shown.available == 400
    second = await books.customer_accounts()
    with pytest.raises(InsufficientFunds) as refused:
        await books.move(debit=accounts["USD"], credit=second["USD"], amount=401, currency="USD")
    assert refused.value.extra["available"]["value"] == "400"


async def test_a_hold_beyond_available_is_refused_and_changes_nothing(books):
    accounts = await books.customer_accounts()
    await books.fund(accounts["USD"], 1000, "USD")
    await _hold(books, accounts["USD"], 700)
    with pytest.raises(InsufficientFunds) as refused:
        await _hold(books, accounts["USD"], 301)
    assert refused.value.extra["available"]["value"] == "300"
    assert (await books.account(accounts["USD"])).pending_debits == 700


async def test_release_gives_the_amount_back(books):
    accounts = await books.customer_accounts()
    await books.fund(accounts["USD"], 1000, "USD")
    await _hold(books, accounts["USD"], 1000)
    await _release(books, accounts["USD"], 1000)
    account = await books.account(accounts["USD"])
    assert (account.posted_balance, account.pending_debits) == (1000, 0)


async def test_capture_posts_the_held_amount_and_keeps_available_unchanged(books):
    accounts = await books.customer_accounts()
    clearing = await books.system_account("CLEARING", "USD")
    await books.fund(accounts["USD"], 1000, "USD")
    await _hold(books, accounts["USD"], 250)
    posted = await _capture(books, accounts["USD"], 250, clearing)
    assert posted.posting_on(accounts["USD"]).amount == -250
    account = await books.account(accounts["USD"])
    assert (account.posted_balance, account.pending_debits) == (750, 0)
    assert (await books.account(clearing)).posted_balance == 250
    await books.assert_balance_is_sum_of_postings(accounts["USD"])
    await books.assert_balance_is_sum_of_postings(clearing)


async def test_releasing_or_capturing_more_than_is_held_is_a_bug(books):
    accounts = await books.customer_accounts()
    clearing = await books.system_account("CLEARING", "USD")
    await books.fund(accounts["USD"], 1000, "USD")
    await _hold(books, accounts["USD"], 100)
    with pytest.raises(rules.InvalidEntry):
        await _release(books, accounts["USD"], 101)
    with pytest.raises(rules.InvalidEntry):
        await _capture(books, accounts["USD"], 101, clearing)
    with pytest.raises(rules.InvalidEntry):
        await _hold(books, accounts["USD"], 0)
    assert (await books.account(accounts["USD"])).pending_debits == 100


async def test_concurrent_holds_never_reserve_more_than_the_balance(books):
    accounts = await books.customer_accounts()
    await books.fund(accounts["USD"], 1000, "USD")
    results = await asyncio.gather(
        *(_hold(books, accounts["USD"], 300) for _ in range(5)), return_exceptions=True
    )
    placed = [result for result in results if not isinstance(result, Exception)]
    refused = [result for result in results if isinstance(result, InsufficientFunds)]
    assert len(placed) == 3 and len(refused) == 2
    assert (await books.account(accounts["USD"])).pending_debits == 900


async def test_a_hold_updates_the_account_this_unit_of_work_already_read(books):
    """The account read earlier in the unit of work shows the hold's pending debits
    afterwards, as a fresh read would: a later change made through it (a release) starts
    from them, not from what was read before the hold."""
    accounts = await books.customer_accounts()
    await books.fund(accounts["USD"], 1000, "USD")
    async with books.database.session() as session, session.begin():
        read = await session.get(LedgerAccount, accounts["USD"])
        assert read is not None and read.pending_debits == 0
        await service.place_hold(
            session,
            organization_id=books.organization_id,
            account_id=accounts["USD"],
            amount=250,
            now=books.now(),
        )
        assert read.pending_debits == 250
        await service.release_hold(
            session,
            organization_id=books.organization_id,
            account_id=accounts["USD"],
            amount=100,
            now=books.now(),
        )
        assert read.pending_debits == 150
    assert (await books.account(accounts["USD"])).pending_debits == 150
