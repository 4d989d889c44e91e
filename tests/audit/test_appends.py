"""`audit.service.append` and `link_pending` under concurrency and rollback, and
`corridor audit verify` against a chain changed behind the server's back."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, select, update

from corridor.audit import service as audit
from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.models.audit import AuditEvent

concurrent_appends = 50
at = datetime(2026, 11, 28, 1, 0, tzinfo=UTC)


async def _append(database: Database, organization_id: str, number: int) -> str:
    """One record in a transaction of its own, unlinked: its id."""
    async with database.session() as session, session.begin():
        record = await audit.append(
            session,
            organization_id=organization_id,
            kind="agent.payment.allowed",
            actor={"type": "agent_key", "id": "key_test"},
            outcome="allowed",
            detail={"number": number},
            at=at,
        )
        assert record.sequence is None and record.hash is None
        return record.id


async def _chain(database: Database, organization_id: str) -> list[AuditEvent]:
    async with database.session(write=False) as session:
        found = await session.execute(
            select(AuditEvent)
            .where(AuditEvent.organization_id == organization_id)
            .order_by(AuditEvent.sequence)
        )
        return list(found.scalars())


async def _sequences(database: Database, organization_id: str) -> dict[str, int | None]:
    return {record.id: record.sequence for record in await _chain(database, organization_id)}


async def test_concurrent_appends_in_separate_transactions_never_fork_or_gap(
    app, database_url, backend
):
    """Many connections at once (two Database engines, as two processes have) append
    without waiting for each other; one link then chains them all 1..N."""
    organization_id = new_id("org")
    other = Database(database_url)
    try:
        databases = [app.state.database, other]
        ids = await asyncio.gather(
            *(
                _append(databases[number % 2], organization_id, number)
                for number in range(concurrent_appends)
            )
        )
    finally:
        await other.dispose()
    assert set((await _sequences(app.state.database, organization_id)).values()) == {None}
    assert await audit.link_pending(app.state.database, organization_id) == concurrent_appends
    sequences = await _sequences(app.state.database, organization_id)
    assert sorted(sequences) == sorted(ids)
    assert sorted(sequences.values()) == list(range(1, concurrent_appends + 1))
    async with app.state.database.session(write=False) as session:
        result = await audit.verify_chain(session, organization_id)
    assert result.holds and result.count == concurrent_appends
    assert await audit.link_pending(app.state.database, organization_id) == 0


async def test_concurrent_linkers_never_fork_or_gap(app, database_url, backend):
    """Two linkers (two engines, as two processes have) run again and again while records
    are appended: every record is linked exactly once, the chain is 1..N, it holds."""
    organization_id = new_id("org")
    other = Database(database_url)
    try:
        databases = [app.state.database, other]

        async def link_rounds(database: Database) -> int:
            linked = 0
            for _ in range(10):
                linked += await audit.link_pending(database, organization_id)
            return linked

        results = await asyncio.gather(
            link_rounds(databases[0]),
            link_rounds(databases[1]),
            *(
                _append(databases[number % 2], organization_id, number)
                for number in range(concurrent_appends)
            ),
        )
        linked = results[0] + results[1]
        linked += await audit.link_pending(other, organization_id)
    finally:
        await other.dispose()
    assert linked == concurrent_appends
    sequences = await _sequences(app.state.database, organization_id)
    assert sorted(sequences.values()) == list(range(1, concurrent_appends + 1))
    async with app.state.database.session(write=False) as session:
        result = await audit.verify_chain(session, organization_id)
    assert result.holds and result.count == concurrent_appends


async def test_a_rolled_back_append_leaves_no_gap(app):
    organization_id = new_id("org")
    first = await _append(app.state.database, organization_id, 1)
    await audit.link_pending(app.state.database, organization_id)
    async with app.state.database.session() as session:
        await session.begin()
        await audit.append(
            session,
            organization_id=organization_id,
            kind="agent.payment.allowed",
            actor={"type": "agent_key", "id": "key_test"},
            outcome="allowed",
            at=at,
        )
        await session.rollback()
    third = await _append(app.state.database, organization_id, 3)
    await audit.link_pending(app.state.database, organization_id)
    assert await _sequences(app.state.database, organization_id) == {first: 1, third: 2}
    async with app.state.database.session(write=False) as session:
        assert (await audit.verify_chain(session, organization_id)).holds


def _verify(database_url: str, organization_id: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corridor.cli", "audit", "verify", "-o", organization_id],
        env={**os.environ, "CORRIDOR_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )


async def _changed(app, organization_id: str, statement) -> None:
    async with app.state.database.session() as session, session.begin():
        await session.execute(statement.where(AuditEvent.organization_id == organization_id))


@pytest.mark.parametrize("tamper", ["detail", "outcome", "delete", "delete_last"])
async def test_cli_verify_names_the_first_bad_sequence(app, database_url, make_tenant, tamper):
    organization_id = (await make_tenant()).organization_id
    for number in range(5):
        await _append(app.state.database, organization_id, number)
    held = await asyncio.to_thread(_verify, database_url, organization_id)
    assert held.returncode == 0, held.stderr
    assert "5 records verified" in held.stdout

    if tamper == "detail":
        statement = update(AuditEvent).where(AuditEvent.sequence == 3).values(detail={"n": 9})
        bad = 3
    elif tamper == "outcome":
        statement = update(AuditEvent).where(AuditEvent.sequence == 2).values(outcome="denied")
        bad = 2
    elif tamper == "delete":
        statement = delete(AuditEvent).where(AuditEvent.sequence == 4)
        bad = 4
    else:
        statement = delete(AuditEvent).where(AuditEvent.sequence == 5)
        bad = 5
    await _changed(app, organization_id, statement)
    broken = await asyncio.to_thread(_verify, database_url, organization_id)
    assert broken.returncode == 1, broken.stdout
    assert f"broken at sequence {bad}:" in broken.stderr


async def test_the_worker_links_every_organization_with_unlinked_records(app, clock):
    """The worker's `audit_link` task (every second, also under `corridor serve`)."""
    from corridor.workers.runner import TASKS

    assert "audit_link" in {task.name for task in TASKS}
    organizations = [new_id("org"), new_id("org")]
    for organization_id in organizations:
        for number in range(3):
            await _append(app.state.database, organization_id, number)
    assert await audit.link_task(app.state.database, clock) >= 6
    for organization_id in organizations:
        sequences = await _sequences(app.state.database, organization_id)
        assert sorted(sequences.values()) == [1, 2, 3]
