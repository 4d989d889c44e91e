"""The cost of metrics and traces per request (issue 29): the same requests answered by
apps that differ only in those settings, measured in-process (the ASGI app called through
httpx's ASGI transport, no network, one request at a time), in interleaved rounds so a
noisy machine hits every variant alike.

Variants: `bare` (metrics_enabled false, traces off), `metrics` (the default: request
metrics on, traces off), `traced` (metrics on, traces on with every span exported to an
exporter that drops them, through the batch processor a deployment uses). Requests:
GET /v1/health (the lightest route) and POST /v1/transfers create+submit (the commonest
write; the express path on PostgreSQL). Prints the median microseconds per request of
each variant (CPU time of this process: the database's own work is not in it on
PostgreSQL) and the median of the per-round differences against `bare`.

    python -m benchmarks.observability [--rounds 15] [--requests 200]
    (PostgreSQL when CORRIDOR_BENCH_DATABASE_URL or CORRIDOR_TEST_DATABASE_URL is set)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from sqlalchemy.engine import make_url

from corridor.app import create_app
from corridor.config import Environment, Settings
from corridor.kit import tracing
from corridor.kit.clock import SystemClock
from corridor.kit.migrate import upgrade_to_head_async
from corridor.organizations import service as organizations

VARIANTS = ("bare", "metrics", "traced")


class _Dropped(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None


def _settings(url: str, variant: str, directory: Path) -> Settings:
    return Settings(
        database_url=url,
        env=Environment.SANDBOX,
        log_level="WARNING",
        rate_limits_enabled=False,
        secret_key="bJ0sYJ6XJmJpV3y3n2m6Yf0oW6Jx7cA3p2B0d3QvQxk=",
        signing_key="bench-signing-key",
        documents_directory=directory,
        metrics_enabled=variant != "bare",
        tracing_enabled=variant == "traced",
    )


async def _tenant_client(app: Any) -> httpx.AsyncClient:
    async with app.state.database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Bench", key_environment="sandbox", now=SystemClock().now()
        )
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(
        transport=transport,
        base_url="http://bench",
        headers={"Authorization": f"Bearer {made.secret}"},
    )


async def _payer(client: httpx.AsyncClient) -> dict[str, Any]:
    tos = (await client.post("/v1/terms-of-service/acceptances", json={})).json()["id"]
    await client.post(f"/v1/terms-of-service/acceptances/{tos}/accept")
    customer = (
        await client.post(
            "/v1/customers/individual",
            json={
                "firstName": "Ada",
                "lastName": "Lovelace",
                "email": "ada@example.com",
                "dateOfBirth": "1990-12-10",
                "phone": "+14155550100",
                "nationality": "US",
                "taxIdentificationNumber": "123456789",
                "address": {
                    "addressLine1": "1 Market Street",
                    "city": "San Francisco",
                    "state": "CA",
                    "postalCode": "94105",
                    "country": "US",
                },
                "tosAcceptanceId": tos,
            },
        )
    ).json()
    await client.post(
        f"/v1/sandbox/customers/{customer['id']}/verification-status", json={"status": "ACTIVE"}
    )
    accounts = (await client.get(f"/v1/customers/{customer['id']}/accounts")).json()["data"]
    account = next(item for item in accounts if item["currency"] == "USD")
    await client.post(
        f"/v1/sandbox/accounts/{account['id']}/fund",
        json={"amount": {"currency": "USD", "value": "100000000000"}},
    )
    external = (
        await client.post(
            "/v1/external-accounts",
            json={
                "customerId": customer["id"],
                "currency": "USD",
                "country": "US",
                "accountHolderName": "Bench Payee",
                "accountNumber": "000123456789",
                "routingNumber": "021000021",
            },
        )
    ).json()
    return {
        "customerId": customer["id"],
        "source": {"accountId": account["id"]},
        "destination": {
            "externalAccountId": external["id"],
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": {"currency": "USD", "value": "100"},
        "confirm": True,
    }


async def _time(client: httpx.AsyncClient, method: str, path: str, body: Any, n: int) -> float:
    """CPU microseconds of this process per request (what metrics and traces add is
    this process's work; wall time on a shared machine mostly measures the others)."""
    started = time.process_time()
    for _ in range(n):
        answer = await client.request(method, path, json=body)
        assert answer.status_code < 300, answer.text
    return (time.process_time() - started) / n * 1e6


async def run(url: str, *, rounds: int, requests: int) -> dict[str, dict[str, list[float]]]:
    await upgrade_to_head_async(url)
    tracing.configure(service_name="corridor-bench", exporter=None)
    # Spans of the traced variant go through the batch processor to a dropping exporter.
    assert tracing._state.provider is not None
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracing._state.provider._active_span_processor._span_processors = (
        BatchSpanProcessor(_Dropped()),
    )
    directory = Path(tempfile.mkdtemp(prefix="corridor-bench-"))
    apps = {
        v: create_app(_settings(url, v, directory), run_workers_in_process=False) for v in VARIANTS
    }
    clients = {v: await _tenant_client(app) for v, app in apps.items()}
    bodies = {v: await _payer(client) for v, client in clients.items()}
    results: dict[str, dict[str, list[float]]] = {
        "GET /v1/health": {v: [] for v in VARIANTS},
        "POST /v1/transfers": {v: [] for v in VARIANTS},
    }
    for round_number in range(rounds):
        order = VARIANTS[round_number % 3 :] + VARIANTS[: round_number % 3]
        for variant in order:
            client = clients[variant]
            results["GET /v1/health"][variant].append(
                await _time(client, "GET", "/v1/health", None, requests)
            )
            results["POST /v1/transfers"][variant].append(
                await _time(client, "POST", "/v1/transfers", bodies[variant], requests)
            )
    for client in clients.values():
        await client.aclose()
    for app in apps.values():
        await app.state.database.dispose()
    tracing.shutdown()
    return results


def summary(backend: str, results: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = []
    for request, by_variant in results.items():
        bare = by_variant["bare"]
        parts = [f"{backend} {request}: bare {statistics.median(bare):.0f} µs CPU"]
        for variant in ("metrics", "traced"):
            deltas = [a - b for a, b in zip(by_variant[variant], bare, strict=True)]
            parts.append(
                f"{variant} {statistics.median(by_variant[variant]):.0f} µs "
                f"(+{statistics.median(deltas):.0f} µs median paired, "
                f"range {min(deltas):+.0f}…{max(deltas):+.0f})"
            )
        lines.append("; ".join(parts))
    return lines


async def _layers(rounds: int, calls: int) -> list[str]:
    """The layers alone, around an app that answers at once (no routing, no database):
    what request metrics and the traces' server span add to each request, free of the
    noise of everything else a request does."""
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased
    from starlette.routing import Route

    from corridor.web.request_metrics import RequestMetrics

    async def answer(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(_Dropped()))
    # OTEL_TRACES_SAMPLER=parentbased_traceidratio, OTEL_TRACES_SAMPLER_ARG=0.01.
    sampled = TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.01)))
    sampled.add_span_processor(BatchSpanProcessor(_Dropped()))
    route = Route("/v1/transfers/{transfer_id}", answer)
    layers = {
        "bare": answer,
        "metrics": RequestMetrics(answer, routes=[route]),
        "traced": OpenTelemetryMiddleware(
            RequestMetrics(answer, routes=[route]),
            tracer_provider=provider,
            exclude_spans=["receive", "send"],
        ),
        "traced 1%": OpenTelemetryMiddleware(
            RequestMetrics(answer, routes=[route]),
            tracer_provider=sampled,
            exclude_spans=["receive", "send"],
        ),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    def scope() -> dict[str, Any]:
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": "/v1/transfers/trf_01m87pwnwpcak48wmt1btqv6kp",
            "raw_path": b"/v1/transfers/trf_01m87pwnwpcak48wmt1btqv6kp",
            "query_string": b"",
            "headers": [(b"host", b"bench")],
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 8000),
            "route": route,
        }

    timings: dict[str, list[float]] = {name: [] for name in layers}
    for _ in range(rounds):
        for name, layer in layers.items():
            started = time.process_time()
            for _ in range(calls):
                await layer(scope(), receive, send)
            timings[name].append((time.process_time() - started) / calls * 1e6)
    provider.shutdown()
    sampled.shutdown()
    bare = timings["bare"]
    return [
        f"Layers alone ({calls:,} calls × {rounds} rounds): bare {statistics.median(bare):.1f} µs; "
        + "; ".join(
            f"{name} +{statistics.median([a - b for a, b in zip(timings[name], bare, strict=True)]):.1f} µs"
            for name in ("metrics", "traced", "traced 1%")
        )
    ]


async def _main(rounds: int, requests: int) -> None:
    for line in await _layers(rounds=7, calls=20_000):
        print(line)
    postgres = os.environ.get("CORRIDOR_BENCH_DATABASE_URL") or os.environ.get(
        "CORRIDOR_TEST_DATABASE_URL"
    )
    if postgres:
        base = make_url(postgres)
        name = f"corridor_bench_{uuid.uuid4().hex[:12]}"
        admin = base.set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(admin)
        await connection.execute(f'CREATE DATABASE "{name}"')
        await connection.close()
        try:
            url = base.set(database=name).render_as_string(hide_password=False)
            for line in summary("PostgreSQL", await run(url, rounds=rounds, requests=requests)):
                print(line)
        finally:
            connection = await asyncpg.connect(admin)
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await connection.close()
        return
    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite+aiosqlite:///{Path(directory) / 'bench.db'}"
        for line in summary("SQLite", await run(url, rounds=rounds, requests=requests)):
            print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--requests", type=int, default=200)
    arguments = parser.parse_args()
    asyncio.run(_main(arguments.rounds, arguments.requests))


if __name__ == "__main__":
    main()
