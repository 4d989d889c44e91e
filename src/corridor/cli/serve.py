"""`corridor serve` and `corridor worker`: the long-running processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from typing import Annotated, Any

import typer

from corridor.cli.base import app
from corridor.cli.context import run, safe_url
from corridor.cli.output import console, errors
from corridor.config import get_settings


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
        # uvloop and httptools (dependencies), the C event loop and HTTP parser: less CPU
        # per request than asyncio's loop and h11; httptools' protocol as uvicorn has it but
        # for URLs its URL parser cannot take (web/http_protocol.py).
        "loop": "auto",
        "http": _http_protocol(),
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
            f"Error: cannot use {safe_url(url)}: Corridor has no driver for it; "
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

    from corridor.app import (
        database_of,
        install_receipts,
        install_secret_box,
        install_tracing,
        transfer_plugins,
    )
    from corridor.assistant.execution import AssistantEnvironment
    from corridor.kit import metrics, supervision, tracing
    from corridor.kit.clock import SystemClock
    from corridor.kit.logging import configure_logging
    from corridor.tools.registry import ToolEnvironment
    from corridor.workers.runner import run_workers

    settings = get_settings()
    configure_logging(log_format=settings.log_format, level=settings.log_level)
    install_secret_box(settings)
    install_receipts(settings)
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
        run(main())
    console.print("Workers stopped.")


def _http_protocol() -> str:
    """uvicorn's `http`: httptools' protocol (web/http_protocol.py) where httptools is
    installed, else uvicorn's choice (h11); an import string, so every process of a
    multi-process server loads it."""
    try:
        import httptools  # noqa: F401
    except ImportError:
        return "auto"
    return "corridor.web.http_protocol:CorridorHttpToolsProtocol"
