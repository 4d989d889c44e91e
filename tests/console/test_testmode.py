"""The console's test mode over HTTP, as a signed-in browser uses it: each action is the
sandbox API's own operation as the console user, a refusal comes back beside its form with
the API's message and nothing written, an agent's test payment is the agent's own submit
(parked over a limit), and a live server has no test mode at all."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlsplit

import httpx

from tests.console.helpers import console_browser, csrf_of, post_form, sign_in

PAGE = "/console/test-mode"


def carried(response: httpx.Response) -> dict[str, str]:
    """The ids a successful action carries back to the page (the redirect's query)."""
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith(PAGE + "?")
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


async def act(browser: httpx.AsyncClient, action: str, data: dict[str, str]) -> httpx.Response:
    return await post_form(browser, PAGE, f"{PAGE}/{action}", data)


def refusal_in(html: str, form: str) -> str:
    found = re.search(rf'<div class="alert" role="alert" id="{form}-error">(.*?)</div>', html, re.S)
    assert found, f"no refusal beside the {form} form"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1)))


async def test_a_customer_is_created_approved_funded_and_pays(app, tenant):
    async with console_browser(app, tenant) as browser:
        opened = await browser.get(PAGE)
        assert opened.status_code == 200
        assert "Test mode" in opened.text and "Sandbox only" in opened.text
        made = carried(
            await act(
                browser,
                "customers",
                {"firstName": "Grace", "lastName": "Hopper", "email": "grace@example.com"},
            )
        )
        customer_id = made["customerId"]
        customer = (await tenant.client.get(f"/v1/customers/{customer_id}")).json()
        assert customer["status"] == "INCOMPLETE" and customer["email"] == "grace@example.com"

        carried(await act(browser, "approve", {"customerId": customer_id}))
        customer = (await tenant.client.get(f"/v1/customers/{customer_id}")).json()
        assert customer["status"] == "ACTIVE"
        accounts = (await tenant.client.get(f"/v1/customers/{customer_id}/accounts")).json()
        usd = next(account["id"] for account in accounts["data"] if account["currency"] == "USD")
        shown = await browser.get(f"{PAGE}?customerId={customer_id}")
        assert usd in shown.text  # its accounts are listed for the next steps

        carried(
            await act(browser, "fund", {"accountId": usd, "amount": "1,000.00", "currency": "USD"})
        )
        balance = (await tenant.client.get(f"/v1/accounts/{usd}/balance")).json()
        assert balance["available"]["value"] == "100000"

        # A second ACTIVE customer's balance account is the destination.
        other = carried(
            await act(
                browser,
                "customers",
                {"firstName": "Alan", "lastName": "Turing", "email": "alan@example.com"},
            )
        )["customerId"]
        carried(await act(browser, "approve", {"customerId": other}))
        other_accounts = (await tenant.client.get(f"/v1/customers/{other}/accounts")).json()
        other_usd = next(a["id"] for a in other_accounts["data"] if a["currency"] == "USD")
        sent = carried(
            await act(
                browser,
                "transfers",
                {
                    "sourceAccountId": usd,
                    "destinationId": other_usd,
                    "amount": "25.50",
                    "currency": "USD",
                    "confirm": "yes",
                },
            )
        )
        transfer = (await tenant.client.get(f"/v1/transfers/{sent['transferId']}")).json()
        assert transfer["status"] != "DRAFT"
        assert transfer["sourceAmount"]["value"] == "2550"
        shown = await browser.get(f"/console/transfers/{transfer['id']}")
        assert f"Submitted by</dt><dd>{tenant.console_email}" in shown.text  # as the user

        draft = carried(
            await act(
                browser,
                "transfers",
                {
                    "sourceAccountId": usd,
                    "destinationId": other_usd,
                    "amount": "1",
                    "currency": "USD",
                    "confirm": "no",
                },
            )
        )
        assert (await tenant.client.get(f"/v1/transfers/{draft['transferId']}")).json()[
            "status"
        ] == "DRAFT"


async def test_bad_input_is_refused_beside_its_form_and_writes_nothing(app, tenant, owner):
    async with console_browser(app, tenant) as browser:
        before = (await tenant.client.get(f"/v1/accounts/{owner.usd_account}/balance")).json()
        refused = await act(
            browser, "fund", {"accountId": owner.usd_account, "amount": "ten", "currency": "USD"}
        )
        assert refused.status_code == 422
        assert "amount" in refusal_in(refused.text, "fund")
        assert 'value="ten"' in refused.text  # what was typed is kept
        after = (await tenant.client.get(f"/v1/accounts/{owner.usd_account}/balance")).json()
        assert after == before

        unknown = await act(browser, "approve", {"customerId": "cus_00000000000000000000000000"})
        assert unknown.status_code == 404
        assert "not_found" in refusal_in(unknown.text, "approve")

        listed = (await tenant.client.get("/v1/customers")).json()["data"]
        bad_email = await act(
            browser, "customers", {"firstName": "A", "lastName": "B", "email": "not-an-email"}
        )
        assert bad_email.status_code == 422
        assert "email" in refusal_in(bad_email.text, "customer")
        assert (await tenant.client.get("/v1/customers")).json()["data"] == listed

        too_much = await act(
            browser,
            "transfers",
            {
                "sourceAccountId": owner.usd_account,
                "destinationId": owner.payee_account_id,
                "paymentRail": "ACH",
                "amount": "99999999.00",
                "currency": "USD",
                "confirm": "yes",
            },
        )
        assert too_much.status_code in (409, 422), too_much.text
        assert "Nothing was written" in too_much.text
        transfers = (await tenant.client.get("/v1/transfers")).json()["data"]
        assert transfers == []


async def test_a_deposit_and_a_leg_moved_by_the_sandbox(app, tenant, owner):
    # A transfer waiting for money from outside: its deposit instructions.
    waiting = await tenant.client.post(
        "/v1/transfers",
        json={
            "customerId": owner.customer.id,
            "source": {"currency": "USD", "paymentRail": "ACH"},
            "destination": {"accountId": owner.usd_account},
            "amount": {"currency": "USD", "value": "700"},
            "confirm": True,
        },
    )
    assert waiting.status_code == 201, waiting.text
    instructions = waiting.json()["depositInstructions"]
    async with console_browser(app, tenant) as browser:
        shown = await browser.get(f"{PAGE}?transferId={waiting.json()['id']}")
        # The deposit form is filled in with what the transfer waits for.
        assert f'value="{instructions["accountId"]}"' in shown.text
        assert f'value="{instructions["reference"]}"' in shown.text
        deposit = carried(
            await act(
                browser,
                "deposit",
                {
                    "virtualAccountId": instructions["accountId"],
                    "reference": instructions["reference"],
                    "paymentRail": "ACH",
                    "amount": "7.00",
                    "currency": "USD",
                },
            )
        )
        assert deposit["depositId"].startswith("inw_")
        assert deposit["transferId"] == waiting.json()["id"]  # it matched
        unmatched = carried(
            await act(
                browser,
                "deposit",
                {
                    "virtualAccountId": instructions["accountId"],
                    "paymentRail": "ACH",
                    "amount": "3.00",
                    "currency": "USD",
                },
            )
        )
        listed = await tenant.client.get(f"/v1/customers/{owner.customer.id}/unmatched-deposits")
        assert [item["id"] for item in listed.json()["data"]] == [unmatched["depositId"]]

        paid = carried(
            await act(
                browser,
                "transfers",
                {
                    "sourceAccountId": owner.usd_account,
                    "destinationId": owner.payee_account_id,
                    "paymentRail": "ACH",
                    "amount": "10.00",
                    "currency": "USD",
                    "confirm": "yes",
                },
            )
        )
        transfer = (await tenant.client.get(f"/v1/transfers/{paid['transferId']}")).json()
        current = next(leg for leg in transfer["legs"] if leg["status"] not in ("COMPLETED",))
        page = await browser.get(f"{PAGE}?transferId={transfer['id']}")
        assert current["id"] in page.text
        carried(
            await act(
                browser,
                "legs",
                {
                    "transferId": transfer["id"],
                    "legId": current["id"],
                    "status": "FAILED",
                    "reason": "Account closed",
                },
            )
        )
        failed = (await tenant.client.get(f"/v1/transfers/{transfer['id']}")).json()
        assert failed["status"] == "FAILED"

        again = await act(
            browser,
            "legs",
            {"transferId": transfer["id"], "legId": current["id"], "status": "COMPLETED"},
        )
        assert again.status_code == 409
        assert "invalid_state" in refusal_in(again.text, "leg")


async def test_a_test_event_of_a_catalog_type_goes_to_the_endpoint_only(app, tenant):
    chosen = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": "http://127.0.0.1:9/chosen"}
    )
    assert chosen.status_code == 201, chosen.text
    other = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": "http://127.0.0.1:9/other"}
    )
    picky = await tenant.client.post(
        "/v1/webhooks/endpoints",
        json={"url": "http://127.0.0.1:9/picky", "eventTypes": ["customer.created"]},
    )
    async with console_browser(app, tenant) as browser:
        page = await browser.get(PAGE)
        options = re.search(r'<select id="event-type" name="type">(.*?)</select>', page.text, re.S)
        assert options and 'value="transfer.completed"' in options.group(1)
        assert '<input id="event-type"' not in page.text  # a list, not free text
        sent = carried(
            await act(
                browser, "events", {"endpointId": chosen.json()["id"], "type": "transfer.completed"}
            )
        )
        message = (await tenant.client.get(f"/v1/webhooks/messages/{sent['messageId']}")).json()
        assert message["eventType"] == "transfer.completed" and message["tags"] == ["test"]
        assert message["payload"]["data"]["test"] is True
        assert [delivery["endpointId"] for delivery in message["deliveries"]] == [
            chosen.json()["id"]
        ]
        assert other.json()["id"] not in str(message)

        unknown = await act(
            browser, "events", {"endpointId": chosen.json()["id"], "type": "transfer.exploded"}
        )
        assert unknown.status_code == 422
        assert "catalog" in refusal_in(unknown.text, "event")
        not_wanted = await act(
            browser, "events", {"endpointId": picky.json()["id"], "type": "transfer.completed"}
        )
        assert not_wanted.status_code == 409
        assert "does not subscribe" in refusal_in(not_wanted.text, "event")


async def test_an_agents_test_payment_is_its_own_submit_and_parks_over_its_limit(app, owner):
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")  # 500.00 per transfer
    payment = {
        "agentId": agent["id"],
        "destinationId": owner.payee_account_id,
        "paymentRail": "ACH",
        "currency": "USD",
    }
    async with console_browser(app, owner.tenant) as browser:
        keyless = await act(browser, "agent-payments", {**payment, "amount": "25.00"})
        assert keyless.status_code == 409
        assert "no live key" in refusal_in(keyless.text, "agent")

        key = await owner.agent_key(agent["id"])
        paid = carried(await act(browser, "agent-payments", {**payment, "amount": "25.00"}))
        transfer = (await owner.client.get(f"/v1/transfers/{paid['transferId']}")).json()
        assert transfer["agentId"] == agent["id"] and transfer["status"] != "DRAFT"
        shown = await browser.get(f"/console/transfers/{transfer['id']}")
        # Submitted by the agent's key, not by the console user: named by the agent's and
        # the key's names, the id beside them.
        submitted = re.search(r"<dt>Submitted by</dt><dd>(.*?)</dd>", shown.text)
        assert submitted, shown.text
        assert submitted.group(1) == (
            f"Agent “{agent['name']}” · key “{key['name']}” "
            f'<span class="muted mono">{key["id"]}</span>'
        )

        answer = await act(browser, "agent-payments", {**payment, "amount": "600.00"})
        over = carried(answer)
        assert "awaits an owner's approval" in over["parked"]
        page = await browser.get(answer.headers["location"])
        assert "Parked for approval" in page.text and over["transferId"] in page.text
        parked = (await owner.client.get(f"/v1/transfers/{over['transferId']}")).json()
        assert parked["status"] == "DRAFT" and parked["agentApprovalStatus"] == "PENDING"

        foreign = await act(
            browser,
            "agent-payments",
            {**payment, "destinationId": "ext_00000000000000000000000000", "amount": "5"},
        )
        assert foreign.status_code in (403, 404, 422), foreign.text
        assert "Nothing was written" in foreign.text


@asynccontextmanager
async def _live_console(production_app, make_tenant):
    live = await make_tenant(production_app)
    transport = httpx.ASGITransport(app=production_app, raise_app_exceptions=False)
    # Outside the sandbox the session cookie is Secure: the browser speaks https.
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        answer = await sign_in(client, live.console_email, live.console_password)
        assert answer.status_code == 303, answer.text
        yield client


async def test_a_live_server_has_no_test_mode(production_app, make_tenant):
    async with _live_console(production_app, make_tenant) as browser:
        home = await browser.get("/console")
        assert home.status_code == 200
        assert "/console/test-mode" not in home.text and "Test mode" not in home.text
        assert (await browser.get(PAGE)).status_code == 404
        token = csrf_of(home.text)
        for action in (
            "customers",
            "approve",
            "fund",
            "deposit",
            "transfers",
            "legs",
            "events",
            "agent-payments",
        ):
            answer = await browser.post(
                f"{PAGE}/{action}", data={"csrf_token": token, "amount": "1"}
            )
            assert answer.status_code == 404, (action, answer.text)
