"""history.endpoint_health: each endpoint's successful and failed delivery attempts in a
window (the console's success-rate chart)."""

from __future__ import annotations

from datetime import timedelta

from corridor.webhooks import history
from tests.tools.support import caller_of
from tests.webhooks.support import create_endpoint, deliver, emit_events, worker_settings


async def _health(app, tenant, since) -> list[history.EndpointHealth]:
    caller = await caller_of(app, tenant.secret)
    async with app.state.database.session(write=False) as session:
        return await history.endpoint_health(session, caller=caller, since=since, endpoints_max=10)


async def test_successes_and_failures_per_endpoint(tenant, app, make_receiver):
    good, flaky, quiet = make_receiver(), make_receiver(), make_receiver()
    started = app.state.clock.now()
    good_endpoint = await create_endpoint(tenant.client, good.url)
    flaky_endpoint = await create_endpoint(tenant.client, flaky.url)
    quiet_endpoint = await create_endpoint(
        tenant.client, quiet.url, eventTypes=["transfer.completed"]
    )
    flaky.answer_with(500, 200, 503)
    await emit_events(app, tenant.organization_id, 3)
    await deliver(app, worker_settings(app, webhook_retry_schedule_s=[3600]))

    found = await _health(app, tenant, since=started - timedelta(seconds=1))

    by_id = {item.endpoint_id: item for item in found}
    assert [item.endpoint_id for item in found] == [
        good_endpoint["id"],
        flaky_endpoint["id"],
        quiet_endpoint["id"],
    ]
    assert (by_id[good_endpoint["id"]].succeeded, by_id[good_endpoint["id"]].failed) == (3, 0)
    assert by_id[good_endpoint["id"]].success_percent == 100
    flaky_health = by_id[flaky_endpoint["id"]]
    assert (flaky_health.succeeded, flaky_health.failed) == (1, 2)
    assert flaky_health.success_percent == 33  # rounded down
    assert flaky_health.url == flaky.url
    assert by_id[quiet_endpoint["id"]].attempts == 0
    assert by_id[quiet_endpoint["id"]].success_percent is None
    # Attempts before the window are not counted.
    later = await _health(app, tenant, since=app.state.clock.now() + timedelta(seconds=1))
    assert all(item.attempts == 0 for item in later)
