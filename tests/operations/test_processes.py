"""`corridor serve` as processes, terminated as a service manager does it: /metrics of two
API processes and a worker is one view; SIGTERM drains an API process (stops accepting,
answers what is in flight, exits) and a worker (finishes or releases its claims), and
under a burst of writes nothing answered is lost, nothing is done twice, nothing 500s."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
import uuid

import httpx
import pytest
from sqlalchemy import func, select

from corridor.kit.db import Database
from corridor.models.operations import WorkerHeartbeat
from corridor.models.transfer import Transfer
from corridor.models.webhook import WebhookDelivery
from tests.conftest import BACKENDS, POSTGRES_URL
from tests.live_server import LiveServer, live_corridor
from tests.operations.processes import gone, server_processes, wait_s_max, wait_until
from tests.operations.support import labels_holding_ids, payer, value
from tests.webhooks.support import Receiver, create_endpoint

needs_postgres = pytest.mark.skipif(
    POSTGRES_URL is None, reason="several processes share a PostgreSQL database"
)
BURST = 120


@needs_postgres
def test_two_api_processes_and_a_worker_report_one_view(tmp_path):
    receiver = Receiver()
    try:
        with live_corridor("postgresql", tmp_path, workers=True, processes=2) as live:
            asyncio.run(_one_view(live, receiver))
    finally:
        receiver.close()


async def _one_view(live: LiveServer, receiver: Receiver) -> None:
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=60) as client:
        await create_endpoint(client, receiver.url, eventTypes=["transfer.created"])
        body = await payer(client)
        for _ in range(20):  # one after the other: a loaded machine's pool never runs out
            created = await client.post("/v1/transfers", json=body)
            assert created.status_code == 201, created.text
    # The worker (a process of its own, serving no HTTP) fans the events out and sends
    # the webhooks; its counters show in the API processes' answers.
    deadline = time.monotonic() + wait_s_max
    while True:
        text = await _scrape(live)
        if value(text, "corridor_transfers_created_total") >= 20 and (
            value(text, "corridor_webhook_attempts_total", outcome="success") >= 20
        ):
            break
        assert time.monotonic() < deadline, "the worker's counters never showed"
        await asyncio.sleep(0.2)
    # Whichever process answers (a new connection each time), the totals are everyone's.
    for _ in range(6):
        text = await _scrape(live)
        assert (
            value(
                text,
                "corridor_http_requests_total",
                method="POST",
                route="/v1/transfers",
                status="201",
            )
            == 20
        )
        assert value(text, "corridor_transfers_created_total", rail="ACH") == 20
        assert value(text, "corridor_worker_heartbeat_timestamp_seconds") > 0
        assert labels_holding_ids(text) == []
    async with httpx.AsyncClient(base_url=live.base_url, timeout=30) as fresh:
        ready = await fresh.get("/v1/health/ready")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"]["workers"]["live"] == 1


async def _scrape(live: LiveServer) -> str:
    async with httpx.AsyncClient(base_url=live.base_url, timeout=30) as fresh:
        answer = await fresh.get("/metrics")
    assert answer.status_code == 200, answer.text
    return answer.text


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigterm_answers_the_request_in_flight_then_exits(tmp_path, backend):
    """A request whose body is half sent when SIGTERM comes: the server stops accepting
    new connections, answers that request once its body arrives, then exits cleanly."""
    with live_corridor(backend, tmp_path, workers=True) as live:
        headers = {"Authorization": f"Bearer {live.api_key}"}
        with httpx.Client(base_url=live.base_url, headers=headers, timeout=30) as client:
            started = client.post("/v1/terms-of-service/acceptances", json={})
            assert started.status_code == 201, started.text
        server, _, _ = server_processes(live)
        host, port = live.base_url.removeprefix("http://").split(":")
        body = b"{" + b" " * 40 + b"}"  # an empty object, sent in two halves
        with socket.create_connection((host, int(port)), timeout=30) as connection:
            connection.sendall(
                b"POST /v1/terms-of-service/acceptances HTTP/1.1\r\n"
                + f"Host: {host}\r\nAuthorization: Bearer {live.api_key}\r\n".encode()
                + b"Content-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body[:10]
            )
            time.sleep(0.5)  # the server has read the head: the request is in flight
            os.kill(server, signal.SIGTERM)
            wait_until(lambda: not _accepts(host, int(port)), "the server kept accepting")
            assert not gone(server)  # still there: a request is in flight
            connection.sendall(body[10:])
            answer = _read_answer(connection)
        assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
        wait_until(lambda: gone(server), "the server did not exit once drained")
        log = live.log.read_text()
        assert "unhandled_error" not in log
        assert "Traceback" not in log


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _read_answer(connection: socket.socket) -> bytes:
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


@needs_postgres
def test_terminating_an_api_process_and_the_worker_under_a_burst_loses_nothing(tmp_path):
    receiver = Receiver()
    try:
        with live_corridor("postgresql", tmp_path, workers=True, processes=2) as live:
            keys, answers = asyncio.run(_burst_with_terminations(live, receiver))
            log = live.log.read_text()
            counted, sending, heartbeats = asyncio.run(_state_of(live))
    finally:
        receiver.close()
    statuses = [answer.status_code for answer in answers]
    assert 500 not in statuses, [a.text for a in answers if a.status_code == 500][:3]
    assert set(statuses) <= {201, 503}, sorted(set(statuses))
    assert "unhandled_error" not in log
    # Every key was answered 201 in the end (retried after a lost connection or a 503),
    # and exactly one transfer exists per key: nothing answered is lost, nothing doubled.
    assert counted == len(keys)
    # The worker stopped on purpose: no claim left behind, its heartbeat gone.
    assert sending == 0
    assert heartbeats == 0


async def _burst_with_terminations(
    live: LiveServer, receiver: Receiver
) -> tuple[list[str], list[httpx.Response]]:
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=60) as client:
        await create_endpoint(client, receiver.url)
        body = await payer(client)
    keys = [f"burst-{uuid.uuid4().hex}" for _ in range(BURST)]
    answers: list[httpx.Response] = []
    unanswered = list(keys)
    _, api, workers = server_processes(live)
    assert len(api) == 2 and len(workers) == 1, (api, workers)
    limits = httpx.Limits(max_connections=32, max_keepalive_connections=32)
    async with httpx.AsyncClient(
        base_url=live.base_url, headers=headers, timeout=60, limits=limits
    ) as client:

        async def send(key: str) -> None:
            try:
                answer = await client.post(
                    "/v1/transfers", json=body, headers={"Idempotency-Key": key}
                )
            except httpx.TransportError:
                return  # not answered: sent again below
            answers.append(answer)
            if answer.status_code == 201:
                unanswered.remove(key)

        quarter = asyncio.Event()

        async def send_noting(key: str) -> None:
            await send(key)
            if len(answers) >= BURST // 4:
                quarter.set()

        first = [asyncio.create_task(send_noting(key)) for key in keys]
        await quarter.wait()
        os.kill(api[0], signal.SIGTERM)
        os.kill(workers[0], signal.SIGTERM)
        await asyncio.gather(*first)
        for _ in range(20):  # retries with the same keys: a 201 stored, or made now
            if not unanswered:
                break
            await asyncio.gather(*(send(key) for key in list(unanswered)))
            await asyncio.sleep(0.2)
    assert unanswered == []
    wait_until(lambda: gone(workers[0]), "the worker did not exit on SIGTERM")
    wait_until(lambda: gone(api[0]), "the API process did not exit on SIGTERM")
    return keys, answers


async def _state_of(live: LiveServer) -> tuple[int, int, int]:
    database = Database(live.database_url)
    try:
        async with database.session(write=False) as session:
            transfers = await session.scalar(
                select(func.count())
                .select_from(Transfer)
                .where(Transfer.organization_id == live.organization_id)
            )
            sending = await session.scalar(
                select(func.count())
                .select_from(WebhookDelivery)
                .where(WebhookDelivery.status == "SENDING")
            )
            heartbeats = await session.scalar(select(func.count()).select_from(WorkerHeartbeat))
        return int(transfers or 0), int(sending or 0), int(heartbeats or 0)
    finally:
        await database.dispose()
