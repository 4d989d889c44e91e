"""Signed agent requests (issue 26, RFC 9421): once an owner binds a public key to an agent,
every request of its agent key must be signed. The SDK's signatures are accepted (REST and
/mcp); a flipped header, a body changed after signing, a replayed nonce, a stale
`created`, a missing signature are refused with 401 and their code. The SDK's signatures
are also checked by an independent implementation of RFC 9421 written here from the RFC
(signature base by hand, `cryptography` for the curve), not the server's library."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.hashes import SHA256

from corridor_client import key_id, public_jwk
from corridor_client._signing import RequestSigner
from tests.agents.conftest import make_owner
from tests.auth.credentials import bearer
from tests.conftest import assert_error, client_for

KEYS = {
    "ed25519": ed25519.Ed25519PrivateKey.generate,
    "p256": lambda: ec.generate_private_key(ec.SECP256R1()),
}


async def _signing_agent(app, tenant, kind: str = "ed25519"):
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent()
    secret = (await owner.agent_key(agent["id"]))["secret"]
    private = KEYS[kind]()
    bound = await owner.client.post(
        f"/v1/agents/{agent['id']}/signing-keys", json={"publicKeyJwk": public_jwk(private)}
    )
    assert bound.status_code == 201, bound.text
    assert bound.json()["keyId"] == key_id(private)
    return owner, agent, secret, private


async def _send(
    app, secret: str, request_of, signer: RequestSigner | None, **sign_options
) -> httpx.Response:
    async with client_for(app, bearer(secret)) as client:
        request = request_of(client)
        if signer is not None:
            signer.sign(request, **sign_options)
        return await client.send(request)


@pytest.mark.parametrize("kind", sorted(KEYS))
async def test_sdk_signed_requests_are_accepted_and_unsigned_ones_refused(
    app, tenant, kind
) -> None:
    owner, _agent, secret, private = await _signing_agent(app, tenant, kind)
    signer = RequestSigner(private)
    read = await _send(app, secret, lambda c: c.build_request("GET", "/v1/transfers"), signer)
    assert read.status_code == 200, read.text
    body = owner.payment(1_000)
    made = await _send(
        app, secret, lambda c: c.build_request("POST", "/v1/transfers", json=body), signer
    )
    assert made.status_code == 201, made.text
    unsigned = await _send(app, secret, lambda c: c.build_request("GET", "/v1/transfers"), None)
    assert_error(unsigned, 401, "signature_required")


async def test_tampering_replay_and_staleness_are_refused(app, tenant) -> None:
    owner, _agent, secret, private = await _signing_agent(app, tenant)
    signer = RequestSigner(private)
    body = owner.payment(1_000)

    async with client_for(app, bearer(secret)) as client:
        # A body changed after signing: its digest no longer matches.
        request = client.build_request("POST", "/v1/transfers", json=body)
        signer.sign(request)
        changed = client.build_request(
            "POST", "/v1/transfers", json=owner.payment(9_000), headers=request.headers
        )
        assert_error(await client.send(changed), 401, "signature_invalid")
        # One flipped header: the method the signature covers.
        request = client.build_request("GET", "/v1/transfers")
        signer.sign(request)
        flipped = client.build_request("GET", "/v1/transfers?limit=1", headers=request.headers)
        assert_error(await client.send(flipped), 401, "signature_invalid")
        # A flipped byte of the signature itself.
        request = client.build_request("GET", "/v1/transfers")
        signer.sign(request)
        value = request.headers["signature"]
        request.headers["signature"] = value[:10] + ("A" if value[10] != "A" else "B") + value[11:]
        assert_error(await client.send(request), 401, "signature_invalid")
        # The same signed request twice: its nonce was used.
        request = client.build_request("GET", "/v1/transfers")
        signer.sign(request)
        assert (await client.send(request)).status_code == 200
        assert_error(await client.send(request), 401, "nonce_reused")
        # Created six minutes ago: outside the five-minute window.
        request = client.build_request("GET", "/v1/transfers")
        signer.sign(request, created=datetime.now(UTC) - timedelta(minutes=6))
        assert_error(await client.send(request), 401, "signature_expired")
    listed = await owner.client.get("/v1/transfers", params={"customerId": owner.customer.id})
    assert listed.json()["data"] == []


async def test_only_an_owner_binds_keys_and_a_revoked_key_frees_the_agent(app, tenant) -> None:
    owner, agent, secret, _private = await _signing_agent(app, tenant)
    agent_client = client_for(app, bearer(secret))
    async with agent_client:
        refused = await agent_client.post(
            f"/v1/agents/{agent['id']}/signing-keys",
            json={"publicKeyJwk": public_jwk(ed25519.Ed25519PrivateKey.generate())},
        )
    assert refused.status_code == 401  # unsigned: refused before anything else
    bad = await owner.client.post(
        f"/v1/agents/{agent['id']}/signing-keys", json={"publicKeyJwk": {"kty": "RSA"}}
    )
    assert_error(bad, 422, "validation_error")
    listed = (await owner.client.get(f"/v1/agents/{agent['id']}/signing-keys")).json()["data"]
    revoked = await owner.client.delete(f"/v1/agents/{agent['id']}/signing-keys/{listed[0]['id']}")
    assert revoked.status_code == 204
    unsigned = await _send(app, secret, lambda c: c.build_request("GET", "/v1/transfers"), None)
    assert unsigned.status_code == 200


async def test_an_agent_holds_at_most_ten_live_signing_keys_and_revoked_ones_do_not_count(
    app, tenant
) -> None:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent()
    keys = f"/v1/agents/{agent['id']}/signing-keys"

    async def bind() -> httpx.Response:
        jwk = public_jwk(ed25519.Ed25519PrivateKey.generate())
        return await owner.client.post(keys, json={"publicKeyJwk": jwk})

    bound = [await bind() for _ in range(10)]
    assert [response.status_code for response in bound] == [201] * 10
    assert_error(await bind(), 409, "conflict")
    revoked = await owner.client.delete(f"{keys}/{bound[0].json()['id']}")
    assert revoked.status_code == 204
    assert (await bind()).status_code == 201
    assert_error(await bind(), 409, "conflict")


# --- An independent RFC 9421 verifier (from the RFC's sections 2 and 3) ---------------------


def _independent_verify(request: httpx.Request, public_key) -> None:
    """Rebuild the signature base of label sig1 by hand and verify it."""
    signature_input = request.headers["signature-input"]
    label, _, rest = signature_input.partition("=")
    assert label == "sig1"
    inner = re.match(r"\(([^)]*)\)(.*)", rest)
    assert inner is not None
    components = [item.strip('"') for item in inner.group(1).split()]
    lines = []
    for name in components:
        if name == "@method":
            value = request.method
        elif name == "@target-uri":
            value = str(request.url)
        else:
            value = request.headers[name].strip()
        lines.append(f'"{name}": {value}')
    lines.append(f'"@signature-params": {rest}')
    base = "\n".join(lines).encode()
    signature = base64.b64decode(request.headers["signature"].split("=:", 1)[1].rstrip(":"))
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        public_key.verify(signature, base)
    else:
        half = len(signature) // 2
        der = encode_dss_signature(
            int.from_bytes(signature[:half], "big"), int.from_bytes(signature[half:], "big")
        )
        public_key.verify(der, base, ec.ECDSA(SHA256()))
    if request.content:
        digest = base64.b64encode(hashlib.sha256(request.content).digest()).decode()
        assert request.headers["content-digest"] == f"sha-256=:{digest}:"
        assert "content-digest" in components
    params = rest
    for needed in ("created=", "nonce=", "keyid="):
        assert needed in params


@pytest.mark.parametrize("kind", sorted(KEYS))
def test_the_sdks_signatures_verify_with_an_independent_implementation(kind) -> None:
    private = KEYS[kind]()
    signer = RequestSigner(private)
    for request in (
        httpx.Request("GET", "http://127.0.0.1:8000/v1/transfers?limit=2"),
        httpx.Request("POST", "http://127.0.0.1:8000/v1/transfers", json={"amount": "1"}),
    ):
        signer.sign(request)
        _independent_verify(request, private.public_key())
        request.headers["signature-input"] = request.headers["signature-input"].replace(
            "@method", "@method"
        )
        tampered = httpx.Request(
            "PUT", request.url, headers=request.headers, content=request.content
        )
        with pytest.raises(InvalidSignature):
            _independent_verify(tampered, private.public_key())
