"""A PostgreSQL read replica (a streaming standby) and how far behind the primary it is.

Work that only reads and decides nothing (lists, history, statements, console charts,
exports) may run on the replica: `Database.reading_session()` (kit/db.py) gives a session
there while the replica is within `lag_max_s` of the primary, and a primary session
otherwise. Everything that decides (limits, the balance behind a hold, idempotency,
authentication) uses `Database.session()`, always the primary.

The lag is measured, not guessed from timestamps: every `poll_s` the monitor reads the
primary's WAL position (`pg_current_wal_lsn`) and keeps it with the time it was read;
the replica's replayed position (`pg_last_wal_replay_lsn`) then says which of those
moments it has caught up with, and the lag is the time since the newest of them. An idle
primary writes no WAL, so a replica that has replayed everything is 0 behind however old
its last transaction is. A replica that does not answer counts as infinitely behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import deque
from collections.abc import Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from corridor.kit import metrics
from corridor.kit.logging import get_logger

logger = get_logger(__name__)

POSITION = text("SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint")
# NULL on a server that is not a standby (then it has everything: lag 0).
REPLAYED = text("SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint")
# Samples of the primary's position kept to look back on (at poll_s = 1: ten minutes).
samples_max = 600


class Replica:
    def __init__(
        self,
        engine: AsyncEngine,
        *,
        lag_max_s: float,
        poll_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.engine = engine
        self.lag_max_s = lag_max_s
        self.poll_s = poll_s
        self._clock = clock
        self._sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=True)
        self._samples: deque[tuple[float, int]] = deque(maxlen=samples_max)
        # None until first measured; +inf when the replica did not answer.
        self.lag_s: float | None = None
        self.error: str | None = None

    def session(self) -> AsyncSession:
        return self._sessions()

    @property
    def fresh(self) -> bool:
        """Measured, answering, and within the bound: reads may go there."""
        return self.lag_s is not None and self.lag_s <= self.lag_max_s

    async def measure(self, primary: AsyncEngine) -> float:
        """Read both positions once; the lag in seconds (inf when the replica failed)."""
        async with primary.connect() as connection:
            position = int((await connection.execute(POSITION)).scalar_one())
        sampled_at = self._clock()
        self._samples.append((sampled_at, position))
        try:
            async with self.engine.connect() as connection:
                replayed = (await connection.execute(REPLAYED)).scalar_one()
        except Exception as error:
            self.error = type(error).__name__
            return self._measured(math.inf)
        self.error = None
        return self._measured(self._lag(None if replayed is None else int(replayed)))

    def _measured(self, lag_s: float) -> float:
        self.lag_s = lag_s
        metrics.DB_REPLICA_LAG.labels("replica").set(lag_s)
        return lag_s

    def _lag(self, replayed: int | None) -> float:
        if replayed is None:
            return 0.0
        _, newest_position = self._samples[-1]
        if replayed >= newest_position:
            return 0.0
        now = self._clock()
        for sampled_at, position in reversed(self._samples):
            if position <= replayed:
                return max(0.0, now - sampled_at)
        # Behind every position kept: at least as old as the oldest.
        return max(0.0, now - self._samples[0][0])

    async def watch(self, primary: AsyncEngine, stop: asyncio.Event) -> None:
        """Measure every `poll_s` until `stop` is set (a task of each API process)."""
        while not stop.is_set():
            try:
                await self.measure(primary)
            except Exception:
                # The primary did not answer: nothing to compare with, the last word stands.
                logger.warning("replica_lag_unmeasured", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.poll_s)

    async def dispose(self) -> None:
        await self.engine.dispose()
