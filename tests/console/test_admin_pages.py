"""The console's administration pages over HTTP, as a signed-in browser uses them: agents
(spend meters, pause, resume, revoke, keys shown once), API keys (restricted keys shown
once, revocation) and organization settings (per-field errors), each calling the API's
services."""

from __future__ import annotations

import re

from tests.auth.credentials import bearer
from tests.conftest import client_for
from tests.console.helpers import console_browser, csrf_of, post_form

SHOWN_ONCE = re.compile(r'<code class="secret" id="secret-value">([^<]+)</code>')


def _secret_in(html: str) -> str:
    found = SHOWN_ONCE.search(html)
    assert found, "the page shows no secret"
    return found.group(1)


# --- Agents ---------------------------------------------------------------------------------


async def test_agents_list_filters_by_customer_and_pages(app, owner):
    first = await owner.create_agent(name="First bot")
    second = await owner.create_agent(name="Second bot")
    async with console_browser(app, owner.tenant) as browser:
        listed = await browser.get(f"/console/agents?customerId={owner.customer.id}&limit=1")
        assert listed.status_code == 200
        assert "Second bot" in listed.text and "First bot" not in listed.text
        assert "500.00 USD" in listed.text  # the per-transfer limit
        next_link = re.search(r'href="([^"]+)" rel="next"', listed.text)
        assert next_link and f"customerId={owner.customer.id}" in next_link.group(1)
        after = await browser.get(next_link.group(1).replace("&amp;", "&"))
        assert first["id"] in after.text and second["id"] not in after.text
        other = await browser.get("/console/agents?customerId=cus_00000000000000000000000000")
        assert "No agents match." in other.text
        bad = await browser.get("/console/agents?customerId=nope")
        assert bad.status_code == 422 and "customerId" in bad.text


async def test_create_an_agent_from_the_form(app, owner):
    form = {
        "name": "Supplier bot",
        "customerId": owner.customer.id,
        "sourceAccountId": owner.usd_account,
        "currency": "USD",
        "perTransfer": "250.00",
        "daily": "1,000",
        "monthly": "",
        "overLimitAction": "REQUEST_APPROVAL",
        "dailyPaymentCount": "12",
        "newPayeeAction": "REQUEST_APPROVAL",
        "allowlist": f"counterparty {owner.counterparty_id}\n",
    }
    async with console_browser(app, owner.tenant) as browser:
        shown = await browser.get(f"/console/agents/new?customerId={owner.customer.id}")
        assert f'value="{owner.customer.id}"' in shown.text
        created = await post_form(browser, "/console/agents/new", "/console/agents/new", form)
        assert created.status_code == 303, created.text
        location = created.headers["location"]
        agent_id = re.search(r"/console/agents/(agt_[0-9a-z]+)\?done=agent-created", location)
        assert agent_id
        detail = await browser.get(location)
        assert "Agent created" in detail.text and "Supplier bot" in detail.text
        assert "Payments today: <strong>0</strong> of 12" in detail.text
    agent = (await owner.client.get(f"/v1/agents/{agent_id.group(1)}")).json()
    assert agent["limits"] == {
        "currency": "USD",
        "perTransfer": "25000",
        "daily": "100000",
        "monthly": None,
        "dailyPaymentCount": 12,
    }
    assert agent["overLimitAction"] == "REQUEST_APPROVAL"
    assert agent["newPayeeAction"] == "REQUEST_APPROVAL"
    assert agent["destinationAllowlist"] == [{"type": "counterparty", "id": owner.counterparty_id}]


async def test_an_agent_form_with_problems_shows_them_at_the_fields(app, owner):
    async with console_browser(app, owner.tenant) as browser:
        typed = await post_form(
            browser,
            "/console/agents/new",
            "/console/agents/new",
            {
                "name": "",
                "customerId": owner.customer.id,
                "sourceAccountId": owner.usd_account,
                "perTransfer": "1.234",
                "dailyPaymentCount": "0",
                "allowlist": "just-one-word",
            },
        )
        assert typed.status_code == 422
        for field in ("name", "perTransfer", "dailyPaymentCount", "allowlist"):
            assert f'id="{field}-error"' in typed.text, field
        assert f'value="{owner.usd_account}"' in typed.text  # what was typed stays
        wrong_currency = await post_form(
            browser,
            "/console/agents/new",
            "/console/agents/new",
            {
                "name": "Bot",
                "customerId": owner.customer.id,
                "sourceAccountId": owner.usd_account,
                "currency": "EUR",
            },
        )
        assert wrong_currency.status_code == 422
        assert 'id="currency-error">must be the funding account' in wrong_currency.text
        unknown = await post_form(
            browser,
            "/console/agents/new",
            "/console/agents/new",
            {
                "name": "Bot",
                "customerId": "cus_00000000000000000000000000",
                "sourceAccountId": owner.usd_account,
            },
        )
        assert unknown.status_code == 422 and "The agent was not created" in unknown.text
    listed = (await owner.client.get(f"/v1/agents?customerId={owner.customer.id}")).json()
    assert listed["data"] == []


async def test_agent_detail_draws_spend_per_window_against_the_limit(app, owner):
    from tests.agents.conftest import pay

    agent = await owner.create_agent()
    async with await owner.agent_client(agent["id"]) as client:
        await pay(client, owner.payment(30_000))
    async with console_browser(app, owner.tenant) as browser:
        detail = await browser.get(f"/console/agents/{agent['id']}")
    assert detail.status_code == 200
    text = detail.text
    assert "300.00 USD of 1,000.00 USD used (30%)" in text  # the day
    assert "700.00 USD left" in text
    assert "300.00 USD of 10,000.00 USD used (3%)" in text  # the month
    assert 'aria-label="Day: 30% of the limit used"' in text
    assert re.search(r'class="meter-fill" x="0" y="0" width="30.00"', text)
    assert "resets 2026-11-19 00:00:00 UTC" in text
    assert "bot key" in text  # the key the agent paid with, listed without its secret


def test_a_meter_is_full_at_its_limit_and_empty_without_one():
    from datetime import UTC, datetime

    from corridor.console.pages.agents import Meter

    def meter(limit: int | None, used: int) -> Meter:
        return Meter("day", "USD", limit, used, None, datetime(2026, 11, 19, tzinfo=UTC))

    assert (meter(1_000, 500).percent, meter(1_000, 500).level) == (50, "ok")
    assert meter(1_000, 800).level == "warning"
    assert (meter(1_000, 1_200).share, meter(1_000, 1_200).level) == (1.0, "full")
    assert (meter(0, 0).share, meter(0, 0).level) == (1.0, "full")
    assert (meter(None, 5_000).share, meter(None, 5_000).level) == (0.0, "none")


async def test_pause_and_resume_an_agent(app, owner):
    agent = await owner.create_agent()
    page = f"/console/agents/{agent['id']}"
    async with console_browser(app, owner.tenant) as browser:
        paused = await post_form(browser, page, f"{page}/pause", {})
        assert paused.status_code == 303
        assert paused.headers["location"] == f"{page}?done=agent-paused"
        shown = await browser.get(paused.headers["location"])
        assert "Paused: the agent" in shown.text and ">Resume</button>" in shown.text
        assert (await owner.client.get(f"/v1/agents/{agent['id']}")).json()["status"] == "PAUSED"
        resumed = await post_form(browser, page, f"{page}/resume", {})
        assert resumed.headers["location"] == f"{page}?done=agent-resumed"
    assert (await owner.client.get(f"/v1/agents/{agent['id']}")).json()["status"] == "ACTIVE"


async def test_an_agent_key_is_shown_once_and_never_in_a_url(app, owner):
    agent = await owner.create_agent()
    page = f"/console/agents/{agent['id']}"
    async with console_browser(app, owner.tenant) as browser:
        issued = await post_form(browser, page, f"{page}/keys", {"name": "Production bot"})
        assert issued.status_code == 201
        assert "location" not in issued.headers
        assert issued.headers["cache-control"] == "no-store"
        secret = _secret_in(issued.text)
        assert secret.startswith("sk_sandbox_agent_")
        assert str(issued.url).endswith(f"{page}/keys")  # the secret is in no URL
        again = await browser.get(page)
        assert secret not in again.text and "Production bot" in again.text
    async with client_for(app, bearer(secret)) as agent_client:
        assert (await agent_client.get(f"/v1/agents/{agent['id']}")).status_code == 200


async def test_revoke_an_agent_key_then_the_agent(app, owner):
    agent = await owner.create_agent()
    key = await owner.agent_key(agent["id"])
    page = f"/console/agents/{agent['id']}"
    async with console_browser(app, owner.tenant) as browser:
        revoked_key = await post_form(browser, page, f"{page}/keys/{key['id']}/revoke", {})
        assert revoked_key.headers["location"] == f"{page}?done=agent-key-revoked"
        async with client_for(app, bearer(key["secret"])) as agent_client:
            assert (await agent_client.get(f"/v1/agents/{agent['id']}")).status_code == 401
        unconfirmed = await post_form(browser, page, f"{page}/revoke", {})
        assert unconfirmed.status_code == 422 and "confirm" in unconfirmed.text
        revoked = await post_form(browser, page, f"{page}/revoke", {"confirm": "yes"})
        assert revoked.headers["location"] == f"{page}?done=agent-revoked"
        shown = await browser.get(revoked.headers["location"])
        assert "REVOKED" in shown.text and "Issue a key" not in shown.text
        refused = await browser.post(f"{page}/keys", data={"csrf_token": csrf_of(shown.text)})
        assert refused.status_code == 409
    assert (await owner.client.get(f"/v1/agents/{agent['id']}")).json()["status"] == "REVOKED"


async def test_an_agent_of_another_organization_is_not_found(app, owner, make_tenant):
    other = await make_tenant()
    agent = await owner.create_agent()
    async with console_browser(app, other) as browser:
        missing = await browser.get(f"/console/agents/{agent['id']}")
        assert missing.status_code == 404
        paused = await post_form(
            browser, "/console/agents", f"/console/agents/{agent['id']}/pause", {}
        )
        assert paused.status_code == 404


# --- API keys -------------------------------------------------------------------------------


async def test_a_restricted_key_is_created_with_the_ticked_scopes_and_shown_once(app, tenant):
    async with console_browser(app, tenant) as browser:
        created = await post_form(
            browser,
            "/console/api-keys",
            "/console/api-keys",
            {
                "name": "Payouts backend",
                "scope-transfers:write": "yes",
                "scope-accounts:read": "yes",
            },
        )
        assert created.status_code == 201 and "location" not in created.headers
        assert created.headers["cache-control"] == "no-store"
        secret = _secret_in(created.text)
        assert "accounts:read, transfers:write" in created.text
        listed = await browser.get("/console/api-keys")
        assert secret not in listed.text and "Payouts backend" in listed.text
    async with client_for(app, bearer(secret)) as program:
        assert (await program.get("/v1/transfers")).status_code == 200
        refused = await program.get("/v1/webhooks/endpoints")
        assert refused.status_code == 403  # webhooks:manage was not ticked


async def test_a_key_form_with_problems_shows_them_next_to_the_fields(app, tenant):
    async with console_browser(app, tenant) as browser:
        no_scope = await post_form(
            browser, "/console/api-keys", "/console/api-keys", {"name": "Nothing ticked"}
        )
        assert no_scope.status_code == 422
        assert 'id="key-scopes-error">tick at least one scope' in no_scope.text
        assert 'value="Nothing ticked"' in no_scope.text  # what was typed stays
        no_name = await post_form(
            browser, "/console/api-keys", "/console/api-keys", {"scope-transfers:read": "yes"}
        )
        assert no_name.status_code == 422 and 'id="key-name-error"' in no_name.text
        assert re.search(r'name="scope-transfers:read" value="yes" checked', no_name.text)
        both = await post_form(
            browser,
            "/console/api-keys",
            "/console/api-keys",
            {"name": "x", "scope-*": "yes", "scope-transfers:read": "yes"},
        )
        assert both.status_code == 422 and "send it alone" in both.text


async def test_revoke_an_api_key(app, tenant):
    async with console_browser(app, tenant) as browser:
        created = await post_form(
            browser,
            "/console/api-keys",
            "/console/api-keys",
            {"name": "Short-lived", "scope-customers:read": "yes"},
        )
        secret = _secret_in(created.text)
        key_id = re.search(r'action="/console/api-keys/(key_[0-9a-z]+)/revoke"', created.text)
        assert key_id
        revoked = await post_form(
            browser, "/console/api-keys", f"/console/api-keys/{key_id.group(1)}/revoke", {}
        )
        assert revoked.headers["location"] == "/console/api-keys?done=key-revoked"
        shown = await browser.get(revoked.headers["location"])
        assert "Key revoked" in shown.text
    async with client_for(app, bearer(secret)) as program:
        assert (await program.get("/v1/customers")).status_code == 401


# --- Settings -------------------------------------------------------------------------------


def _settings_form(**changes: str) -> dict[str, str]:
    form = {
        "name": "Acme Payments",
        "currency-USD": "yes",
        "currency-USDC": "yes",
        "thresholdAmount": "",
        "thresholdCurrency": "USD",
        "feeFixed": "",
        "feePercent": "",
        "reportingCurrency": "USD",
        "requestsPerSecondPerKey": "",
        "webhookHistoryEnabled": "yes",
    }
    form.update(changes)
    return {name: value for name, value in form.items() if value is not None}


async def test_settings_change_the_threshold_currencies_and_the_rest(app, tenant):
    async with console_browser(app, tenant) as browser:
        shown = await browser.get("/console/settings")
        assert shown.status_code == 200
        assert re.search(r'name="currency-USD" value="yes" checked', shown.text)
        saved = await post_form(
            browser,
            "/console/settings",
            "/console/settings",
            _settings_form(
                name="Acme Europe",
                **{"currency-EUR": "yes"},
                thresholdAmount="10,000.50",
                feeFixed="100",
                feePercent="0.5",
                reportingCurrency="EUR",
                requestsPerSecondPerKey="50",
                webhookHistoryEnabled="",
            ),
        )
        assert saved.status_code == 303, saved.text
        assert saved.headers["location"] == "/console/settings?done=settings-saved"
        again = await browser.get(saved.headers["location"])
        assert 'value="10000.50"' in again.text and 'value="Acme Europe"' in again.text
    configuration = (await tenant.client.get("/v1/organizations/current/configuration")).json()
    assert configuration["accountCurrencies"] == ["USD", "USDC", "EUR"]
    assert configuration["transferAuthorizationThreshold"]["value"] == "1000050"
    assert configuration["defaultDeveloperFee"] == {"fixed": "100", "percent": 0.005}
    assert configuration["reportingCurrency"] == "EUR"
    assert configuration["requestsPerSecondPerKey"] == 50
    assert configuration["webhookHistoryEnabled"] is False
    organization = (await tenant.client.get("/v1/organizations/current")).json()
    assert organization["name"] == "Acme Europe"
    async with console_browser(app, tenant) as browser:
        cleared = await post_form(
            browser, "/console/settings", "/console/settings", _settings_form()
        )
        assert cleared.status_code == 303
    configuration = (await tenant.client.get("/v1/organizations/current/configuration")).json()
    assert configuration["transferAuthorizationThreshold"] is None
    assert configuration["defaultDeveloperFee"] is None
    assert configuration["requestsPerSecondPerKey"] is None


async def test_settings_refused_show_each_problem_next_to_its_field(app, tenant):
    before = (await tenant.client.get("/v1/organizations/current/configuration")).json()
    async with console_browser(app, tenant) as browser:
        refused = await post_form(
            browser,
            "/console/settings",
            "/console/settings",
            _settings_form(
                name=" ",
                **{"currency-USD": None, "currency-USDC": None},
                thresholdAmount="12.345",
                feeFixed="-1",
                requestsPerSecondPerKey="lots",
            ),
        )
    assert refused.status_code == 422
    text = refused.text
    for field in (
        "name",
        "transferAuthorizationThreshold",
        "accountCurrencies",
        "requestsPerSecondPerKey",
    ):
        assert f'id="{field}-error"' in text, field
    assert "more than 2 decimal places" in text
    assert 'value="12.345"' in text and 'value="lots"' in text  # what was typed stays
    assert "The settings were not saved" in text
    after = (await tenant.client.get("/v1/organizations/current/configuration")).json()
    assert after == before


async def test_a_fee_the_api_refuses_is_shown_at_the_fee(app, tenant):
    async with console_browser(app, tenant) as browser:
        refused = await post_form(
            browser,
            "/console/settings",
            "/console/settings",
            _settings_form(feeFixed="abc", feePercent="0.5"),
        )
        assert refused.status_code == 422
        assert 'id="defaultDeveloperFee-error"' in refused.text
        too_much = await post_form(
            browser,
            "/console/settings",
            "/console/settings",
            _settings_form(feeFixed="1", feePercent="150"),
        )
        assert too_much.status_code == 422
        assert 'id="defaultDeveloperFee-error"' in too_much.text


async def test_admin_pages_label_every_control(app, owner):
    """Every input, select and textarea of these pages has a label (`for` or wrapping) or
    an aria-label (the browser tests check the same in Chromium)."""
    agent = await owner.create_agent()
    async with console_browser(app, owner.tenant) as browser:
        for path in (
            "/console/agents",
            "/console/agents/new",
            f"/console/agents/{agent['id']}",
            "/console/api-keys",
            "/console/settings",
            "/console/webhooks",
            "/console/webhooks/messages",
        ):
            html = (await browser.get(path)).text
            assert unlabelled(html) == [], path


def unlabelled(html: str) -> list[str]:
    labelled = set(re.findall(r'<label[^>]* for="([^"]+)"', html))
    missing = []
    for control in re.findall(r"<(?:input|select|textarea)\b[^>]*>", html):
        if 'type="hidden"' in control or "aria-label=" in control:
            continue
        found = re.search(r'\bid="([^"]+)"', control)
        if not found or found.group(1) not in labelled:
            missing.append(control)
    return missing
