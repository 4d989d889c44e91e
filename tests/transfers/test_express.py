"""The express create+submit (transfers/express, PostgreSQL) answers exactly as the general
path does, writes exactly what it writes, and hands every other request on untouched.

Two apps on one database, one with the express path and one without (`express_submit`),
both on the same fixed clock: a request sent to each must get the same answer and leave
the same rows (transfer, legs, events, hold, stored Idempotency-Key answer), ids apart.
Hypothesis draws the bodies, inside the express case and around its edges (a rail that
does not carry the currency, a fee that eats the amount, a draft), so each rule is met
on both paths.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from corridor.config import Environment
from corridor.organizations import service as organizations
from tests.auth.credentials import bearer, key_secret
from tests.conftest import Tenant, assert_error, built_app, client_for
from tests.parties.helpers import create_account, create_counterparty
from tests.transfers.conftest import Customer, amount, assert_books_balance, make_customer

AT = datetime(2026, 11, 25, 15, 30, 12, 345678, tzinfo=UTC)
FUNDING_MINOR = 10**12
_ID = re.compile(r"\b(tfr|tleg|msg|idk|req)_[0-9a-z]{26}\b")


@pytest.fixture
def postgresql_only(backend):
    if backend != "postgresql":
        pytest.skip(
            "the express path runs on PostgreSQL only (SQLite takes every request the general way)"
        )


@pytest.fixture
async def general_app(database_url, postgresql_only) -> AsyncIterator[Any]:
    """An app on the same database with the express path off."""
    async with built_app(database_url, Environment.SANDBOX, express_submit=False) as application:
        yield application


@pytest.fixture
async def fixed_clocks(app, general_app) -> AsyncIterator[None]:
    for application in (app, general_app):
        application.state.clock.set(AT)
    yield
    for application in (app, general_app):
        application.state.clock.reset()


@pytest.fixture
async def paths(
    app, general_app, tenant, fixed_clocks
) -> AsyncIterator[dict[str, httpx.AsyncClient]]:
    async with client_for(general_app, tenant.headers()) as general:
        yield {"express": tenant.client, "general": general}


@pytest.fixture
async def payer(tenant) -> tuple[Customer, str]:
    """A funded customer and its own US bank account."""
    customer = await make_customer(tenant.client, ("USD", "EUR"))
    await customer.fund("USD", FUNDING_MINOR)
    return customer, await customer.bank_account()


def body_of(customer: Customer, bank_account: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"externalAccountId": bank_account, "paymentRail": "ACH", "currency": "USD"},
        "amount": amount("USD", 12_550),
        "confirm": True,
    }
    body.update(changes)
    return body


def normalized(value: Any) -> Any:
    """Ids replaced by their prefix and order of appearance, so two runs compare."""
    seen: dict[str, str] = {}

    def name(match: re.Match[str]) -> str:
        return seen.setdefault(match.group(0), f"{match.group(1)}#{len(seen)}")

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return _ID.sub(name, item)
        if isinstance(item, dict):
            return {key: walk(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [walk(inner) for inner in item]
        return item

    return walk(value)


async def rows_of(app, transfer_id: str) -> dict[str, Any]:
    """Everything a create+submit wrote for the transfer, as the database holds it."""
    async with app.state.database.session(write=False) as session:

        async def all_of(statement: str) -> list[dict[str, Any]]:
            found = await session.execute(text(statement), {"id": transfer_id})
            return [dict(row._mapping) for row in found]

        transfer = await all_of("SELECT * FROM transfers WHERE id = :id")
        legs = await all_of("SELECT * FROM transfer_legs WHERE transfer_id = :id ORDER BY sequence")
        events = await all_of(
            "SELECT type, data, tags, created_at, dispatched_at, organization_id FROM events "
            "WHERE tags @> to_jsonb(CAST(:id AS text)) ORDER BY id"
        )
    return {"transfer": transfer, "legs": legs, "events": events}


async def kept_answer(app, organization_id: str, key: str) -> dict[str, Any] | None:
    async with app.state.database.session(write=False) as session:
        found = await session.execute(
            text(
                "SELECT state, response_status, response_body, request_fingerprint, "
                "expires_at - created_at AS lifetime FROM idempotency_records "
                "WHERE organization_id = :organization AND key = :key"
            ),
            {"organization": organization_id, "key": key},
        )
        row = found.one_or_none()
        return None if row is None else dict(row._mapping)


async def send(client: httpx.AsyncClient, body: dict[str, Any], key: str | None) -> httpx.Response:
    headers = {"Idempotency-Key": key} if key else {}
    return await client.post("/v1/transfers", json=body, headers=headers)


async def both_ways(
    app, general_app, tenant, paths, body: dict[str, Any], *, with_key: bool
) -> tuple[httpx.Response, httpx.Response]:
    """Send `body` to both paths and check they answered and wrote alike."""
    tally = app.state.express_tally
    answered = tally.answered
    keys = {path: f"key-{uuid.uuid4()}" if with_key else None for path in paths}
    express = await send(paths["express"], body, keys["express"])
    general = await send(paths["general"], body, keys["general"])
    assert general_app.state.express_tally.answered == 0
    assert express.status_code == general.status_code, (express.text, general.text)
    assert normalized(express.json()) == normalized(general.json())
    if express.status_code == 201:
        if body["confirm"]:
            assert tally.answered == answered + 1, f"handed on: {body}"
        express_rows = await rows_of(app, express.json()["id"])
        general_rows = await rows_of(app, general.json()["id"])
        assert normalized(express_rows) == normalized(general_rows)
    if with_key:
        express_kept = await kept_answer(app, tenant.organization_id, keys["express"])
        general_kept = await kept_answer(app, tenant.organization_id, keys["general"])
        assert normalized(express_kept) == normalized(general_kept)
    return express, general


texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp")),
    min_size=1,
    max_size=40,
)


@st.composite
def changes(draw) -> dict[str, Any]:
    """What a create+submit body says besides its ends, in and around the express case:
    rails that do not carry USD, a destination currency not the account's, fees that eat
    the amount, amounts over the authorization threshold, a draft."""
    change: dict[str, Any] = {
        "amount": amount(
            "USD",
            draw(
                st.one_of(
                    st.integers(min_value=1, max_value=20_000_000),
                    st.integers(min_value=15_000_001, max_value=20_000_000),
                )
            ),
        ),
        "destination": {
            "paymentRail": draw(
                st.sampled_from(["ACH", "ACH_SAME_DAY", "WIRE", "RTP", "SWIFT", "SEPA"])
            )
        },
    }
    currency = draw(st.sampled_from([None, "USD", "USD", "EUR"]))
    if currency is not None:
        change["destination"]["currency"] = currency
    if draw(st.booleans()):
        change["source"] = {"currency": "USD"}
    for name in ("clientReferenceId", "remarks", "internalRemarks"):
        if draw(st.booleans()):
            change[name] = draw(texts)
    if draw(st.booleans()):
        change["paymentReason"] = draw(
            st.sampled_from(["PAYMENT_FOR_GOODS_AND_SERVICES", "SALARY_PAYMENT", "RENT"])
        )
    for name in ("achReference", "wireMessage"):
        if draw(st.booleans()):
            change["destination"][name] = draw(texts)
    fee = draw(st.sampled_from(["none", "object", "null", "legacy", "eats the amount"]))
    if fee == "object":
        change["developerFee"] = {
            "fixed": str(draw(st.integers(0, 500))),
            "percent": draw(st.sampled_from([0, 0.001, 0.0125, 0.5])),
        }
    elif fee == "null":
        change["developerFee"] = None
    elif fee == "legacy":
        change["developerFeeFixed"] = str(draw(st.integers(0, 500)))
    elif fee == "eats the amount":
        change["developerFee"] = {"fixed": "999999999", "percent": 0}
    if draw(st.integers(0, 9)) == 0:
        change["confirm"] = False
    change["withKey"] = draw(st.booleans())
    return change


def drawn_changes(count: int) -> list[dict[str, Any]]:
    """`count` examples of `changes`, the same every run (the checks below are async)."""
    drawn: list[dict[str, Any]] = []

    @settings(
        max_examples=count, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(changes())
    def collect(change: dict[str, Any]) -> None:
        drawn.append(change)

    collect()
    return drawn


def applied(customer: Customer, bank_account: str, change: dict[str, Any]) -> dict[str, Any]:
    body = body_of(customer, bank_account)
    for name, value in change.items():
        if name == "withKey":
            continue
        if name in ("source", "destination"):
            body[name] = {**body[name], **value}
        else:
            body[name] = value
    return body


CONFIGURATIONS = {
    # Over the threshold a submit waits for a console user's authorization (both ways).
    "an authorization threshold": {
        "transferAuthorizationThreshold": amount("USD", 15_000_000),
        "defaultDeveloperFee": None,
    },
    # A body that names no fee pays the organization's default.
    "a default developer fee": {
        "transferAuthorizationThreshold": None,
        "defaultDeveloperFee": {"fixed": "25", "percent": 0.002},
    },
}


@pytest.mark.parametrize("configuration", CONFIGURATIONS.values(), ids=CONFIGURATIONS.keys())
async def test_express_answers_and_writes_what_the_general_path_does(
    app, general_app, tenant, paths, payer, configuration
):
    customer, bank_account = payer
    configured = await tenant.client.patch(
        "/v1/organizations/current/configuration", json=configuration
    )
    assert configured.status_code == 200, configured.text
    answered_before = app.state.express_tally.answered
    outcomes: set[str] = set()
    for change in drawn_changes(60):
        body = applied(customer, bank_account, change)
        express, _ = await both_ways(
            app, general_app, tenant, paths, body, with_key=change["withKey"]
        )
        outcomes.add(str(express.status_code))
        if express.status_code == 201:
            outcomes.add(express.json()["status"])
    # The draws reached refusals and submits of each kind, not only the happy case.
    assert {"201", "422", "PENDING"} <= outcomes
    if configuration["transferAuthorizationThreshold"]:
        assert "PENDING_AUTHORIZATION" in outcomes
    assert app.state.express_tally.answered - answered_before >= 10
    await assert_books_balance(app, tenant.organization_id)


async def send_both(
    app, general_app, headers: dict[str, str], body: Any, *, content: bytes | None = None
) -> tuple[httpx.Response, httpx.Response]:
    """The same request to both apps (not counting the tenant's default key)."""
    answers = []
    for application in (app, general_app):
        async with client_for(application) as client:
            if content is not None:
                answers.append(await client.post("/v1/transfers", content=content, headers=headers))
            else:
                answers.append(await client.post("/v1/transfers", json=body, headers=headers))
    return answers[0], answers[1]


async def test_requests_outside_the_express_case_go_the_general_way_and_answer_alike(
    app, general_app, tenant, make_tenant, payer, fixed_clocks
):
    customer, bank_account = payer
    other = await make_customer(tenant.client, ("USD",))
    counterparty = await create_counterparty(tenant.client, customer.id)
    payee = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    revoked_key = await tenant.client.post("/v1/api-keys", json={"name": "old", "scopes": ["*"]})
    revoked = revoked_key.json()
    assert (await tenant.client.delete(f"/v1/api-keys/{revoked['id']}")).status_code == 204
    platform = await make_tenant(kind="PLATFORM")
    reader = await key_secret(tenant, ["customers:read"])
    body = body_of(customer, bank_account)
    key = tenant.headers()
    cases: dict[str, tuple[dict[str, str], Any, int]] = {
        "a key without transfers:write": (bearer(reader), body, 403),
        "a revoked key": (bearer(revoked["secret"]), body, 401),
        "a platform's key (its sessions act for one customer)": (platform.headers(), body, 403),
        "on behalf of a customer": ({**key, "X-Corridor-On-Behalf-Of": customer.id}, body, 201),
        "the sandbox's X-API-Key": ({"X-API-Key": tenant.secret}, body, 201),
        "to a balance account": (
            key,
            {**body, "destination": {"accountId": other.accounts["USD"]}},
            201,
        ),
        "to a counterparty's bank account": (
            key,
            {**body, "destination": {**body["destination"], "externalAccountId": payee["id"]}},
            201,
        ),
        "to another customer's bank account": (
            key,
            {
                **body,
                "destination": {
                    **body["destination"],
                    "externalAccountId": await other.bank_account(),
                },
            },
            422,
        ),
        "to an unknown bank account": (
            key,
            {
                **body,
                "destination": {
                    **body["destination"],
                    "externalAccountId": "ext_01jd3x0p6x9e3k2v1m8q4r7s5t",
                },
            },
            404,
        ),
        "from an unknown customer": (
            key,
            {**body, "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"},
            404,
        ),
        "more than the balance": (key, {**body, "amount": amount("USD", FUNDING_MINOR * 2)}, 409),
        "a field the API does not know": (key, {**body, "status": "COMPLETED"}, 422),
    }
    tally = app.state.express_tally
    for case, (headers, case_body, status) in cases.items():
        answered, handed_on = tally.answered, tally.handed_on
        express, general = await send_both(app, general_app, headers, case_body)
        assert express.status_code == general.status_code == status, (case, express.text)
        assert normalized(express.json()) == normalized(general.json()), case
        assert (tally.answered, tally.handed_on) == (answered, handed_on + 1), case
    # Not JSON at all, JSON of another content type, and JSON that Python's json reads but
    # the express path's orjson does not (a byte-order mark, NaN, a lone surrogate) or reads
    # as a float (an integer past 64 bits): the general way's own answers.
    encoded = json.dumps(body).encode()
    unusual = [
        b"\xef\xbb\xbf" + encoded,
        json.dumps({**body, "developerFee": {"fixed": "0", "percent": float("nan")}}).encode(),
        json.dumps({**body, "clientReferenceId": "\ud800"}).encode(),
        encoded[:-1] + b', "developerFeePercent": 123456789012345678901234567890}',
    ]
    answered = tally.answered
    for content, content_type in (
        (b"{not json", "application/json"),
        (b"{}", "text/plain"),
        *((content, "application/json") for content in unusual),
    ):
        headers = {**key, "Content-Type": content_type}
        express, general = await send_both(app, general_app, headers, None, content=content)
        assert express.status_code == general.status_code
        assert normalized(express.json()) == normalized(general.json())
    assert tally.answered == answered
    await assert_books_balance(app, tenant.organization_id)


async def test_a_refused_hold_writes_nothing_and_answers_insufficient_funds(
    app, tenant, postgresql_only
):
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 10_000)
    bank_account = await customer.bank_account()
    tally = app.state.express_tally
    accepted = await tenant.client.post(
        "/v1/transfers", json=body_of(customer, bank_account, amount=amount("USD", 6_000))
    )
    assert accepted.status_code == 201, accepted.text
    handed_on = tally.handed_on
    refused = await tenant.client.post(
        "/v1/transfers", json=body_of(customer, bank_account, amount=amount("USD", 6_000))
    )
    assert_error(refused, 409, "insufficient_funds")
    assert tally.handed_on == handed_on + 1
    listed = await tenant.client.get("/v1/transfers", params={"customerId": customer.id})
    assert [item["id"] for item in listed.json()["data"]] == [accepted.json()["id"]]
    assert (await customer.balance("USD"))["available"] == 4_000
    await assert_books_balance(app, tenant.organization_id)


async def test_an_idempotency_key_replays_the_express_answer_and_refuses_another_body(
    app, tenant, payer, postgresql_only
):
    customer, bank_account = payer
    body = body_of(customer, bank_account)
    headers = {"Idempotency-Key": f"order-{uuid.uuid4()}"}
    tally = app.state.express_tally
    answered = tally.answered
    first = await tenant.client.post("/v1/transfers", json=body, headers=headers)
    assert first.status_code == 201, first.text
    assert tally.answered == answered + 1
    again = await tenant.client.post("/v1/transfers", json=body, headers=headers)
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    other = await tenant.client.post(
        "/v1/transfers", json={**body, "amount": amount("USD", 1)}, headers=headers
    )
    assert_error(other, 409, "idempotency_key_reused")
    assert tally.answered == answered + 1  # the replays came from the stored answer


async def test_concurrent_requests_with_one_idempotency_key_make_one_transfer(
    app, tenant, postgresql_only
):
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 100_000)
    body = body_of(customer, await customer.bank_account(), amount=amount("USD", 10_000))
    headers = {"Idempotency-Key": f"order-{uuid.uuid4()}"}
    answers = await asyncio.gather(
        *(tenant.client.post("/v1/transfers", json=body, headers=headers) for _ in range(8))
    )
    made = {answer.json()["id"] for answer in answers if answer.status_code == 201}
    for answer in answers:
        if answer.status_code != 201:  # still running when the duplicate asked
            assert_error(answer, 409, "idempotency_key_in_progress")
    assert len(made) == 1
    listed = await tenant.client.get("/v1/transfers", params={"customerId": customer.id})
    assert [item["id"] for item in listed.json()["data"]] == list(made)
    assert (await customer.balance("USD"))["available"] == 90_000
    await assert_books_balance(app, tenant.organization_id)


async def test_concurrent_express_submits_on_one_account_accept_exactly_what_it_covers(
    app, tenant, postgresql_only
):
    racers, covered, payment_minor = 24, 9, 1_000
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", covered * payment_minor)
    body = body_of(customer, await customer.bank_account(), amount=amount("USD", payment_minor))
    tally = app.state.express_tally
    answered = tally.answered
    answers = await asyncio.gather(
        *(tenant.client.post("/v1/transfers", json=body) for _ in range(racers))
    )
    accepted = [answer for answer in answers if answer.status_code == 201]
    for answer in answers:
        if answer.status_code != 201:
            assert_error(answer, 409, "insufficient_funds")
    assert len(accepted) == covered
    assert tally.answered == answered + covered
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)


async def test_a_request_the_express_path_hands_on_is_counted_once_by_the_rate_limit(
    database_url, postgresql_only
):
    async with built_app(
        database_url,
        Environment.SANDBOX,
        rate_limits_enabled=True,
        rate_limit_requests_per_key=50,
    ) as application:
        async with application.router.lifespan_context(application):
            setup = await _tenant_of(application)
            customer = await make_customer(setup.client, ("USD",))
            bank_account = await customer.bank_account()
            # A key of its own, whose window holds only the request below.
            fresh = await key_secret(setup, ["transfers:write"])
            async with client_for(application, bearer(fresh)) as client:
                refused = await client.post("/v1/transfers", json=body_of(customer, bank_account))
            await setup.client.aclose()
    assert_error(refused, 409, "insufficient_funds")  # the express path counted, then handed on
    assert application.state.express_tally.handed_on == 1
    assert refused.headers["RateLimit-Remaining"] == "49"


async def _tenant_of(application) -> Tenant:
    async with application.state.database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="Rate limits", key_environment="sandbox", now=AT
        )
    return Tenant(
        organization_id=made.organization.id,
        secret=made.secret,
        console_email=made.user.email,
        console_password=made.console_password,
        client=client_for(application, {"Authorization": f"Bearer {made.secret}"}),
    )


async def test_sqlite_takes_every_create_submit_the_general_way(app, backend, tenant, payer):
    if backend != "sqlite":
        pytest.skip("on PostgreSQL the tests above hold the express path to the general one")
    customer, bank_account = payer
    created = await tenant.client.post("/v1/transfers", json=body_of(customer, bank_account))
    assert created.status_code == 201, created.text
    assert created.json()["status"] == "PENDING"
    assert app.state.express_tally.answered == app.state.express_tally.handed_on == 0


async def test_a_row_changed_since_the_express_path_read_it_is_never_trusted(
    app, tenant, postgresql_only
):
    """The express path keeps what it read for the next create+submit naming the same rows;
    its write checks each row is still the version it read, so every change below is met
    by the very next request: the new name shown, the new threshold applied, a suspended
    customer, a closed account and a revoked key refused."""
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 1_000_000)
    bank_account = await customer.bank_account()
    key = await tenant.client.post("/v1/api-keys", json={"name": "payouts", "scopes": ["*"]})
    body = body_of(customer, bank_account, amount=amount("USD", 1_000))
    tally = app.state.express_tally
    async with client_for(app, bearer(key.json()["secret"])) as client:

        async def create() -> httpx.Response:
            return await client.post("/v1/transfers", json=body)

        reads = tally.reads
        for _ in range(3):
            assert (await create()).status_code == 201
        assert tally.reads == reads + 1  # the first read the rows; the others sent no read
        answered = tally.answered

        renamed = await tenant.client.patch(
            f"/v1/customers/{customer.id}", json={"firstName": "Grace", "lastName": "Hopper"}
        )
        assert renamed.status_code == 200, renamed.text
        made = await create()
        assert made.json()["source"]["accountName"] == "Grace Hopper"
        relabelled = await tenant.client.patch(
            f"/v1/external-accounts/{bank_account}", json={"accountHolderName": "G. Hopper"}
        )
        assert relabelled.status_code == 200, relabelled.text
        assert (await create()).json()["destination"]["accountName"] == "G. Hopper"
        threshold = await tenant.client.patch(
            "/v1/organizations/current/configuration",
            json={"transferAuthorizationThreshold": amount("USD", 500)},
        )
        assert threshold.status_code == 200, threshold.text
        assert (await create()).json()["status"] == "PENDING_AUTHORIZATION"
        assert (await create()).json()["status"] == "PENDING_AUTHORIZATION"  # read again, kept
        assert tally.answered >= answered + 2  # the express way, once each row was read again

        closed = await tenant.client.post(f"/v1/external-accounts/{bank_account}/close")
        assert closed.status_code == 200, closed.text
        assert_error(await create(), 422, "validation_error")
        other_account = await customer.bank_account()
        body["destination"]["externalAccountId"] = other_account
        assert (await create()).status_code == 201
        suspended = await tenant.client.post(
            f"/v1/sandbox/customers/{customer.id}/verification-status",
            json={"status": "SUSPENDED"},
        )
        assert suspended.status_code == 200, suspended.text
        assert_error(await create(), 409, "invalid_state")
        activated = await tenant.client.post(
            f"/v1/sandbox/customers/{customer.id}/verification-status", json={"status": "ACTIVE"}
        )
        assert activated.status_code == 200, activated.text
        assert (await create()).status_code == 201
        revoked = await tenant.client.delete(f"/v1/api-keys/{key.json()['id']}")
        assert revoked.status_code == 204
        assert_error(await create(), 401, "unauthorized")
    await assert_books_balance(app, tenant.organization_id)


async def test_a_payout_to_a_counterparty_is_handed_on_without_a_read_the_next_time(
    app, tenant, postgresql_only
):
    """The express read that showed the destination to be a counterparty's account is
    kept: the same payout again goes the general way at once, and is answered as before."""
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 1_000_000)
    counterparty = await create_counterparty(tenant.client, customer.id)
    payee = await create_account(tenant.client, {"counterpartyId": counterparty["id"]})
    body = body_of(customer, payee["id"], amount=amount("USD", 1_000))
    tally = app.state.express_tally
    reads, handed_on, answered = tally.reads, tally.handed_on, tally.answered
    made = []
    for _ in range(3):
        response = await tenant.client.post("/v1/transfers", json=body)
        assert response.status_code == 201, response.text
        made.append(response.json())
    assert (tally.reads, tally.handed_on, tally.answered) == (reads + 1, handed_on + 3, answered)
    assert {item["status"] for item in made} == {"PENDING"}
    assert {item["counterpartyId"] for item in made} == {counterparty["id"]}
    assert (await customer.balance("USD"))["available"] == 1_000_000 - 3 * 1_000
