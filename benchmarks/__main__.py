"""`make bench`: run the benchmarks and print throughput, latency percentiles and ratios.

Each benchmark measures Corridor and a baseline doing the same database work, in the same
run on the same machine, so the ratio means something on a noisy shared machine.
SQLite always; PostgreSQL too when CORRIDOR_BENCH_DATABASE_URL (or
CORRIDOR_TEST_DATABASE_URL) names a server (a throwaway database is made there).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import uuid
from pathlib import Path

import asyncpg
from sqlalchemy.engine import make_url

from benchmarks import (
    console_page,
    http_submit,
    ledger_posting,
    mcp_tool_call,
    mix,
    transfer_throughput,
    webhook_delivery,
)
from benchmarks.harness import console, report
from corridor.kit.migrate import upgrade_to_head_async


async def _postgres_database(base_url: str):
    url = make_url(base_url)
    name = f"corridor_bench_{uuid.uuid4().hex[:12]}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()

    async def drop() -> None:
        connection = await asyncpg.connect(admin)
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()

    return url.set(database=name).render_as_string(hide_password=False), drop


async def _webhook_delivery(url: str, operations: int, backend: str) -> None:
    await upgrade_to_head_async(url)
    with tempfile.TemporaryDirectory() as directory:
        baseline, results = await webhook_delivery.run(
            url, operations=operations, log=Path(directory) / "workers.log"
        )
    report(
        f"Webhook delivery on {backend} (ops/s: deliveries per second; ms: commit to arrival)",
        results,
        baseline=baseline,
    )
    console.print(webhook_delivery.summary(backend, results))


async def _console_page(url: str, operations: int, backend: str) -> None:
    await upgrade_to_head_async(url)
    baseline, results, cpu_ms = await console_page.run(url, renders=console_renders(operations))
    report(
        f"Console pages on {backend}, {console_page.transfers_count:,} transfers in the "
        "organization (server time in-process, one at a time; baseline: the JSON list)",
        results,
        baseline=baseline,
    )
    console.print(
        "CPU ms per render (this process): "
        + ", ".join(f"{name} {milliseconds:.1f}" for name, milliseconds in cpu_ms.items())
    )


def console_renders(operations: int) -> int:
    """Renders of each console page: half the operations, at least 100 (for p99)."""
    return max(operations // 2, 100)


def transfer_operations(operations: int) -> int:
    """A transfer is five transactions; run a fifth as many so each benchmark takes alike."""
    return max(operations // 5, 20)


async def _http_submit(postgres: str, seconds: int) -> None:
    missing = http_submit.tools_missing()
    if missing:
        console.print(
            f"HTTP create+submit skipped: {', '.join(missing)} not installed "
            "(apt-get install wrk postgresql-client)."
        )
        return
    url, drop = await _postgres_database(postgres)
    try:
        await upgrade_to_head_async(url)
        measured = await http_submit.run(url, seconds=seconds)
        for shape in measured:
            report(
                f"Create+submit over HTTP on PostgreSQL, {shape.label}, 16 connections "
                "(baseline: the issue's floor, the submit's SQL in pgbench)",
                [shape.statements_floor, *shape.api],
                baseline=shape.floor,
            )
        for shape in measured:
            for line in shape.ratios():
                console.print(line)
    finally:
        await drop()


async def _mcp_tool_call(url: str, backend: str, operations: int, concurrency: int) -> None:
    await upgrade_to_head_async(url)
    rest, tool = await mcp_tool_call.run(
        url, operations=transfer_operations(operations), concurrency=concurrency
    )
    report(
        f"MCP tool call vs REST, create+submit over HTTP on {backend} ({concurrency} concurrent)",
        [tool],
        baseline=rest,
    )


def _postgres_url() -> str | None:
    return os.environ.get("CORRIDOR_BENCH_DATABASE_URL") or os.environ.get(
        "CORRIDOR_TEST_DATABASE_URL"
    )


async def mcp_only(operations: int, concurrency: int) -> None:
    """`make bench BENCH_ARGS="--only mcp"`: the MCP benchmark alone, on each database."""
    with tempfile.TemporaryDirectory() as directory:
        sqlite_url = f"sqlite+aiosqlite:///{Path(directory) / 'mcp.db'}"
        await _mcp_tool_call(sqlite_url, "SQLite", operations, concurrency)
    postgres = _postgres_url()
    if postgres:
        url, drop = await _postgres_database(postgres)
        try:
            await _mcp_tool_call(url, "PostgreSQL", operations, concurrency)
        finally:
            await drop()


async def _sqlite_writes(operations: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        sqlite_url = f"sqlite+aiosqlite:///{Path(directory) / 'bench.db'}"
        await upgrade_to_head_async(sqlite_url)
        baseline, api = await ledger_posting.run(
            sqlite_url, operations=operations, concurrency=concurrency
        )
        report(f"Ledger posting on SQLite ({concurrency} concurrent)", [api], baseline=baseline)
        baseline, api = await transfer_throughput.run(
            sqlite_url, operations=transfer_operations(operations), concurrency=concurrency
        )
        report(f"Transfers on SQLite ({concurrency} concurrent)", [api], baseline=baseline)


def _postgres_databases(base: str):
    """Fresh PostgreSQL databases for the mix, one a call, each with its drop."""

    async def made():
        return await _postgres_database(base)

    return made


def _sqlite_databases():
    """Fresh SQLite files for the mix, one a call, each with its removal."""
    folder = Path(tempfile.mkdtemp(prefix="corridor-mix-"))

    async def made():
        path = folder / f"mix-{uuid.uuid4().hex[:8]}.db"

        async def drop() -> None:
            for leftover in folder.glob(f"{path.name}*"):  # noqa: ASYNC240 (a few files)
                leftover.unlink()

        return f"sqlite+aiosqlite:///{path}", drop

    return made


async def mix_only(arguments: argparse.Namespace) -> None:
    """`make bench BENCH_ARGS="--only mix"`: issue 24's request mix, on PostgreSQL (when
    one is named) and SQLite, for this checkout and each --corridor checkout."""
    if mix.wrk_missing():
        console.print("Request mix skipped: wrk is not installed (apt-get install wrk).")
        return
    checkouts = [mix.Checkout.this(), *(mix.Checkout.at(path) for path in arguments.corridor)]
    postgres = _postgres_url()
    for backend in arguments.databases:
        if backend == "postgresql" and not postgres:
            console.print("Mix on PostgreSQL skipped: set CORRIDOR_BENCH_DATABASE_URL.")
            continue
        name = "PostgreSQL" if backend == "postgresql" else "SQLite"
        databases = _postgres_databases(postgres) if postgres and name == "PostgreSQL" else None
        measured = await mix.run_mix(
            backend=name,
            database_urls=databases or _sqlite_databases(),
            checkouts=checkouts,
            shapes=arguments.shapes,
            seconds=arguments.seconds,
            half_peak=arguments.half_peak,
        )
        mix.report(measured)


async def main(operations: int, concurrency: int, seconds: int, only: str) -> None:
    postgres = _postgres_url()
    if only == "mcp":
        await mcp_only(operations, concurrency)
        return
    if only == "http-submit":
        if postgres:
            await _http_submit(postgres, seconds)
        else:
            console.print("PostgreSQL skipped: set CORRIDOR_BENCH_DATABASE_URL to include it.")
        return
    if only == "sqlite":
        await _sqlite_writes(operations, concurrency)
        return
    await _sqlite_writes(operations, concurrency)
    with tempfile.TemporaryDirectory() as directory:
        webhooks_url = f"sqlite+aiosqlite:///{Path(directory) / 'webhooks.db'}"
        await _webhook_delivery(webhooks_url, operations, "SQLite")
        mcp_url = f"sqlite+aiosqlite:///{Path(directory) / 'mcp.db'}"
        await _mcp_tool_call(mcp_url, "SQLite", operations, concurrency)
        await _console_page(
            f"sqlite+aiosqlite:///{Path(directory) / 'console.db'}", operations, "SQLite"
        )
    if postgres:
        await _http_submit(postgres, seconds)
        url, drop = await _postgres_database(postgres)
        try:
            await upgrade_to_head_async(url)
            baseline, api = await ledger_posting.run(
                url, operations=operations, concurrency=concurrency
            )
            report(
                f"Ledger posting on PostgreSQL ({concurrency} concurrent)", [api], baseline=baseline
            )
            baseline, api = await transfer_throughput.run(
                url, operations=transfer_operations(operations), concurrency=concurrency
            )
            report(f"Transfers on PostgreSQL ({concurrency} concurrent)", [api], baseline=baseline)
        finally:
            await drop()
        url, drop = await _postgres_database(postgres)
        try:
            await _webhook_delivery(url, operations, "PostgreSQL")
        finally:
            await drop()
        url, drop = await _postgres_database(postgres)
        try:
            await _mcp_tool_call(url, "PostgreSQL", operations, concurrency)
        finally:
            await drop()
        url, drop = await _postgres_database(postgres)
        try:
            await _console_page(url, operations, "PostgreSQL")
        finally:
            await drop()
    else:
        console.print("PostgreSQL skipped: set CORRIDOR_BENCH_DATABASE_URL to include it.")


def _shapes(text: str) -> list[str]:
    try:
        return mix.parse_shapes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _databases(text: str) -> list[str]:
    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in ("postgresql", "sqlite")]
    if unknown or not names:
        raise argparse.ArgumentTypeError("postgresql, sqlite or both (comma-separated)")
    return names


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="make bench", description=__doc__.splitlines()[0])
    made.add_argument(
        "--operations", type=int, default=500, help="operations per benchmark (default 500)"
    )
    made.add_argument(
        "--concurrency", type=int, default=8, help="operations in flight at once (default 8)"
    )
    made.add_argument(
        "--seconds",
        type=int,
        default=10,
        help="seconds of each HTTP load run (wrk, pgbench; default 10)",
    )
    made.add_argument(
        "--only",
        choices=("all", "http-submit", "sqlite", "mcp", "mix"),
        default="all",
        help="run one part: create+submit over HTTP on PostgreSQL, the SQLite ledger and "
        "transfer writers, the MCP tool call against REST, or issue 24's request mix "
        "against a bare app (default: all but the mix)",
    )
    made.add_argument(
        "--shapes",
        type=_shapes,
        default=list(mix.SHAPES),
        metavar="KEYS",
        help=f"the mix's shapes, comma-separated (default all: {','.join(mix.SHAPES)})",
    )
    made.add_argument(
        "--corridor",
        action="append",
        default=[],
        metavar="PATH",
        help="also run the mix against the Corridor checkout at PATH (its .venv when it "
        "has one), shape by shape beside this one; may be given more than once",
    )
    made.add_argument(
        "--databases",
        type=_databases,
        default=["postgresql", "sqlite"],
        metavar="NAMES",
        help="the mix's databases: postgresql, sqlite or both (default both; PostgreSQL "
        "needs CORRIDOR_BENCH_DATABASE_URL or CORRIDOR_TEST_DATABASE_URL)",
    )
    made.add_argument(
        "--no-half-peak",
        dest="half_peak",
        action="store_false",
        help="skip the mix's runs at half each shape's peak rate",
    )
    return made


if __name__ == "__main__":
    arguments = parser().parse_args()
    if arguments.only == "mix":
        asyncio.run(mix_only(arguments))
    else:
        asyncio.run(
            main(arguments.operations, arguments.concurrency, arguments.seconds, arguments.only)
        )
