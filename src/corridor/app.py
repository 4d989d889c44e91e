"""create_app(): routers, error handlers, middleware, and the in-process workers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import os
from collections.abc import AsyncIterator

from fastapi import FastAPI
from starlette.routing import Route

from corridor import __version__
from corridor.accounts.endpoints import router as accounts_router
from corridor.agents.endpoints import router as agents_router
from corridor.agents.enforcement import AgentSpendGuard
from corridor.agents.mandates.endpoints import router as mandates_router
from corridor.assistant.confirmations import decided_as_confirmation
from corridor.assistant.endpoints import router as assistant_router
from corridor.assistant.execution import AssistantEnvironment
from corridor.audit.endpoints import router as audit_router
from corridor.bankfiles.endpoints import router as bank_files_router
from corridor.bankfiles.profile import install_file_rails
from corridor.clocks.endpoints import router as clocks_router
from corridor.config import Settings, get_settings
from corridor.confirmations.endpoints import router as confirmations_router
from corridor.console.app import install_console
from corridor.customers.endpoints import router as customers_router
from corridor.documents.endpoints import router as documents_router
from corridor.documents.endpoints import uploads_router
from corridor.documents.rules import document_bytes_max
from corridor.documents.storage import DocumentStorage
from corridor.fixedroutes.endpoints import router as fixed_routes_router
from corridor.fixedroutes.routing import FixedRouteDeposits
from corridor.health import router as health_router
from corridor.hosted.endpoints import router as hosted_router
from corridor.kit import metrics, secretbox, supervision, tracing
from corridor.kit.clock import Clock, SystemClock
from corridor.kit.db import Database, PoolLimits
from corridor.kit.logging import configure_logging, get_logger
from corridor.mcp.http import MCPEndpoint
from corridor.mcp.metadata import router as mcp_metadata_router
from corridor.oauth.endpoints import grants_router as oauth_grants_router
from corridor.oauth.endpoints import router as oauth_router
from corridor.organizations.endpoints import router as organizations_router
from corridor.organizations.endpoints.access import router as auth_router
from corridor.parties.endpoints import router as parties_router
from corridor.quotes.binding import QuoteLocks
from corridor.quotes.endpoints import router as quotes_router
from corridor.receipts import service as receipts
from corridor.receipts.endpoints import router as receipts_router
from corridor.reconciliation.endpoints import router as reconciliation_router
from corridor.requestlogs.endpoints import router as request_logs_router
from corridor.requestlogs.recorder import RequestLogBuffer
from corridor.statements.endpoints import router as statements_router
from corridor.tools.registry import ToolEnvironment
from corridor.transfers.deposit_endpoints import router as deposits_router
from corridor.transfers.endpoints import router as transfers_router
from corridor.transfers.express_endpoint import ExpressCreateSubmit, ExpressTally
from corridor.transfers.lifecycle import install_status_watchers
from corridor.transfers.plugins import TransferPlugins
from corridor.treasury.endpoints import router as treasury_router
from corridor.web.context import IdempotentReplay, replay_response
from corridor.web.docs import install_docs
from corridor.web.errors import install_error_handlers
from corridor.web.guide import install_guide
from corridor.web.middleware import RequestMiddleware
from corridor.web.openapi import install_examples
from corridor.web.ratelimits import RateLimiter
from corridor.web.request_metrics import RequestMetrics
from corridor.web.routing import install_route_index
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
    clocks_router,
    bank_files_router,
    reconciliation_router,
    agents_router,
    mandates_router,
    quotes_router,
    fixed_routes_router,
    documents_router,
    uploads_router,
    statements_router,
    treasury_router,
    assistant_router,
    confirmations_router,
    hosted_router,
    oauth_router,
    oauth_grants_router,
    mcp_metadata_router,
    request_logs_router,
    receipts_router,
    audit_router,
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


def pool_limits(settings: Settings) -> PoolLimits:
    return PoolLimits(
        size=settings.database_pool_size,
        overflow=settings.database_pool_overflow,
        timeout_s=settings.database_pool_timeout_s,
    )


def database_of(settings: Settings, *, with_replica: bool = True) -> Database:
    """The process's database (and read replica, for the API processes that read from it)."""
    database = Database(
        settings.database_url,
        pool=pool_limits(settings),
        replica_url=settings.database_replica_url if with_replica else None,
        replica_lag_max_s=settings.database_replica_lag_max_s,
    )
    if tracing.enabled() and traces_wanted(settings):
        for engine in {database.engine, database.read_engine}:
            tracing.instrument_engine(engine)
        if database.replica is not None:
            tracing.instrument_engine(database.replica.engine)
    return database


def traces_wanted(settings: Settings) -> bool:
    return tracing.wanted(settings.tracing_enabled, os.environ)


def install_tracing(settings: Settings, *, service_name: str) -> None:
    """Traces on when configured (kit/tracing.py): nothing is installed otherwise."""
    if traces_wanted(settings):
        tracing.configure(service_name=service_name)


def install_secret_box(settings: Settings) -> None:
    """The server key that encrypts webhook signing secrets at rest (kit/secretbox.py)."""
    if settings.secret_key is None and not settings.is_sandbox and not settings.is_sqlite:
        get_logger("corridor.app").warning(
            "secret_key_from_file",
            detail="CORRIDOR_SECRET_KEY is not set: using the key file of the data folder; "
            "every API and worker process must share one key, so set CORRIDOR_SECRET_KEY",
        )
    secretbox.install(settings.secret_box())


def install_receipts(settings: Settings) -> None:
    """Receipts of agents' payments (receipts/): their `iss`, and a receipt at each final
    status of an agent's transfer, wherever the move happens (API, engine, workers)."""
    receipts.install_issuer(settings.public_base_url, host=settings.host, port=settings.port)
    install_status_watchers(receipts.FinalStatusReceipts())


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
    install_secret_box(settings)
    install_receipts(settings)
    install_tracing(settings, service_name="corridor")
    if settings.file_rails:
        install_file_rails(settings)
    if settings.evm_chains:  # web3 is imported only where a chain is paid on a node
        from corridor.rails.evm import install_evm_rails

        install_evm_rails(settings)
    database = database or database_of(settings)
    clock = clock or SystemClock()
    workers_wanted = (
        settings.workers_in_process if run_workers_in_process is None else run_workers_in_process
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        metrics.forget_dead_processes()
        workers = (
            asyncio.create_task(
                run_workers(
                    database,
                    clock,
                    stop,
                    assistant=app.state.assistant,
                    settings=settings,
                )
            )
            if workers_wanted
            else None
        )
        request_log_flushing = (
            asyncio.create_task(app.state.request_log.run(stop))
            if app.state.request_log is not None
            else None
        )
        replica_watch = (
            asyncio.create_task(database.replica.watch(database.engine, stop))
            if database.replica is not None
            else None
        )
        try:
            async with mcp_endpoint.running():
                yield
        finally:
            stop.set()
            if workers is not None:
                await workers
            if replica_watch is not None:
                await replica_watch
            if request_log_flushing is not None:
                await request_log_flushing
            await database.dispose()
            tracing.flush()
            metrics.process_exiting()

    app = FastAPI(
        title="Corridor",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        openapi_url="/openapi.json",
        # /docs and /redoc come from install_docs: assets served here, not from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.database = database
    app.state.clock = clock
    app.state.transfer_plugins = transfer_plugins()
    app.state.document_storage = DocumentStorage(settings)
    app.state.tools = ToolEnvironment(database, clock, settings, app.state.transfer_plugins)
    app.state.assistant = AssistantEnvironment.of(app.state.tools)
    # An owner's decision on an assistant's confirmation card runs it as its thread would.
    app.state.confirmation_cards = functools.partial(
        decided_as_confirmation, environment=app.state.tools
    )
    mcp_endpoint = MCPEndpoint(app.state.tools)
    app.state.mcp_endpoint = mcp_endpoint
    # An ASGI app of its own (the MCP SDK's), on the API's port and credentials.
    app.router.routes.append(Route("/mcp", mcp_endpoint, methods=["GET", "POST", "DELETE"]))
    app.state.rate_limiter = RateLimiter(settings)
    app.state.request_log = (
        RequestLogBuffer(database, clock) if settings.request_log_enabled else None
    )
    install_error_handlers(app)

    @app.exception_handler(IdempotentReplay)
    async def handle_replay(_, replay: IdempotentReplay):
        return replay_response(replay)

    for router in ROUTERS:
        app.include_router(router)
    install_docs(app)
    install_guide(app, settings.guide_directory)
    install_console(app)
    install_examples(app)
    install_route_index(app.router)
    app.state.express_tally = ExpressTally()
    if settings.express_submit and not database.is_sqlite:
        app.add_middleware(
            ExpressCreateSubmit,
            database=database,
            clock=clock,
            settings=settings,
            plugins=app.state.transfer_plugins,
            rate_limiter=app.state.rate_limiter,
            tally=app.state.express_tally,
        )
    app.add_middleware(
        RequestMiddleware,
        body_bytes_max=settings.request_body_bytes_max,
        upload_path_prefix="/uploads/",
        upload_bytes_max=document_bytes_max,
        sandbox=settings.is_sandbox,
        request_log=app.state.request_log,
    )
    if settings.metrics_enabled:
        # Outside the others: every answer is counted, those given in front of the router too.
        app.add_middleware(RequestMetrics, routes=app.router.routes)
    if traces_wanted(settings):
        tracing.instrument_app(app)
    return app


def app_from_environment() -> FastAPI:
    """The app as configured by CORRIDOR_* variables: what each process of
    `corridor serve --processes N` runs. It stops (as on SIGTERM, which uvicorn handles by
    now) when the supervising `corridor serve` is gone (kit/supervision.py)."""
    supervision.follow_supervisor()
    return served(create_app(get_settings()))


def served(app: FastAPI) -> FastAPI:
    """The app about to serve: the objects made so far (modules, schemas, the routes, the
    OpenAPI document; some 330,000) are kept out of the garbage collector's full passes
    (`gc.freeze`), which walked them all, 160 ms and more each, and showed as the slowest
    answers (p99) under load. Only what lives on is frozen: collected first."""
    gc.collect()
    gc.freeze()
    return app
