"""Rate limits (API.md section 2: 429 `rate_limited`), with the `limits` library.

Three things are throttled, each in a moving window:

- failed console sign-ins, per email (known or not: the answer never says which) and per
  client address; while either is spent, sign-in answers 429, even with the right password;
- failed authentications (a key or session token that does not authenticate) per client
  address; while spent, a credential that fails answers 429 instead of 401, and one that
  authenticates is served (addresses are shared behind NATs and proxies);
- requests per credential (a key, an agent key, a console user), per second: the
  organization's own `requestsPerSecondPerKey` (capped by the server's maximum), or the
  server's default.

Counts live in memory (one process) or, with CORRIDOR_REDIS_URL, in Redis shared by every
process. The per-request check is one moving-window hit in that storage: no database query
(an organization's own limit is cached for a short while). If Redis cannot be reached the
request goes through (limits fail open) and the error is logged.

In memory the windows are `InProcessWindows`: limits' moving windows counted the same way,
without the task and thread hop its asyncio memory storage made after every hit (half a
millisecond of a create+submit's CPU) or its synchronous storage's timer thread.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, RateLimitItemPerSecond, WindowStats, parse
from limits.aio.storage import RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.config import Settings
from corridor.kit.errors import Unauthorized
from corridor.kit.logging import get_logger
from corridor.web import repository
from corridor.web.errors import RateLimited

logger = get_logger("corridor.ratelimits")

# How long an organization's own per-key limit is trusted before it is read again.
organization_limit_cache_s = 30.0
REQUEST_STATE_KEY = "rate_limit"


@dataclass(frozen=True, slots=True)
class WindowState:
    limit: int
    remaining: int
    reset_s: int  # seconds until the window has room again (Retry-After when spent)
    window_s: int

    def headers(self) -> dict[str, str]:
        """The RateLimit header fields (IETF httpapi draft): limit, remaining, reset."""
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(max(self.remaining, 0)),
            "RateLimit-Reset": str(self.reset_s),
            "RateLimit-Policy": f"{self.limit};w={self.window_s}",
        }


class InProcessWindows:
    """Moving windows in this process's memory, counted as limits' moving-window strategy
    counts (a hit is allowed while fewer than the limit's amount fell in its window), with
    the same awaitable interface. Each key keeps the times of its hits still in the window,
    oldest first, and drops older ones as it is used: a hit costs a few microseconds, with
    no task or thread (limits' asyncio memory storage expired its hits in a task hopping to
    a thread after every hit; its synchronous one on a timer thread). Keys gone quiet are
    swept every `sweep_every_hits` hits."""

    def __init__(
        self, clock: Callable[[], float] = time.time, *, sweep_every_hits: int = 4096
    ) -> None:
        self._clock = clock
        # key → (hits still in the window, oldest first; the window's length in seconds)
        self._hits: dict[str, tuple[deque[float], int]] = {}
        self.sweep_every_hits = sweep_every_hits
        self._until_sweep = sweep_every_hits

    def _window(self, item: RateLimitItem, identifiers: tuple[str, ...]) -> deque[float]:
        key = item.key_for(*identifiers)
        kept = self._hits.get(key)
        expiry = item.get_expiry()
        if kept is None:
            kept = self._hits[key] = (deque(), expiry)
        hits = kept[0]
        oldest_kept = self._clock() - expiry
        while hits and hits[0] <= oldest_kept:
            hits.popleft()
        return hits

    async def hit(self, item: RateLimitItem, *identifiers: str) -> bool:
        hits = self._window(item, identifiers)
        self._until_sweep -= 1
        if self._until_sweep <= 0:
            self._sweep()
        if len(hits) >= item.amount:
            return False
        hits.append(self._clock())
        return True

    async def test(self, item: RateLimitItem, *identifiers: str) -> bool:
        return len(self._window(item, identifiers)) < item.amount

    async def get_window_stats(self, item: RateLimitItem, *identifiers: str) -> WindowStats:
        hits = self._window(item, identifiers)
        start = hits[0] if hits else self._clock()
        return WindowStats(start + item.get_expiry(), item.amount - len(hits))

    async def clear(self, item: RateLimitItem, *identifiers: str) -> None:
        self._hits.pop(item.key_for(*identifiers), None)

    def _sweep(self) -> None:
        self._until_sweep = self.sweep_every_hits
        now = self._clock()
        quiet = [
            key
            for key, (hits, expiry) in self._hits.items()
            if not hits or hits[-1] <= now - expiry
        ]
        for key in quiet:
            del self._hits[key]


def redis_storage(redis_url: str) -> RedisStorage:
    """Redis shared by every process, through redis-py's asyncio client."""
    scheme, _, rest = redis_url.partition("://")
    if scheme not in ("redis", "rediss"):
        raise ValueError("CORRIDOR_REDIS_URL must be a redis:// or rediss:// URL")
    return RedisStorage(f"async+{scheme}://{rest}", implementation="redispy", key_prefix="corridor")


class RateLimiter:
    def __init__(self, settings: Settings, storage: Storage | None = None) -> None:
        self.enabled = settings.rate_limits_enabled
        self._windows: MovingWindowRateLimiter | InProcessWindows
        self.storage: Storage | InProcessWindows
        if storage is None and not settings.redis_url:
            windows = InProcessWindows()  # the default: memory, one process's counts
            self.storage, self._windows = windows, windows
        else:
            shared = storage or redis_storage(settings.redis_url or "")
            self.storage, self._windows = shared, MovingWindowRateLimiter(shared)
        self._sign_in_per_email = parse(settings.rate_limit_sign_in_failures_per_email)
        self._sign_in_per_address = parse(settings.rate_limit_sign_in_failures_per_address)
        self._auth_per_address = parse(settings.rate_limit_authentication_failures_per_address)
        self._per_key_default = settings.rate_limit_requests_per_key
        self._per_key_max = settings.rate_limit_requests_per_key_max
        self._per_second: dict[int, RateLimitItem] = {}
        self._organization_limits: dict[str, tuple[int | None, float]] = {}

    # --- windows -----------------------------------------------------------------------

    async def _state(
        self, item: RateLimitItem, *identifiers: str, refused: bool = False
    ) -> WindowState:
        """The window as it is now; a refused request's answer says nothing remains (hits
        may leave a short window between the refusal and this read)."""
        stats = await self._windows.get_window_stats(item, *identifiers)
        reset_s = max(1, math.ceil(stats.reset_time - time.time()))
        remaining = 0 if refused else stats.remaining
        return WindowState(item.amount, remaining, reset_s, item.get_expiry())

    async def _refuse_if_spent(self, message: str, item: RateLimitItem, *identifiers: str) -> None:
        if not await self._windows.test(item, *identifiers):
            raise RateLimited(message, await self._state(item, *identifiers, refused=True))

    async def _guarded(self, coroutine: Any) -> Any:
        """Run a storage call; a storage that cannot be reached lets the request through."""
        try:
            return await coroutine
        except RateLimited:
            raise
        except Exception as error:  # Redis down, timeouts: fail open, loudly
            logger.error("rate_limit_storage_error", error=repr(error))
            return None

    # --- console sign-in ---------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def sign_in_attempt(self, *, email: str, address: str) -> AsyncIterator[None]:
        """Refuse while the email's or the address's failures are spent; count a failure
        (Unauthorized from the block); a success clears the email's count."""
        if not self.enabled:
            yield
            return
        email = email.strip().lower()
        message = "Too many failed sign-ins; wait before trying again"
        await self._guarded(self._refuse_if_spent(message, self._sign_in_per_email, "email", email))
        await self._guarded(
            self._refuse_if_spent(message, self._sign_in_per_address, "sign-in", address)
        )
        try:
            yield
        except Unauthorized:
            await self._guarded(self._windows.hit(self._sign_in_per_email, "email", email))
            await self._guarded(self._windows.hit(self._sign_in_per_address, "sign-in", address))
            raise
        await self._guarded(self._windows.clear(self._sign_in_per_email, "email", email))

    # --- authentication ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def authentication_attempt(self, *, address: str) -> AsyncIterator[None]:
        """Count a failure (Unauthorized from the block) against the address; a failure past
        the address's limit is answered 429 instead of 401. A credential that authenticates
        is never refused here, however many failures its address made: clients behind one
        NAT or proxy share an address, and one misconfigured script must not lock the good
        ones out (their own per-credential limits still apply)."""
        if not self.enabled:
            yield
            return
        try:
            yield
        except Unauthorized:
            await self._guarded(self._count_authentication_failure(address))
            raise

    async def _count_authentication_failure(self, address: str) -> None:
        item = self._auth_per_address
        if not await self._windows.hit(item, "auth", address):
            raise RateLimited(
                "Too many requests with credentials that do not authenticate; wait before "
                "trying again",
                await self._state(item, "auth", address, refused=True),
            )

    # --- requests per credential ---------------------------------------------------------

    async def hit_request(self, session: AsyncSession, caller: Caller) -> WindowState | None:
        """Count one request of the caller's credential; RateLimited when over its limit."""
        if not self.enabled:
            return None
        per_second = self._cached_limit(caller.organization_id)
        if per_second is None:
            # Authentication loaded an organization key's organization already: no query then.
            organization = await repository.organization(session, caller.organization_id)
            document = organization.configuration if organization is not None else {}
            per_second = self._limit_of(caller.organization_id, document)
        return await self._hit(per_second, caller)

    async def hit_request_of(
        self, caller: Caller, *, configuration: dict[str, Any] | None
    ) -> WindowState | None:
        """`hit_request` for a caller whose organization's configuration document was read
        with its key (the express create+submit)."""
        if not self.enabled:
            return None
        per_second = self._cached_limit(caller.organization_id)
        if per_second is None:
            per_second = self._limit_of(caller.organization_id, configuration)
        return await self._hit(per_second, caller)

    async def _hit(self, per_second: int, caller: Caller) -> WindowState | None:
        item = self._per_second.get(per_second)
        if item is None:
            item = self._per_second.setdefault(per_second, RateLimitItemPerSecond(per_second))
        return await self._guarded(self._hit_request(item, caller.actor_id))

    async def _hit_request(self, item: RateLimitItem, actor_id: str) -> WindowState:
        allowed = await self._windows.hit(item, "key", actor_id)
        state = await self._state(item, "key", actor_id, refused=not allowed)
        if not allowed:
            raise RateLimited(
                f"Too many requests with this credential: at most {item.amount} per second",
                state,
            )
        return state

    def forget(self, organization_id: str) -> None:
        """Read the organization's own limit again on its next request (it just changed)."""
        self._organization_limits.pop(organization_id, None)

    def _cached_limit(self, organization_id: str) -> int | None:
        """The per-key limit of the organization, while its cached reading is fresh."""
        cached = self._organization_limits.get(organization_id)
        if cached is None or cached[1] <= time.monotonic():
            return None
        return self._effective(cached[0])

    def _limit_of(self, organization_id: str, document: dict[str, Any] | None) -> int:
        """Read the organization's own limit from its configuration document, and cache it."""
        own = (document or {}).get("requestsPerSecondPerKey")
        own_limit = int(own) if own else None
        self._organization_limits[organization_id] = (
            own_limit,
            time.monotonic() + organization_limit_cache_s,
        )
        return self._effective(own_limit)

    def _effective(self, own_limit: int | None) -> int:
        return self._per_key_default if own_limit is None else min(own_limit, self._per_key_max)


def client_address(scope_client: Any) -> str:
    """The peer address (behind a proxy, run uvicorn with --proxy-headers and
    --forwarded-allow-ips so this is the client's)."""
    return scope_client.host if scope_client is not None else "unknown"
