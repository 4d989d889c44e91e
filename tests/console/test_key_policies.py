"""The console sets a key's write-tool confirmation policy (`toolConfirmation`, docs/mcp.md):
on a new organization key, on an existing one, and on an agent's key on its agent's page,
as `POST /v1/api-keys` and `PATCH /v1/api-keys/{id}` do."""

from __future__ import annotations

import re

from tests.agents.conftest import make_owner
from tests.console.helpers import console_browser, post_form


async def _policy_of(tenant, key_id: str) -> str:
    keys = (await tenant.client.get("/v1/api-keys", params={"limit": 250})).json()["data"]
    return next(key["toolConfirmation"] for key in keys if key["id"] == key_id)


async def test_an_owner_creates_a_key_with_a_policy_and_changes_it(app, tenant) -> None:
    async with console_browser(app, tenant) as console:
        created = await post_form(
            console,
            "/console/api-keys",
            "/console/api-keys",
            {"name": "Desk", "scope-transfers:write": "yes", "tool_confirmation": "over_limit"},
        )
        assert created.status_code == 201, created.text
        key_id = re.search(r'action="/console/api-keys/(key_[0-9a-z]+)/revoke"', created.text)
        assert key_id is not None
        assert await _policy_of(tenant, key_id.group(1)) == "over_limit"
        path = f"/console/api-keys/{key_id.group(1)}/tool-confirmation"
        forged = await console.post(path, data={"tool_confirmation": "never"})
        assert forged.status_code == 403
        saved = await post_form(console, "/console/api-keys", path, {"tool_confirmation": "never"})
        assert saved.status_code == 303
        assert saved.headers["location"] == "/console/api-keys?done=key-policy-saved"
        assert await _policy_of(tenant, key_id.group(1)) == "never"
        page = await console.get(saved.headers["location"])
        assert "follow the new policy" in page.text
        wrong = await post_form(console, "/console/api-keys", path, {"tool_confirmation": "maybe"})
        assert wrong.status_code == 422
    assert await _policy_of(tenant, key_id.group(1)) == "never"


async def test_an_agents_key_policy_is_set_on_its_agents_page(app, tenant) -> None:
    owner = await make_owner(app, tenant)
    agent = await owner.create_agent()
    key = await tenant.client.post(f"/v1/agents/{agent['id']}/keys", json={"name": "bot"})
    key_id = key.json()["id"]
    page = f"/console/agents/{agent['id']}"
    async with console_browser(app, tenant) as console:
        shown = await console.get(page)
        assert f'action="/console/api-keys/{key_id}/tool-confirmation"' in shown.text
        saved = await post_form(
            console,
            page,
            f"/console/api-keys/{key_id}/tool-confirmation",
            {"tool_confirmation": "over_limit"},
        )
        assert saved.status_code == 303
        assert saved.headers["location"] == f"{page}?done=key-policy-saved"
    listed = (await tenant.client.get(f"/v1/agents/{agent['id']}/keys")).json()["data"]
    assert [item["toolConfirmation"] for item in listed] == ["over_limit"]
