"""The consent page in the console: only a signed-in owner answers it, with the page's CSRF
token; what they pick (scopes, the agent or the organization, the write-tool policy) is
what the client gets."""

from __future__ import annotations

from datetime import timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from corridor.kit.clock import SystemClock
from corridor_client import public_jwk
from tests.agents.conftest import make_owner
from tests.console.helpers import console_browser
from tests.oauth.helpers import (
    AGENT_SCOPES,
    ISSUER,
    authorize,
    connect,
    consent,
    mcp_call,
    query_of,
    register,
)
from tests.tools.test_registry import AGENT_KEY_TOOLS

pytestmark = pytest.mark.usefixtures("mcp_running")


async def _asked(anonymous, scope: str = "transfers:read accounts:read") -> str:
    flow = await register(anonymous)
    answer = await authorize(anonymous, flow, scope=scope)
    assert answer.status_code == 302, answer.text
    return answer.headers["location"]


async def test_the_consent_page_needs_a_signed_in_owner_and_comes_back_after_sign_in(
    app, anonymous
) -> None:
    path = await _asked(anonymous)
    assert path.startswith("/console/connected-apps/authorize/oar_")
    answer = await anonymous.get(path)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/console/sign-in?next={path.replace('/', '%2F')}"


async def test_the_page_shows_the_app_and_ticks_what_it_asked_for(app, tenant, anonymous) -> None:
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        page = await console.get(path)
    assert page.status_code == 200, page.text
    html = page.text
    assert "Desk Client" in html and "127.0.0.1:33418" in html and "http://testserver/mcp" in html
    ticked = [line for line in html.splitlines() if " checked" in line and "scope-" in line]
    assert len(ticked) == 2 and "transfers:read" in ticked[0] + ticked[1]
    # Two scopes asked, two offered: the owner cannot grant more than was asked.
    assert html.count('name="scope-') == 2
    # The form's answer leads on to the app: the page's policy lets it go there.
    policy = page.headers["content-security-policy"]
    assert "form-action 'self' http://127.0.0.1:33418;" in policy
    assert page.headers["cache-control"] == "no-store"


async def test_an_answer_without_the_csrf_token_changes_nothing(app, tenant, anonymous) -> None:
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        forged = await console.post(path, data={"decision": "allow", "scope-transfers:read": "yes"})
        assert forged.status_code == 403
        assert (await console.get(path)).status_code == 200  # still waiting for an answer


async def test_deny_tells_the_app_access_denied_and_closes_the_request(
    app, tenant, anonymous
) -> None:
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        answer = await consent(console, path, decision="deny")
        assert answer.status_code == 303
        back = query_of(answer.headers["location"])
        assert back["error"] == "access_denied" and back["iss"] == ISSUER
        assert back["state"] == "state-0123456789"
        again = await console.get(path)
    assert again.status_code == 409 and "already answered" in again.text


async def test_the_owner_must_tick_a_scope_the_app_asked_for(app, tenant, anonymous) -> None:
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        none = await consent(console, path, scopes=[])
        assert none.status_code == 422 and "tick at least one scope" in none.text
        more = await consent(console, path, scopes=["transfers:write"])
        assert more.status_code == 422 and "not asked for by this app" in more.text
        assert (await console.get(path)).status_code == 200


async def test_a_request_left_waiting_expires(app, tenant, anonymous, clock) -> None:
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        clock.set(SystemClock().now() + timedelta(seconds=601))
        late = await console.get(path)
    assert late.status_code == 409


async def test_a_client_acting_as_an_agent_gets_the_agents_tools_and_limits(
    app, tenant, anonymous
) -> None:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent(name="Desk agent")
    async with console_browser(app, tenant) as console:
        flow = await connect(
            anonymous,
            console,
            scope=" ".join(AGENT_SCOPES),
            act_as=agent["id"],
            policy="never",
        )
    token = flow.tokens["access_token"]
    listed = await mcp_call(anonymous, token, "tools/list")
    assert {tool["name"] for tool in listed.json()["result"]["tools"]} == AGENT_KEY_TOOLS
    # Over its per-transfer limit of 500.00 USD: the agent's own rules refuse it.
    payment = {
        "source": {"accountId": owner.usd_account},
        "destination": {
            "externalAccountId": owner.payee_account_id,
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": "600.00",
        "currency": "USD",
        "submit": True,
    }
    called = await mcp_call(
        anonymous, token, "tools/call", {"name": "create_transfer", "arguments": payment}
    )
    result = called.json()["result"]
    assert result["isError"] and result["structuredContent"]["code"] == "agent_limit_exceeded"
    grant = (await tenant.client.get("/v1/oauth-grants")).json()["data"][0]
    assert grant["agentId"] == agent["id"] and grant["toolConfirmation"] == "never"


async def test_an_agent_holds_only_an_agents_scopes(app, tenant, anonymous) -> None:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent()
    path = await _asked(anonymous, scope="transfers:read customers:write")
    async with console_browser(app, tenant) as console:
        answer = await consent(console, path, act_as=agent["id"])
    assert answer.status_code == 422 and "untick customers:write" in answer.text


async def test_an_agent_that_signs_its_requests_cannot_be_chosen(app, tenant, anonymous) -> None:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent()
    key = ed25519.Ed25519PrivateKey.generate()
    bound = await tenant.client.post(
        f"/v1/agents/{agent['id']}/signing-keys", json={"publicKeyJwk": public_jwk(key)}
    )
    assert bound.status_code == 201, bound.text
    path = await _asked(anonymous)
    async with console_browser(app, tenant) as console:
        page = await console.get(path)
        assert "which a desktop app cannot" in page.text
        answer = await consent(console, path, act_as=agent["id"])
    assert answer.status_code == 422 and "signs its requests" in answer.text


async def test_a_console_user_of_another_organization_connects_it_to_their_own(
    app, make_tenant, anonymous
) -> None:
    """The grant is the signed-in owner's organization's; nothing of the first is reached."""
    first, second = await make_tenant(), await make_tenant()
    async with console_browser(app, second) as console:
        await connect(anonymous, console)
    assert (await first.client.get("/v1/oauth-grants")).json()["data"] == []
    assert len((await second.client.get("/v1/oauth-grants")).json()["data"]) == 1
