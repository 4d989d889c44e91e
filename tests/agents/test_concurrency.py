"""Parallel submits of one agent never exceed a limit together (issue 4, "Concurrency").

Each submit adds to the agent's spend counters in upserts guarded by its limits
(transfers/spending.py): on PostgreSQL the window's row lock orders them, whichever
process sends them; on SQLite the writing transaction (BEGIN IMMEDIATE) serialises them.
"""

from __future__ import annotations

import asyncio

import pytest

from corridor.audit import service as audit
from corridor.config import Environment
from tests.auth.credentials import bearer
from tests.conftest import assert_error, built_app, client_for

racers_on_postgresql = 100
racers_on_every_backend = 12
payment_minor = 1_000


# A request waits its turn on the spend window's row holding a pooled connection: the
# pool waits long enough for a hundred turns on a loaded machine (a 503 after the default
# five seconds is the server's right answer to overload, not what these tests are about).
patient = {"database_pool_timeout_s": 120}


async def _race(owner, *, racers: int, admitted: int, database_url: str) -> None:
    agent = await owner.create_agent(
        limits={"daily": str(admitted * payment_minor + payment_minor // 2)}
    )
    client = await owner.agent_client(agent["id"])
    drafts = []
    for _ in range(racers):
        created = await client.post("/v1/transfers", json=owner.payment(payment_minor))
        assert created.status_code == 201, created.text
        drafts.append(created.json()["id"])

    async with (
        built_app(database_url, Environment.SANDBOX, **patient) as racing_app,
        client_for(racing_app, dict(client.headers)) as racing,
    ):
        racing_app.state.clock.set(owner.app.state.clock.now())  # the same day's window
        answers = await asyncio.gather(
            *(racing.post(f"/v1/transfers/{draft}/submit") for draft in drafts)
        )

    accepted = [answer for answer in answers if answer.status_code == 200]
    refused = [answer for answer in answers if answer.status_code != 200]
    for answer in refused:
        assert_error(answer, 403, "agent_limit_exceeded")
    assert len(accepted) == admitted
    assert all(answer.json()["status"] == "PENDING" for answer in accepted)
    spent = sum(int(answer.json()["sourceAmount"]["value"]) for answer in accepted)
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert int(spend["windows"][0]["used"]) == spent == admitted * payment_minor
    assert int(spend["windows"][0]["remaining"]) == payment_minor // 2
    # The ledger agrees: exactly the accepted payments are held on the funding account.
    balance = await owner.customer.balance("USD")
    assert balance["available"] == 100_000_000 - spent
    pending = (await owner.client.get("/v1/transfers?status=PENDING&limit=250")).json()["data"]
    assert sorted(item["id"] for item in pending) == sorted(
        answer.json()["id"] for answer in accepted
    )


async def test_hundred_concurrent_submits_on_postgresql_admit_exactly_the_limit(
    owner, backend, database_url
):
    if backend == "sqlite":
        pytest.skip("row locks are PostgreSQL's; SQLite is raced in the test below")
    await _race(owner, racers=racers_on_postgresql, admitted=37, database_url=database_url)


async def test_concurrent_submits_are_serialised_on_every_backend(owner, database_url):
    await _race(owner, racers=racers_on_every_backend, admitted=5, database_url=database_url)


async def test_concurrent_approval_and_submits_share_the_lock(owner):
    """An owner's approval and the agent's own submits run one at a time on the agent:
    no deadlock, every agent submit that fits is accepted, the rest are parked, and the
    spend is exactly what was accepted and approved."""
    agent = await owner.create_agent(
        overLimitAction="REQUEST_APPROVAL",
        limits={"perTransfer": str(5 * payment_minor), "daily": str(10 * payment_minor)},
    )
    client = await owner.agent_client(agent["id"])
    big = (await client.post("/v1/transfers", json=owner.payment(8 * payment_minor))).json()
    parked = await client.post(f"/v1/transfers/{big['id']}/submit")
    assert_error(parked, 403, "agent_approval_required")
    drafts = [
        (await client.post("/v1/transfers", json=owner.payment(payment_minor))).json()["id"]
        for _ in range(6)
    ]
    approval, *submits = await asyncio.gather(
        owner.client.post(
            f"/v1/transfers/{big['id']}/agent-approval", json={"decision": "APPROVE"}
        ),
        *(client.post(f"/v1/transfers/{draft}/submit") for draft in drafts),
    )
    assert approval.status_code == 200, approval.text
    accepted = [answer for answer in submits if answer.status_code == 200]
    for answer in submits:
        if answer.status_code != 200:
            assert_error(answer, 403, "agent_approval_required")
    # Approved first: 2 more fit; approved last: all 6 went before it.
    assert 2 <= len(accepted) <= 6
    spend = (await client.get(f"/v1/agents/{agent['id']}/spend")).json()
    assert int(spend["windows"][0]["used"]) == (8 + len(accepted)) * payment_minor


async def test_two_api_processes_on_postgresql_admit_exactly_the_limit(
    owner, backend, database_url
):
    """Two apps on one database, each with its own connection pool (as two `corridor
    serve` processes are): 100 submits of one agent split between them admit exactly what
    the daily limit covers, and the spend and the held balance agree."""
    if backend == "sqlite":
        pytest.skip("one writer at a time on SQLite; several processes are PostgreSQL's")
    admitted = 23
    agent = await owner.create_agent(
        limits={"daily": str(admitted * payment_minor + payment_minor // 2)}
    )
    secret = (await owner.agent_key(agent["id"]))["secret"]
    drafts = []
    async with client_for(owner.app, bearer(secret)) as client:
        for _ in range(racers_on_postgresql):
            created = await client.post("/v1/transfers", json=owner.payment(payment_minor))
            assert created.status_code == 201, created.text
            drafts.append(created.json()["id"])
    async with (
        built_app(database_url, Environment.SANDBOX, **patient) as first_app,
        built_app(database_url, Environment.SANDBOX, **patient) as second_app,
    ):
        first = client_for(first_app, bearer(secret))
        second = client_for(second_app, bearer(secret))
        answers = await asyncio.gather(
            *(
                (first if index % 2 else second).post(f"/v1/transfers/{draft}/submit")
                for index, draft in enumerate(drafts)
            )
        )
        spend = (await first.get(f"/v1/agents/{agent['id']}/spend")).json()
    accepted = [answer for answer in answers if answer.status_code == 200]
    for answer in answers:
        if answer.status_code != 200:
            assert_error(answer, 403, "agent_limit_exceeded")
    assert len(accepted) == admitted
    assert int(spend["windows"][0]["used"]) == admitted * payment_minor
    balance = await owner.customer.balance("USD")
    assert balance["available"] == 100_000_000 - admitted * payment_minor


deadlock_rounds = 20


async def test_an_approval_and_another_agents_submits_on_one_account_never_deadlock(owner, backend):
    """Two agents funded by one account: an owner's approval of one (the balance hold,
    then its audit record) races the other's submits (their audit records, then the
    hold). Records are appended without a lock and linked afterwards, so neither waits
    on the other: no deadlock, no 500, the books balance and the audit chain holds."""
    if backend == "sqlite":
        pytest.skip("row locks are PostgreSQL's; SQLite serialises writers")
    approved = await owner.create_agent(
        overLimitAction="REQUEST_APPROVAL",
        limits={"perTransfer": str(5 * payment_minor), "daily": str(1_000 * payment_minor)},
    )
    paying = await owner.create_agent(limits={"daily": str(1_000 * payment_minor)})
    approved_client = await owner.agent_client(approved["id"])
    paying_client = await owner.agent_client(paying["id"])
    spent = 0
    for _ in range(deadlock_rounds):
        big = await approved_client.post("/v1/transfers", json=owner.payment(8 * payment_minor))
        parked = await approved_client.post(f"/v1/transfers/{big.json()['id']}/submit")
        assert_error(parked, 403, "agent_approval_required")
        drafts = [
            (await paying_client.post("/v1/transfers", json=owner.payment(payment_minor))).json()[
                "id"
            ]
            for _ in range(3)
        ]
        approval, *submits = await asyncio.gather(
            owner.client.post(
                f"/v1/transfers/{big.json()['id']}/agent-approval", json={"decision": "APPROVE"}
            ),
            *(paying_client.post(f"/v1/transfers/{draft}/submit") for draft in drafts),
        )
        assert approval.status_code == 200, approval.text
        for answer in submits:
            assert answer.status_code == 200, answer.text
        spent += 8 * payment_minor + 3 * payment_minor
    balance = await owner.customer.balance("USD")
    assert balance["available"] == 100_000_000 - spent
    organization_id = owner.tenant.organization_id
    await audit.link_pending(owner.app.state.database, organization_id)
    async with owner.app.state.database.session(write=False) as session:
        verified = await audit.verify_chain(session, organization_id)
    # Each round: the parked submit, the approval, three allowed payments.
    assert verified.holds and verified.count >= 5 * deadlock_rounds
