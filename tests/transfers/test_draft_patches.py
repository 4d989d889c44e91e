"""PATCH of a DRAFT replaces what it names (issue 30 item 3, rules/drafts.py): naming
another kind of destination (a balance account, an external account or wallet, an
address) or source replaces the old one, and a new rail drops the old rail's references.
Checked on examples a client hits first, then with Hypothesis over sequences of PATCHes:
the draft they leave equals a fresh create of the same final intent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from corridor.models.transfer import TransferLeg
from tests.conftest import assert_error
from tests.parties.helpers import EVM_ADDRESS
from tests.transfers.conftest import Customer, amount, create, fetch

examples_max = 25
patches_per_example_max = 4


def _draft_body(customer: Customer, destination: dict[str, Any], value: int = 10_000) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": destination,
        "amount": amount("USD", value),
    }


async def _patch(client, transfer_id: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await client.patch(f"/v1/transfers/{transfer_id}", json=body)
    assert response.status_code == 200, (body, response.text)
    return response.json()


@pytest.fixture
async def parties(customer: Customer) -> Customer:
    """The customer, with a US bank account and an Ethereum wallet of its own."""
    customer.parties["bank"] = await customer.bank_account()
    customer.parties["wallet"] = await customer.wallet()
    return customer


# --- What a client hits first ----------------------------------------------------------------


async def test_naming_a_balance_account_replaces_an_external_destination(tenant, customer):
    external = await customer.bank_account()
    draft = await create(
        tenant.client,
        _draft_body(
            customer,
            {
                "externalAccountId": external,
                "paymentRail": "ACH",
                "currency": "USD",
                "achReference": "INV 42",
            },
        ),
    )
    patched = await _patch(
        tenant.client, draft["id"], {"destination": {"accountId": customer.accounts["USD"]}}
    )
    destination = patched["destination"]
    assert destination["accountId"] == customer.accounts["USD"]
    assert destination["paymentRail"] == "BOOK"
    assert "externalAccountId" not in destination and "achReference" not in destination
    assert patched["flow"] == "INTERNAL"


async def _stored_legs(app, transfer_id: str) -> list[tuple[str, int]]:
    async with app.state.database.session(write=False) as session:
        found = await session.execute(
            select(TransferLeg.id, TransferLeg.input_amount)
            .where(TransferLeg.transfer_id == transfer_id)
            .order_by(TransferLeg.sequence)
        )
        return [(leg_id, amount) for leg_id, amount in found]


async def test_a_patch_that_leaves_the_plan_as_it_was_keeps_the_legs(app, tenant, customer):
    """Remarks change nothing the plan makes: the legs stay, ids and all. An amount does:
    the legs are made again, with the new amounts, and only they are stored."""
    external = await customer.bank_account()
    destination = {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"}
    draft = await create(tenant.client, _draft_body(customer, destination))
    kept = await _patch(tenant.client, draft["id"], {"remarks": "for March"})
    assert kept["remarks"] == "for March"
    assert kept["legs"] == draft["legs"]
    assert [leg_id for leg_id, _ in await _stored_legs(app, draft["id"])] == [
        leg["id"] for leg in draft["legs"]
    ]

    changed = await _patch(tenant.client, draft["id"], {"amount": amount("USD", 25_000)})
    assert [leg["inputAmount"]["value"] for leg in changed["legs"]][:1] == ["25000"]
    assert not {leg["id"] for leg in changed["legs"]} & {leg["id"] for leg in draft["legs"]}
    assert await _stored_legs(app, draft["id"]) == [
        (leg["id"], int(leg["inputAmount"]["value"])) for leg in changed["legs"]
    ]
    assert (await fetch(tenant.client, draft["id"]))["legs"] == changed["legs"]


async def test_moving_from_a_bank_rail_to_a_chain_drops_the_bank_references(tenant, customer):
    external = await customer.bank_account()
    wallet = await customer.wallet()
    draft = await create(
        tenant.client,
        _draft_body(
            customer,
            {
                "externalAccountId": external,
                "paymentRail": "WIRE",
                "currency": "USD",
                "wireMessage": "Invoice 42",
                "payoutReference": "PO-7",
            },
        ),
    )
    patched = await _patch(
        tenant.client,
        draft["id"],
        {
            "destination": {
                "externalAccountId": wallet,
                "paymentRail": "ETHEREUM",
                "currency": "USDC",
            }
        },
    )
    destination = patched["destination"]
    assert destination["externalAccountId"] == wallet and destination["paymentRail"] == "ETHEREUM"
    assert "wireMessage" not in destination
    assert destination["payoutReference"] == "PO-7"  # no rail's own: it stays


async def test_a_rail_change_keeps_the_references_sent_with_it(tenant, customer):
    external = await customer.bank_account()
    draft = await create(
        tenant.client,
        _draft_body(
            customer,
            {
                "externalAccountId": external,
                "paymentRail": "ACH",
                "currency": "USD",
                "achReference": "INV 42",
            },
        ),
    )
    wire = await _patch(
        tenant.client, draft["id"], {"destination": {"paymentRail": "WIRE", "wireMessage": "W"}}
    )
    assert wire["destination"]["wireMessage"] == "W"
    assert "achReference" not in wire["destination"]
    # The same rail again changes nothing: its references stay.
    same = await _patch(tenant.client, draft["id"], {"destination": {"paymentRail": "WIRE"}})
    assert same["destination"]["wireMessage"] == "W"


async def test_naming_a_balance_source_replaces_a_deposit(tenant, customer):
    external = await customer.bank_account()
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM", "fromAddress": EVM_ADDRESS},
            "destination": {"externalAccountId": external, "paymentRail": "ACH", "currency": "USD"},
            "amount": amount("USDC", 10_000),
        },
    )
    assert draft["source"].get("accountId") is None
    patched = await _patch(
        tenant.client,
        draft["id"],
        {"source": {"accountId": customer.accounts["USD"]}, "amount": amount("USD", 10_000)},
    )
    assert patched["source"]["accountId"] == customer.accounts["USD"]
    assert "fromAddress" not in patched["source"]


async def test_two_kinds_named_in_one_patch_are_refused(tenant, customer):
    external = await customer.bank_account()
    draft = await create(
        tenant.client, _draft_body(customer, {"accountId": customer.accounts["USD"]})
    )
    refused = await tenant.client.patch(
        f"/v1/transfers/{draft['id']}",
        json={
            "destination": {
                "accountId": customer.accounts["USD"],
                "externalAccountId": external,
                "paymentRail": "ACH",
                "currency": "USD",
            }
        },
    )
    assert_error(refused, 422, "validation_error")
    assert (await fetch(tenant.client, draft["id"]))["updatedAt"] == draft["updatedAt"]


# --- Any sequence of PATCHes: the same draft as a create of the final intent ----------------

# The rails each reference goes with (payoutReference: any).
RAIL_REFERENCES = {
    "achReference": {"ACH", "ACH_SAME_DAY"},
    "wireMessage": {"WIRE"},
    "rtpReference": {"RTP"},
    "sepaReference": {"SEPA", "SEPA_INSTANT"},
    "blockchainMemo": {"ETHEREUM", "BASE", "POLYGON", "SOLANA", "TRON"},
}
REFERENCES = (*RAIL_REFERENCES, "payoutReference")
KINDS = ("accountId", "externalAccountId", "toAddress")


@dataclass(frozen=True)
class End:
    """A destination the customer can pay: its kind's fields and the rails it takes."""

    name: str
    fields: dict[str, str]
    rails: tuple[str | None, ...]


def _ends(customer: Customer) -> list[End]:
    parties = customer.parties
    return [
        End("balance", {"accountId": customer.accounts["USD"]}, (None,)),
        End(
            "bank",
            {"externalAccountId": parties["bank"], "currency": "USD"},
            ("ACH", "ACH_SAME_DAY", "WIRE", "RTP"),
        ),
        End(
            "wallet",
            {"externalAccountId": parties["wallet"], "currency": "USDC"},
            ("ETHEREUM",),
        ),
        End("address", {"toAddress": EVM_ADDRESS, "currency": "USDC"}, ("BASE", "POLYGON")),
    ]


def _fits(reference: str, rail: str | None) -> bool:
    return reference not in RAIL_REFERENCES or rail in RAIL_REFERENCES[reference]


@st.composite
def _references(draw, rail: str | None) -> dict[str, str | None]:
    """A few references the rail carries, set or (sometimes) cleared."""
    chosen = draw(st.sets(st.sampled_from([r for r in REFERENCES if _fits(r, rail)]), max_size=2))
    return {
        reference: draw(
            st.sampled_from([f"{reference[:3].upper()} {draw(st.integers(1, 9))}", None])
        )
        for reference in sorted(chosen)
    }


@st.composite
def _plans(draw, ends: list[End]):
    """The create's destination, then PATCH bodies: each names another end (its whole
    description), changes the rail within the end, or sets references, and may change the
    amount."""
    end = draw(st.sampled_from(ends))
    rail = draw(st.sampled_from(end.rails))
    start = {**end.fields, **({"paymentRail": rail} if rail else {})}
    start.update({k: v for k, v in draw(_references(rail)).items() if v is not None})
    patches = []
    for _ in range(draw(st.integers(1, patches_per_example_max))):
        step = draw(st.sampled_from(["end", "rail", "references"]))
        if step == "end":
            end = draw(st.sampled_from(ends))
            rail = draw(st.sampled_from(end.rails))
            destination = {**end.fields, **({"paymentRail": rail} if rail else {})}
        elif step == "rail" and len(end.rails) > 1:
            rail = draw(st.sampled_from(end.rails))
            destination = {"paymentRail": rail}
        else:
            destination = {}
        destination.update(draw(_references(rail)))
        body: dict[str, Any] = {"destination": destination}
        if draw(st.booleans()):
            body["amount"] = amount("USD", draw(st.integers(5_000, 50_000)))
        patches.append(body)
    return start, patches


def _intent_after(intent: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """The documented rules, written out: naming another kind replaces the old kind's
    fields; a field sent replaces, null removes; a new rail drops the references of other
    rails that this PATCH did not send."""
    rail_before = intent.get("paymentRail")
    named = [kind for kind in KINDS if sent.get(kind)]
    if named and not any(intent.get(kind) for kind in named):
        intent = {
            key: value
            for key, value in intent.items()
            if key not in (*KINDS, "currency", "paymentRail")
        }
    after = {**intent, **sent}
    after = {key: value for key, value in after.items() if value is not None}
    if after.get("paymentRail") != rail_before:
        after = {
            key: value
            for key, value in after.items()
            if key in sent or _fits(key, after.get("paymentRail"))
        }
    return after


# estimatedSettlementAt: the rail's time counted from when the draft was last written.
_VARYING = {"id", "createdAt", "updatedAt", "transferId", "estimatedSettlementAt"}


def _comparable(value: Any) -> Any:
    """A transfer without what two transfers never share: ids and times."""
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items() if key not in _VARYING}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


@settings(
    max_examples=examples_max,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_any_patches_leave_the_draft_a_fresh_create_would_make(tenant, parties, data):
    customer = parties
    start, patches = data.draw(_plans(_ends(customer)))
    body = _draft_body(customer, start)
    draft = await create(tenant.client, body)
    intent = dict(start)
    for patch in patches:
        await _patch(tenant.client, draft["id"], patch)
        intent = _intent_after(intent, patch["destination"])
        if "amount" in patch:
            body["amount"] = patch["amount"]
    patched = await fetch(tenant.client, draft["id"])
    fresh = await create(tenant.client, {**body, "destination": intent})
    assert _comparable(patched) == _comparable(fresh), (start, patches, intent)
