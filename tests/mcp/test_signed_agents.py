"""/mcp accepts an agent's RFC 9421-signed requests (issue 26) and refuses its unsigned
ones once an owner bound a signing key, over real HTTP against `corridor serve`."""

from __future__ import annotations

import httpx
from cryptography.hazmat.primitives.asymmetric import ed25519

from corridor_client import public_jwk
from corridor_client._signing import RequestSigner
from tests.live_server import LiveServer
from tests.mcp.conftest import Shop

MESSAGE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/list",
    "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }
    },
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/list",
}


async def test_mcp_accepts_signed_agent_requests_and_refuses_unsigned_ones(
    live: LiveServer, shop: Shop
) -> None:
    private = ed25519.Ed25519PrivateKey.generate()
    bound = await shop.rest.post(
        f"/v1/agents/{shop.agent_id}/signing-keys", json={"publicKeyJwk": public_jwk(private)}
    )
    assert bound.status_code == 201, bound.text
    signer = RequestSigner(private)
    headers = {**HEADERS, "Authorization": f"Bearer {shop.agent_secret}"}
    async with httpx.AsyncClient(base_url=live.base_url, timeout=60) as client:
        unsigned = await client.post("/mcp", json=MESSAGE, headers=headers)
        assert unsigned.status_code == 401
        assert unsigned.json()["code"] == "signature_required"
        request = client.build_request("POST", "/mcp", json=MESSAGE, headers=headers)
        signer.sign(request)
        signed = await client.send(request)
        assert signed.status_code == 200, signed.text
        assert "create_transfer" in signed.text
        replayed = await client.send(request)
        assert replayed.status_code == 401 and replayed.json()["code"] == "nonce_reused"
    revoked = await shop.rest.get(f"/v1/agents/{shop.agent_id}/signing-keys")
    for key in revoked.json()["data"]:
        await shop.rest.delete(f"/v1/agents/{shop.agent_id}/signing-keys/{key['id']}")
