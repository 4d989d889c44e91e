"""The `corridor` command: init, serve, worker, migrate, keys, webhooks, mcp."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from corridor import __version__
from corridor.config import get_settings

# Plain help (no Rich panels), -h beside --help, and lines that fit 80 columns. Every option
# that takes a value names it with a metavar (ID, PORT, …): Typer would print type tags.
HELP_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 80}


def _typer(help: str, **options) -> typer.Typer:
    return typer.Typer(
        help=help,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings=HELP_SETTINGS,
        **options,
    )


def _plain_arguments() -> None:
    """Typer prints an argument as `KEY_ID <str>` in help and `{KEY_ID}` in usage; show the
    metavar alone, as for options (`KEY_ID`, `[FILE]` when optional)."""
    from typer.core import TyperArgument

    type_shown = TyperArgument.display_type_rich
    usage_shown = TyperArgument._usage_display_name

    def display_type(self, ctx):
        return None if self.metavar else type_shown(self, ctx)

    def usage_name(self):
        if not self.metavar or self.nargs != 1:
            return usage_shown(self)
        return self.metavar if self.required else f"[{self.metavar}]"

    TyperArgument.display_type_rich = display_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign]


_plain_arguments()
app = _typer(
    "Corridor: an open payments service. Every command reads CORRIDOR_* settings "
    "(CORRIDOR_DATABASE_URL, CORRIDOR_ENV, …) from the environment or a .env file."
)
keys_app = _typer("Manage the organization's API keys.")
app.add_typer(keys_app, name="keys")
webhooks_app = _typer("Debug webhook deliveries.")
app.add_typer(webhooks_app, name="webhooks")
users_app = _typer("Manage the people who sign in to the console.")
app.add_typer(users_app, name="users")
logs_app = _typer("The request log: the API requests of the organization's keys.")
app.add_typer(logs_app, name="logs")
console = Console()
errors = Console(stderr=True)
# Set by --debug (or CORRIDOR_DEBUG=1): a failure shows its traceback, not one line.
_debug = {"enabled": os.environ.get("CORRIDOR_DEBUG", "") not in ("", "0")}


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"corridor {__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", help="When a command fails, show the traceback (also CORRIDOR_DEBUG=1)."
        ),
    ] = False,
) -> None:
    if debug:
        _debug["enabled"] = True


def _quiet_closed_loop_threads() -> None:
    """aiosqlite's worker thread may report a failed connection after `asyncio.run` closed
    its loop; that second traceback says nothing the one-line error does not (--debug
    still shows it)."""
    import threading

    report = threading.excepthook

    def hook(failure: threading.ExceptHookArgs) -> None:
        noise = isinstance(failure.exc_value, RuntimeError) and "Event loop is closed" in str(
            failure.exc_value
        )
        if _debug["enabled"] or not noise:
            report(failure)

    threading.excepthook = hook


def main() -> None:
    """The `corridor` entry point: a failure prints one line and exits 1, unless --debug."""
    from corridor.kit.failures import describe_failure

    _quiet_closed_loop_threads()
    try:
        app(prog_name="corridor")
    except KeyboardInterrupt:
        errors.print("Interrupted.")
        sys.exit(130)
    except Exception as error:
        if _debug["enabled"]:
            raise
        errors.print(
            f"Error: {describe_failure(error, database=_database_shown())} "
            "(--debug shows the traceback)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)


def _run(coroutine):
    return asyncio.run(coroutine)


@app.command()
def migrate() -> None:
    """Bring the database schema up to date (Alembic migrations) and say what was applied."""
    from corridor.kit.migrate import pending_migrations, upgrade_to_head

    settings = get_settings()
    where = _safe_url(settings.database_url)
    pending = pending_migrations(settings.database_url)
    if not pending:
        console.print(f"Database already up to date ({where}).", highlight=False, soft_wrap=True)
        return
    with _progress() as progress:
        task = progress.add_task("Migrating", total=len(pending))
        applied = upgrade_to_head(
            settings.database_url, on_applied=lambda _: progress.advance(task)
        )
    for migration in applied:
        console.print(
            f"Applied {migration.revision}: {_first_line(migration.description)}",
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"[green]Applied {len(applied)} migration{'s' if len(applied) != 1 else ''}[/green]; "
        f"the database is at {applied[-1].revision if applied else 'head'} ({where}).",
        highlight=False,
        soft_wrap=True,
    )


def _first_line(description: str) -> str:
    """A migration's docstring may run to a paragraph: its first line, "…" when more follows."""
    lines = [line.strip() for line in description.strip().splitlines()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 and lines[1] else "")


def _progress() -> Progress:
    """A progress bar on standard error (standard output stays for results), shown only on
    a terminal (elsewhere it would leave a blank line); lines printed through its console
    appear above it."""
    stderr = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    )


@app.command()
def init(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only the JSON object of credentials.")
    ] = False,
    if_empty: Annotated[
        bool,
        typer.Option(
            "--if-empty", help="Do nothing when the database already has an organization."
        ),
    ] = False,
    name: Annotated[
        str, typer.Option(metavar="NAME", help="Name of the organization.")
    ] = "Sandbox organization",
    email: Annotated[
        str | None,
        typer.Option(metavar="EMAIL", help="Console login email (generated when omitted)."),
    ] = None,
) -> None:
    """Create an organization with a console user and an unrestricted key, and print them once."""
    from corridor.kit.migrate import upgrade_to_head

    settings = get_settings()
    upgrade_to_head(settings.database_url)
    created = _run(_bootstrap(name=name, email=email, if_empty=if_empty))
    if created is None:
        if not as_json:
            console.print(
                "An organization already exists; its credentials were printed when it was made. "
                "Make a new key with [bold]corridor keys create[/bold]."
            )
        return
    credentials = {
        "organizationId": created.organization.id,
        "apiKey": created.secret,
        "consoleEmail": created.user.email,
        "consolePassword": created.console_password,
    }
    if as_json:
        typer.echo(json.dumps(credentials))
        return
    table = Table(
        title="Your Corridor sandbox organization", show_header=False, title_justify="left"
    )
    table.add_row("Organization", credentials["organizationId"])
    table.add_row("API key", f"[bold]{credentials['apiKey']}[/bold]")
    table.add_row("Console email", credentials["consoleEmail"])
    table.add_row("Console password", credentials["consolePassword"])
    console.print(table)
    console.print("[yellow]Store the key and password now: they are shown only once.[/yellow]")


async def _bootstrap(*, name: str, email: str | None, if_empty: bool):
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.organizations import service

    settings = get_settings()
    database = Database(settings.database_url)
    try:
        async with database.session() as session, session.begin():
            if if_empty and await service.any_organization_exists(session):
                return None
            return await service.bootstrap_organization(
                session,
                name=name,
                email=email,
                key_environment=settings.key_environment,
                now=SystemClock().now(),
            )
    finally:
        await database.dispose()


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(
            metavar="HOST",
            help="Interface to listen on (default: the CORRIDOR_HOST setting, 127.0.0.1).",
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(
            metavar="PORT", help="Port to listen on (default: the CORRIDOR_PORT setting, 8000)."
        ),
    ] = None,
    workers: Annotated[
        bool | None,
        typer.Option(
            "--workers/--no-workers",
            help="Run the background workers too "
            "(default: yes on SQLite, no on PostgreSQL where `corridor worker` runs them).",
        ),
    ] = None,
    processes: Annotated[
        int | None,
        typer.Option(
            "--processes",
            metavar="N",
            min=1,
            max=64,
            help="API processes sharing the port (default: the number of CPU cores on "
            "PostgreSQL, 1 on SQLite). With more than one, the background workers run in one "
            "process of their own.",
        ),
    ] = None,
) -> None:
    """Serve the API (OpenAPI at /openapi.json, reference at /docs and /redoc).

    The port and interface come from --port and --host, or from the CORRIDOR_PORT and
    CORRIDOR_HOST settings."""
    import uvicorn

    settings = get_settings()
    _check_database_scheme(settings.database_url)
    _check_can_listen(host or settings.host, port or settings.port)
    # The embedded SQLite default stays one process with the workers inside it, as
    # `make serve` promises; on PostgreSQL one API process per core.
    embedded = settings.is_sqlite
    count = processes or (1 if embedded else os.cpu_count() or 1)
    with_workers = settings.workers_in_process if workers is None else workers
    # Before prometheus_client is first imported (by the app): several processes share
    # one folder of metrics, so any of them answers /metrics for all (kit/metrics.py).
    shared_metrics = _share_metrics() if count > 1 else None

    from corridor.kit import metrics, supervision
    from corridor.web.middleware import request_head_bytes_max

    address = f"http://{host or settings.host}:{port or settings.port}"
    if count == 1:
        note = "with workers in this process" if with_workers else "without workers"
    else:
        note = f"{count} processes" + (", workers in one more" if with_workers else "")
    console.print(
        f"Corridor {settings.env.value} serving on [bold]{address}[/bold] ({note}); "
        f"console at {address}/console, docs at {address}/docs and {address}/redoc. "
        "Ctrl+C stops."
    )
    options: dict[str, Any] = {
        "host": host or settings.host,
        "port": port or settings.port,
        "log_level": "warning",
        "access_log": False,
        # uvloop and httptools (dependencies; uvicorn's "auto" picks them), the C event loop
        # and HTTP parser: less CPU per request than asyncio's loop and h11.
        "loop": "auto",
        "http": "auto",
        # Over-long URLs reach the app, which answers 414 in the error shape, up to the
        # HTTP parser's own limit on a request head (httptools: 80 KiB; past it, uvicorn's
        # plain-text 400); h11, used where httptools is missing, needs this one.
        "h11_max_incomplete_event_size": request_head_bytes_max,
        # An idle connection stays open longer than clients keep theirs in their pools, so
        # the client, not the server, closes it (config.py, http_keep_alive_s).
        "timeout_keep_alive": settings.http_keep_alive_s,
        # SIGTERM: stop accepting, give the requests in flight this long, then stop.
        "timeout_graceful_shutdown": settings.shutdown_grace_s,
        # With several processes, uvicorn's supervisor pings each and restarts one that
        # does not answer in time; a process still importing the app on a loaded machine
        # missed uvicorn's 5 s, was restarted, and the restarts kept every process busy.
        "timeout_worker_healthcheck": 60,
    }
    if settings.metrics_enabled and settings.metrics_port is not None:
        if not metrics.serve_on_port(settings.metrics_host, settings.metrics_port):
            console.print(f"Metrics port {settings.metrics_port} is served by another process.")
    if count == 1:
        from corridor.app import create_app, served

        uvicorn.run(served(create_app(settings, run_workers_in_process=with_workers)), **options)
        return
    # Several processes: each imports the app itself; this one only supervises them.
    # uvicorn starts each from the factory, which reads the settings from
    # the environment; the workers get a process of their own, stopped with the server.
    os.environ["CORRIDOR_RUN_WORKERS_IN_PROCESS"] = "false"
    # Each child follows this process: killed however (SIGKILL too), it takes them with it,
    # each stopping as on SIGTERM (kit/supervision.py).
    supervision.supervise_children()
    worker_process = (
        subprocess.Popen([sys.executable, "-m", "corridor", "worker"]) if with_workers else None
    )
    try:
        uvicorn.run("corridor.app:app_from_environment", factory=True, workers=count, **options)
    finally:
        if worker_process is not None:
            worker_process.terminate()  # SIGTERM: the worker finishes or releases its claims
            try:
                worker_process.wait(timeout=settings.shutdown_grace_s + 30)
            except subprocess.TimeoutExpired:
                worker_process.kill()
        if shared_metrics is not None:
            shared_metrics()


def _share_metrics():
    """Point PROMETHEUS_MULTIPROC_DIR at a fresh folder for this server's processes (unless
    the operator named one); returns what removes it again."""
    import shutil
    import tempfile

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    directory = tempfile.mkdtemp(prefix="corridor-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = directory
    return lambda: shutil.rmtree(directory, ignore_errors=True)


def _check_database_scheme(url: str) -> None:
    """Another driver's URL would fail inside uvicorn's startup, traceback and all."""
    from corridor.kit.failures import SUPPORTED_DATABASE_SCHEMES

    if url.split("://", 1)[0] not in SUPPORTED_DATABASE_SCHEMES:
        errors.print(
            f"Error: cannot use {_safe_url(url)}: Corridor has no driver for it; "
            "use postgresql+asyncpg:// or sqlite+aiosqlite://",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code=1)


def _check_can_listen(host: str, port: int) -> None:
    """Bind the address once before saying "serving on" and starting workers: a port in use
    used to show up after them, as uvicorn's traceback-like [Errno 98] and exit status 3."""
    import errno
    import socket

    try:
        # As uvicorn binds it (SO_REUSEADDR): a port left in TIME_WAIT is free, a listening
        # one is not.
        socket.create_server((host, port)).close()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            message = f"{host}:{port} is in use; choose --port or CORRIDOR_PORT"
        else:
            # create_server adds "(while attempting to bind on address …)": said already.
            reason = (error.strerror or str(error)).split(" (while attempting")[0]
            message = f"cannot listen on {host}:{port}: {reason}"
        errors.print(f"Error: {message}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None


@app.command()
def worker() -> None:
    """Run the background workers alone (any number may share one PostgreSQL database)."""
    import signal

    from corridor.app import database_of, install_secret_box, install_tracing, transfer_plugins
    from corridor.assistant.execution import AssistantEnvironment
    from corridor.kit import metrics, supervision, tracing
    from corridor.kit.clock import SystemClock
    from corridor.kit.logging import configure_logging
    from corridor.tools.registry import ToolEnvironment
    from corridor.workers.runner import run_workers

    settings = get_settings()
    configure_logging(log_format=settings.log_format, level=settings.log_level)
    install_secret_box(settings)
    install_tracing(settings, service_name="corridor-worker")
    if settings.file_rails:
        from corridor.bankfiles.profile import install_file_rails

        install_file_rails(settings)
    if settings.evm_chains:
        from corridor.rails.evm import install_evm_rails

        install_evm_rails(settings)
    if settings.metrics_enabled and settings.metrics_port is not None:
        metrics.serve_on_port(settings.metrics_host, settings.metrics_port)

    async def main() -> None:
        database = database_of(settings, with_replica=False)
        stop = asyncio.Event()
        # SIGTERM (a service manager, `corridor serve` stopping) and Ctrl+C: finish or
        # release what is claimed, then exit (workers/runner.py).
        loop = asyncio.get_running_loop()
        for stop_signal in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(stop_signal, stop.set)
        # Started by `corridor serve`: stop the same way once it is gone. Run alone, there is
        # no supervisor to follow and this does nothing (kit/supervision.py).
        supervision.follow_supervisor()
        clock = SystemClock()
        tools = ToolEnvironment(database, clock, settings, transfer_plugins())
        try:
            await run_workers(
                database, clock, stop, assistant=AssistantEnvironment.of(tools), settings=settings
            )
        finally:
            await database.dispose()
            tracing.flush()
            metrics.process_exiting()

    with contextlib.suppress(KeyboardInterrupt):
        _run(main())
    console.print("Workers stopped.")


@app.command()
def listen(
    api_key: Annotated[
        str,
        typer.Option(
            envvar="CORRIDOR_API_KEY",
            metavar="KEY",
            help="An API key allowed webhooks:manage.",
        ),
    ],
    base_url: Annotated[
        str | None,
        typer.Option(
            envvar="CORRIDOR_BASE_URL",
            metavar="URL",
            help="The Corridor server (default: http://CORRIDOR_HOST:CORRIDOR_PORT, "
            "that is http://127.0.0.1:8000).",
        ),
    ] = None,
    event: Annotated[
        list[str] | None,
        typer.Option(
            "--event", "-e", metavar="TYPE", help="An event type; repeat for several. Default: all."
        ),
    ] = None,
    forward_to: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Also POST each verified delivery, signature headers included, to this URL; "
            "the server is answered with its status.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each delivery's raw JSON body, one a line.")
    ] = False,
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the webhook endpoint when stopping.")
    ] = False,
    port: Annotated[
        int,
        typer.Option(
            metavar="PORT",
            show_default=False,
            help="Port of the receiver on 127.0.0.1 (default: a free one). With the same port "
            "a kept endpoint is reused.",
        ),
    ] = 0,
) -> None:
    """Receive the server's webhooks here: print each event as it arrives.

    Starts a receiver on 127.0.0.1, makes a webhook endpoint pointing at it (or reuses one
    that does), verifies every delivery's signature, prints its type, message id, tags and
    a short summary, and removes the endpoint when stopped (Ctrl+C) unless --keep."""
    from corridor.listen import ListenError, Options
    from corridor.listen import listen as run_listener

    settings = get_settings()
    options = Options(
        api_url=base_url or f"http://{settings.host}:{settings.port}",
        api_key=api_key,
        event_types=event or [],
        forward_to=forward_to,
        as_json=as_json,
        keep=keep,
        port=port,
    )
    try:
        run_listener(
            options,
            say=lambda line: errors.print(line, highlight=False, markup=False, soft_wrap=True),
            write=lambda line: print(line, flush=True),
        )
    except ListenError as error:
        errors.print(f"Error: {error}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=1) from None


@app.command()
def mcp() -> None:
    """Serve the MCP tools over stdio for a desktop MCP client, acting as the API key in
    CORRIDOR_API_KEY (the same tools and rules as /mcp over HTTP)."""
    from corridor.app import transfer_plugins
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.kit.errors import CorridorError
    from corridor.kit.logging import configure_logging
    from corridor.mcp.stdio import serve_stdio
    from corridor.tools.registry import ToolEnvironment

    api_key = os.environ.get("CORRIDOR_API_KEY", "")
    if not api_key:
        errors.print("Set CORRIDOR_API_KEY to the API key the tools act as.")
        raise typer.Exit(2)
    settings = get_settings()
    configure_logging(log_format=settings.log_format, level="WARNING")

    async def main() -> None:
        database = Database(settings.database_url)
        environment = ToolEnvironment(database, SystemClock(), settings, transfer_plugins())
        try:
            await serve_stdio(environment, api_key)
        finally:
            await database.dispose()

    try:
        _run(main())
    except CorridorError as error:
        errors.print(f"corridor mcp: {error.message}")
        raise typer.Exit(1) from None


def _organization_option() -> typer.models.OptionInfo:
    return typer.Option(
        "--organization",
        "-o",
        metavar="ID",
        help="Organization id (may be omitted when the database holds one).",
    )


async def _resolve_organization(session, organization_id: str | None) -> str:
    from corridor.organizations import repository

    if organization_id:
        # Checked here: a key or a replay for an organization that does not exist would
        # otherwise reach the database and fail on its foreign key.
        if await repository.organization_by_id(session, organization_id) is None:
            _usage_error(f"no such organization: {organization_id}")
        return organization_id
    only = await repository.only_organization_id(session)
    if only is None:
        if await repository.count_organizations(session) == 0:
            _usage_error("no organization yet: run `corridor init` first")
        _usage_error("several organizations exist: pass --organization org_…")
    return only


def _usage_error(message: str) -> NoReturn:
    """One line on stderr, `corridor: …`, and exit status 2 (the command was asked wrongly)."""
    errors.print(f"corridor: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


@keys_app.command("create")
def keys_create(
    name: Annotated[
        str, typer.Option(metavar="NAME", help="A name to recognise the key by.")
    ] = "CLI key",
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            "-s",
            metavar="SCOPE",
            help="A scope; repeat for several. Default: * (unrestricted).",
        ),
    ] = None,
    organization: Annotated[str | None, _organization_option()] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create an organization API key and print its secret once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.auth.scopes import UNRESTRICTED
    from corridor.kit.errors import CorridorError

    async def main():
        database, settings, clock = _open()
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                return await service.create_api_key(
                    session,
                    caller=Caller.operator(organization_id),
                    name=name,
                    scopes=scope or [UNRESTRICTED],
                    key_environment=settings.key_environment,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        key, secret = _run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps({"id": key.id, "secret": secret, "scopes": key.scopes}))
    else:
        console.print(f"Created {key.id} with scopes {', '.join(key.scopes)}")
        console.print(f"Secret (shown once): [bold]{secret}[/bold]")


@keys_app.command("list")
def keys_list(
    organization: Annotated[str | None, _organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one key per line.")
    ] = False,
) -> None:
    """List the organization's API keys, newest first (never their secrets)."""
    from corridor.auth import repository
    from corridor.models.access import ApiKey

    async def main():
        database, _, _ = _open()
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
                statement = repository.organization_keys(organization_id).order_by(ApiKey.id.desc())
                return list((await session.execute(statement)).scalars())
        finally:
            await database.dispose()

    keys = _run(main())
    if as_json:
        for key in keys:
            typer.echo(
                json.dumps(
                    {
                        "id": key.id,
                        "name": key.name,
                        "prefix": key.prefix,
                        "scopes": key.scopes,
                        "createdAt": key.created_at.isoformat(),
                        "revokedAt": key.revoked_at.isoformat() if key.revoked_at else None,
                    }
                )
            )
        return
    console.print(_keys_table(keys, width=console.width))


# Below this width `keys list` leaves out the prefix and the times of day.
keys_table_wide_chars_min = 120


def _keys_table(keys, *, width: int) -> Table:
    """Ids and times whole on one line; names and scopes wrap. Narrow terminals get fewer
    columns."""
    wide = width >= keys_table_wide_chars_min
    moment = "%Y-%m-%d %H:%M" if wide else "%Y-%m-%d"
    rows = []
    for key in keys:
        cells = [key.id, key.name, *([key.prefix] if wide else []), " ".join(key.scopes)]
        cells += [
            f"{key.created_at:{moment}}",
            f"{key.revoked_at:{moment}}" if key.revoked_at else "",
        ]
        rows.append(cells)
    # Scopes wrap between scopes, not inside one (up to 20 characters).
    longest_scope = max((len(scope) for key in keys for scope in key.scopes), default=6)
    headers = ["id", "name", *(["prefix"] if wide else []), "scopes", "created", "revoked"]
    name_chars, scopes_chars = _wrapping_widths(
        rows, headers, width=width, wrapping=(1, len(headers) - 3), minimum=min(longest_scope, 20)
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True)
    table.add_column("name", overflow="fold", ratio=1, width=name_chars)
    if wide:
        table.add_column("prefix", no_wrap=True)
    table.add_column("scopes", overflow="fold", ratio=1, width=scopes_chars)
    table.add_column("created", no_wrap=True)
    table.add_column("revoked", no_wrap=True)
    for cells in rows:
        table.add_row(*cells)
    return table


def _wrapping_widths(
    rows: list[list[str]],
    headers: list[str],
    *,
    width: int,
    wrapping: tuple[int, int],
    minimum: int,
) -> tuple[int | None, int | None]:
    """Widths of the two wrapping columns at `wrapping` when the table would not fit
    `width` otherwise (None, None when it fits): the other columns keep their whole
    width (Rich would cut them), the second wrapping column at least `minimum`."""
    natural = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    gaps_chars = 2 * (len(headers) - 1)
    first, second = wrapping
    budget = (
        width
        - gaps_chars
        - sum(chars for index, chars in enumerate(natural) if index not in wrapping)
    )
    if natural[first] + natural[second] <= budget or budget < minimum + 4:
        return None, None  # it fits, or nothing can: Rich shares the width out
    second_chars = min(natural[second], max(minimum, budget // 2))
    return max(budget - second_chars, 4), second_chars


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID", help="The key's id (key_…).")],
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Revoke an API key at once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError

    async def main():
        database, _, clock = _open()
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                await service.revoke_api_key(
                    session,
                    caller=Caller.operator(organization_id),
                    key_id=key_id,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        _run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=1) from None
    console.print(f"Revoked {key_id}")


@users_app.command("add")
def users_add(
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The person's email (login).")],
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin",
            help="Read the password from standard input (12 characters or more) instead of "
            "generating one.",
        ),
    ] = False,
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Add a console user to the organization and print the password once (generated unless
    --password-stdin). A second user is who authorizes what the first submitted."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.auth.secrets import random_token
    from corridor.kit.errors import CorridorError

    password = sys.stdin.readline().rstrip("\r\n") if password_stdin else random_token(20)

    async def main():
        database, settings, clock = _open()
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                return await service.add_console_user(
                    session,
                    caller=Caller.operator(organization_id),
                    email=email,
                    password=password,
                    sandbox=settings.is_sandbox,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        user = _run(main())
    except CorridorError as error:
        _usage_error(error.message)
    console.print(f"Added {user.id} ({user.email}) to {user.organization_id}", highlight=False)
    if not password_stdin:
        console.print(f"Password (shown once): [bold]{password}[/bold]", highlight=False)


@users_app.command("list")
def users_list(organization: Annotated[str | None, _organization_option()] = None) -> None:
    """List the organization's console users (never their passwords)."""
    from corridor.auth import service
    from corridor.auth.callers import Caller

    async def main():
        database, _, _ = _open()
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
                return await service.console_users_of(
                    session, caller=Caller.operator(organization_id)
                )
        finally:
            await database.dispose()

    for user in _run(main()):
        typer.echo(f"{user.id}  {user.email}  added {user.created_at:%Y-%m-%d}")


@webhooks_app.command("verify")
def webhooks_verify(
    file: Annotated[
        typer.FileBinaryRead,
        typer.Argument(
            metavar="FILE",
            help="A saved delivery: the request's headers, a blank line, then the raw body "
            "(or only the body, with --header). '-' reads standard input.",
        ),
    ],
    secret: Annotated[
        str,
        typer.Option(
            "--secret",
            envvar="CORRIDOR_WEBHOOK_SECRET",
            metavar="SECRET",
            help="The whsec_… secret.",
        ),
    ],
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            "-H",
            metavar="HEADER",
            help="'Name: value'; repeat for each. FILE is then the body only.",
        ),
    ] = None,
    ignore_age: Annotated[
        bool,
        typer.Option("--ignore-age", help="Check the signature only, not the timestamp's age."),
    ] = False,
) -> None:
    """Check a delivery's signature as a receiver would, and say which part fails.

    Exit status 0 when it verifies, 1 when a check fails, 2 when FILE cannot be read."""
    from datetime import UTC, datetime

    from corridor.webhooks import verification

    raw = file.read(verification.saved_delivery_bytes_max + 1)
    try:
        if len(raw) > verification.saved_delivery_bytes_max:
            raise verification.SavedDeliveryError("the file is larger than 1 MiB")
        if header:
            headers, body = verification.parse_header_lines(header), raw
        else:
            headers, body = verification.parse_saved_delivery(raw)
    except verification.SavedDeliveryError as error:
        errors.print(f"[red]Cannot read the delivery: {error}[/red]")
        raise typer.Exit(code=2) from None
    report = verification.verify_saved_delivery(
        secret=secret, headers=headers, body=body, now=datetime.now(UTC), check_age=not ignore_age
    )
    for check in report.checks:
        mark = "[green]✓[/green]" if check.passed else "[red]✗[/red]"
        console.print(f"{mark} {check.part}: {check.detail}", highlight=False)
    if not report.passed:
        raise typer.Exit(code=1)
    console.print("[green]The delivery verifies.[/green]")


# `webhooks replay` queues deliveries in batches of this many, one transaction each, so the
# progress bar moves and no transaction holds thousands of rows.
replay_batch_deliveries = 200


@webhooks_app.command("replay")
def webhooks_replay(
    endpoint_id: Annotated[
        str, typer.Argument(metavar="ENDPOINT_ID", help="The endpoint's id (ep_…).")
    ],
    since: Annotated[
        str,
        typer.Option(
            metavar="WHEN",
            help="Messages created since: an ISO 8601 time (2026-11-20T00:00:00Z) or an age "
            "(90m, 24h, 7d).",
        ),
    ],
    until: Annotated[
        str | None,
        typer.Option(metavar="WHEN", help="…and before this time or age (default: now)."),
    ] = None,
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Send an endpoint's failed and canceled deliveries again (the workers send them).

    Queues them in batches with a progress bar, as POST
    /v1/webhooks/endpoints/{id}/replay would, until none is left."""
    from corridor.app import install_secret_box
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError
    from corridor.webhooks import service

    database, settings, clock = _open()
    install_secret_box(settings)  # endpoints' signing secrets are encrypted at rest
    now = clock.now()
    window = {"since": _moment(since, now, "--since")}
    window["until"] = _moment(until, now, "--until") if until else now

    async def replay_all() -> int:
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
                total = await service.count_replayable(
                    session,
                    caller=Caller.operator(organization_id),
                    endpoint_id=endpoint_id,
                    now=now,
                    **window,
                )
            queued = 0
            with _progress() as progress:
                task = progress.add_task("Queuing deliveries", total=total)
                while True:
                    async with database.session() as session, session.begin():
                        replay = await service.replay_failed(
                            session,
                            caller=Caller.operator(organization_id),
                            endpoint_id=endpoint_id,
                            now=now,
                            deliveries_max=replay_batch_deliveries,
                            **window,
                        )
                    queued += replay.queued
                    progress.advance(task, replay.queued)
                    if replay.complete or replay.queued == 0:
                        return queued
        finally:
            await database.dispose()

    try:
        queued = _run(replay_all())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=1) from None
    console.print(
        f"Queued {queued} deliver{'y' if queued == 1 else 'ies'} to {endpoint_id} for a new "
        "attempt; the workers send them.",
        highlight=False,
    )


def _moment(text: str, now, option: str):
    """An ISO 8601 time, or an age before `now` such as 90m, 24h or 7d."""
    import re
    from datetime import UTC, datetime, timedelta

    age = re.fullmatch(r"\s*(\d{1,6})\s*([mhd])\s*", text)
    if age:
        unit = {"m": "minutes", "h": "hours", "d": "days"}[age.group(2)]
        return now - timedelta(**{unit: int(age.group(1))})
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is neither an ISO 8601 time nor an age like 24h", param_hint=option
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# `reencrypt-secrets` rewrites endpoints in batches of this many, one transaction each.
reencrypt_batch_endpoints = 200


@app.command("encrypt-secret")
def encrypt_secret() -> None:
    """Encrypt a secret read from standard input with the server key and print it.

    For the settings that hold a secret encrypted (CORRIDOR_EVM_SIGNER_KEY, the hot
    wallet's private key; CORRIDOR_EVM_DEPOSIT_MNEMONIC, the deposit seed phrase): read
    from stdin, never from the command line, so it stays out of shell history."""
    from corridor.app import install_secret_box
    from corridor.kit import secretbox

    settings = get_settings()
    install_secret_box(settings)
    secret = sys.stdin.read().strip()
    if not secret:
        errors.print("Error: nothing to encrypt: pipe the secret to standard input")
        raise typer.Exit(code=1)
    console.print(secretbox.current().encrypt(secret), soft_wrap=True, highlight=False)


@app.command("reencrypt-secrets")
def reencrypt_secrets() -> None:
    """Encrypt every stored webhook signing secret again under CORRIDOR_SECRET_KEY.

    Rotating the server key: set the new key in CORRIDOR_SECRET_KEY, list the old one in
    CORRIDOR_SECRET_KEYS_RETIRED, run this command, then drop the retired key."""
    from corridor.app import install_secret_box
    from corridor.kit.secretbox import SecretBoxError
    from corridor.webhooks import repository

    settings = get_settings()

    async def main() -> int:
        database, _, _ = _open()
        done, last_id = 0, None
        try:
            async with database.session(write=False) as session:
                total = await repository.count_all_endpoints(session)
            with _progress() as progress:
                task = progress.add_task("Encrypting secrets", total=total)
                # Batches of one transaction each: the retired keys still read what is
                # not done yet, so stopping halfway loses nothing.
                while True:
                    async with database.session() as session, session.begin():
                        ids = await repository.reencrypt_secrets(
                            session, after_id=last_id, endpoints_max=reencrypt_batch_endpoints
                        )
                    if not ids:
                        return done
                    done, last_id = done + len(ids), ids[-1]
                    progress.advance(task, len(ids))
        finally:
            await database.dispose()

    try:
        install_secret_box(settings)
        count = _run(main())
    except SecretBoxError as error:
        errors.print(f"[red]{error}[/red]")
        raise typer.Exit(code=1) from None
    console.print(
        f"Encrypted the signing secrets of {count} webhook endpoint(s) under the current key"
    )


def _open():
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database

    settings = get_settings()
    return Database(settings.database_url), settings, SystemClock()


def _database_shown() -> str:
    try:
        return _safe_url(get_settings().database_url)
    except Exception:  # the settings themselves are what failed
        return "the configured database"


def _safe_url(url: str) -> str:
    """The database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url


# --- corridor bank-files ---------------------------------------------------------------------

bank_files_app = _typer(
    "Bank files: the NACHA files and ISO 20022 messages written for the bank, and its "
    "answers (docs/rails.md). The workers do all of this by themselves; these commands "
    "do it now, or by hand where no bank connection is set."
)
app.add_typer(bank_files_app, name="bank-files")


def _bank_file_line(file) -> str:
    window = file.window_cutoff_at.isoformat() if file.window_cutoff_at else "-"
    return (
        f"{file.id}  {file.direction:<8}  {file.format:<12}  {file.rail or '-':<12}  "
        f"{file.status:<8}  {file.entry_count:>6}  {window}  {file.name}"
    )


@bank_files_app.command("list")
def bank_files_list(
    organization: Annotated[str | None, _organization_option()] = None,
    direction: Annotated[
        str | None,
        typer.Option(metavar="DIRECTION", help="OUTGOING (for the bank) or INCOMING (from it)."),
    ] = None,
    limit: Annotated[int, typer.Option(metavar="N", min=1, max=250, help="At most N files.")] = 50,
) -> None:
    """List the organization's bank files, newest first: id, direction, format, rail,
    status, entries, window cutoff, name."""
    from corridor.auth.callers import Caller
    from corridor.bankfiles import service
    from corridor.kit.pagination import PageRequest

    async def main():
        database, _, _ = _open()
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
                page = await service.list_files(
                    session,
                    caller=Caller.operator(organization_id),
                    page=PageRequest(limit=limit, cursor=None),
                    direction=direction.upper() if direction else None,
                )
                return [_bank_file_line(file) for file in page.items]
        finally:
            await database.dispose()

    for line in _run(main()):
        console.print(line, highlight=False, soft_wrap=True)


@bank_files_app.command("write")
def bank_files_write(
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Write the files of every window whose cutoff has come (by the organization's
    clock): a NACHA file per ACH window, a pain.001.001.09 per SEPA or SWIFT window."""
    from corridor.bankfiles import writing
    from corridor.bankfiles.profile import profile_of

    database, settings, clock = _open()

    async def main() -> int:
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
            written = 0
            with _progress() as progress:
                task = progress.add_task("Writing bank files", total=None)
                while True:
                    done = await writing.write_due_files(
                        database,
                        clock,
                        profile=profile_of(settings),
                        organization_id=organization_id,
                    )
                    written += done
                    progress.advance(task, done)
                    if done == 0:
                        return written
        finally:
            await database.dispose()

    written = _run(main())
    console.print(f"Wrote {written} bank file{'' if written == 1 else 's'}.", highlight=False)


@bank_files_app.command("upload")
def bank_files_upload(
    organization: Annotated[str | None, _organization_option()] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed",
            help="Also the files whose automatic retries ran out.",
        ),
    ] = False,
) -> None:
    """Upload the written files to the bank connection (CORRIDOR_BANK_SFTP_*), each once."""
    from corridor.bankfiles import transport
    from corridor.bankfiles.errors import BankConnectionMissing

    database, settings, clock = _open()
    if settings.bank_sftp_host is None:
        errors.print(f"[red]{BankConnectionMissing().message}[/red]")
        raise typer.Exit(code=1)

    async def main() -> int:
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                if retry_failed:
                    await transport.rearm_failed_uploads(
                        session, organization_id=organization_id, now=clock.now()
                    )
            uploaded = 0
            with _progress() as progress:
                task = progress.add_task("Uploading bank files", total=None)
                while True:
                    done = await transport.upload_due_files(
                        database, clock, settings=settings, organization_id=organization_id
                    )
                    uploaded += done
                    progress.advance(task, done)
                    if done == 0:
                        return uploaded
        finally:
            await database.dispose()

    uploaded = _run(main())
    console.print(f"Uploaded {uploaded} bank file{'' if uploaded == 1 else 's'}.", highlight=False)


@bank_files_app.command("import")
def bank_files_import(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="FILE...",
            exists=True,
            dir_okay=False,
            readable=True,
            help="Files the bank sent: NACHA returns/NOCs, pain.002, pacs.002, pacs.004, camt.054.",
        ),
    ],
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Read the bank's answers and apply them to the transfers (returns reverse or fail
    them, rejections fail them, NOCs are recorded). A file read before changes nothing."""
    from corridor.bankfiles import reading
    from corridor.bankfiles.errors import UnreadableBankFile
    from corridor.models import clock as sandbox_clocks

    database, _, clock = _open()

    async def main() -> list[str]:
        lines = []
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
            with _progress() as progress:
                task = progress.add_task("Reading bank files", total=len(paths))
                for path in paths:
                    text = path.read_text(encoding="utf-8", errors="replace")
                    try:
                        async with database.session() as session, session.begin():
                            now = (
                                await sandbox_clocks.moments(
                                    session, clock, organization_id=organization_id
                                )
                            ).of(organization_id)
                            file = await reading.import_file(
                                session,
                                organization_id=organization_id,
                                name=path.name,
                                content=text,
                                now=now,
                            )
                            summary = file.summary or {}
                            lines.append(
                                f"{path.name}: {file.id} {file.format}, applied "
                                f"{summary.get('applied', {})}, unmatched "
                                f"{len(summary.get('unmatched', []))}"
                            )
                    except UnreadableBankFile as error:
                        lines.append(f"{path.name}: not read: {error.message}")
                    progress.advance(task)
        finally:
            await database.dispose()
        return lines

    for line in _run(main()):
        console.print(line, highlight=False, soft_wrap=True)


# `corridor logs` (issue 28 item 5): written here while cli.py is being split into a
# package (branch i28cli); it belongs in cli/logs.py there.
@logs_app.command("tail")
def logs_tail(
    key: Annotated[
        str | None,
        typer.Option("--key", "-k", metavar="KEY_ID", help="Only this key's requests (key_…)."),
    ] = None,
    status: Annotated[
        str | None,
        typer.Option("--status", metavar="STATUS", help="A status (404) or a class (4xx, 5xx)."),
    ] = None,
    interval: Annotated[
        float, typer.Option("--interval", min=0.2, max=60, help="Seconds between two looks.")
    ] = 1.0,
    organization: Annotated[str | None, _organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one request per line.")
    ] = False,
) -> None:
    """Print the API requests of the organization's keys as they arrive (the request log,
    as GET /v1/request-logs), the last 10 first; Ctrl-C ends."""
    from corridor.auth.callers import Caller
    from corridor.requestlogs import rules, service

    statuses = rules.status_range(status) if status is not None else None
    if status is not None and statuses is None:
        _usage_error(f"--status {status!r}: a status (404) or a class of them (4xx)")
    filters = rules.RequestLogFilters(credential_id=key, status=statuses)

    async def main() -> None:
        database, _, _ = _open()
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
            caller = Caller.operator(organization_id)
            last: str | None = None
            while True:
                async with database.session(write=False) as session:
                    found = await service.request_logs_after(
                        session, caller=caller, filters=filters, after_id=last
                    )
                for log in found:
                    _print_request_log(log, as_json=as_json)
                    last = log.id
                await asyncio.sleep(interval)
        finally:
            await database.dispose()

    with contextlib.suppress(KeyboardInterrupt):
        _run(main())


def _print_request_log(log, *, as_json: bool) -> None:
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "id": log.id,
                    "createdAt": log.created_at.isoformat(),
                    "credentialId": log.credential_id,
                    "method": log.method,
                    "path": log.path,
                    "status": log.status,
                    "latencyMs": log.latency_ms,
                    "idempotencyKey": log.idempotency_key,
                    "errorBody": log.error_body,
                }
            )
        )
        return
    line = (
        f"{log.created_at:%Y-%m-%d %H:%M:%S} {log.status} {log.method} {log.path} "
        f"{log.latency_ms:.0f} ms {log.credential_id} {log.id}"
    )
    if log.idempotency_key:
        line += f" idempotency-key={log.idempotency_key}"
    if log.error_body:
        line += f"\n    {log.error_code or 'error'}: {log.error_body.get('message', '')}"
    typer.echo(line)


if __name__ == "__main__":
    main()
