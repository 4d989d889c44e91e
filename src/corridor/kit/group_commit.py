"""Group commit: concurrent units of work on one hot row share one transaction (issue 12).

Requests that would each lock the same row (a platform's treasury account, debited by
every submit) and queue on it, one commit after another, instead meet in a batch keyed
by that row. The first to arrive opens the batch and its session; those arriving while
it is open join it. Each member runs its whole unit of work in turn, inside its own
SAVEPOINT of the shared transaction: one that fails rolls back to its savepoint only and
gets its own error; one that succeeds releases its savepoint and waits. Joining closes
when the batch is full, 2 ms after it opened, or when the leader's own turn ends; once
every member's turn is over, the leader (the first member) commits once. Every member
that succeeded is answered only after that COMMIT returned; if it failed, nothing of any
member was written and each is answered 503, safe to retry with its Idempotency-Key.

Only PostgreSQL uses it (`Settings.group_commit`): SQLite serialises writers anyway.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession, AsyncSessionTransaction

from corridor.kit.errors import BatchNotCommitted

MEMBERS_MAX = 32
WAIT_S = 0.002


@dataclass(eq=False)
class _Batch:
    session: AsyncSession
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    members: int = 1
    finished: int = 0
    all_finished: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: asyncio.Future[bool] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    broken: bool = False


@dataclass(eq=False)
class Member:
    """One request's place in a batch: `start` takes its turn and opens its savepoint,
    `finish` ends them and (the leader) commits; `committed` waits for that answer."""

    group: GroupCommit
    key: str
    batch: _Batch
    leader: bool
    savepoint: AsyncSessionTransaction | None = None
    done: bool = False

    @property
    def session(self) -> AsyncSession:
        return self.batch.session

    async def start(self) -> None:
        try:
            await self.batch.turn.acquire()
        except BaseException:
            self.done = True
            await self._finished()
            raise
        try:
            if self.batch.broken:
                raise BatchNotCommitted()
            self.savepoint = await self.batch.session.begin_nested()
        except BaseException as error:
            if not isinstance(error, BatchNotCommitted):
                self.batch.broken = True  # the shared connection's state is unknown
            self.done = True
            self.batch.turn.release()
            await self._finished()
            raise

    async def finish(self, *, ok: bool) -> None:
        """End this member's turn: keep its work (RELEASE SAVEPOINT) or drop it (ROLLBACK
        TO SAVEPOINT). Idempotent; the leader then closes the batch and commits it."""
        if self.done:
            return
        self.done = True
        try:
            if self.savepoint is not None:
                if ok:
                    await self.savepoint.commit()
                else:
                    await self.savepoint.rollback()
        except BaseException:
            # The shared transaction is in an unknown state: commit nothing of anyone.
            self.batch.broken = True
            if ok:
                raise BatchNotCommitted() from None
        finally:
            self.batch.turn.release()
            await self._finished()

    async def _finished(self) -> None:
        batch = self.batch
        batch.finished += 1
        if batch.finished == batch.members:
            batch.all_finished.set()
        if self.leader:
            # Its own task: a leader whose request is cancelled still commits the others.
            task = asyncio.create_task(self.group._close_and_commit(self.key, batch))
            self.group._tasks.add(task)
            task.add_done_callback(self.group._tasks.discard)

    async def committed(self) -> None:
        """Return once the batch is committed; BatchNotCommitted (503) when it was not."""
        if not await asyncio.shield(self.batch.outcome):
            raise BatchNotCommitted()


class GroupCommit:
    """The open batches of one process, keyed by the row their members contend for."""

    def __init__(
        self, open_session: object, *, members_max: int = MEMBERS_MAX, wait_s: float = WAIT_S
    ) -> None:
        self._open_session = open_session
        self._open: dict[str, _Batch] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.members_max = members_max
        self.wait_s = wait_s
        # What happened, for tests and the benchmark: batches committed, the most members
        # one of them carried.
        self.batches_committed = 0
        self.largest_batch = 0

    def join(self, key: str) -> Member:
        batch = self._open.get(key)
        if batch is not None and batch.members < self.members_max:
            batch.members += 1
            batch.all_finished.clear()
            if batch.members >= self.members_max:
                del self._open[key]  # full: the next arrival opens the next batch
            return Member(self, key, batch, leader=False)
        session: AsyncSession = self._open_session()  # type: ignore[operator]
        batch = _Batch(session=session)
        self._open[key] = batch
        # Joining closes `wait_s` after the batch opened (or when the leader's turn ends,
        # or at `members_max`), bounding what a member waits for besides its own turn.
        asyncio.get_running_loop().call_later(self.wait_s, self._close, key, batch)
        return Member(self, key, batch, leader=True)

    def _close(self, key: str, batch: _Batch) -> None:
        if self._open.get(key) is batch:
            del self._open[key]  # closed: later arrivals open the next batch

    async def _close_and_commit(self, key: str, batch: _Batch) -> None:
        # No extra wait: those who arrived while the leader worked have joined; a lone
        # submit commits at once (the next arrivals open the next batch and meet the row
        # lock only at their hold, by when this COMMIT is on its way).
        self._close(key, batch)
        await batch.all_finished.wait()
        ok = False
        try:
            if not batch.broken:
                await batch.session.commit()
                ok = True
                self.batches_committed += 1
                self.largest_batch = max(self.largest_batch, batch.members)
        except Exception:
            ok = False
        finally:
            try:
                if not ok:
                    await batch.session.rollback()
            except Exception:
                pass
            await batch.session.close()
            if not batch.outcome.done():
                batch.outcome.set_result(ok)
