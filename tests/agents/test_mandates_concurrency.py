"""Concurrent agent payments against one mandate never consume past its budget or its
uses (issue 25): the consumption is one guarded UPDATE in the submit's transaction, which
PostgreSQL re-checks on the row a concurrent submit committed, in any process."""

from __future__ import annotations

import asyncio

import pytest

from corridor.config import Environment
from tests.agents.test_mandates import create_mandate, get_mandate
from tests.auth.credentials import bearer
from tests.conftest import assert_error, built_app, client_for
from tests.transfers.conftest import assert_books_balance

racers = 100
payment_minor = 1_000


async def _drafts(owner, secret: str) -> list[str]:
    drafts = []
    async with client_for(owner.app, bearer(secret)) as client:
        for _ in range(racers):
            created = await client.post("/v1/transfers", json=owner.payment(payment_minor))
            assert created.status_code == 201, created.text
            drafts.append(created.json()["id"])
    return drafts


async def _check(owner, mandate_id: str, answers, *, admitted: int) -> None:
    accepted = [answer for answer in answers if answer.status_code == 200]
    for answer in answers:
        if answer.status_code != 200:
            body = assert_error(answer, 403, "agent_limit_exceeded")
            assert body["denial"]["code"] in (
                "mandate_budget_exceeded",
                "mandate_uses_exhausted",
            ), body
    assert len(accepted) == admitted
    assert all(answer.json()["mandateId"] == mandate_id for answer in accepted)
    mandate = await get_mandate(owner, mandate_id)
    assert mandate["uses"] == admitted
    assert int(mandate["used"]) == admitted * payment_minor
    balance = await owner.customer.balance("USD")
    assert balance["available"] == 100_000_000 - admitted * payment_minor
    await assert_books_balance(owner.app, owner.tenant.organization_id)


@pytest.mark.parametrize(("budget_uses", "max_uses"), [(23, None), (40, 17)])
async def test_hundred_payments_in_two_processes_admit_exactly_the_budget_or_uses(
    owner, backend, database_url, budget_uses, max_uses
):
    if backend == "sqlite":
        pytest.skip("one writer at a time on SQLite; several processes are PostgreSQL's")
    agent = await owner.create_agent(requireMandate=True, limits={})
    mandate = await create_mandate(
        owner,
        agent["id"],
        maxPerPayment=str(payment_minor),
        budget={
            "amount": str(budget_uses * payment_minor + payment_minor // 2),
            "recurrence": "NONE",
        },
        maxUses=max_uses,
    )
    secret = (await owner.agent_key(agent["id"]))["secret"]
    drafts = await _drafts(owner, secret)
    patient = {"database_pool_timeout_s": 120}
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
    admitted = max_uses if max_uses is not None else budget_uses
    await _check(owner, mandate["id"], answers, admitted=admitted)
    status = (await get_mandate(owner, mandate["id"]))["status"]
    assert status == ("EXHAUSTED" if max_uses is not None else "ACTIVE")
    exhausted = await owner.events("agent.mandate.exhausted")
    assert len(exhausted) == (1 if max_uses is not None else 0)


async def test_concurrent_payments_on_every_backend_admit_exactly_the_budget(owner):
    agent = await owner.create_agent(requireMandate=True, limits={})
    mandate = await create_mandate(
        owner,
        agent["id"],
        maxPerPayment=str(payment_minor),
        budget={"amount": str(5 * payment_minor), "recurrence": "DAILY"},
        maxUses=None,
    )
    client = await owner.agent_client(agent["id"])
    drafts = []
    for _ in range(12):
        created = await client.post("/v1/transfers", json=owner.payment(payment_minor))
        drafts.append(created.json()["id"])
    answers = await asyncio.gather(
        *(client.post(f"/v1/transfers/{draft}/submit") for draft in drafts)
    )
    await _check(owner, mandate["id"], answers, admitted=5)
