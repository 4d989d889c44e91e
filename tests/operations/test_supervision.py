"""When `corridor serve` dies, the processes it started die with it (issue 32).

The supervisor SIGKILLed (an OOM kill, `kill -9`, a container runtime signalling only its
main process) cannot stop its children: each follows it (kit/supervision.py) and stops as
on SIGTERM, so no process of the tree is left serving the port or claiming work, and a new
`corridor serve` starts on the same port. A worker holding a webhook claim lets it go (its
lease runs out) and the delivery is made exactly once after the restart. `corridor worker`
started by anything else follows nothing."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import func, select

from corridor.kit.db import Database
from corridor.kit.supervision import SUPERVISOR_VARIABLE
from corridor.models.operations import WorkerHeartbeat
from corridor.models.webhook import WebhookAttempt, WebhookDelivery
from corridor.webhooks.dispatcher import ABANDONED
from tests.conftest import POSTGRES_URL
from tests.live_server import LiveServer, another_server, live_corridor
from tests.operations.processes import descendants, gone, server_processes, wait_until
from tests.support import create_individual
from tests.webhooks.support import Answer, Receiver, create_endpoint

needs_postgres = pytest.mark.skipif(
    POSTGRES_URL is None, reason="several processes share a PostgreSQL database"
)
# Bounds, not timings: a loaded machine starts and stops processes slowly.
arrival_s_max = 180
delivery_s_max = 180


def _port_free(live: LiveServer) -> bool:
    host, port = live.base_url.removeprefix("http://").split(":")
    try:
        # As `corridor serve` binds it (SO_REUSEADDR): only a listening socket holds it.
        socket.create_server((host, int(port))).close()
    except OSError:
        return False
    return True


def _kill_supervisor(live: LiveServer) -> list[int]:
    """SIGKILL `live`'s `corridor serve`; returns the processes it had started (all of them,
    their children too), after checking they were API processes and a worker."""
    server, api, workers = server_processes(live)
    assert len(api) == 2 and len(workers) == 1, (api, workers)
    tree = descendants(server)
    assert set(api) | set(workers) <= set(tree)
    os.kill(server, signal.SIGKILL)
    return tree


@needs_postgres
def test_the_processes_of_a_killed_server_stop_and_free_its_port(tmp_path):
    with live_corridor("postgresql", tmp_path, workers=True, processes=2) as live:
        asyncio.run(_wait_for_a_heartbeat(live))
        tree = _kill_supervisor(live)
        wait_until(
            lambda: all(gone(pid) for pid in tree),
            f"processes of the killed server still alive: {[p for p in tree if not gone(p)]}",
        )
        wait_until(lambda: _port_free(live), "the port stayed taken")
        # They stopped as on SIGTERM: the worker deleted its heartbeat on the way out.
        assert asyncio.run(_heartbeats(live)) == 0
        port = int(live.base_url.rsplit(":", 1)[1])
        with another_server(live, tmp_path, port=port, workers=True, processes=2) as restarted:
            assert restarted.base_url == live.base_url
            answer = httpx.get(
                f"{restarted.base_url}/v1/organizations/current",
                headers={"Authorization": f"Bearer {live.api_key}"},
                timeout=30,
            )
            assert answer.status_code == 200, answer.text
        log = live.log.read_text()
        assert "unhandled_error" not in log
        assert "Traceback" not in log


# The worker gives up an attempt still in flight after the grace; its lease runs out and
# the restarted server's worker takes the delivery over. The endpoint's timeout is longer
# than the whole stop, so the held request is never answered by a timeout.
held_settings = {
    "CORRIDOR_SHUTDOWN_GRACE_S": "2",
    "CORRIDOR_WEBHOOK_TIMEOUT_S": "25",
    "CORRIDOR_WEBHOOK_CLAIM_LEASE_S": "30",
}


@needs_postgres
def test_a_claimed_delivery_of_a_killed_server_is_made_once_after_the_restart(tmp_path):
    receiver = Receiver()
    release = threading.Event()
    receiver.answer_with(Answer(status=200, hold=release))  # the first request hangs
    try:
        with live_corridor(
            "postgresql", tmp_path, workers=True, processes=2, settings=held_settings
        ) as live:
            message_id = asyncio.run(_one_message(live, receiver))
            assert receiver.wait_for(1, timeout_s=arrival_s_max), "nothing was delivered"
            assert receiver.ids() == [message_id]
            status, _ = asyncio.run(_delivery_of(live, message_id))
            assert status == "SENDING"  # the worker holds the claim
            tree = _kill_supervisor(live)
            wait_until(
                lambda: all(gone(pid) for pid in tree),
                f"processes of the killed server still alive: {[p for p in tree if not gone(p)]}",
            )
            wait_until(lambda: _port_free(live), "the port stayed taken")
            # Released, or still claimed until its lease runs out: nobody sends it now.
            status, lease_until = asyncio.run(_delivery_of(live, message_id))
            assert status in ("PENDING", "SENDING"), status
            assert len(receiver.received) == 1
            port = int(live.base_url.rsplit(":", 1)[1])
            with another_server(
                live, tmp_path, port=port, workers=True, processes=2, settings=held_settings
            ):
                wait_until(
                    lambda: asyncio.run(_delivery_of(live, message_id))[0] == "SUCCESS",
                    "the delivery was not made after the restart",
                    bound_s=delivery_s_max,
                )
                attempts = asyncio.run(_attempts_of(live, message_id))
            log = live.log.read_text()
    finally:
        release.set()
        receiver.close()
    # Exactly once after the restart: one more request, answered, and no other.
    assert receiver.ids() == [message_id, message_id]
    if status == "SENDING":
        assert lease_until is not None and lease_until > datetime(2000, 1, 1, tzinfo=UTC)
        assert [(a.status, a.error) for a in attempts] == [
            ("FAIL", ABANDONED),
            ("SUCCESS", None),
        ]
    else:
        assert [a.status for a in attempts] == ["FAIL", "SUCCESS"]
    assert "unhandled_error" not in log


async def _one_message(live: LiveServer, receiver: Receiver) -> str:
    """One customer.created message to the receiver; its id."""
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=60) as client:
        await create_endpoint(client, receiver.url, eventTypes=["customer.created"])
        customer = await create_individual(client)
        messages = await client.get("/v1/webhooks/messages", params={"limit": 10})
    assert messages.status_code == 200, messages.text
    found = [
        item["id"]
        for item in messages.json()["data"]
        if item["eventType"] == "customer.created" and customer["id"] in item.get("tags", [])
    ]
    assert len(found) == 1, messages.json()
    return found[0]


async def _delivery_of(live: LiveServer, message_id: str) -> tuple[str, datetime | None]:
    database = Database(live.database_url)
    try:
        async with database.session(write=False) as session:
            delivery = (
                await session.execute(
                    select(WebhookDelivery).where(WebhookDelivery.event_id == message_id)
                )
            ).scalar_one()
            return delivery.status, delivery.due_at
    finally:
        await database.dispose()


async def _attempts_of(live: LiveServer, message_id: str) -> list[WebhookAttempt]:
    database = Database(live.database_url)
    try:
        async with database.session(write=False) as session:
            return list(
                (
                    await session.execute(
                        select(WebhookAttempt)
                        .where(WebhookAttempt.event_id == message_id)
                        .order_by(WebhookAttempt.attempt_number, WebhookAttempt.started_at)
                    )
                ).scalars()
            )
    finally:
        await database.dispose()


async def _heartbeats(live: LiveServer) -> int:
    database = Database(live.database_url)
    try:
        async with database.session(write=False) as session:
            return int(await session.scalar(select(func.count()).select_from(WorkerHeartbeat)) or 0)
    finally:
        await database.dispose()


async def _wait_for_a_heartbeat(live: LiveServer) -> None:
    """The worker is up (it beats once started): it has something to let go of."""
    for _ in range(arrival_s_max * 5):
        if await _heartbeats(live):
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the worker never beat")


# --- kit/supervision.py on its own: each way of following, and nothing to follow ----------

# A stand-in for `corridor serve`: names itself to a child it starts (unless told not to),
# prints the child's pid, then waits to be killed. The child follows it as configured, says
# so, answers "alive" to each line on its standard input and "stopped" on SIGTERM.
_SUPERVISOR = """
import os, subprocess, sys, time
if {supervises!r}:
    os.environ[{variable!r}] = str(os.getpid())
child = subprocess.Popen([sys.executable, "-c", {child!r}])
print(child.pid, flush=True)
time.sleep(600)
"""
_CHILD = """
import signal, sys
from corridor.kit import supervision
{configure}
signal.signal(signal.SIGTERM, lambda *_: (print("stopped", flush=True), sys.exit(0)))
print("following", supervision.follow_supervisor() is not None, flush=True)
for _ in sys.stdin:
    print("alive", flush=True)
"""
_WAYS = {
    # Linux's parent-death signal alone: the portable check never looks.
    "parent-death signal": "supervision.parent_check_s = 3600",
    # The portable check alone, as on a platform without prctl.
    "parent check": "supervision._set_parent_death_signal = lambda number: False",
}


def _start(child: str, *, supervises: bool) -> tuple[subprocess.Popen[str], int]:
    script = _SUPERVISOR.format(supervises=supervises, variable=SUPERVISOR_VARIABLE, child=child)
    environment = {k: v for k, v in os.environ.items() if k != SUPERVISOR_VARIABLE}
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert parent.stdout is not None
    return parent, int(parent.stdout.readline())


@pytest.mark.parametrize("way", sorted(_WAYS))
def test_a_child_stops_as_on_sigterm_when_its_supervisor_is_killed(way):
    if way == "parent-death signal" and not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    supervisor, child = _start(_CHILD.format(configure=_WAYS[way]), supervises=True)
    assert supervisor.stdout is not None
    try:
        assert supervisor.stdout.readline().split() == ["following", "True"]
        supervisor.kill()
        supervisor.wait()
        # The child's SIGTERM handler ran (a graceful stop), and it exited.
        assert supervisor.stdout.readline().strip() == "stopped"
        wait_until(lambda: gone(child), "the child did not exit")
    finally:
        if not gone(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal")
def test_a_process_started_by_no_supervisor_follows_nothing():
    """`corridor worker` from a shell or a service manager: its parent dying does not stop
    it (the same code, without CORRIDOR_SUPERVISOR_PID)."""
    parent, child = _start(_CHILD.format(configure=""), supervises=False)
    assert parent.stdin is not None and parent.stdout is not None
    try:
        assert parent.stdout.readline().split() == ["following", "False"]
        parent.kill()
        parent.wait()
        # A parent-death signal would be pending by now (the kernel sends it as the parent
        # exits) and would interrupt the child's read: it answers instead.
        parent.stdin.write("still there?\n")
        parent.stdin.flush()
        assert parent.stdout.readline().strip() == "alive"
        os.kill(child, signal.SIGTERM)
        assert parent.stdout.readline().strip() == "stopped"
        wait_until(lambda: gone(child), "the child did not exit on SIGTERM")
    finally:
        if not gone(child):
            os.kill(child, signal.SIGKILL)
