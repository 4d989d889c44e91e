"""The sandbox clock (API.md 9): an organization advances its own time; its requests, its
agents' spend windows and its transfers' due work follow it, and no other organization's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from corridor.rails.base import RailName, RailStatus
from tests.agents.conftest import make_owner, pay, submit_new
from tests.conftest import assert_error, client_for
from tests.transfers.conftest import ScriptedAdapter, amount, create, fetch, make_customer, settle

WEDNESDAY_NOON = datetime(2026, 11, 18, 12, 0, tzinfo=UTC)


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def read(client) -> dict:
    response = await client.get("/v1/sandbox/clock")
    assert response.status_code == 200, response.text
    return response.json()


async def advance(client, **body) -> dict:
    response = await client.post("/v1/sandbox/clock/advance", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_a_new_clock_is_real_time_and_advances_forward(tenant, clock):
    clock.set(WEDNESDAY_NOON)
    assert await read(tenant.client) == {
        "now": "2026-11-18T12:00:00.000Z",
        "frozen": False,
        "offsetSeconds": 0,
    }
    moved = await advance(tenant.client, seconds=3600)
    assert moved == {"now": "2026-11-18T13:00:00.000Z", "frozen": False, "offsetSeconds": 3600}
    # It runs on from there with real time.
    clock.set(WEDNESDAY_NOON + timedelta(seconds=10))
    assert (await read(tenant.client))["now"] == "2026-11-18T13:00:10.000Z"
    moved = await advance(tenant.client, to="2026-12-01T09:00:00Z")
    assert moved["now"] == "2026-12-01T09:00:00.000Z"


async def test_a_frozen_clock_stands_still_until_advanced(tenant, clock):
    clock.set(WEDNESDAY_NOON)
    frozen = await advance(tenant.client, seconds=60, freeze=True)
    assert frozen == {"now": "2026-11-18T12:01:00.000Z", "frozen": True, "offsetSeconds": 60}
    clock.set(WEDNESDAY_NOON + timedelta(hours=2))
    assert (await read(tenant.client))["now"] == "2026-11-18T12:01:00.000Z"
    moved = await advance(tenant.client, seconds=60)
    assert moved["now"] == "2026-11-18T12:02:00.000Z" and moved["frozen"] is True
    running = await advance(tenant.client, seconds=1, freeze=False)
    assert running["frozen"] is False


async def test_the_clock_never_goes_backwards_and_bad_bodies_change_nothing(tenant, clock):
    clock.set(WEDNESDAY_NOON)
    await advance(tenant.client, seconds=86_400)
    cases = [
        {"to": "2026-11-18T13:00:00Z"},  # earlier than the clock's now
        {},
        {"seconds": 10, "to": "2026-12-01T00:00:00Z"},
        {"seconds": 0},
        {"seconds": -5},
        {"seconds": 10**12},
        {"to": "2026-12-01T00:00:00"},  # no zone
        {"seconds": 10, "status": "ready"},
    ]
    for body in cases:
        response = await tenant.client.post("/v1/sandbox/clock/advance", json=body)
        assert_error(response, 422, "validation_error")
    assert (await read(tenant.client))["now"] == "2026-11-19T12:00:00.000Z"


async def test_reset_goes_back_to_real_time(tenant, clock):
    clock.set(WEDNESDAY_NOON)
    await advance(tenant.client, seconds=7200, freeze=True)
    response = await tenant.client.post("/v1/sandbox/clock/reset")
    assert response.status_code == 200, response.text
    assert response.json() == {
        "now": "2026-11-18T12:00:00.000Z",
        "frozen": False,
        "offsetSeconds": 0,
    }


async def test_each_organization_has_its_own_clock(make_tenant, clock):
    clock.set(WEDNESDAY_NOON)
    first, second = await make_tenant(), await make_tenant()
    await advance(first.client, seconds=3600)
    assert (await read(second.client))["now"] == "2026-11-18T12:00:00.000Z"
    # What the organization makes is stamped with its own time.
    customer = await first.client.post(
        "/v1/customers/individual",
        json={"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"},
    )
    assert customer.status_code == 201, customer.text
    assert customer.json()["createdAt"] == "2026-11-18T13:00:00.000Z"


async def test_moving_the_clock_needs_sandbox_write(tenant, app):
    created = await tenant.client.post(
        "/v1/api-keys", json={"name": "reader", "scopes": ["transfers:read"]}
    )
    assert created.status_code == 201, created.text
    async with client_for(app, {"Authorization": f"Bearer {created.json()['secret']}"}) as reader:
        assert (await reader.get("/v1/sandbox/clock")).status_code == 200
        for path, body in (("advance", {"seconds": 5}), ("reset", None)):
            assert_error(
                await reader.post(f"/v1/sandbox/clock/{path}", json=body), 403, "forbidden"
            )


async def test_production_has_no_sandbox_clock(production_app, make_tenant):
    tenant = await make_tenant(production_app)
    assert_error(await tenant.client.get("/v1/sandbox/clock"), 404, "not_found")
    response = await tenant.client.post("/v1/sandbox/clock/advance", json={"seconds": 5})
    assert_error(response, 404, "not_found")
    assert_error(await tenant.client.post("/v1/sandbox/clock/reset"), 404, "not_found")


async def test_an_agents_daily_spend_resets_when_the_clock_reaches_tomorrow(app, tenant, clock):
    clock.set(WEDNESDAY_NOON)
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent(limits={"daily": "100000"})
    async with await owner.agent_client(agent["id"]) as bot:
        await pay(bot, owner.payment(90_000))
        refused = await submit_new(bot, owner.payment(20_000))
        body = assert_error(refused, 403, "agent_limit_exceeded")
        assert body["denial"]["code"] == "daily_limit_exceeded"
        spend = (await owner.client.get(f"/v1/agents/{agent['id']}/spend")).json()
        day = next(window for window in spend["windows"] if window["window"] == "day")
        assert day["used"] == "90000" and day["resetsAt"] == "2026-11-19T00:00:00.000Z"

        await advance(tenant.client, to=day["resetsAt"])
        spend = (await owner.client.get(f"/v1/agents/{agent['id']}/spend")).json()
        day = next(window for window in spend["windows"] if window["window"] == "day")
        assert day["used"] == "0" and day["resetsAt"] == "2026-11-20T00:00:00.000Z"
        paid = await pay(bot, owner.payment(20_000))
        assert paid["status"] in ("PENDING", "PROCESSING")
        assert paid["createdAt"] == "2026-11-19T00:00:00.000Z"


async def test_due_work_waits_for_the_organizations_own_clock(
    app, make_tenant, clock, install_rail
):
    """A payout the rail has not settled is polled again 30 s later: an organization that
    advances its clock has it polled (and settled) at once; another waits."""
    clock.set(WEDNESDAY_NOON)
    install_rail(ScriptedAdapter(RailName.ACH, [RailStatus.PENDING, RailStatus.PENDING]))
    advanced, waiting = await make_tenant(), await make_tenant()
    transfers = {}
    for tenant in (advanced, waiting):
        customer = await make_customer(tenant.client, ("USD",))
        await customer.fund("USD", 50_000)
        payee = await customer.bank_account()
        transfers[tenant.organization_id] = await create(
            tenant.client,
            {
                "customerId": customer.id,
                "source": {"accountId": customer.accounts["USD"]},
                "destination": {
                    "externalAccountId": payee,
                    "paymentRail": "ACH",
                    "currency": "USD",
                },
                "amount": amount("USD", 10_000),
                "confirm": True,
            },
        )
        await settle(app, tenant.organization_id)  # submitted, polled once: PENDING
    for tenant in (advanced, waiting):
        found = await fetch(tenant.client, transfers[tenant.organization_id]["id"])
        assert found["status"] == "PROCESSING"

    await advance(advanced.client, seconds=31)
    assert await settle(app, waiting.organization_id) == 0
    assert await settle(app, advanced.organization_id) >= 1
    done = await fetch(advanced.client, transfers[advanced.organization_id]["id"])
    assert done["status"] == "COMPLETED"
    # Its ledger and its events carry the organization's time.
    assert moment(done["updatedAt"]) >= WEDNESDAY_NOON + timedelta(seconds=31)
    still = await fetch(waiting.client, transfers[waiting.organization_id]["id"])
    assert still["status"] == "PROCESSING"
