"""GET /v1/health/ready (API.md section 9): ready only when the database answers, its
schema is at the migrations' head and a worker's heartbeat is fresh; 503 otherwise."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import text

from corridor.config import Environment
from corridor.kit.clock import SystemClock
from corridor.kit.db import Database
from corridor.workers.operations import Heartbeat
from corridor.workers.runner import run_workers
from tests.conftest import built_app, client_for, migrated_database


async def test_ready_once_a_worker_beats_and_not_ready_when_it_stops(tmp_path, backend):
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
        client_for(application) as client,
    ):
        waiting = await client.get("/v1/health/ready")
        assert waiting.status_code == 503, waiting.text
        assert waiting.json()["status"] == "not_ready"
        checks = waiting.json()["checks"]
        assert checks["database"] == {"status": "ok"}
        assert checks["migrations"]["status"] == "ok"
        assert checks["migrations"]["current"] == checks["migrations"]["expected"]
        assert checks["migrations"]["state"] == "current"
        assert checks["workers"]["status"] == "failing"
        assert checks["workers"]["live"] == 0
        assert checks["workers"]["lastHeartbeatAgeSeconds"] is None
        assert checks["replica"]["status"] == "not_configured"
        # Liveness is another question: the process answers, the database too.
        assert (await client.get("/v1/health")).status_code == 200

        # The workers (as `corridor worker` runs them) write their heartbeat at once.
        database = application.state.database
        stop = asyncio.Event()
        workers = asyncio.create_task(
            run_workers(
                database, application.state.clock, stop, settings=application.state.settings
            )
        )
        try:
            for _ in range(200):
                ready = await client.get("/v1/health/ready")
                if ready.status_code == 200:
                    break
                await asyncio.sleep(0.05)
            assert ready.status_code == 200, ready.text
            assert ready.json()["status"] == "ready"
            assert ready.json()["checks"]["workers"]["live"] == 1
        finally:
            stop.set()
            await workers
        # Stopped on purpose, the worker took its heartbeat away.
        stopped = await client.get("/v1/health/ready")
        assert stopped.status_code == 503
        assert stopped.json()["checks"]["workers"]["live"] == 0


async def test_a_heartbeat_older_than_the_stale_age_does_not_count(tmp_path, backend):
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX, worker_heartbeat_stale_s=30) as application,
        client_for(application) as client,
    ):
        clock = application.state.clock
        beat_at = SystemClock().now() - timedelta(seconds=31)
        clock.set(beat_at)
        await Heartbeat().beat(application.state.database, clock)
        clock.reset()
        answer = await client.get("/v1/health/ready")
        assert answer.status_code == 503
        workers = answer.json()["checks"]["workers"]
        assert workers["live"] == 0
        assert workers["lastHeartbeatAgeSeconds"] >= 31
        assert workers["staleAfterSeconds"] == 30
        await Heartbeat().beat(application.state.database, clock)
        assert (await client.get("/v1/health/ready")).status_code == 200


async def test_a_schema_behind_the_migrations_is_not_ready(tmp_path, backend):
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
        client_for(application) as client,
    ):
        await Heartbeat().beat(application.state.database, application.state.clock)
        assert (await client.get("/v1/health/ready")).status_code == 200
        database = Database(url)
        try:
            async with database.session() as session, session.begin():
                await session.execute(
                    text("UPDATE alembic_version SET version_num = '20261127_0012'")
                )
        finally:
            await database.dispose()
        answer = await client.get("/v1/health/ready")
        assert answer.status_code == 503
        migrations = answer.json()["checks"]["migrations"]
        assert migrations["status"] == "failing"
        assert migrations["state"] == "behind"
        assert migrations["current"] == ["20261127_0012"]
        assert migrations["current"] != migrations["expected"]


async def test_a_schema_a_newer_version_migrated_is_ready(tmp_path, backend):
    """A rolling upgrade migrates first: the processes of the version before keep serving
    (a release's migrations only add), so they stay ready."""
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
        client_for(application) as client,
    ):
        await Heartbeat().beat(application.state.database, application.state.clock)
        database = Database(url)
        try:
            async with database.session() as session, session.begin():
                await session.execute(
                    text("UPDATE alembic_version SET version_num = '29991231_next'")
                )
        finally:
            await database.dispose()
        answer = await client.get("/v1/health/ready")
        assert answer.status_code == 200, answer.text
        migrations = answer.json()["checks"]["migrations"]
        assert migrations == {
            "status": "ok",
            "state": "ahead",
            "current": ["29991231_next"],
            "expected": migrations["expected"],
        }


async def test_a_database_that_does_not_answer_is_not_ready(tmp_path):
    unreachable = "postgresql+asyncpg://nobody@127.0.0.1:1/none"
    async with (
        built_app(unreachable, Environment.SANDBOX, database_pool_timeout_s=1) as application,
        client_for(application) as client,
    ):
        answer = await client.get("/v1/health/ready")
        assert answer.status_code == 503
        checks = answer.json()["checks"]
        assert checks["database"]["status"] == "failing"
        assert checks["migrations"]["status"] == "failing"
        assert checks["workers"]["status"] == "failing"
