"""Connections kept at hand (kit/lending.py): lent again without a pool check-out, never
more held than allowed, handed straight to a waiting borrower, let go when broken, and
given back to the pool once unused for a while; on PostgreSQL, with the real pool."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import TimeoutError as PoolTimeout

from corridor.kit.db import Database, PoolLimits
from corridor.kit.lending import HeldConnections


class Pool:
    """Stands in for SQLAlchemy's pool: counts check-outs and returns."""

    def __init__(self) -> None:
        self.checked_out: list[Any] = []
        self.given_back: list[Any] = []

    async def check_out(self) -> Any:
        connection = object()
        self.checked_out.append(connection)
        return connection

    async def give_back(self, connection: Any) -> None:
        self.given_back.append(connection)


def held(pool: Pool, *, held_max: int = 2, wait_s: float = 5.0, idle_s: float = 60.0):
    return HeldConnections(
        pool.check_out, pool.give_back, held_max=held_max, wait_s=wait_s, idle_s=idle_s
    )


async def test_a_connection_given_back_is_lent_again_without_a_check_out():
    pool = Pool()
    connections = held(pool)
    first = await connections.borrow()
    await connections.give_back(first)
    assert await connections.borrow() is first
    assert len(pool.checked_out) == 1 and pool.given_back == []


async def test_past_the_most_held_a_borrower_waits_for_one_given_back():
    pool = Pool()
    connections = held(pool, held_max=2)
    first, second = await connections.borrow(), await connections.borrow()
    third = asyncio.create_task(connections.borrow())
    await asyncio.sleep(0)
    assert not third.done()
    await connections.give_back(second)
    assert await third is second
    assert len(pool.checked_out) == 2 and connections.held == 2
    await connections.give_back(first)


async def test_a_borrower_that_waits_too_long_gets_the_pool_timeout():
    connections = held(Pool(), held_max=1, wait_s=0.05)
    await connections.borrow()
    with pytest.raises(PoolTimeout):
        await connections.borrow()


async def test_a_broken_connection_goes_back_and_a_waiter_checks_out_a_new_one():
    pool = Pool()
    connections = held(pool, held_max=1)
    broken = await connections.borrow()
    waiting = asyncio.create_task(connections.borrow())
    await asyncio.sleep(0)
    await connections.give_back(broken, broken=True)
    fresh = await waiting
    assert fresh is not broken and pool.given_back == [broken]
    assert len(pool.checked_out) == 2 and connections.held == 1


async def test_connections_unused_for_a_while_go_back_to_the_pool():
    pool = Pool()
    connections = held(pool, idle_s=0.05)
    first, second = await connections.borrow(), await connections.borrow()
    await connections.give_back(first)
    await connections.give_back(second)
    await asyncio.sleep(0.2)
    assert sorted(map(id, pool.given_back)) == sorted(map(id, [first, second]))
    assert connections.held == 0


async def test_closing_gives_back_every_idle_connection():
    pool = Pool()
    connections = held(pool)
    lent = await connections.borrow()
    await connections.give_back(lent)
    await connections.close()
    assert pool.given_back == [lent] and connections.held == 0


async def test_on_postgresql_held_connections_leave_the_rest_of_the_pool_free(backend, app):
    if backend != "postgresql":
        pytest.skip("SQLite keeps no connections aside (its writer has one connection)")
    database = Database(app.state.settings.database_url, pool=PoolLimits(size=4, timeout_s=1))
    pool = database.engine.sync_engine.pool
    try:
        async with database.held_connection() as first:
            assert await first.driver_connection.fetchval("SELECT 1") == 1
        assert pool.checkedout() == 1  # kept at hand, not given back
        async with database.held_connection() as again:
            assert again is first
        # Two are held at most (half the pool): the others serve sessions meanwhile.
        async with database.held_connection(), database.held_connection():
            async with database.session() as session:
                assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
    finally:
        await database.dispose()
    assert pool.checkedout() == 0
