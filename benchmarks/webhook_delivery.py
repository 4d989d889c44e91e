"""Webhook delivery: deliveries per second to a local receiver with 1 and 2 `corridor worker`
processes, and the latency from an event's commit to its arrival at the receiver.

The receiver is a raw asyncio HTTP/1.1 protocol in a process of its own; the workers
are real subprocesses sharing the benchmark's database. Two loads per worker count: a
backlog (many events committed in one transaction: the drain rate) and one event per
commit at a steady pace the workers keep up with (commit-to-delivery latency). The baseline is a bare httpx POST loop
to the same receiver with the workers' own HTTP client (and, for reference, httpx), with as
many requests in flight as a worker sends at once.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import httpx

from benchmarks.harness import Result, measure
from corridor.auth.callers import Caller
from corridor.kit import secretbox
from corridor.kit.clock import SystemClock
from corridor.kit.db import Database
from corridor.models.event import emit
from corridor.organizations import service as organizations
from corridor.webhooks import service as webhooks
from corridor.webhooks import signing
from corridor.webhooks.sender import AttemptRequest, Sender

worker_counts = (1, 2)
arrival_wait_s_max = 600
worker_concurrency = 32
paced_events_per_s = 50
BODY = b'{"type":"bench.ping","timestamp":"2026-11-21T00:00:00.000Z","data":{}}'


class Receiver:
    """A receiver in a process of its own: answers 200 to every POST and notes when each
    webhook-id first arrived (wall clock, comparable across processes)."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self._read = 0
        self._port = multiprocessing.get_context("spawn").Queue()
        self._process = multiprocessing.get_context("spawn").Process(
            target=_serve_receiver, args=(self._port,), daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> Receiver:
        self._process.start()
        self.port = self._port.get(timeout=60)
        return self

    def stop(self) -> None:
        self._process.terminate()
        self._process.join(timeout=10)

    async def wait_for(self, client: httpx.AsyncClient, message_ids: list[str]) -> list[float]:
        deadline = time.monotonic() + arrival_wait_s_max
        while not all(message_id in self.arrivals for message_id in message_ids):
            if time.monotonic() > deadline:
                raise TimeoutError("the workers did not deliver every message")
            await asyncio.sleep(0.05)
            response = await client.get(
                f"http://127.0.0.1:{self.port}/arrivals", params={"after": self._read}
            )
            for message_id, arrived in response.json():
                self.arrivals.setdefault(message_id, arrived)
                self._read += 1
        return [self.arrivals[message_id] for message_id in message_ids]


class _ReceiverProtocol(asyncio.Protocol):
    """HTTP/1.1 with keep-alive, just enough for the benchmark: POST notes the webhook-id
    and answers 200 `ok`; GET /arrivals?after=N answers the arrivals after the Nth. A raw
    protocol, so the receiver costs far less than the workers it measures."""

    def __init__(self, arrivals: list[tuple[str, float]]) -> None:
        self._arrivals = arrivals
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer.extend(data)
        while (end := self._buffer.find(b"\r\n\r\n")) >= 0:
            lines = self._buffer[:end].decode("latin-1").split("\r\n")
            headers = {
                name.strip().lower(): value.strip()
                for name, _, value in (line.partition(":") for line in lines[1:])
            }
            length = int(headers.get("content-length", "0"))
            if len(self._buffer) < end + 4 + length:
                return
            del self._buffer[: end + 4 + length]
            method, target, _ = lines[0].split(" ", 2)
            if method == "GET":
                query = dict(parse_qsl(target.partition("?")[2]))
                body = json.dumps(self._arrivals[int(query.get("after", "0")) :]).encode()
            else:
                self._arrivals.append((headers.get("webhook-id", ""), time.time()))
                body = b"ok"
            assert self._transport is not None
            self._transport.write(
                b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
            )


def _serve_receiver(port_queue: Any) -> None:
    arrivals: list[tuple[str, float]] = []
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(1024)
    port_queue.put(listening.getsockname()[1])

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: _ReceiverProtocol(arrivals), sock=listening)
        await server.serve_forever()

    asyncio.run(serve())


async def _baseline(receiver: Receiver, operations: int) -> Result:
    """The workers' own HTTP client (signing included) in a bare loop: no database."""
    sender = Sender(timeout_s=15, sandbox=True)
    secrets = [signing.new_secret()]

    async def post(index: int) -> None:
        request = AttemptRequest(f"baseline_{index}", receiver.url, secrets, BODY)
        result = await sender.send(request, at=SystemClock().now())
        assert result.status_code == 200, result.error

    try:
        return await measure(
            "bare client loop", post, operations=operations, concurrency=worker_concurrency
        )
    finally:
        await sender.aclose()


async def _httpx_loop(receiver: Receiver, operations: int) -> Result:
    """For reference: httpx, which the workers used before, in the same bare loop."""
    async with httpx.AsyncClient(trust_env=False) as client:

        async def post(index: int) -> None:
            response = await client.post(
                receiver.url,
                content=BODY,
                headers={"webhook-id": f"httpx_{index}", "content-type": "application/json"},
            )
            assert response.status_code == 200

        return await measure(
            "bare httpx POST loop", post, operations=operations, concurrency=worker_concurrency
        )


async def _organization_with_endpoint(database: Database, url: str) -> str:
    now = SystemClock().now()
    async with database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Webhook benchmark", key_environment="sandbox", now=now
        )
        await webhooks.create_endpoint(
            session,
            caller=Caller.operator(made.organization.id),
            url=url,
            description=None,
            event_types=["bench.ping"],
            disabled=False,
            secret=None,
            sandbox=True,
            now=now,
        )
    return made.organization.id


async def _emit(database: Database, organization_id: str, count: int) -> tuple[list[str], float]:
    """Commit `count` events in one transaction; their ids and the commit time."""
    async with database.session() as session, session.begin():
        ids = [
            emit(
                session,
                organization_id=organization_id,
                event_type="bench.ping",
                data={"index": index},
                tags=[],
                at=SystemClock().now(),
            ).id
            for index in range(count)
        ]
    return ids, time.time()


def _workers(database_url: str, count: int, log: Path) -> list[subprocess.Popen]:
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": database_url,
        "CORRIDOR_LOG_LEVEL": "WARNING",
        "CORRIDOR_WEBHOOK_CONCURRENT_ATTEMPTS_MAX": str(worker_concurrency),
    }
    with log.open("a") as output:
        return [
            subprocess.Popen(
                [sys.executable, "-m", "corridor.cli", "worker"],
                env=environment,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
            for _ in range(count)
        ]


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _name(workers: int, load: str) -> str:
    return f"{workers} worker{'s' if workers > 1 else ''}: {load}"


async def _backlog(run: Run, operations: int) -> Result:
    """Drain rate: `operations` events committed at once."""
    ids, committed = await _emit(run.database, run.organization_id, operations)
    arrivals = await run.receiver.wait_for(run.client, ids)
    return Result(
        name=_name(run.workers, f"backlog of {operations}"),
        operations=operations,
        seconds=max(arrivals) - committed,
        latencies_ms=[(arrival - committed) * 1000 for arrival in arrivals],
    )


async def _paced(run: Run, operations: int) -> Result:
    """Commit-to-delivery latency: one event per commit, at a pace the workers keep up with."""
    count = max(1, operations // 5)
    ids: list[str] = []
    commits: list[float] = []
    started = time.monotonic()
    for index in range(count):
        await asyncio.sleep(max(0.0, started + index / paced_events_per_s - time.monotonic()))
        [message_id], committed = await _emit(run.database, run.organization_id, 1)
        ids.append(message_id)
        commits.append(committed)
    arrivals = await run.receiver.wait_for(run.client, ids)
    return Result(
        name=_name(run.workers, f"one event per commit, {paced_events_per_s}/s"),
        operations=count,
        seconds=max(arrivals) - commits[0],
        latencies_ms=[
            (arrival - commit) * 1000 for arrival, commit in zip(arrivals, commits, strict=True)
        ],
    )


@dataclass(frozen=True, slots=True)
class Run:
    database: Database
    organization_id: str
    receiver: Receiver
    client: httpx.AsyncClient
    workers: int


async def run(database_url: str, *, operations: int, log: Path) -> tuple[Result, list[Result]]:
    """The baseline and, per worker count, the backlog and paced results."""
    # The signing secret is encrypted at rest under the key the `corridor worker` processes
    # load the same way (CORRIDOR_SECRET_KEY, or the key file of the data folder).
    secretbox.install(
        secretbox.load(
            secret_key=os.environ.get("CORRIDOR_SECRET_KEY") or None,
            retired=[],
            database_url=database_url,
        )
    )
    receiver = Receiver().start()
    database = Database(database_url)
    try:
        baseline = await _baseline(receiver, operations)
        organization_id = await _organization_with_endpoint(database, receiver.url)
        results: list[Result] = [await _httpx_loop(receiver, operations)]
        async with httpx.AsyncClient(trust_env=False) as client:
            for workers in worker_counts:
                processes = _workers(database_url, workers, log)
                current = Run(database, organization_id, receiver, client, workers)
                try:
                    warm_up, _ = await _emit(database, organization_id, 1)
                    await receiver.wait_for(client, warm_up)
                    results.append(await _backlog(current, operations))
                    results.append(await _paced(current, operations))
                finally:
                    _stop(processes)
        return baseline, results
    finally:
        await database.dispose()
        receiver.stop()


def summary(backend: str, results: list[Result]) -> str:
    """The issue's two figures on one line: the drain rate with the most workers, and the
    commit-to-delivery percentiles at the steady pace."""
    workers = max(worker_counts)
    backlog = next(r for r in results if r.name.startswith(_name(workers, "backlog")))
    paced = next(
        r
        for r in results
        if r.name == _name(workers, f"one event per commit, {paced_events_per_s}/s")
    )
    p50, p99 = paced.percentile(0.5) or 0.0, paced.percentile(0.99) or 0.0
    return (
        f"{backend}: {backlog.throughput:.0f} deliveries/s with {workers} workers; "
        f"commit→delivery p50 {p50:.0f} ms, p99 {p99:.0f} ms at {paced_events_per_s} events/s"
    )
