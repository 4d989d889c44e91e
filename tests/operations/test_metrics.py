"""GET /metrics: Prometheus text whose counters move as requests are made and work is done,
labelled by route template and small fixed sets, never by an id; and its own setting
(open in sandbox, a bearer token, a port of its own, or off)."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from corridor.config import Environment
from corridor.kit import metrics
from corridor.kit.db import Database
from tests.agents.conftest import make_owner, submit_new
from tests.conftest import assert_error, built_app, client_for
from tests.operations.support import labels_holding_ids, payer, samples, value
from tests.webhooks.support import create_endpoint, deliver


async def scrape(client) -> str:
    answer = await client.get("/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    # Prometheus' own parser reads it.
    assert list(text_string_to_metric_families(answer.text))
    return answer.text


async def test_counters_move_as_requests_are_made_and_work_is_done(
    app, tenant, anonymous, receiver
):
    await create_endpoint(tenant.client, receiver.url)
    body = await payer(tenant.client)
    before = await scrape(anonymous)

    created = [await tenant.client.post("/v1/transfers", json=body) for _ in range(2)]
    assert [answer.status_code for answer in created] == [201, 201], created[0].text
    shown = await tenant.client.get(f"/v1/transfers/{created[0].json()['id']}")
    assert shown.status_code == 200
    assert (
        await tenant.client.get(f"/v1/no-such-thing/{created[0].json()['id']}")
    ).status_code == (404)
    attempts = await deliver(app)
    assert attempts >= 4  # transfer.created and transfer.pending of each, at least
    after = await scrape(anonymous)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "corridor_http_requests_total"
    assert moved(requests, method="POST", route="/v1/transfers", status="201") == 2
    assert moved(requests, method="GET", route="/v1/transfers/{transfer_id}", status="200") == 1
    assert moved(requests, method="GET", route="unmatched", status="404") == 1
    assert (
        moved("corridor_http_request_duration_seconds_count", method="POST", route="/v1/transfers")
        == 2
    )
    flow = created[0].json()["flow"]
    assert moved("corridor_transfers_created_total", rail="ACH", flow=flow) == 2
    assert moved("corridor_transfers_submitted_total", rail="ACH", flow=flow) == 2
    assert moved("corridor_webhook_attempts_total", outcome="success", status_class="2xx") == (
        attempts
    )
    assert moved("corridor_webhook_deliveries_finished_total", status="success") == attempts
    assert moved("corridor_webhook_attempt_duration_seconds_count", outcome="success") == attempts
    assert moved("corridor_worker_claim_delay_seconds_count", queue="outbox") >= 4
    assert moved("corridor_worker_claim_delay_seconds_count", queue="webhook") == attempts
    assert value(after, "corridor_db_pool_connections_max", database="primary") >= 1
    assert value(after, "corridor_db_pool_wait_seconds_count", database="primary") >= 1
    # Routes of included routers carry their prefix; nothing is an unlabelled path.
    routes = {labels["route"] for name, labels, _ in samples(after) if "route" in labels}
    assert "/v1/terms-of-service/acceptances" in routes
    assert all(route.startswith("/") or route == "unmatched" for route in routes)
    assert labels_holding_ids(after) == []
    # The ids used are nowhere in the answer.
    for answer in created:
        assert answer.json()["id"] not in after
    assert body["customerId"] not in after


async def test_ledger_postings_are_counted_once_committed(app, tenant, anonymous):
    before = await scrape(anonymous)
    await payer(tenant.client)  # funds a balance: one entry, two postings
    after = await scrape(anonymous)
    assert value(after, "corridor_ledger_entries_total") > value(
        before, "corridor_ledger_entries_total"
    )
    assert (
        value(after, "corridor_ledger_postings_total", currency="USD")
        - value(before, "corridor_ledger_postings_total", currency="USD")
        >= 2
    )


async def test_agent_decisions_are_counted_by_outcome_and_code(app, tenant, anonymous, clock):
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent(
        limits={"perTransfer": "1000", "daily": "100000", "monthly": "1000000"}
    )
    client = await owner.agent_client(agent["id"])
    before = await scrape(anonymous)
    allowed = await submit_new(client, owner.payment(500))
    assert allowed.status_code == 200, allowed.text
    denied = await submit_new(client, owner.payment(5000))
    assert_error(denied, 403, "agent_limit_exceeded")
    after = await scrape(anonymous)
    code = denied.json()["denial"]["code"]
    decisions = "corridor_agent_decisions_total"
    assert (
        value(after, decisions, outcome="allowed") - value(before, decisions, outcome="allowed")
        == 1
    )
    assert (
        value(after, decisions, outcome="denied", code=code)
        - value(before, decisions, outcome="denied", code=code)
        == 1
    )
    await client.aclose()


async def test_a_count_waits_for_the_commit_and_a_rollback_drops_it(database_url):
    database = Database(database_url)
    counted: list[str] = []
    try:
        async with database.session() as session:
            await session.execute(text("SELECT 1"))
            metrics.after_commit(session, lambda: counted.append("rolled back"))
            await session.rollback()
            await session.execute(text("SELECT 1"))
            metrics.after_commit(session, lambda: counted.append("committed"))
            assert counted == []
            await session.commit()
    finally:
        await database.dispose()
    assert counted == ["committed"]


def test_a_label_value_is_never_an_id_or_free_text():
    assert metrics.bounded("ACH") == "ACH"
    assert metrics.bounded("FIAT_TO_FIAT") == "FIAT_TO_FIAT"
    assert metrics.bounded("trf_01m87pwnwpcak48wmt1btqv6kp") == "other"
    assert metrics.bounded("Robert'); DROP TABLE") == "other"
    assert metrics.bounded("x" * 200) == "other"
    assert metrics.bounded(None) == "none"
    assert metrics.bounded("USD", {"USD", "EUR"}) == "USD"
    assert metrics.bounded("XYZ", {"USD", "EUR"}) == "other"


@pytest.mark.parametrize(
    ("settings", "authorization", "status"),
    [
        ({"env": Environment.SANDBOX}, None, 200),
        ({"env": Environment.PRODUCTION}, None, 404),
        ({"env": Environment.PRODUCTION, "metrics_token": "s3cret-token"}, None, 401),
        ({"env": Environment.PRODUCTION, "metrics_token": "s3cret-token"}, "Bearer wrong", 401),
        ({"env": Environment.PRODUCTION, "metrics_token": "s3cret-token"}, "Basic s3cret", 401),
        (
            {"env": Environment.PRODUCTION, "metrics_token": "s3cret-token"},
            "Bearer s3cret-token",
            200,
        ),
        ({"env": Environment.SANDBOX, "metrics_token": "s3cret-token"}, None, 401),
        ({"env": Environment.SANDBOX, "metrics_port": 9464}, None, 404),
        ({"env": Environment.SANDBOX, "metrics_enabled": False}, None, 404),
    ],
)
async def test_who_may_read_metrics_on_the_api_port(database_url, settings, authorization, status):
    settings = dict(settings)
    env = settings.pop("env")
    async with built_app(database_url, env, **settings) as application:
        headers = {"Authorization": authorization} if authorization else {}
        async with client_for(application, headers) as client:
            answer = await client.get("/metrics")
    assert answer.status_code == status, answer.text
    if status == 401:
        assert_error(answer, 401, "unauthorized")
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "s3cret" not in answer.text
    if status == 404:
        assert_error(answer, 404, "not_found")
    if status == 200:
        assert "corridor_build_info" in answer.text


async def test_metrics_are_not_in_the_api_reference(app, anonymous):
    paths = (await anonymous.get("/openapi.json")).json()["paths"]
    assert "/metrics" not in paths
    assert "/v1/health/ready" in paths


async def test_assistant_runs_tokens_and_tool_calls_are_counted(app, tenant, anonymous, clock):
    from tests.agents.conftest import make_owner
    from tests.assistant.conftest import drive, start

    owner = await make_owner(app, tenant)
    chat = await start(owner.client)
    before = await scrape(anonymous)
    sent = await chat.say(f"What is the balance of {owner.usd_account}?")
    await drive(app)
    run = await chat.run(sent["run"]["id"])
    assert run["status"] == "completed"
    after = await scrape(anonymous)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("corridor_assistant_runs_total", status="queued") == 1
    assert moved("corridor_assistant_runs_total", status="running") == 1
    assert moved("corridor_assistant_runs_total", status="completed") == 1
    assert (
        moved("corridor_assistant_model_tokens_total", direction="input", provider="sandbox")
        == (run["tokensIn"])
    )
    assert moved("corridor_assistant_model_tokens_total", direction="output") == run["tokensOut"]
    assert moved("corridor_tool_calls_total", outcome="ok") >= 1
    assert moved("corridor_worker_claim_delay_seconds_count", queue="assistant_runs") == 1
