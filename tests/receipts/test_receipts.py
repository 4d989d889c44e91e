"""Signed receipts of agent payments (API.md 9): issued at each decision and final status,
listed under the transfer, verified by a second JOSE implementation (jwcrypto) against the
JWKS fetched over HTTP, still verifiable after a key rotation."""

from __future__ import annotations

import hashlib
import json

import rfc8785
from jwcrypto import jwk, jws
from sqlalchemy import select, text

from corridor.models.receipt import ReceiptSigningKey
from corridor.receipts import signing
from tests.agents.conftest import pay
from tests.conftest import assert_error


async def _jwks(anonymous) -> dict:
    response = await anonymous.get("/.well-known/jwks.json")
    assert response.status_code == 200, response.text
    assert "max-age=" in response.headers["cache-control"]
    return response.json()


def _verified(token: str, jwks: dict) -> dict:
    """The payload as jwcrypto (not joserfc, which signs) verifies it."""
    keys = jwk.JWKSet.from_json(json.dumps(jwks))
    signed = jws.JWS()
    signed.deserialize(token)
    header = signed.jose_header
    assert header["alg"] == "EdDSA"
    key = keys.get_key(header["kid"])
    assert key is not None, "the receipt's kid is published"
    signed.verify(key, alg="EdDSA")
    return json.loads(signed.payload)


async def _receipts(client, transfer_id: str) -> list[dict]:
    response = await client.get(f"/v1/transfers/{transfer_id}/receipts")
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def _settle(owner, transfer_id: str) -> dict:
    response = await owner.client.post(f"/v1/sandbox/transfers/{transfer_id}/complete")
    assert response.status_code == 200, response.text
    return response.json()


async def test_agent_payment_gets_an_authorized_receipt(owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(12_345))
    # The agent sees its own payment's receipts, as the owner does.
    receipts = await _receipts(client, payment["id"])
    assert receipts == await _receipts(owner.client, payment["id"])
    assert [receipt["kind"] for receipt in receipts] == ["AUTHORIZED"]
    assert receipts[0]["id"].startswith("rcpt_")
    claims = _verified(receipts[0]["jws"], await _jwks(anonymous))
    assert claims["kind"] == "AUTHORIZED"
    assert claims["transferId"] == payment["id"]
    assert claims["agentId"] == agent["id"]
    assert claims["organizationId"] == owner.tenant.organization_id
    assert claims["mandateId"] is None
    assert claims["status"] == payment["status"]
    assert claims["sourceAmount"] == payment["sourceAmount"]
    assert claims["destinationAmount"] == payment["destinationAmount"]
    assert claims["payee"] == {
        "type": "external_account",
        "id": owner.payee_account_id,
        "counterpartyId": owner.counterparty_id,
    }
    assert isinstance(claims["iss"], str) and claims["iss"].startswith("http")
    assert isinstance(claims["iat"], int)
    # requestHash: sha256 of the RFC 8785 JSON of what was authorised (docs/decisions.md).
    body = owner.payment(12_345)
    authorised = {
        "transferId": payment["id"],
        "source": body["source"],
        "destination": body["destination"],
        "sourceAmount": {"currency": "USD", "value": payment["sourceAmount"]["value"]},
        "destinationAmount": {
            "currency": payment["destinationAmount"]["currency"],
            "value": payment["destinationAmount"]["value"],
        },
    }
    digest = hashlib.sha256(rfc8785.dumps(authorised)).hexdigest()
    assert claims["requestHash"] == f"sha256:{digest}"


async def test_settling_gives_a_completed_receipt_with_the_rail_ids(owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    done = await _settle(owner, payment["id"])
    assert done["status"] == "COMPLETED"
    receipts = await _receipts(client, payment["id"])
    assert [receipt["kind"] for receipt in receipts] == ["AUTHORIZED", "COMPLETED"]
    claims = _verified(receipts[1]["jws"], await _jwks(anonymous))
    assert claims["status"] == "COMPLETED"
    assert done["achTraceNumber"]
    assert claims["achTraceNumber"] == done["achTraceNumber"]
    assert "uetr" not in claims  # only the rail ids the payment has


async def test_a_returned_payout_gives_a_returned_receipt(owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    done = await _settle(owner, payment["id"])
    payout = next(leg for leg in done["legs"] if leg["type"] == "PAYOUT_FIAT")
    response = await owner.client.post(
        f"/v1/sandbox/transfers/{payment['id']}/legs/{payout['id']}/status",
        json={"status": "RETURNED"},
    )
    assert response.status_code == 200, response.text
    receipts = await _receipts(owner.client, payment["id"])
    assert [receipt["kind"] for receipt in receipts] == ["AUTHORIZED", "COMPLETED", "RETURNED"]
    assert _verified(receipts[2]["jws"], await _jwks(anonymous))["status"] == "REVERSED"


async def test_a_failed_payout_gives_a_failed_receipt(owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    found = (await owner.client.get(f"/v1/transfers/{payment['id']}")).json()
    leg = found["legs"][found["currentLegIndex"] or 0]
    response = await owner.client.post(
        f"/v1/sandbox/transfers/{payment['id']}/legs/{leg['id']}/status",
        json={"status": "FAILED", "reason": "account closed"},
    )
    assert response.status_code == 200, response.text
    receipts = await _receipts(owner.client, payment["id"])
    assert [receipt["kind"] for receipt in receipts] == ["AUTHORIZED", "FAILED"]
    assert _verified(receipts[1]["jws"], await _jwks(anonymous))["status"] == "FAILED"


async def _parked(owner) -> tuple[dict, str]:
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    client = await owner.agent_client(agent["id"])
    draft = (await client.post("/v1/transfers", json=owner.payment(60_000))).json()
    assert_error(
        await client.post(f"/v1/transfers/{draft['id']}/submit"), 403, "agent_approval_required"
    )
    # Parked, nothing is authorised yet: no receipt.
    assert await _receipts(client, draft["id"]) == []
    return agent, draft["id"]


async def test_approve_and_decline_give_their_receipts(owner, anonymous):
    for decision, kind, status in (
        ("APPROVE", "APPROVED", "PENDING"),
        ("DECLINE", "DECLINED", "CANCELLED"),
    ):
        agent, transfer_id = await _parked(owner)
        response = await owner.client.post(
            f"/v1/transfers/{transfer_id}/agent-approval", json={"decision": decision}
        )
        assert response.status_code == 200, response.text
        receipts = await _receipts(owner.client, transfer_id)
        assert [receipt["kind"] for receipt in receipts] == [kind]
        claims = _verified(receipts[0]["jws"], await _jwks(anonymous))
        assert claims["kind"] == kind and claims["agentId"] == agent["id"]
        assert claims["status"] == response.json()["status"]
        assert status in {claims["status"], "PENDING"}


async def test_the_organization_submitting_its_agents_draft_signs_an_approved_receipt(
    owner, anonymous
):
    """An agent's draft the organization submits itself is the owner's authorisation of
    the agent's payment: an APPROVED receipt and an approval's audit record, once."""
    agent = await owner.create_agent()
    async with await owner.agent_client(agent["id"]) as bot:
        draft = await bot.post("/v1/transfers", json=owner.payment(10_000))
        assert draft.status_code == 201, draft.text
    transfer_id = draft.json()["id"]
    submitted = await owner.client.post(f"/v1/transfers/{transfer_id}/submit")
    assert submitted.status_code == 200, submitted.text
    receipts = await _receipts(owner.client, transfer_id)
    assert [receipt["kind"] for receipt in receipts] == ["APPROVED"]
    claims = _verified(receipts[0]["jws"], await _jwks(anonymous))
    assert claims["agentId"] == agent["id"] and claims["status"] == "PENDING"
    audit = await owner.client.get("/v1/audit-events", params={"transferId": transfer_id})
    [approved] = audit.json()["data"]
    assert approved["kind"] == "agent.approval.approved" and approved["outcome"] == "approved"
    assert approved["actor"]["type"] == "organization_key"
    assert approved["detail"] == {
        "amount": "10000",
        "currency": "USD",
        "reason": None,
        "via": "submit",
    }


async def test_one_changed_byte_fails(owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    token = (await _receipts(client, payment["id"]))[0]["jws"]
    jwks = await _jwks(anonymous)
    header, payload, signature = token.split(".")
    claims = json.loads(jws.base64url_decode(payload))
    claims["sourceAmount"]["value"] = "1"
    forged_payload = jws.base64url_encode(json.dumps(claims).encode())
    changed_signature = ("A" if signature[0] != "A" else "B") + signature[1:]
    for forged in (
        f"{header}.{forged_payload}.{signature}",
        f"{header}.{payload}.{changed_signature}",
    ):
        try:
            _verified(forged, jwks)
        except jws.InvalidJWSSignature:
            pass
        else:
            raise AssertionError("a changed receipt verified")
        try:
            signing.verify(forged, jwks)
        except ValueError as refused:
            assert "bad signature" in str(refused)
        else:
            raise AssertionError("a changed receipt verified")


async def test_rotation_keeps_old_receipts_verifiable(app, owner, anonymous):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    before = await pay(client, owner.payment(10_000))
    async with app.state.database.session() as session:
        old_kid = (await signing.signing_key(session, now=owner.app.state.clock.now())).kid
        new = await signing.rotate(session, now=owner.app.state.clock.now())
        await session.commit()
    assert new.kid != old_kid
    after = await pay(client, owner.payment(10_000))
    jwks = await _jwks(anonymous)
    kids = [key["kid"] for key in jwks["keys"]]
    assert kids[0] == new.kid and old_kid in kids
    assert all("d" not in key for key in jwks["keys"]), "public parts only"
    old_token = (await _receipts(client, before["id"]))[0]["jws"]
    new_token = (await _receipts(client, after["id"]))[0]["jws"]
    assert jws.JWS().from_jose_token(old_token).jose_header["kid"] == old_kid
    _verified(old_token, jwks)
    assert json.loads(jws.base64url_decode(new_token.split(".")[0]))["kid"] == new.kid
    _verified(new_token, jwks)


async def test_transfers_no_agent_made_have_no_receipts(owner):
    body = {**owner.payment(10_000), "customerId": owner.customer.id, "confirm": True}
    created = await owner.client.post("/v1/transfers", json=body)
    assert created.status_code == 201, created.text
    await _settle(owner, created.json()["id"])
    assert await _receipts(owner.client, created.json()["id"]) == []


async def test_receipts_of_an_unknown_or_foreign_transfer_are_404(owner, make_tenant):
    other = await make_tenant()
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    assert_error(
        await other.client.get(f"/v1/transfers/{payment['id']}/receipts"), 404, "not_found"
    )
    assert_error(await owner.client.get("/v1/transfers/tfr_nope/receipts"), 404, "not_found")


async def test_private_keys_are_not_in_clear(app, owner):
    """The row holds a Fernet token under the server key, never the private JWK."""
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    await pay(client, owner.payment(10_000))
    async with app.state.database.session(write=False) as session:
        keys = list((await session.execute(select(ReceiptSigningKey))).scalars())
        raw = await session.execute(
            text("SELECT private_jwk, public_jwk FROM receipt_signing_keys")
        )
        stored = [(str(row[0]), str(row[1])) for row in raw]
    assert keys and len(stored) == len(keys)
    for key in keys:
        private = json.loads(key.private_jwk)["d"]
        assert all(private not in value for pair in stored for value in pair)
    for private_text, public_text in stored:
        assert private_text.startswith("gAAAA"), "a Fernet token"
        assert '"d"' not in public_text
