"""Server CPU per request of each transfer request shape, in-process (issue 24).

`python -m benchmarks.transfer_cpu [--database-url URL] [--requests N] [--profile SHAPE]`

The app is built as `corridor serve` builds it (no in-process workers, rate limits as
shipped but the per-key limit raised as an operator would), on a fresh database (SQLite
in a temporary folder, or a throwaway PostgreSQL database when a URL is given), and every
shape is sent one request at a time through an ASGI transport. The CPU time counted is
the process's (`time.process_time`) from the moment the app is called to the moment it
finished answering: the server's own work, the database driver included, the client's
not. One request at a time, so nothing else runs in between. `--profile SHAPE` runs that
shape again under cProfile and prints where its time goes.

This is a developer's measure of the application's share, for before/after comparisons
on one machine; `make bench` measures throughput and latency from outside.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy.engine import make_url

from benchmarks.http_submit import US_ACCOUNT, _payer
from corridor.app import create_app
from corridor.config import Settings
from corridor.kit.clock import SystemClock
from corridor.kit.migrate import upgrade_to_head_async
from corridor.organizations import service as organizations

AMOUNT = {"currency": "USD", "value": "100"}


class CpuMeter:
    """ASGI wrapper: the process CPU seconds spent inside the app, per request."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.samples: list[float] = []

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.process_time()
        try:
            await self.app(scope, receive, send)
        finally:
            self.samples.append(time.process_time() - started)


async def _ok(response: httpx.Response, status: int = 200) -> dict:
    assert response.status_code == status, response.text
    return response.json()


async def _customer(client: httpx.AsyncClient) -> dict:
    """A funded customer paying its own bank account (as http_submit's payers) and a
    counterparty's."""
    own = await _payer(client, 0)
    counterparty = await _ok(
        await client.post(
            "/v1/counterparties",
            json={
                "customerId": own["customerId"],
                "name": "Payee GmbH",
                "beneficiaryType": "BUSINESS",
                "email": "ap@payee.example",
                "address": {
                    "addressLine1": "1 Main St",
                    "city": "Austin",
                    "state": "TX",
                    "postalCode": "78701",
                    "country": "US",
                },
            },
        ),
        201,
    )
    payee = await _ok(
        await client.post(
            "/v1/external-accounts", json={"counterpartyId": counterparty["id"], **US_ACCOUNT}
        ),
        201,
    )
    return {
        "customer_id": own["customerId"],
        "account_id": own["source"]["accountId"],
        "own_external_id": own["destination"]["externalAccountId"],
        "counterparty_id": counterparty["id"],
        "payee_id": payee["id"],
    }


def _body(found: dict, external_id: str, *, confirm: bool) -> dict:
    return {
        "customerId": found["customer_id"],
        "source": {"accountId": found["account_id"]},
        "destination": {"externalAccountId": external_id, "paymentRail": "ACH", "currency": "USD"},
        "amount": AMOUNT,
        "confirm": confirm,
    }


Shape = Callable[[int], Awaitable[None]]


async def _shapes(app: Any, secret: str) -> dict[str, Shape]:
    org = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://bench",
        headers={"Authorization": f"Bearer {secret}"},
    )
    found = await _customer(org)
    agent = await _ok(
        await org.post(
            "/v1/agents",
            json={
                "customerId": found["customer_id"],
                "sourceAccountId": found["account_id"],
                "name": "Bench bot",
                "limits": {"perTransfer": "1000", "daily": "100000000", "monthly": "1000000000"},
                "destinationAllowlist": [{"type": "counterparty", "id": found["counterparty_id"]}],
            },
        ),
        201,
    )
    agent_key = await _ok(await org.post(f"/v1/agents/{agent['id']}/keys", json={"name": "k"}), 201)
    agent_client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://bench",
        headers={"Authorization": f"Bearer {agent_key['secret']}"},
    )
    own = _body(found, found["own_external_id"], confirm=True)
    third = _body(found, found["payee_id"], confirm=True)
    draft = _body(found, found["own_external_id"], confirm=False)
    drafts: list[str] = []
    listed = {"id": ""}

    async def org_create_submit(_: int) -> None:
        await _ok(await org.post("/v1/transfers", json=own), 201)

    async def org_create_submit_idempotent(_: int) -> None:
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        await _ok(await org.post("/v1/transfers", json=own, headers=headers), 201)

    async def agent_create_submit(_: int) -> None:
        await _ok(await agent_client.post("/v1/transfers", json=third), 201)

    async def agent_create_submit_idempotent(_: int) -> None:
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        await _ok(await agent_client.post("/v1/transfers", json=third, headers=headers), 201)

    async def third_party_payout(_: int) -> None:
        await _ok(await org.post("/v1/transfers", json=third), 201)

    async def draft_create(_: int) -> None:
        drafts.append((await _ok(await org.post("/v1/transfers", json=draft), 201))["id"])

    async def draft_patch(index: int) -> None:
        await _ok(await org.patch(f"/v1/transfers/{drafts[index]}", json={"remarks": "x"}))

    async def draft_submit(_: int) -> None:
        await _ok(await org.post(f"/v1/transfers/{drafts.pop()}/submit"))

    async def get_one(_: int) -> None:
        if not listed["id"]:
            listed["id"] = (await _ok(await org.get("/v1/transfers?limit=1")))["data"][0]["id"]
        await _ok(await org.get(f"/v1/transfers/{listed['id']}"))

    async def list_twenty(_: int) -> None:
        await _ok(await org.get("/v1/transfers?limit=20"))

    return {
        "org create+submit (own bank account)": org_create_submit,
        "org create+submit + Idempotency-Key": org_create_submit_idempotent,
        "agent create+submit": agent_create_submit,
        "agent create+submit + Idempotency-Key": agent_create_submit_idempotent,
        "third-party payout": third_party_payout,
        "draft create": draft_create,
        "PATCH a draft": draft_patch,
        "submit a draft": draft_submit,
        "GET one transfer": get_one,
        "list 20 transfers": list_twenty,
    }


async def _profiled(shape: Shape, requests: int) -> None:
    """The shape again under pyinstrument (a sampling profiler that follows coroutines)
    when it is installed, else cProfile on CPU time."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for index in range(requests):
            await shape(index)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(50)
        print(out.getvalue())
        return
    sampler = Profiler(interval=0.0005, async_mode="enabled")
    sampler.start()
    for index in range(requests):
        await shape(index)
    sampler.stop()
    print(sampler.output_text(unicode=False, color=False, show_all=False, short_mode=False))


async def _postgres(base_url: str) -> tuple[str, Callable[[], Awaitable[None]]]:
    url = make_url(base_url)
    name = f"corridor_cpu_{uuid.uuid4().hex[:12]}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(admin)
    await connection.execute(f'CREATE DATABASE "{name}"')
    await connection.close()

    async def drop() -> None:
        connection = await asyncpg.connect(admin)
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await connection.close()

    return url.set(database=name).render_as_string(hide_password=False), drop


async def run(
    database_url: str, *, requests: int, profile: str | None, only: list[str]
) -> dict[str, float]:
    await upgrade_to_head_async(database_url)
    settings = Settings(
        database_url=database_url,
        log_level="WARNING",
        rate_limit_requests_per_key=1_000_000,
    )
    app = create_app(settings, clock=SystemClock(), run_workers_in_process=False)
    meter = CpuMeter(app)
    try:
        async with app.state.database.session() as session, session.begin():
            made = await organizations.bootstrap_organization(
                session, name="Bench", key_environment="sandbox", now=SystemClock().now()
            )
        shapes = await _shapes(meter, made.secret)
        medians: dict[str, float] = {}
        for name, shape in shapes.items():
            # Drafts are made by "draft create" for the shapes that edit or submit them.
            if only and not any(part in name for part in only) and name != "draft create":
                continue
            for index in range(min(20, requests)):  # warm: caches, prepared statements
                await shape(index)
            meter.samples.clear()
            for index in range(requests):
                await shape(index)
            medians[name] = statistics.median(meter.samples) * 1000
            print(f"{name:42s} {medians[name]:7.2f} ms CPU/request", flush=True)
            if name == profile:
                await _profiled(shape, requests)
        return medians
    finally:
        await app.state.database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (else SQLite)")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--profile", default=None, help="a shape's name, to profile")
    parser.add_argument("--only", action="append", default=[], help="shapes naming this")
    arguments = parser.parse_args()

    async def go() -> None:
        if arguments.database_url:
            url, drop = await _postgres(arguments.database_url)
            try:
                await run(
                    url, requests=arguments.requests, profile=arguments.profile, only=arguments.only
                )
            finally:
                await drop()
        else:
            with tempfile.TemporaryDirectory() as directory:
                url = f"sqlite+aiosqlite:///{Path(directory) / 'corridor.db'}"
                await run(
                    url, requests=arguments.requests, profile=arguments.profile, only=arguments.only
                )

    asyncio.run(go())


if __name__ == "__main__":
    main()
