"""`corridor webhooks replay`: an endpoint's failed deliveries queued again from the command
line, in batches with a progress bar, then sent by the workers."""

from __future__ import annotations

import os
import subprocess

from tests.cli_runner import run_corridor
from tests.conftest import TEST_SECRET_KEY
from tests.webhooks.support import create_endpoint, deliver, emit_events, message, worker_settings


def _corridor(database_url: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": database_url,
        # The key the test apps encrypted the endpoints' signing secrets with.
        "CORRIDOR_SECRET_KEY": TEST_SECRET_KEY,
        "TTY_COMPATIBLE": "1",
    }
    # In this process through the real entry point (tests/cli_runner.py).
    return run_corridor(arguments, environment=environment)


async def test_replay_command_queues_failed_deliveries_with_progress(
    tenant, app, receiver, database_url
):
    created = await create_endpoint(tenant.client, receiver.url)
    receiver.answer_with(*[500] * 3)
    sent = await emit_events(app, tenant.organization_id, 3)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[]))
    assert all([(await message(tenant.client, sent_id))["status"] == "FAIL" for sent_id in sent])

    replayed = _corridor(
        database_url,
        *("webhooks", "replay", created["id"], "--since", "1h"),
        *("-o", tenant.organization_id),
    )
    assert replayed.returncode == 0, replayed.stderr
    assert f"Queued 3 deliveries to {created['id']}" in replayed.stdout
    assert "Queuing deliveries" in replayed.stderr
    assert "3/3" in replayed.stderr

    await deliver(app)
    for message_id in sent:
        assert (await message(tenant.client, message_id))["status"] == "SUCCESS"
    again = _corridor(
        database_url,
        *("webhooks", "replay", created["id"], "--since", "1h"),
        *("-o", tenant.organization_id),
    )
    assert "Queued 0 deliveries" in again.stdout


async def test_replay_command_refuses_a_since_it_cannot_read(tenant, receiver, database_url):
    created = await create_endpoint(tenant.client, receiver.url)
    refused = _corridor(
        database_url,
        *("webhooks", "replay", created["id"], "--since", "yesterday"),
        *("-o", tenant.organization_id),
    )
    assert refused.returncode == 2
    assert "neither an ISO 8601 time nor an age" in refused.stderr
    assert "Traceback" not in refused.stderr
