"""Concurrent debits racing for one balance: never more spent than was there.

Each debit runs in its own session and transaction, as concurrent requests would. On
PostgreSQL they contend on SELECT … FOR UPDATE of the account rows; on SQLite writers
are serialised by BEGIN IMMEDIATE. Both must end with exactly floor(balance / amount)
debits accepted and every balance equal to the sum of its postings.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import select

from corridor.ledger.errors import InsufficientFunds
from corridor.models.ledger import Posting

racers_on_postgresql = 50
racers_on_every_backend = 10
debit_amount = 700


async def _race_to_drain(books, *, racers: int, affordable: int) -> None:
    source, sink = await books.customer_accounts(), await books.customer_accounts()
    funded = affordable * debit_amount + debit_amount // 2
    await books.fund(source["USD"], funded, "USD")

    outcomes = await asyncio.gather(
        *(
            books.move(debit=source["USD"], credit=sink["USD"], amount=debit_amount, currency="USD")
            for _ in range(racers)
        ),
        return_exceptions=True,
    )

    accepted = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
    refused = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    assert all(isinstance(error, InsufficientFunds) for error in refused), refused
    assert len(accepted) == funded // debit_amount == affordable
    assert len(refused) == racers - affordable

    remaining = await books.assert_balance_is_sum_of_postings(source["USD"])
    assert remaining == funded - affordable * debit_amount >= 0
    assert await books.assert_balance_is_sum_of_postings(sink["USD"]) == affordable * debit_amount
    async with books.database.session(write=False) as session:
        history = list(
            (
                await session.execute(
                    select(Posting).where(Posting.account_id == source["USD"]).order_by(Posting.id)
                )
            ).scalars()
        )
    assert len(history) == 1 + affordable
    assert all(posting.balance_after >= 0 for posting in history)
    # Each accepted debit saw the balance the one before it left.
    running = 0
    for posting in history:
        running += posting.amount
        assert posting.balance_after == running


async def test_fifty_concurrent_debits_on_postgresql_never_overdraw(books, backend):
    if backend == "sqlite":
        pytest.skip("row locks are PostgreSQL's; SQLite is raced in the test below")
    await _race_to_drain(books, racers=racers_on_postgresql, affordable=14)


async def test_concurrent_debits_are_serialised_on_every_backend(books):
    await _race_to_drain(books, racers=racers_on_every_backend, affordable=4)


async def test_crossing_movements_between_two_accounts_never_deadlock(books):
    first, second = await books.customer_accounts(), await books.customer_accounts()
    await books.fund(first["USD"], 100_000, "USD")
    await books.fund(second["USD"], 100_000, "USD")

    outcomes = await asyncio.gather(
        *(
            books.move(
                debit=(first if index % 2 else second)["USD"],
                credit=(second if index % 2 else first)["USD"],
                amount=100 + index,
                currency="USD",
            )
            for index in range(20)
        ),
        return_exceptions=True,
    )

    assert not [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
    moved_to_second = sum(100 + index for index in range(20) if index % 2)
    moved_to_first = sum(100 + index for index in range(20) if not index % 2)
    first_balance = await books.assert_balance_is_sum_of_postings(first["USD"])
    second_balance = await books.assert_balance_is_sum_of_postings(second["USD"])
    assert first_balance == 100_000 - moved_to_second + moved_to_first
    assert second_balance == 100_000 + moved_to_second - moved_to_first
