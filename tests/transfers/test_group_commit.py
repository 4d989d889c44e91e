"""Group commit on a hot account (issue 12, kit/group_commit.py): concurrent create+submits
debiting one balance account share one transaction on PostgreSQL, each in its own
savepoint, one COMMIT for the batch. Each still gets its own exact answer; a failed
COMMIT answers every member 503 with nothing written; an Idempotency-Key's answer
commits with its member and a retry after the 503 works. SQLite runs them one by one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from fastapi import FastAPI
from sqlalchemy import text

from corridor.config import Environment
from tests.conftest import assert_error, built_app
from tests.transfers.conftest import (
    amount,
    assert_books_balance,
    fetch,
    make_customer,
    settle,
)

payment_minor = 1_000


@pytest.fixture(scope="module")
async def app(database_url: str) -> AsyncIterator[FastAPI]:
    """An app with group commit on (it is off unless CORRIDOR_GROUP_COMMIT=true)."""
    async with built_app(database_url, Environment.SANDBOX, group_commit=True) as application:
        yield application


def _body(customer, receiver) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"accountId": receiver.accounts["USD"]},
        "amount": amount("USD", payment_minor),
        "confirm": True,
    }


async def _listed_ids(client) -> list[str]:
    listed = (await client.get("/v1/transfers", params={"limit": 100})).json()["data"]
    return sorted(item["id"] for item in listed)


async def test_a_batch_accepts_exactly_what_the_balance_covers(app, backend, tenant, customer):
    racers, covered = 40, 13
    group = app.state.database.group_commit
    batches_before = group.batches_committed
    receiver = await make_customer(tenant.client)
    await customer.fund("USD", covered * payment_minor)
    body = _body(customer, receiver)
    answers = await asyncio.gather(
        *(tenant.client.post("/v1/transfers", json=body) for _ in range(racers))
    )
    accepted = [answer.json() for answer in answers if answer.status_code == 201]
    refused = [answer for answer in answers if answer.status_code != 201]
    for answer in refused:
        assert_error(answer, 409, "insufficient_funds")
    assert (len(accepted), len(refused)) == (covered, racers - covered)
    assert {transfer["status"] for transfer in accepted} == {"PENDING"}
    assert (await customer.balance("USD"))["available"] == 0
    # Every 201 exists as answered; every 409 left nothing behind.
    for transfer in accepted:
        assert (await fetch(tenant.client, transfer["id"]))["status"] == "PENDING"
    assert await _listed_ids(tenant.client) == sorted(item["id"] for item in accepted)
    await assert_books_balance(app, tenant.organization_id)
    if backend == "postgresql":
        # They were grouped: fewer commits than requests, some batch carrying several.
        assert group.largest_batch > 1
        assert group.batches_committed - batches_before < racers
    else:
        assert group.batches_committed == batches_before  # SQLite: off
    await settle(app, tenant.organization_id)
    assert (await receiver.balance("USD"))["available"] == covered * payment_minor
    assert await customer.balance("USD") == {"available": 0, "pending": 0, "total": 0}
    await assert_books_balance(app, tenant.organization_id)


async def test_keys_in_a_batch_commit_with_their_work_and_replay(app, tenant, customer):
    racers, covered = 8, 5
    receiver = await make_customer(tenant.client)
    await customer.fund("USD", covered * payment_minor)
    body = _body(customer, receiver)
    keys = [f"batch-key-{index}" for index in range(racers)]
    answers = await asyncio.gather(
        *(
            tenant.client.post("/v1/transfers", json=body, headers={"Idempotency-Key": key})
            for key in keys
        )
    )
    assert sorted(answer.status_code for answer in answers) == [201] * covered + [409] * (
        racers - covered
    )
    replays = await asyncio.gather(
        *(
            tenant.client.post("/v1/transfers", json=body, headers={"Idempotency-Key": key})
            for key in keys
        )
    )
    for first, again in zip(answers, replays, strict=True):
        assert again.status_code == first.status_code
        assert again.json() == first.json()
        assert again.headers.get("Idempotent-Replayed") == "true"
    accepted = [answer.json()["id"] for answer in answers if answer.status_code == 201]
    assert await _listed_ids(tenant.client) == sorted(accepted)
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)


async def test_a_failed_commit_answers_every_member_503_and_writes_nothing(
    app, backend, tenant, customer
):
    if backend != "postgresql":
        return  # group commit is PostgreSQL's; SQLite has no deferred constraint triggers
    racers = 10
    receiver = await make_customer(tenant.client)
    await customer.fund("USD", racers * payment_minor)
    body = _body(customer, receiver)
    # A real COMMIT failure: a deferred constraint trigger that refuses this tenant's
    # transfers, checked by PostgreSQL only at COMMIT, after every savepoint succeeded.
    org = tenant.organization_id
    engine = app.state.database.engine
    async with engine.begin() as connection:
        await connection.execute(
            text(
                "CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS "
                "$$ BEGIN RAISE EXCEPTION 'refused at commit'; END $$"
            )
        )
        await connection.execute(
            text(
                "CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT ON transfers "
                "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
                f"WHEN (NEW.organization_id = '{org}') EXECUTE FUNCTION refuse_at_commit()"
            )
        )
    keys = [f"failing-{index}" for index in range(racers)]
    try:
        answers = await asyncio.gather(
            *(
                tenant.client.post("/v1/transfers", json=body, headers={"Idempotency-Key": key})
                for key in keys
            )
        )
    finally:
        async with engine.begin() as connection:
            await connection.execute(text("DROP TRIGGER refuse_at_commit ON transfers"))
            await connection.execute(text("DROP FUNCTION refuse_at_commit()"))
    for answer in answers:
        assert_error(answer, 503, "service_unavailable")
        assert answer.headers["Retry-After"] == "1"
    assert await _listed_ids(tenant.client) == []
    assert await customer.balance("USD") == {
        "available": racers * payment_minor,
        "pending": 0,
        "total": racers * payment_minor,
    }
    await assert_books_balance(app, tenant.organization_id)
    # Nothing was kept for the keys: the same requests again go through.
    retried = await asyncio.gather(
        *(
            tenant.client.post("/v1/transfers", json=body, headers={"Idempotency-Key": key})
            for key in keys
        )
    )
    assert [answer.status_code for answer in retried] == [201] * racers
    assert len(await _listed_ids(tenant.client)) == racers
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)
