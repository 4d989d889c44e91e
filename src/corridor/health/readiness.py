"""The readiness checks (API.md section 9): database, migrations, workers, replica."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Literal

from pydantic import Field

from corridor.health import repository
from corridor.kit.db import Database
from corridor.kit.migrate import expected_heads, known_revisions
from corridor.kit.schemas import ResponseModel

CheckStatus = Literal["ok", "failing"]


class DatabaseCheck(ResponseModel):
    status: CheckStatus = Field(description="ok when the primary answers")


class MigrationsCheck(ResponseModel):
    status: CheckStatus = Field(
        description="ok when the schema is at this version's migrations' head, or past it "
        "(a newer version migrated it: a release's migrations only add, so the version "
        "before it runs on them); failing when it is behind (run corridor migrate)"
    )
    state: Literal["current", "ahead", "behind", "unknown"] = Field(
        description="The schema against this version's migrations"
    )
    current: list[str] = Field(description="Revisions the database is at")
    expected: list[str] = Field(description="Revisions of this version's migrations")


class WorkersCheck(ResponseModel):
    status: CheckStatus = Field(description="ok when a worker's heartbeat is fresh")
    live: int = Field(description="Workers whose heartbeat is fresh")
    last_heartbeat_age_seconds: float | None = Field(
        description="Age of the newest heartbeat (null: none ever written)"
    )
    stale_after_seconds: float


class ReplicaCheck(ResponseModel):
    status: Literal["not_configured", "ok", "lagging", "unreachable", "unmeasured"] = Field(
        description="lagging, unreachable, unmeasured: reads go to the primary meanwhile"
    )
    lag_seconds: float | None = Field(description="How far behind the primary it is")
    lag_max_seconds: float | None = Field(description="Past this, reads go to the primary")


class Checks(ResponseModel):
    database: DatabaseCheck
    migrations: MigrationsCheck
    workers: WorkersCheck
    replica: ReplicaCheck


class Readiness(ResponseModel):
    status: Literal["ready", "not_ready"]
    checks: Checks

    @property
    def ready(self) -> bool:
        return self.status == "ready"


async def database_answers(database: Database) -> bool:
    try:
        async with database.session(write=False) as session:
            await repository.database_answers(session)
    except Exception:
        return False
    return True


_migrations: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def _expected_heads(database: Database) -> tuple[frozenset[str], frozenset[str]]:
    """This version's heads and every revision it knows (read once)."""
    if database.url not in _migrations:
        _migrations[database.url] = (
            expected_heads(database.url),
            known_revisions(database.url),
        )
    return _migrations[database.url]


def schema_state(current: frozenset[str], expected: frozenset[str], known: frozenset[str]) -> str:
    if not current:
        return "unknown"
    if current == expected:
        return "current"
    if current - known:
        return "ahead"  # migrated by a newer version
    return "behind"


async def check(database: Database, *, now: datetime, heartbeat_stale: timedelta) -> Readiness:
    expected, known = _expected_heads(database)
    current: frozenset[str] = frozenset()
    newest: datetime | None = None
    live = 0
    database_ok = True
    try:
        async with database.session(write=False) as session:
            await repository.database_answers(session)
            current = await repository.current_revisions(session)
            newest = await repository.newest_heartbeat(session)
            live = await repository.live_workers(session, since=now - heartbeat_stale)
    except Exception:
        database_ok = False
    age = None if newest is None else max(0.0, (now - newest).total_seconds())
    state = schema_state(current, expected, known)
    checks = Checks(
        database=DatabaseCheck(status="ok" if database_ok else "failing"),
        migrations=MigrationsCheck(
            status="ok" if database_ok and state in ("current", "ahead") else "failing",
            state=state,  # type: ignore[arg-type]
            current=sorted(current),
            expected=sorted(expected),
        ),
        workers=WorkersCheck(
            status="ok" if live > 0 else "failing",
            live=live,
            last_heartbeat_age_seconds=None if age is None else round(age, 3),
            stale_after_seconds=heartbeat_stale.total_seconds(),
        ),
        replica=_replica_check(database),
    )
    ready = all(
        part.status == "ok" for part in (checks.database, checks.migrations, checks.workers)
    )
    return Readiness(status="ready" if ready else "not_ready", checks=checks)


def _replica_check(database: Database) -> ReplicaCheck:
    replica = database.replica
    if replica is None:
        return ReplicaCheck(status="not_configured", lag_seconds=None, lag_max_seconds=None)
    lag = replica.lag_s
    if lag is None:
        status: str = "unmeasured"
    elif math.isinf(lag):
        status = "unreachable"
    else:
        status = "ok" if replica.fresh else "lagging"
    return ReplicaCheck(
        status=status,  # type: ignore[arg-type]
        lag_seconds=None if lag is None or math.isinf(lag) else round(lag, 3),
        lag_max_seconds=replica.lag_max_s,
    )
