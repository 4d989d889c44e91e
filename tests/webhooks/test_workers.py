"""Real `corridor worker` processes: a worker killed in the middle of a delivery loses nothing,
and two workers sharing one database deliver every message exactly once."""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from corridor.webhooks.dispatcher import ABANDONED
from tests.webhooks.support import (
    Answer,
    attempts,
    create_endpoint,
    emit_events,
    message,
    secret_of,
    verify,
)
from tests.workers import start_worker, stop_worker

# Bounds for waiting on other processes; a test that reaches one fails instead of hanging.
wait_s_max = 120
poll_s = 0.2


def _worker(database_url: str, log: Path, **settings: str) -> subprocess.Popen:
    environment = {f"CORRIDOR_{name.upper()}": value for name, value in settings.items()}
    return start_worker(database_url, log, environment)


async def _all_succeeded(client, message_ids: list[str]) -> bool:
    for message_id in message_ids:
        if (await message(client, message_id))["status"] != "SUCCESS":
            return False
    return True


async def _wait_until_all_succeeded(client, message_ids: list[str], log: Path) -> None:
    for _ in range(int(wait_s_max / poll_s)):
        if await _all_succeeded(client, message_ids):
            return
        await asyncio.sleep(poll_s)
    output = await asyncio.to_thread(log.read_text)
    raise AssertionError(f"messages still not delivered; worker log:\n{output[-4000:]}")


async def test_a_worker_killed_mid_delivery_loses_no_message(
    tenant, receiver, app, database_url, tmp_path
):
    created = await create_endpoint(tenant.client, receiver.url)
    secret = await secret_of(tenant.client, created["id"])
    hang = threading.Event()
    receiver.answer_with(Answer(hold=hang))  # the first request never gets an answer
    sent = await emit_events(app, tenant.organization_id, 20)
    log = tmp_path / "workers.log"
    # Short timeout and lease so the second worker takes the attempt over quickly.
    lease = {"webhook_timeout_s": "5", "webhook_claim_lease_s": "6"}

    first = _worker(database_url, log, **lease)
    try:
        arrived = await asyncio.to_thread(receiver.wait_for, 1, wait_s_max)
        assert arrived, log.read_text()
        first.kill()  # SIGKILL in the middle of the hanging delivery
        first.wait()
    finally:
        stop_worker(first)
        hang.set()
    hung = receiver.received[0].message_id

    second = _worker(database_url, log, **lease)
    try:
        await _wait_until_all_succeeded(tenant.client, sent, log)
    finally:
        stop_worker(second)

    assert set(receiver.ids()) == set(sent)
    assert receiver.ids().count(hung) >= 2
    for delivery in receiver.received:
        verify(delivery, secret)
    history = await attempts(tenant.client, hung)
    assert history[0]["status"] == "SUCCESS"
    assert any(attempt["error"] == ABANDONED for attempt in history[1:])


@pytest.mark.parametrize("workers", [2])
async def test_two_workers_deliver_every_message_exactly_once(
    tenant, receiver, app, database_url, tmp_path, workers
):
    created = await create_endpoint(tenant.client, receiver.url)
    secret = await secret_of(tenant.client, created["id"])
    log = tmp_path / "workers.log"
    processes = [_worker(database_url, log) for _ in range(workers)]
    try:
        sent: list[str] = []
        for _ in range(10):
            sent += await emit_events(app, tenant.organization_id, 10)
        await _wait_until_all_succeeded(tenant.client, sent, log)
    finally:
        for process in processes:
            stop_worker(process)

    counted = Counter(receiver.ids())
    assert set(counted) == set(sent)
    twice = [message_id for message_id, times in counted.items() if times > 1]
    assert twice == [], [await attempts(tenant.client, message_id) for message_id in twice]
    for delivery in receiver.received:
        verify(delivery, secret)
    for message_id in sent:
        made = await attempts(tenant.client, message_id)
        assert len(made) == 1, made
