"""The first signing key is made on first need by whichever process needs it: processes
that need it at once share one (insert-if-absent on its unique generation)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import delete, select

from corridor.models.receipt import ReceiptSigningKey
from corridor.receipts import repository, signing
from corridor.receipts.rules import KEY_RETIRED

racers = 8


async def test_concurrent_first_key_inserts_make_one_key(app, backend):
    if backend == "sqlite":
        pytest.skip("SQLite runs one writer at a time; the race is PostgreSQL's")
    database = app.state.database
    now = app.state.clock.now()
    # A generation no rotation reaches in the suite, retired so it never signs.
    generation = 1_000_000
    candidates = [
        {**signing.new_key_values(generation=generation, now=now), "status": KEY_RETIRED}
        for _ in range(racers)
    ]
    start = asyncio.Event()

    async def racer(values: dict) -> str:
        async with database.session() as session:
            await start.wait()
            await repository.insert_key_if_absent(session, values)
            found = await session.execute(
                select(ReceiptSigningKey.kid).where(ReceiptSigningKey.generation == generation)
            )
            kid = found.scalar_one()
            await session.commit()
            return kid

    tasks = [asyncio.create_task(racer(values)) for values in candidates]
    await asyncio.sleep(0)
    start.set()
    try:
        kids = await asyncio.gather(*tasks)
        assert len(set(kids)) == 1, "every racer ends up with the one key inserted"
        async with database.session(write=False) as session:
            rows = await session.execute(
                select(ReceiptSigningKey.kid).where(ReceiptSigningKey.generation == generation)
            )
            assert list(rows.scalars()) == [kids[0]]
    finally:
        async with database.session() as session:
            await session.execute(
                delete(ReceiptSigningKey).where(ReceiptSigningKey.generation == generation)
            )
            await session.commit()
