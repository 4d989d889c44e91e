"""The console's transfers page with 10,000 transfers in the organization (issue 14):
server time of its first page, rendered in-process (httpx's ASGI transport, no network),
against the JSON list of the same page (`GET /v1/transfers?limit=25`, the same service
call) as the baseline, so the ratio is the cost of the HTML. Also the page filtered to a
rare status (a queue: IN_REVIEW) and the home page (balances, the capped counts and the
charts: balance over 30 days, transfers per day, webhook success per endpoint).

The 10,000 transfers are copies of one draft made through the API, written in bulk with
new ids, spread over statuses and over 30 days, each with its two legs. The charts read 30
days of postings (copies of the funding's postings, `postings_per_day` a day) and of
webhook attempts (`attempts_per_day` a day on one endpoint, one in ten failed).
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import httpx
from sqlalchemy import insert, select, text

from benchmarks.harness import Result, measure
from benchmarks.ledger_posting import _customer_account
from corridor.app import create_app
from corridor.config import Settings
from corridor.kit.clock import SystemClock
from corridor.kit.ids import new_id
from corridor.models.event import Event
from corridor.models.ledger import Posting
from corridor.models.transfer import Transfer, TransferLeg
from corridor.models.webhook import WebhookAttempt, WebhookDelivery
from corridor.organizations import service as organizations

transfers_count = 10_000
insert_batch_size = 1_000
history_days = 30
postings_per_day = 200
attempts_per_day = 300
# One status in a hundred of the copies (and the rest, by weight): most are done.
STATUS_WEIGHTS = (
    ("COMPLETED", 70),
    ("PENDING", 10),
    ("DRAFT", 10),
    ("FAILED", 5),
    ("IN_REVIEW", 3),
    ("PENDING_AUTHORIZATION", 2),
)
_STATUSES = [status for status, weight in STATUS_WEIGHTS for _ in range(weight)]
_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


async def _seed(database, organization_id: str, template_id: str) -> None:
    """`transfers_count` copies of the template transfer and its legs."""
    transfers, legs = Transfer.__table__, TransferLeg.__table__
    async with database.session(write=False) as session:
        template = dict(
            (await session.execute(select(transfers).where(transfers.c.id == template_id)))
            .mappings()
            .one()
        )
        template_legs = [
            dict(row)
            for row in (
                await session.execute(select(legs).where(legs.c.transfer_id == template_id))
            ).mappings()
        ]
    now = SystemClock().now()
    for start in range(0, transfers_count, insert_batch_size):
        transfer_rows, leg_rows = [], []
        for index in range(start, min(start + insert_batch_size, transfers_count)):
            transfer_id = new_id("tfr")
            created = now - timedelta(seconds=(transfers_count - index) * 259)  # ~30 days
            transfer_rows.append(
                {
                    **template,
                    "id": transfer_id,
                    "status": _STATUSES[index % len(_STATUSES)],
                    "client_reference_id": None,
                    "created_at": created,
                    "updated_at": created,
                    "next_step_at": None,
                }
            )
            leg_rows += [
                {**leg, "id": new_id("tleg"), "transfer_id": transfer_id} for leg in template_legs
            ]
        async with database.session() as session, session.begin():
            await session.execute(insert(transfers), transfer_rows)
            await session.execute(insert(legs), leg_rows)
    assert organization_id == template["organization_id"]
    if not database.is_sqlite:
        # What autovacuum does after a bulk load: without statistics the planner takes the
        # organization for five rows and sorts all 10,000 instead of reading the
        # (organization_id, id) index backwards.
        async with database.session() as session, session.begin():
            await session.execute(text("ANALYZE transfers"))
            await session.execute(text("ANALYZE transfer_legs"))


async def _seed_history(database, organization_id: str, endpoint_id: str) -> None:
    """30 days of postings (copies of the funding's credit, alternating sign)
    and of finished webhook attempts on one endpoint, what the home page's charts read."""
    postings = Posting.__table__
    async with database.session(write=False) as session:
        template = dict(
            (
                await session.execute(
                    select(postings)
                    .where(postings.c.organization_id == organization_id, postings.c.amount > 0)
                    .order_by(postings.c.id.desc())
                    .limit(1)
                )
            )
            .mappings()
            .one()
        )
        event_id = (
            await session.execute(
                select(Event.id).where(Event.organization_id == organization_id).limit(1)
            )
        ).scalar_one()
    now = SystemClock().now()
    delivery_id = new_id("dlv")
    posting_rows, attempt_rows = [], []
    for day in range(history_days):
        for index in range(postings_per_day):
            at = now - timedelta(days=day, seconds=index * 7)
            posting_rows.append(
                {
                    **template,
                    "id": new_id("pst"),
                    "amount": 1_000 if index % 2 else -900,
                    "created_at": at,
                }
            )
        for index in range(attempts_per_day):
            at = now - timedelta(days=day, seconds=index * 11)
            failed = index % 10 == 0
            attempt_rows.append(
                {
                    "id": new_id("atmpt"),
                    "organization_id": organization_id,
                    "delivery_id": delivery_id,
                    "event_id": event_id,
                    "endpoint_id": endpoint_id,
                    "url": "https://example.com/hooks",
                    "status": "FAIL" if failed else "SUCCESS",
                    "attempt_number": 1,
                    "trigger": "SCHEDULED",
                    "response_status_code": 500 if failed else 200,
                    "response_body": "",
                    "error": None,
                    "duration_ms": 40,
                    "started_at": at,
                    "finished_at": at,
                }
            )
    async with database.session() as session, session.begin():
        await session.execute(
            insert(WebhookDelivery.__table__),
            [
                {
                    "id": delivery_id,
                    "organization_id": organization_id,
                    "event_id": event_id,
                    "endpoint_id": endpoint_id,
                    "status": "SUCCESS",
                    "attempt_count": 1,
                    "due_at": None,
                    "current_attempt_id": None,
                    "trigger": "SCHEDULED",
                    "created_at": now,
                    "updated_at": now,
                }
            ],
        )
        for start in range(0, len(posting_rows), insert_batch_size):
            await session.execute(insert(postings), posting_rows[start : start + insert_batch_size])
        for start in range(0, len(attempt_rows), insert_batch_size):
            await session.execute(
                insert(WebhookAttempt.__table__), attempt_rows[start : start + insert_batch_size]
            )
    if not database.is_sqlite:
        async with database.session() as session, session.begin():
            await session.execute(text("ANALYZE postings"))
            await session.execute(text("ANALYZE webhook_attempts"))


async def _console_client(app, email: str, password: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench")
    form = await client.get("/console/sign-in")
    token = _CSRF.search(form.text)
    assert token, "the sign-in form has no token"
    signed_in = await client.post(
        "/console/sign-in",
        data={"email": email, "password": password, "csrf_token": token.group(1)},
    )
    assert signed_in.status_code == 303, signed_in.text
    return client


def _getter(client: httpx.AsyncClient, path: str):
    async def get(_: int) -> None:
        response = await client.get(path)
        assert response.status_code == 200, response.text[:500]

    return get


async def _timed(name: str, operation, *, renders: int, cpu_ms: dict[str, float]) -> Result:
    """`measure`, one at a time, noting the process's CPU time per render too: on a shared
    machine wall time includes waiting for a core, CPU time does not."""
    started = time.process_time()
    result = await measure(name, operation, operations=renders, concurrency=1)
    cpu_ms[name] = (time.process_time() - started) * 1000 / renders
    return result


async def run(database_url: str, *, renders: int) -> tuple[Result, list[Result], dict[str, float]]:
    app = create_app(
        Settings(
            database_url=database_url,
            log_level="WARNING",
            rate_limit_requests_per_key=1_000_000,
        ),
        run_workers_in_process=False,
    )
    database = app.state.database
    async with database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Benchmark", key_environment="sandbox", now=SystemClock().now()
        )
    headers = {"Authorization": f"Bearer {made.secret}"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://bench", headers=headers
    ) as api:
        usd_account = await _customer_account(api)
        account = (await api.get(f"/v1/accounts/{usd_account}")).json()
        customer_id = account["customerId"]
        accounts = (await api.get(f"/v1/customers/{customer_id}/accounts")).json()["data"]
        usdc_account = next(item["id"] for item in accounts if item["currency"] == "USDC")
        draft = await api.post(
            "/v1/transfers",
            json={
                "customerId": customer_id,
                "source": {"accountId": usd_account},
                "destination": {"accountId": usdc_account},
                "amount": {"currency": "USD", "value": "12550"},
            },
        )
        assert draft.status_code == 201, draft.text
        await _seed(database, made.organization.id, draft.json()["id"])
        funded = await api.post(
            f"/v1/sandbox/accounts/{usd_account}/fund",
            json={"amount": {"currency": "USD", "value": "100000000"}},
        )
        assert funded.status_code == 200, funded.text  # the postings the copies start from
        endpoint = await api.post(
            "/v1/webhooks/endpoints", json={"url": "https://example.com/hooks"}
        )
        assert endpoint.status_code == 201, endpoint.text
        await _seed_history(database, made.organization.id, endpoint.json()["id"])
        cpu_ms: dict[str, float] = {}
        baseline = await _timed(
            "GET /v1/transfers?limit=25 (JSON)",
            _getter(api, "/v1/transfers?limit=25"),
            renders=renders,
            cpu_ms=cpu_ms,
        )
    await database.dispose()  # the seeding's connections: measure on a fresh pool
    console = await _console_client(app, made.user.email, made.console_password)
    try:
        results = [
            await _timed(f"console {path}", _getter(console, path), renders=renders, cpu_ms=cpu_ms)
            for path in (
                "/console/transfers",
                "/console/transfers?status=IN_REVIEW",
                "/console",
            )
        ]
    finally:
        await console.aclose()
        await app.state.database.dispose()
    return baseline, results, cpu_ms
