"""Write tools that wait for a person (issue 26), with the official `mcp` client against
`corridor serve`: an organization key's write answers `input_required` (2026-07-28) with a
form showing the effect; the confirmed retry runs exactly once; changed arguments, a replayed
or expired state and a client that can ask nobody execute nothing; the console approval path
completes the call; an agent key within limits runs at once and `over_limit` asks only past
a limit. The `requestState` is also driven by hand in raw JSON-RPC (replay, tampering)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import httpx2
import mcp_types as types
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from corridor_client import AsyncCorridor, ConflictError
from mcp import Client
from tests.live_server import LiveServer, live_corridor
from tests.mcp.conftest import Shop

PROTOCOL = "2026-07-28"


async def _key(rest: httpx.AsyncClient, **body: Any) -> tuple[str, str]:
    """A new unrestricted organization key (its policy: always, unless `body` says)."""
    made = await rest.post("/v1/api-keys", json={"name": "desktop", "scopes": ["*"], **body})
    assert made.status_code == 201, made.text
    return made.json()["id"], made.json()["secret"]


class Person:
    """The person at the client: answers each form, and keeps what it was shown."""

    def __init__(self, *, accept: bool = True) -> None:
        self.accept = accept
        self.asked: list[types.ElicitRequestParams] = []

    async def __call__(self, _context: Any, params: types.ElicitRequestParams) -> Any:
        self.asked.append(params)
        if not self.accept:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"confirm": True})


@contextlib.asynccontextmanager
async def client(
    live: LiveServer, secret: str, person: Person | None = None, **options: Any
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {secret}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(
            streamable_http_client(f"{live.base_url}/mcp", http_client=http),
            elicitation_callback=person,
            **options,
        ) as connected,
    ):
        yield connected


async def _transfers(shop: Shop) -> list[dict]:
    listed = await shop.rest.get("/v1/transfers", params={"customerId": shop.customer_id})
    return listed.json()["data"]


async def _confirmations(rest: httpx.AsyncClient, **params: str) -> list[dict]:
    listed = await rest.get("/v1/tool-confirmations", params=params)
    assert listed.status_code == 200, listed.text
    return listed.json()["data"]


async def test_an_organization_keys_write_waits_shows_the_effect_and_runs_once(
    live: LiveServer, shop: Shop
) -> None:
    key_id, secret = await _key(shop.rest)
    person = Person()
    async with client(live, secret, person) as connected:
        assert connected.protocol_version == PROTOCOL
        result = await connected.call_tool("create_transfer", shop.payment("25.00", submit=True))
    assert not result.is_error, result.structured_content
    assert result.structured_content["status"] == "PENDING"
    [asked] = person.asked
    assert isinstance(asked, types.ElicitRequestFormParams)
    # The amount and currency, the payee (account holder and account) and the rail.
    for shown in ("Send 25.00 USD", " to ", shop.payee_account_id, "by ACH"):
        assert shown in asked.message
    assert asked.requested_schema["properties"]["confirm"]["type"] == "boolean"
    assert [t["id"] for t in await _transfers(shop)] == [result.structured_content["id"]]
    [record] = [c for c in await _confirmations(shop.rest) if c["credential"]["id"] == key_id]
    assert record["status"] == "APPROVED"
    assert (record["decidedBy"], record["decidedVia"]) == (key_id, "mcp_form")
    assert record["decidedAt"] and record["executedAt"]
    assert record["outcome"]["result"]["id"] == result.structured_content["id"]
    assert record["arguments"]["amount"] == "25.00"


async def test_a_declined_form_runs_nothing(live: LiveServer, shop: Shop) -> None:
    key_id, secret = await _key(shop.rest)
    async with client(live, secret, Person(accept=False)) as connected:
        result = await connected.call_tool("create_transfer", shop.payment("26.00", submit=True))
    assert result.is_error
    assert result.structured_content["code"] == "tool_confirmation_refused"
    assert await _transfers(shop) == []
    [record] = [c for c in await _confirmations(shop.rest) if c["credential"]["id"] == key_id]
    assert (record["status"], record["executedAt"]) == ("REFUSED", None)


async def _raw(live: LiveServer, secret: str, message: dict) -> httpx.Response:
    """One 2026-07-28 request in raw JSON-RPC (the envelope in `_meta`, no session)."""
    params = message.setdefault("params", {})
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    }
    headers = {
        "Authorization": f"Bearer {secret}",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": PROTOCOL,
        "Mcp-Method": message["method"],
        "Mcp-Name": params.get("name", ""),
    }
    async with httpx.AsyncClient(timeout=60) as http:
        return await http.post(f"{live.base_url}/mcp", json=message, headers=headers)


def _call(arguments: dict, request_id: int, **retry: Any) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "create_transfer", "arguments": arguments, **retry},
    }


ACCEPTED = {"confirm": {"action": "accept", "content": {"confirm": True}}}


async def _input_required(live: LiveServer, secret: str, arguments: dict) -> dict:
    first = await _raw(live, secret, _call(arguments, 1))
    assert first.status_code == 200, first.text
    result = first.json()["result"]
    assert result["resultType"] == "input_required"
    assert result["inputRequests"]["confirm"]["method"] == "elicitation/create"
    return result


async def test_raw_input_required_replayed_state_executes_nothing(
    live: LiveServer, shop: Shop
) -> None:
    _, secret = await _key(shop.rest)
    arguments = shop.payment("27.00", submit=True)
    state = (await _input_required(live, secret, arguments))["requestState"]
    assert "tcf_" not in state  # sealed, not readable
    retry = {"inputResponses": ACCEPTED, "requestState": state}
    done = (await _raw(live, secret, _call(arguments, 2, **retry))).json()["result"]
    assert done.get("resultType", "complete") == "complete" and not done.get("isError"), done
    replayed = (await _raw(live, secret, _call(arguments, 3, **retry))).json()["result"]
    assert replayed["isError"]
    assert replayed["structuredContent"]["code"] == "tool_confirmation_already_decided"
    assert len(await _transfers(shop)) == 1


async def test_raw_changed_arguments_or_tampered_state_execute_nothing(
    live: LiveServer, shop: Shop
) -> None:
    _, secret = await _key(shop.rest)
    arguments = shop.payment("28.00", submit=True)
    state = (await _input_required(live, secret, arguments))["requestState"]
    changed = {**arguments, "amount": "2800.00"}
    refused = await _raw(
        live, secret, _call(changed, 2, inputResponses=ACCEPTED, requestState=state)
    )
    assert refused.json()["error"]["code"] == -32602  # the SDK's seal binds the arguments
    tampered = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
    refused = await _raw(
        live, secret, _call(arguments, 3, inputResponses=ACCEPTED, requestState=tampered)
    )
    assert refused.json()["error"]["code"] == -32602
    _, other = await _key(shop.rest)
    refused = await _raw(
        live, other, _call(arguments, 4, inputResponses=ACCEPTED, requestState=state)
    )
    assert refused.json()["error"]["code"] == -32602  # bound to the credential
    assert await _transfers(shop) == []


async def test_a_client_that_can_ask_nobody_is_refused_and_the_console_approval_runs_it_once(
    live: LiveServer, shop: Shop
) -> None:
    key_id, secret = await _key(shop.rest)
    arguments = shop.payment("29.00", submit=True)
    async with client(live, secret) as connected:  # declares no elicitation
        refused = await connected.call_tool("create_transfer", arguments)
        assert refused.is_error
        body = refused.structured_content
        assert body["code"] == "tool_confirmation_required"
        assert body["url"].endswith(f"/console/tool-confirmations/{body['confirmationId']}")
        assert await _transfers(shop) == []
        # Asking again waits on the same confirmation.
        again = await connected.call_tool("create_transfer", arguments)
        assert again.structured_content["confirmationId"] == body["confirmationId"]
        # The key cannot approve its own call.
        own = httpx.AsyncClient(
            base_url=live.base_url, headers={"Authorization": f"Bearer {secret}"}
        )
        async with own:
            self_approved = await own.post(
                f"/v1/tool-confirmations/{body['confirmationId']}/decision",
                json={"approved": True},
            )
        assert self_approved.status_code == 403
        approved = await shop.rest.post(
            f"/v1/tool-confirmations/{body['confirmationId']}/decision", json={"approved": True}
        )
        assert approved.status_code == 200, approved.text
        assert approved.json()["status"] == "APPROVED"
        # Other arguments are not approved by it.
        other = await connected.call_tool("create_transfer", shop.payment("29.01", submit=True))
        assert other.structured_content["code"] == "tool_confirmation_required"
        ran = await connected.call_tool("create_transfer", arguments)
        assert not ran.is_error, ran.structured_content
        once_more = await connected.call_tool("create_transfer", arguments)
        assert once_more.structured_content["code"] == "tool_confirmation_required"
    assert [t["id"] for t in await _transfers(shop)] == [ran.structured_content["id"]]
    record = (await shop.rest.get(f"/v1/tool-confirmations/{body['confirmationId']}")).json()
    assert record["decidedVia"] == "api" and record["executedAt"]
    assert record["decidedBy"] != key_id


async def test_an_agent_key_runs_at_once_and_over_limit_asks_only_past_a_limit(
    live: LiveServer, shop: Shop
) -> None:
    async with client(live, shop.agent_secret) as connected:
        within = await connected.call_tool("create_transfer", shop.payment("10.00", submit=True))
    assert not within.is_error, within.structured_content
    keys = (await shop.rest.get(f"/v1/agents/{shop.agent_id}/keys")).json()["data"]
    assert keys[0]["toolConfirmation"] == "never"
    changed = await shop.rest.patch(
        f"/v1/api-keys/{keys[0]['id']}", json={"toolConfirmation": "over_limit"}
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["toolConfirmation"] == "over_limit"
    person = Person()
    async with client(live, shop.agent_secret, person) as connected:
        small = await connected.call_tool("create_transfer", shop.payment("11.00", submit=True))
        assert not small.is_error and person.asked == []
        # Past the 500.00 per-transfer limit: a person is asked; the limits still hold after.
        over = await connected.call_tool("create_transfer", shop.payment("600.00", submit=True))
    assert len(person.asked) == 1 and "600.00 USD" in person.asked[0].message
    assert over.is_error
    assert over.structured_content["code"] in ("agent_limit_exceeded", "agent_approval_required")


async def test_a_restricted_key_cannot_weaken_a_policy(live: LiveServer, shop: Shop) -> None:
    _, secret = await _key(shop.rest, scopes=["api_keys:manage", "transfers:write"])
    async with httpx.AsyncClient(
        base_url=live.base_url, headers={"Authorization": f"Bearer {secret}"}
    ) as restricted:
        made = await restricted.post(
            "/v1/api-keys",
            json={"name": "x", "scopes": ["transfers:read"], "toolConfirmation": "never"},
        )
        assert made.status_code == 403
        made = await restricted.post(
            "/v1/api-keys", json={"name": "x", "scopes": ["transfers:read"]}
        )
        assert made.status_code == 201 and made.json()["toolConfirmation"] == "always"
        patched = await restricted.patch(
            f"/v1/api-keys/{made.json()['id']}", json={"toolConfirmation": "never"}
        )
        assert patched.status_code == 403


@pytest.fixture(scope="module")
def short_lived(tmp_path_factory) -> Any:
    with live_corridor(
        "sqlite",
        tmp_path_factory.mktemp("mcp-ttl"),
        settings={"CORRIDOR_TOOL_CONFIRMATION_TTL_S": "1"},
    ) as server:
        yield server


async def test_an_expired_state_executes_nothing(short_lived: LiveServer) -> None:
    from tests.transfers.conftest import make_customer

    headers = {"Authorization": f"Bearer {short_lived.api_key}"}
    async with httpx.AsyncClient(base_url=short_lived.base_url, headers=headers) as rest:
        customer = await make_customer(rest, ("USD",))
        await customer.fund("USD", 10_000)
        _, secret = await _key(rest)
        arguments = {
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": "1.00",
            "currency": "USD",
        }
        state = (await _input_required(short_lived, secret, arguments))["requestState"]
        await asyncio.sleep(1.5)  # past the 1-second lifetime this server was given
        late = await _raw(
            short_lived, secret, _call(arguments, 2, inputResponses=ACCEPTED, requestState=state)
        )
        assert late.json()["error"]["code"] == -32602
        listed = await rest.get("/v1/transfers")
        assert listed.json()["data"] == []


async def test_an_elicitation_error_in_the_sdk_client_surfaces(
    live: LiveServer, shop: Shop
) -> None:
    """The official client in legacy mode (2025-11-25) over stateless HTTP declares form
    elicitation, but the answer could reach another process: refused, pointing to the
    console (fail closed), nothing ran."""
    _, secret = await _key(shop.rest)
    async with client(live, secret, Person(), mode="legacy") as connected:
        try:
            result = await connected.call_tool(
                "create_transfer", shop.payment("30.00", submit=True)
            )
        except MCPError as error:
            pytest.fail(f"unexpected protocol error {error}")
    assert result.is_error
    assert result.structured_content["code"] == "tool_confirmation_required"
    assert await _transfers(shop) == []


# --- 2025-11-25 over stdio: elicitation/create inside the call --------------------------


async def test_stdio_2025_11_25_asks_with_elicitation_create_and_runs_once(
    database_url, tenant
) -> None:
    from tests.auth.credentials import key_secret
    from tests.mcp.test_stdio_and_binding import _stdio

    secret = await key_secret(tenant, ["customers:write"])
    business = {"legalName": "Analytical Engines Ltd", "email": "finance@engines.example"}
    declining = Person(accept=False)
    async with Client(
        _stdio(database_url, secret), mode="legacy", elicitation_callback=declining
    ) as connected:
        assert connected.protocol_version == "2025-11-25"
        refused = await connected.call_tool("create_business_customer", business)
    assert refused.is_error and refused.structured_content["code"] == "tool_confirmation_refused"
    assert (await tenant.client.get("/v1/customers")).json()["data"] == []
    person = Person()
    async with Client(
        _stdio(database_url, secret), mode="legacy", elicitation_callback=person
    ) as connected:
        created = await connected.call_tool("create_business_customer", business)
    assert not created.is_error, created.structured_content
    [asked] = person.asked
    assert isinstance(asked, types.ElicitRequestFormParams)
    assert "Analytical Engines Ltd" in asked.message or "business customer" in asked.message
    listed = (await tenant.client.get("/v1/customers")).json()["data"]
    assert [customer["id"] for customer in listed] == [created.structured_content["id"]]
    records = (await tenant.client.get("/v1/tool-confirmations")).json()["data"]
    assert [(r["status"], r["decidedVia"]) for r in records] == [
        ("APPROVED", "mcp_elicitation"),
        ("REFUSED", "mcp_elicitation"),
    ]


async def test_an_owner_reads_and_refuses_a_waiting_call_with_the_sdk(
    live: LiveServer, shop: Shop
) -> None:
    _, secret = await _key(shop.rest)
    arguments = shop.payment("31.00", submit=True)
    async with client(live, secret) as connected:  # declares no elicitation
        waiting = await connected.call_tool("create_transfer", arguments)
    confirmation_id = waiting.structured_content["confirmationId"]

    async with AsyncCorridor(api_key=live.api_key, base_url=live.base_url) as owner:
        pending = [item.id async for item in owner.tool_confirmations.list(status="PENDING")]
        assert confirmation_id in pending
        read = await owner.tool_confirmations.retrieve(confirmation_id)
        assert (read.tool, read.arguments) == ("create_transfer", arguments)
        refused = await owner.tool_confirmations.decide(confirmation_id, approved=False)
        assert refused.status == "REFUSED" and refused.decided_via == "api"
        with pytest.raises(ConflictError):
            await owner.tool_confirmations.decide(confirmation_id, approved=True)
    assert await _transfers(shop) == []
