"""create_app(): routers, error handlers, middleware, and the in-process workers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from fastapi import FastAPI

from corridor import __version__
from corridor.accounts.endpoints import router as accounts_router
from corridor.agents.endpoints import router as agents_router
from corridor.agents.enforcement import AgentSpendGuard
from corridor.config import Settings, get_settings
from corridor.customers.endpoints import router as customers_router
from corridor.fixedroutes.endpoints import router as fixed_routes_router
from corridor.fixedroutes.routing import FixedRouteDeposits
from corridor.health import router as health_router
from corridor.kit.clock import Clock, SystemClock
from corridor.kit.db import Database
from corridor.kit.logging import configure_logging
from corridor.organizations.access_endpoints import router as auth_router
from corridor.organizations.endpoints import router as organizations_router
from corridor.parties.endpoints import router as parties_router
from corridor.quotes.binding import QuoteLocks
from corridor.quotes.endpoints import router as quotes_router
from corridor.transfers.deposits.endpoints import router as deposits_router
from corridor.transfers.endpoints import router as transfers_router
from corridor.transfers.plugins import TransferPlugins
from corridor.web.context import IdempotentReplay, replay_response
from corridor.web.errors import install_error_handlers
from corridor.web.middleware import RequestMiddleware
from corridor.webhooks.endpoints import router as webhooks_router
from corridor.workers.runner import run_workers

ROUTERS = [
    health_router,
    auth_router,
    organizations_router,
    customers_router,
    accounts_router,
    parties_router,
    webhooks_router,
    transfers_router,
    deposits_router,
    agents_router,
    quotes_router,
    fixed_routes_router,
]

DESCRIPTION = """
Corridor moves money between balance accounts, wallets and external bank accounts over
fiat rails (ACH, wire, SWIFT, SEPA, RTP) and stablecoin rails.

**Authentication**: `Authorization: Bearer <key>` with an organization key (`sk_sandbox_…`,
`sk_live_…`), an agent key (`sk_sandbox_agent_…`) or a console session token (`cs_…`).
In sandbox, `X-API-Key: <key>` works too.

**Amounts** are integer minor units in strings: `{"currency": "USD", "value": "12550"}` is
$125.50. Responses add `exponent` and `displayValue`.

**Errors** share one shape: `{"code", "message", "requestId", "errors"?}`.

**Idempotency**: send `Idempotency-Key` on any creating POST; the same key and body replay
the first answer for 24 hours (`Idempotent-Replayed: true`).

**Lists** are newest first: `limit` (1–250, default 50) and `cursor` (`nextCursor` of the
previous page).
"""


def transfer_plugins() -> TransferPlugins:
    """The domains that take part in a transfer's life (transfers/plugins.py): an agent's
    spend limits, then a quote's lock, are checked on every submit; quotes lock a draft's
    rate; fixed routes carry the deposits to their accounts."""
    quotes = QuoteLocks()
    return TransferPlugins(
        submit_guards=(AgentSpendGuard(), quotes),
        rate_locks=quotes,
        deposit_router=FixedRouteDeposits(),
    )


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock | None = None,
    database: Database | None = None,
    run_workers_in_process: bool | None = None,
) -> FastAPI:
    settings = settings or get_settings()
    configure_logging(log_format=settings.log_format, level=settings.log_level)
    database = database or Database(settings.database_url)
    clock = clock or SystemClock()
    workers_wanted = (
        settings.workers_in_process if run_workers_in_process is None else run_workers_in_process
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        workers = (
            asyncio.create_task(run_workers(database, clock, stop)) if workers_wanted else None
        )
        try:
            yield
        finally:
            stop.set()
            if workers is not None:
                await workers
            await database.dispose()

    app = FastAPI(
        title="Corridor",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.database = database
    app.state.clock = clock
    app.state.transfer_plugins = transfer_plugins()
    install_error_handlers(app)

    @app.exception_handler(IdempotentReplay)
    async def handle_replay(_, replay: IdempotentReplay):
        return replay_response(replay)

    for router in ROUTERS:
        app.include_router(router)
    app.add_middleware(RequestMiddleware, body_bytes_max=settings.request_body_bytes_max)
    return app
