"""Quotes and FX: a quote locks a rate until it expires, a transfer priced with it keeps
that rate when the market moves, and an unlocked intent is confirmed at the new rate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from corridor.kit import fx
from corridor.kit.money import MINOR_UNITS_MAX
from corridor.models.event import Event
from corridor.quotes import rules
from corridor.transfers.rules.fees import DeveloperFee, FeeProblem
from corridor.transfers.rules.pricing import PricingProblem
from tests.conftest import assert_error, client_for
from tests.transfers.conftest import (
    act,
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    make_customer,
    settle,
)

START = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)
LIFETIME = timedelta(seconds=60)
MOVED_AS_OF = datetime(2026, 3, 2, 15, 0, 30, tzinfo=UTC)


@pytest.fixture
def move_rates(monkeypatch):
    """The reference publisher publishes: one euro is now worth `usd_per_euro` dollars."""

    def move(usd_per_euro: str) -> None:
        monkeypatch.setitem(fx._USD_PER_UNIT, "EUR", Decimal(usd_per_euro))
        monkeypatch.setattr(fx, "REFERENCE_RATES_AS_OF", MOVED_AS_OF)

    return move


@pytest.fixture
def at_start(clock):
    clock.set(START)
    return clock


def _fx_body(customer, value: int = 10_000, **extra) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"accountId": customer.accounts["EUR"]},
        "amount": amount("USD", value),
        **extra,
    }


async def _quote(client, body: dict, *, status: int = 201) -> dict:
    response = await client.post("/v1/quotes", json=body)
    assert response.status_code == status, response.text
    return response.json()


def _usd_to_eur(value: int = 10_000, **extra) -> dict:
    return {
        "source": {"currency": "USD"},
        "destination": {"currency": "EUR"},
        "amount": amount("USD", value),
        **extra,
    }


def _holds_the_rule(quote_or_transfer: dict) -> None:
    source = int(quote_or_transfer["sourceAmount"]["value"])
    destination = int(quote_or_transfer["destinationAmount"]["value"])
    rate = Decimal(quote_or_transfer["exchangeRate"])
    assert int(Decimal(source) * rate) == destination


# --- POST /v1/quotes, GET /v1/quotes/{id} -------------------------------------------------


async def test_quote_with_a_fixed_source_prices_now_and_expires_after_its_lifetime(
    tenant, at_start
):
    quote = await _quote(tenant.client, _usd_to_eur())
    assert quote["id"].startswith("quo_") and quote["status"] == "ACTIVE"
    assert quote["organizationId"] == tenant.organization_id and quote["customerId"] is None
    assert quote["sourceAmount"]["value"] == "10000"
    assert quote["destinationAmount"] == {
        "currency": "EUR",
        "exponent": 2,
        "value": "9212",
        "displayValue": "92.12",
    }
    _holds_the_rule(quote)
    assert quote["developerFee"] is None and quote["transferId"] is None
    assert Decimal(quote["referenceRate"]) == Decimal("0.9259259259")
    assert quote["referenceProvider"] == "CORRIDOR_SANDBOX_REFERENCE"
    assert quote["referenceRateAsOf"] == "2026-01-02T16:00:00.000Z"
    assert quote["expiresAt"] == "2026-03-02T15:01:00.000Z"

    fetched = await tenant.client.get(f"/v1/quotes/{quote['id']}")
    assert fetched.status_code == 200 and fetched.json() == quote
    at_start.set(START + LIFETIME)
    expired = (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()
    assert expired["status"] == "EXPIRED"


async def test_a_peg_quote_has_no_reference_rate(tenant):
    quote = await _quote(
        tenant.client,
        {
            "source": {"currency": "USDC", "paymentRail": "BASE"},
            "destination": {"currency": "USD", "paymentRail": "ACH"},
            "amount": amount("USDC", 1_234_567),
        },
    )
    assert quote["destinationAmount"]["value"] == "123"
    assert quote["source"] == {"currency": "USDC", "paymentRail": "BASE"}
    assert "referenceRate" not in quote and "referenceProvider" not in quote
    _holds_the_rule(quote)


async def test_quote_with_a_fixed_destination_finds_the_smallest_source(tenant):
    body = {
        "source": {"currency": "USD"},
        "destination": {"currency": "EUR"},
        "amount": amount("EUR", 9_213),
        "developerFee": {"fixed": "25", "percent": 0.001},
    }
    quote = await _quote(tenant.client, body)
    source = int(quote["sourceAmount"]["value"])
    assert int(quote["destinationAmount"]["value"]) >= 9_213
    assert quote["developerFee"]["amount"]["value"] == str(25 + source // 1000)
    assert quote["developerFee"]["fixed"] == "25" and quote["developerFee"]["percent"] == 0.001
    _holds_the_rule(quote)
    fee = DeveloperFee(fixed_minor=25, percent=Decimal("0.001"))
    smaller = rules.price_source("USD", "EUR", source_minor=source - 1, fee=fee)
    assert smaller.destination_minor < 9_213


async def test_quote_of_another_organization_is_not_found(tenant, make_tenant):
    quote = await _quote(tenant.client, _usd_to_eur())
    other = await make_tenant()
    assert_error(await other.client.get(f"/v1/quotes/{quote['id']}"), 404, "not_found")
    assert_error(await other.client.post(f"/v1/quotes/{quote['id']}/confirm"), 404, "not_found")
    assert_error(await tenant.client.get("/v1/quotes/quo_nope"), 404, "not_found")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_usd_to_eur() | {"destination": {"currency": "USD"}}, "destination.currency"),
        (_usd_to_eur() | {"amount": amount("GBP", 100)}, "amount.currency"),
        (_usd_to_eur(0), "amount.value"),
        (_usd_to_eur(1), "amount"),
        (_usd_to_eur() | {"source": {"currency": "KRW"}, "amount": amount("KRW", 5)}, "amount"),
        (_usd_to_eur(100, developerFee={"fixed": "100"}), "developerFee"),
        (_usd_to_eur(MINOR_UNITS_MAX) | {"destination": {"currency": "JPY"}}, "amount"),
        (_usd_to_eur() | {"amount": amount("EUR", MINOR_UNITS_MAX)}, "amount"),
        (_usd_to_eur() | {"customerId": "cus_nope"}, None),
        (_usd_to_eur() | {"source": {"currency": "USD", "paymentRail": "CARRIER_PIGEON"}}, None),
    ],
)
async def test_bad_quote_requests_are_422_naming_the_field(tenant, body, field):
    response = await tenant.client.post("/v1/quotes", json=body)
    if field is None:
        assert response.status_code in (404, 422), response.text
        return
    error = assert_error(response, 422, "validation_error")
    assert error["errors"][0]["field"] == field


async def test_quote_create_honours_idempotency_keys(tenant):
    headers = {"Idempotency-Key": "quote-1"}
    first = await tenant.client.post("/v1/quotes", json=_usd_to_eur(), headers=headers)
    again = await tenant.client.post("/v1/quotes", json=_usd_to_eur(), headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    other = await tenant.client.post("/v1/quotes", json=_usd_to_eur(20_000), headers=headers)
    assert_error(other, 409, "idempotency_key_reused")


async def test_quote_takes_the_organizations_default_fee(tenant):
    configured = await tenant.client.patch(
        "/v1/organizations/current/configuration",
        json={"defaultDeveloperFee": {"fixed": "50", "percent": 0}},
    )
    assert configured.status_code == 200, configured.text
    quote = await _quote(tenant.client, _usd_to_eur())
    assert quote["developerFee"]["amount"]["value"] == "50"
    assert quote["destinationAmount"]["value"] == str(int(9950 / Decimal("1.08") * 995 // 1000))
    none = await _quote(tenant.client, _usd_to_eur(developerFee=None))
    assert none["developerFee"] is None and none["destinationAmount"]["value"] == "9212"


# --- Quoting an intent and confirming the quote -------------------------------------------


async def test_quoted_intent_keeps_its_locked_rate_when_the_market_moves(
    app, tenant, at_start, move_rates
):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    response = await tenant.client.post(
        "/v1/transfers/intents/quote",
        json=_fx_body(customer),
        headers={"Idempotency-Key": "intent-1"},
    )
    assert response.status_code == 201, response.text
    quote, draft = response.json()["quote"], response.json()["transfer"]
    assert draft["status"] == "DRAFT" and draft["quoteId"] == quote["id"]
    assert quote["transferId"] == draft["id"] and quote["customerId"] == customer.id
    assert quote["destinationAmount"] == draft["destinationAmount"]
    assert quote["exchangeRate"] == draft["exchangeRate"]
    assert draft["destinationAmount"]["value"] == "9212"

    move_rates("1.20")  # the euro rises: 10,000 US cents now buy fewer cents
    unlocked = await _quote(tenant.client, _usd_to_eur())
    assert int(unlocked["destinationAmount"]["value"]) < 9212

    at_start.set(START + timedelta(seconds=59))
    confirmed = await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    body = confirmed.json()
    assert body["quote"]["status"] == "USED" and body["quote"]["usedAt"]
    transfer = body["transfer"]
    assert transfer["status"] in ("PENDING", "PROCESSING")
    assert transfer["destinationAmount"]["value"] == "9212"
    assert transfer["referenceRateAsOf"] == quote["referenceRateAsOf"]
    _holds_the_rule(transfer)

    again = await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm")
    assert_error(again, 409, "invalid_state")
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"
    assert (await customer.balance("EUR"))["available"] == 9212
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["FX:USD"] == 10_000 and systems["FX:EUR"] == -9212


async def test_quoting_an_intent_replays_with_the_same_key(tenant):
    customer = await make_customer(tenant.client)
    headers = {"Idempotency-Key": "intent-replay"}
    first = await tenant.client.post(
        "/v1/transfers/intents/quote", json=_fx_body(customer), headers=headers
    )
    again = await tenant.client.post(
        "/v1/transfers/intents/quote", json=_fx_body(customer), headers=headers
    )
    assert first.status_code == again.status_code == 201
    assert again.content == first.content


async def test_intent_quote_refuses_confirm_quote_id_and_same_currency(tenant):
    customer = await make_customer(tenant.client)
    for extra, field in (({"confirm": True}, "confirm"), ({"quoteId": "quo_x"}, "quoteId")):
        response = await tenant.client.post(
            "/v1/transfers/intents/quote", json=_fx_body(customer, **extra)
        )
        assert assert_error(response, 422, "validation_error")["errors"][0]["field"] == field
    same = _fx_body(customer) | {"destination": {"accountId": customer.accounts["USDC"]}}
    same["destination"] = {"accountId": customer.accounts["USD"]}
    same["source"] = {"currency": "USD", "paymentRail": "WIRE"}
    response = await tenant.client.post("/v1/transfers/intents/quote", json=same)
    error = assert_error(response, 422, "validation_error")
    assert error["errors"][0]["field"] == "destination.currency"


async def test_an_expired_quote_cannot_be_confirmed_or_submitted(tenant, at_start, move_rates):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    response = await tenant.client.post("/v1/transfers/intents/quote", json=_fx_body(customer))
    quote, draft = response.json()["quote"], response.json()["transfer"]
    at_start.set(START + LIFETIME)

    error = assert_error(
        await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm"), 409, "quote_expired"
    )
    assert error["quoteId"] == quote["id"] and error["currentStatus"] == "EXPIRED"
    assert error["expiresAt"] == quote["expiresAt"]
    submit = await tenant.client.post(f"/v1/transfers/{draft['id']}/submit")
    assert_error(submit, 409, "quote_expired")
    assert (await fetch(tenant.client, draft["id"]))["status"] == "DRAFT"

    # Confirming the unlocked intent prices it at the rate of execution.
    move_rates("1.20")
    confirmed = await act(tenant.client, draft["id"], "confirm")
    assert confirmed["status"] in ("PENDING", "PROCESSING")
    assert "quoteId" not in confirmed
    assert confirmed["destinationAmount"]["value"] == str(10_000 * 100 * 995 // (120 * 1000))
    assert confirmed["referenceRateAsOf"] == "2026-03-02T15:00:30.000Z"
    _holds_the_rule(confirmed)
    assert (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()["status"] == "EXPIRED"


async def test_confirming_an_unlocked_draft_submits_at_the_current_rate(app, tenant, move_rates):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    draft = await create(tenant.client, _fx_body(customer))
    assert draft["destinationAmount"]["value"] == "9212"
    move_rates("1.20")
    confirmed = await act(tenant.client, draft["id"], "confirm")
    assert confirmed["destinationAmount"]["value"] == "8291"
    assert confirmed["status"] in ("PENDING", "PROCESSING")
    assert_error(
        await tenant.client.post(f"/v1/transfers/{draft['id']}/confirm"), 409, "invalid_state"
    )
    await settle(app, tenant.organization_id)
    assert (await customer.balance("EUR"))["available"] == 8291
    await assert_books_balance(app, tenant.organization_id)


async def test_a_draft_holding_a_live_quote_is_confirmed_through_the_quote(tenant):
    customer = await make_customer(tenant.client)
    response = await tenant.client.post("/v1/transfers/intents/quote", json=_fx_body(customer))
    draft = response.json()["transfer"]
    refused = await tenant.client.post(f"/v1/transfers/{draft['id']}/confirm")
    assert "POST /v1/quotes/" in assert_error(refused, 409, "invalid_state")["message"]


async def test_a_routed_payout_converts_through_usdc_at_the_locked_rate(app, tenant, move_rates):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    external = await customer.euro_account()
    body = {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {"externalAccountId": external, "paymentRail": "SEPA", "currency": "EUR"},
        "amount": amount("USD", 10_000),
    }
    response = await tenant.client.post("/v1/transfers/intents/quote", json=body)
    assert response.status_code == 201, response.text
    quote, draft = response.json()["quote"], response.json()["transfer"]
    assert draft["flow"] == "FIAT_TO_CRYPTO_TO_FIAT"
    assert draft["destinationAmount"]["value"] == quote["destinationAmount"]["value"] == "9212"
    move_rates("0.90")
    confirmed = await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    legs = confirmed.json()["transfer"]["legs"]
    assert [leg["outputAmount"]["value"] for leg in legs[1:3]] == ["100000000", "9212"]
    await settle(app, tenant.organization_id)
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:EUR"] == 9212 and systems["FX:USDC"] == 0


async def test_a_refused_confirm_leaves_the_quote_active(app, tenant):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 5_000)
    response = await tenant.client.post("/v1/transfers/intents/quote", json=_fx_body(customer))
    quote, draft = response.json()["quote"], response.json()["transfer"]
    refused = await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm")
    assert_error(refused, 409, "insufficient_funds")
    assert (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()["status"] == "ACTIVE"
    await customer.fund("USD", 5_000)
    confirmed = await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    types = await event_types(app, tenant.organization_id, draft["id"])
    assert types[:2] == ["transfer.created", "transfer.pending"]


async def test_the_intents_events_carry_the_quote(app, tenant):
    customer = await make_customer(tenant.client)
    response = await tenant.client.post("/v1/transfers/intents/quote", json=_fx_body(customer))
    quote, draft = response.json()["quote"], response.json()["transfer"]
    async with app.state.database.session(write=False) as session:
        created = (
            await session.execute(
                select(Event).where(
                    Event.organization_id == tenant.organization_id,
                    Event.type == "transfer.created",
                )
            )
        ).scalars()
        data = [event.data for event in created if event.data["id"] == draft["id"]]
    assert data[0]["quoteId"] == quote["id"]
    assert data[0]["exchangeRate"] == quote["exchangeRate"]


# --- quoteId on transfer create and PATCH -------------------------------------------------


async def test_transfer_created_with_a_quote_converts_at_its_rate(
    app, tenant, at_start, move_rates
):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    quote = await _quote(tenant.client, _usd_to_eur() | {"customerId": customer.id})
    move_rates("1.20")
    draft = await create(tenant.client, _fx_body(customer, quoteId=quote["id"]))
    assert draft["quoteId"] == quote["id"]
    assert draft["destinationAmount"]["value"] == "9212"
    assert draft["exchangeRate"] == quote["exchangeRate"]
    assert draft["referenceRate"] == quote["referenceRate"]
    assert (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()["transferId"] == draft[
        "id"
    ]

    # A quote serves one transfer.
    taken = await tenant.client.post("/v1/transfers", json=_fx_body(customer, quoteId=quote["id"]))
    assert assert_error(taken, 422, "validation_error")["errors"][0]["field"] == "quoteId"

    submitted = await act(tenant.client, draft["id"], "submit")
    assert submitted["destinationAmount"]["value"] == "9212"
    assert (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()["status"] == "USED"
    await settle(app, tenant.organization_id)
    assert (await customer.balance("EUR"))["available"] == 9212
    await assert_books_balance(app, tenant.organization_id)


async def test_confirm_true_with_a_quote_submits_at_the_locked_rate(tenant, move_rates):
    customer = await make_customer(tenant.client)
    await customer.fund("USD", 100_000)
    quote = await _quote(tenant.client, _usd_to_eur())
    move_rates("1.00")
    transfer = await create(tenant.client, _fx_body(customer, quoteId=quote["id"], confirm=True))
    assert transfer["status"] in ("PENDING", "PROCESSING")
    assert transfer["destinationAmount"]["value"] == "9212"
    used = (await tenant.client.get(f"/v1/quotes/{quote['id']}")).json()
    assert used["status"] == "USED" and used["transferId"] == transfer["id"]


async def test_a_quote_no_transfer_holds_cannot_be_confirmed(tenant):
    quote = await _quote(tenant.client, _usd_to_eur())
    refused = assert_error(
        await tenant.client.post(f"/v1/quotes/{quote['id']}/confirm"), 409, "invalid_state"
    )
    assert f"quoteId {quote['id']}" in refused["message"]


async def test_quote_id_must_match_the_transfer_and_be_live(tenant, at_start):
    customer = await make_customer(tenant.client)
    other = await make_customer(tenant.client)
    quote = await _quote(tenant.client, _usd_to_eur())
    cases = [
        _fx_body(customer, 20_000, quoteId=quote["id"]),
        _fx_body(customer, quoteId=quote["id"], developerFee={"fixed": "10"}),
        _fx_body(customer, quoteId=quote["id"])
        | {"destination": {"accountId": customer.accounts["USDC"]}},
    ]
    for body in cases:
        response = await tenant.client.post("/v1/transfers", json=body)
        assert assert_error(response, 422, "validation_error")["errors"][0]["field"] == "quoteId"
    mine = await _quote(tenant.client, _usd_to_eur() | {"customerId": customer.id})
    response = await tenant.client.post("/v1/transfers", json=_fx_body(other, quoteId=mine["id"]))
    assert "another customer" in assert_error(response, 422, "validation_error")["message"]
    unknown = await tenant.client.post("/v1/transfers", json=_fx_body(customer, quoteId="quo_x"))
    assert_error(unknown, 404, "not_found")
    at_start.set(START + LIFETIME)
    late = await tenant.client.post("/v1/transfers", json=_fx_body(customer, quoteId=quote["id"]))
    assert "expired" in assert_error(late, 422, "validation_error")["message"]


async def test_patching_a_draft_attaches_replaces_and_drops_its_quote(tenant, move_rates):
    customer = await make_customer(tenant.client)
    draft = await create(tenant.client, _fx_body(customer))
    first = await _quote(tenant.client, _usd_to_eur())
    move_rates("1.20")
    patched = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}", json={"quoteId": first["id"]}
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["destinationAmount"]["value"] == "9212"

    # Changing the amount no longer matches the quote.
    changed = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}", json={"amount": amount("USD", 20_000)}
    )
    assert assert_error(changed, 422, "validation_error")["errors"][0]["field"] == "quoteId"

    second = await _quote(tenant.client, _usd_to_eur())
    replaced = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}", json={"quoteId": second["id"]}
    )
    assert replaced.json()["quoteId"] == second["id"]
    assert replaced.json()["destinationAmount"]["value"] == "8291"
    assert (await tenant.client.get(f"/v1/quotes/{first['id']}")).json()["transferId"] is None

    dropped = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}",
        json={"quoteId": None, "amount": amount("USD", 20_000)},
    )
    assert dropped.status_code == 200, dropped.text
    assert "quoteId" not in dropped.json()
    assert dropped.json()["destinationAmount"]["value"] == "16583"
    assert (await tenant.client.get(f"/v1/quotes/{second['id']}")).json()["transferId"] is None


async def test_a_caller_bound_to_a_customer_sees_only_its_quotes(app, tenant):
    customer = await make_customer(tenant.client)
    unbound = await _quote(tenant.client, _usd_to_eur())
    bound = {**tenant.headers(), "X-Corridor-On-Behalf-Of": customer.id}
    async with client_for(app, bound) as client:
        assert_error(await client.get(f"/v1/quotes/{unbound['id']}"), 404, "not_found")
        mine = await _quote(client, _usd_to_eur())
        assert mine["customerId"] == customer.id
        assert (await client.get(f"/v1/quotes/{mine['id']}")).status_code == 200
        other = await make_customer(tenant.client)
        refused = await client.post("/v1/quotes", json=_usd_to_eur(customerId=other.id))
        assert_error(refused, 404, "not_found")


# --- Properties of the quote arithmetic ---------------------------------------------------

PRICED = ["USD", "EUR", "GBP", "MXN", "JPY", "USDC", "EURC", "BRL"]
pairs = st.tuples(st.sampled_from(PRICED), st.sampled_from(PRICED)).filter(
    lambda pair: pair[0] != pair[1]
)
fees = st.none() | st.builds(
    DeveloperFee,
    fixed_minor=st.integers(min_value=0, max_value=10_000),
    percent=st.decimals(min_value=0, max_value=Decimal("0.1"), places=4),
)


@given(pair=pairs, source_minor=st.integers(min_value=1, max_value=10**15), fee=fees)
def test_a_quotes_amounts_obey_the_rate_and_nothing_is_created_or_lost(pair, source_minor, fee):
    source, destination = pair
    try:
        pricing = rules.price_source(source, destination, source_minor=source_minor, fee=fee)
    except (FeeProblem, PricingProblem):
        return
    rate = fx.exchange_rate(pricing.source_minor, pricing.destination_minor)
    assert int(Decimal(pricing.source_minor) * rate) == pricing.destination_minor
    fee_leg, convert = pricing.legs if len(pricing.legs) == 2 else (None, pricing.legs[0])
    kept = fee_leg.fee_minor if fee_leg else 0
    assert kept == pricing.fee_minor and convert.input_minor == source_minor - kept
    exact = convert.input_minor * fx.rate_for(source, destination).minor_units_rate
    assert 0 <= exact - convert.output_minor < 1  # what rounding left stays in the FX book
    assert convert.output_minor == pricing.destination_minor > 0


@given(pair=pairs, destination_minor=st.integers(min_value=1, max_value=10**12), fee=fees)
def test_a_fixed_destination_quote_takes_the_smallest_source_that_yields_it(
    pair, destination_minor, fee
):
    source, destination = pair
    try:
        pricing = rules.price_destination(
            source, destination, destination_minor=destination_minor, fee=fee
        )
    except (FeeProblem, PricingProblem):
        return
    assert pricing.destination_minor >= destination_minor
    if pricing.source_minor > 1:
        try:
            smaller = rules.price_source(
                source, destination, source_minor=pricing.source_minor - 1, fee=fee
            )
        except (FeeProblem, PricingProblem):
            return
        assert smaller.destination_minor < destination_minor


@given(pair=pairs, source_minor=st.integers(min_value=1, max_value=10**15))
def test_a_lock_prices_exactly_as_the_rate_it_fixed(pair, source_minor):
    source, destination = pair
    rate = fx.rate_for(source, destination)
    lock = fx.lock_of(rate, as_of=fx.REFERENCE_RATES_AS_OF)
    assert fx.locked(rate, lock).minor_units_rate == rate.minor_units_rate
    moved = fx.Rate(source, destination, rate.reference * 2, rate.spread, rate.benchmarked)
    assert fx.locked(moved, lock).minor_units_rate == (
        rate.minor_units_rate if rate.benchmarked else moved.minor_units_rate
    )
    assert isinstance(rate.minor_units_rate, Fraction)
