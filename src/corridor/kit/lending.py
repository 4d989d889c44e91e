"""Pool connections kept at hand for one busy user: the express create+submit.

A check-out from SQLAlchemy's pool and its return cost two greenlet hand-offs and the
pool's bookkeeping, ~100 µs of CPU, a tenth of an express create+submit. While requests
keep coming, the connections they used are kept here, idle, and lent again in a couple of
microseconds; one left unused for `idle_s` goes back to the pool, so a process whose
express traffic stops soon holds none. At most `held_max` are held (the pool's other
connections stay for everything else); a borrower finding none idle and the most held
waits for one given back, up to `wait_s`, as a pool check-out would. Each statement on
such a connection is its own transaction, so nothing carries from one borrower to the next.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

from sqlalchemy.engine.interfaces import PoolProxiedConnection
from sqlalchemy.exc import TimeoutError as PoolTimeout

CheckOut = Callable[[], Awaitable[PoolProxiedConnection]]
GiveBack = Callable[[PoolProxiedConnection], Awaitable[None]]


class HeldConnections:
    def __init__(
        self,
        check_out: CheckOut,
        give_back: GiveBack,
        *,
        held_max: int,
        wait_s: float,
        idle_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        assert held_max >= 1
        self._check_out = check_out
        self._give_back = give_back
        self.held_max = held_max
        self._wait_s = wait_s
        self._idle_s = idle_s
        self._clock = clock
        self._held = 0
        # Idle connections with the time each was last given back, oldest first.
        self._idle: deque[tuple[PoolProxiedConnection, float]] = deque()
        self._waiting: deque[asyncio.Future[PoolProxiedConnection | None]] = deque()
        self._returning: asyncio.TimerHandle | None = None
        # The running return of idle connections: the loop keeps only a weak reference.
        self._return_task: asyncio.Task[None] | None = None

    @property
    def held(self) -> int:
        return self._held

    async def borrow(self) -> PoolProxiedConnection:
        deadline = self._clock() + self._wait_s
        while True:
            if self._idle:
                return self._idle.pop()[0]  # the most recently used: the others age out
            if self._held < self.held_max:
                self._held += 1
                try:
                    return await self._check_out()
                except BaseException:
                    self._held -= 1
                    raise
            handed = await self._wait(deadline)
            if handed is not None:
                return handed
            # A connection broke and was let go: check out another in its place.

    async def _wait(self, deadline: float) -> PoolProxiedConnection | None:
        future: asyncio.Future[PoolProxiedConnection | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting.append(future)
        try:
            return await asyncio.wait_for(future, max(0.0, deadline - self._clock()))
        except TimeoutError:
            raise PoolTimeout(
                f"no connection of the {self.held_max} held was given back in {self._wait_s} s"
            ) from None

    async def give_back(self, connection: PoolProxiedConnection, *, broken: bool = False) -> None:
        """Return a borrowed connection; `broken` ones (invalidated by the borrower) go back
        to the pool, which discards them."""
        if broken:
            self._held -= 1
            await self._give_back(connection)
            self._hand_to_waiter(None)
            return
        if self._hand_to_waiter(connection):
            return
        self._idle.append((connection, self._clock()))
        if self._returning is None:
            self._returning = asyncio.get_running_loop().call_later(
                self._idle_s, self._return_idle_soon
            )

    def _hand_to_waiter(self, connection: PoolProxiedConnection | None) -> bool:
        while self._waiting:
            future = self._waiting.popleft()
            if not future.done():  # a waiter that timed out is gone
                future.set_result(connection)
                return True
        return False

    def _return_idle_soon(self) -> None:
        self._returning = None
        self._return_task = asyncio.get_running_loop().create_task(self._return_idle())

    async def _return_idle(self) -> None:
        """Give the pool back the connections unused for `idle_s`; look again later while
        some are still idle."""
        oldest_kept = self._clock() - self._idle_s
        while self._idle and self._idle[0][1] <= oldest_kept:
            connection, _ = self._idle.popleft()
            self._held -= 1
            await self._give_back(connection)
        if self._idle and self._returning is None:
            self._returning = asyncio.get_running_loop().call_later(
                self._idle_s, self._return_idle_soon
            )

    async def close(self) -> None:
        """Give every idle connection back (a connection still lent is given back by its
        borrower)."""
        if self._returning is not None:
            self._returning.cancel()
            self._returning = None
        while self._idle:
            connection, _ = self._idle.popleft()
            self._held -= 1
            await self._give_back(connection)
