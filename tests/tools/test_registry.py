"""The tool registry: the caller decides the tools, tools act as the caller with the
REST API's rules, amounts in and out are decimals."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from corridor.auth.callers import CallerKind
from corridor.models.transfer import Transfer
from corridor.tools.registry import TOOLS, dry_run, tool_for, tools_for
from tests.agents.conftest import Owner
from tests.auth.credentials import console_token, key_secret
from tests.tools.support import call, caller_of, environment_of, refused

AGENT_KEY_TOOLS = {
    "list_customers",
    "get_customer",
    "list_accounts",
    "get_balance",
    "list_balance_transactions",
    "list_external_accounts",
    "list_transfers",
    "get_transfer",
    "create_transfer",
    "update_transfer",
    "submit_transfer",
    "cancel_transfer",
    "create_quote",
    "get_agent_spend",
    "list_agent_mandates",
}
SANDBOX_TOOLS = {"sandbox_approve_customer", "sandbox_fund_account", "sandbox_complete_transfer"}


def names(tools) -> set[str]:
    return {tool.name for tool in tools}


def test_every_tool_declares_its_shapes_kind_and_scope() -> None:
    for tool in TOOLS:
        assert tool.description and tool.title, tool.name
        assert tool.input_schema()["type"] == "object"
        assert tool.output_schema()["type"] == "object"
        assert tool.scope
        if tool.kind == "write":
            assert tool.summarize is not None, f"{tool.name} has no summary for a person"


async def test_unrestricted_key_and_console_get_every_tool(app, tenant) -> None:
    key = await caller_of(app, tenant.secret)
    console = await caller_of(app, await console_token(tenant))
    assert names(tools_for(key, app.state.settings)) == names(TOOLS)
    assert names(tools_for(console, app.state.settings)) == names(TOOLS)


async def test_production_offers_no_sandbox_tool(app, production_app, make_tenant) -> None:
    live = await make_tenant(production_app)
    caller = await caller_of(production_app, live.secret)
    offered = names(tools_for(caller, production_app.state.settings))
    assert offered == names(TOOLS) - SANDBOX_TOOLS


async def test_agent_key_gets_only_its_own_transfer_account_and_customer_tools(
    app, owner: Owner
) -> None:
    agent = await owner.create_agent()
    secret = (await owner.agent_key(agent["id"]))["secret"]
    caller = await caller_of(app, secret)
    assert caller.kind is CallerKind.AGENT_KEY
    assert names(tools_for(caller, app.state.settings)) == AGENT_KEY_TOOLS


async def test_restricted_key_gets_the_tools_its_scopes_allow(app, tenant) -> None:
    caller = await caller_of(app, await key_secret(tenant, ["transfers:read", "accounts:read"]))
    assert names(tools_for(caller, app.state.settings)) == {
        "list_accounts",
        "get_balance",
        "list_balance_transactions",
        "list_transfers",
        "get_transfer",
    }
    error = await refused(app, caller, "create_transfer")
    assert error.code == "forbidden"


async def test_platform_session_gets_no_tool_that_moves_money_outside_review(
    app, make_tenant
) -> None:
    platform = await make_tenant(kind="PLATFORM")
    caller = await caller_of(app, platform.secret)
    assert caller.kind is CallerKind.PLATFORM_SESSION
    offered = names(tools_for(caller, app.state.settings))
    assert not offered & (SANDBOX_TOOLS | {"decide_agent_payment"})
    assert {"create_transfer", "submit_transfer", "create_business_customer"} <= offered
    # Until bound to a customer, tools answer customer_binding_required.
    error = await refused(app, caller, "list_transfers")
    assert error.code == "customer_binding_required"


async def test_balance_and_transactions_answer_in_decimals(app, owner: Owner) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    balance = await call(app, caller, "get_balance", accountId=owner.usd_account)
    assert balance["available"] == {"amount": "1000000.00", "currency": "USD"}
    listed = await call(app, caller, "list_balance_transactions", accountId=owner.usd_account)
    assert listed["data"][0]["amount"] == {"amount": "1000000.00", "currency": "USD"}
    assert listed["data"][0]["direction"] == "CREDIT"


async def test_create_transfer_takes_decimals_and_stores_minor_units(app, owner: Owner) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    created = await call(app, caller, "create_transfer", **_payment(owner, "25.50"))
    assert created["status"] == "DRAFT"
    assert created["sourceAmount"] == {"amount": "25.50", "currency": "USD"}
    shown = await owner.client.get(f"/v1/transfers/{created['id']}")
    assert shown.json()["sourceAmount"]["value"] == "2550"


async def test_too_many_digits_are_refused_and_nothing_is_created(app, owner: Owner) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    before = await _transfer_count(app, owner)
    error = await refused(app, caller, "create_transfer", **_payment(owner, "25.505"))
    assert error.code == "validation_error"
    assert error.body["errors"] == [
        {"field": "amount", "message": error.body["errors"][0]["message"]}
    ]
    assert "never rounded" in error.message
    assert await _transfer_count(app, owner) == before


async def test_another_organizations_ids_are_not_found(app, owner: Owner, make_tenant) -> None:
    stranger = await caller_of(app, (await make_tenant()).secret)
    for name, arguments in [
        ("get_balance", {"accountId": owner.usd_account}),
        ("get_customer", {"customerId": owner.customer.id}),
        ("create_transfer", _payment(owner, "1.00")),
    ]:
        error = await refused(app, stranger, name, **arguments)
        assert (error.code, error.status) == ("not_found", 404), name


async def test_server_owned_fields_cannot_be_passed(app, owner: Owner) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    arguments = {**_payment(owner, "1.00"), "organizationId": "org_01jd3x0p6x9e3k2v1m8q4r7s5t"}
    error = await refused(app, caller, "create_transfer", **arguments)
    assert error.code == "validation_error"
    assert error.body["errors"][0]["field"] == "organizationId"


async def test_agent_key_submits_within_limits(app, owner: Owner) -> None:
    agent = await owner.create_agent()
    caller = await caller_of(app, (await owner.agent_key(agent["id"]))["secret"])
    sent = await call(app, caller, "create_transfer", **_payment(owner, "400.00", submit=True))
    assert sent["status"] == "PENDING"
    assert sent["agentId"] == agent["id"]
    spend = await call(app, caller, "get_agent_spend", agentId=agent["id"])
    assert spend["windows"][0] == {
        "window": "day",
        "limit": "1000.00",
        "used": "400.00",
        "remaining": "600.00",
        "resetsAt": "2026-11-19T00:00:00.000Z",
    }


async def test_agent_over_its_limit_gets_the_denial_in_decimals(app, owner: Owner) -> None:
    agent = await owner.create_agent()
    caller = await caller_of(app, (await owner.agent_key(agent["id"]))["secret"])
    before = await _transfer_count(app, owner)
    error = await refused(app, caller, "create_transfer", **_payment(owner, "500.01", submit=True))
    assert (error.code, error.status) == ("agent_limit_exceeded", 403)
    assert error.body["denial"] == {
        "code": "per_transfer_limit_exceeded",
        "message": error.body["denial"]["message"],
        "window": "transfer",
        "limit": "500.00",
        "attemptedAmount": "500.01",
        "currency": "USD",
    }
    assert "500.00 USD" in error.body["hint"]
    assert await _transfer_count(app, owner) == before


async def test_parked_agent_payment_is_kept_and_only_an_owner_decides(app, owner: Owner) -> None:
    agent = await owner.create_agent(overLimitAction="REQUEST_APPROVAL")
    agent_caller = await caller_of(app, (await owner.agent_key(agent["id"]))["secret"])
    error = await refused(
        app, agent_caller, "create_transfer", **_payment(owner, "600.00", submit=True)
    )
    assert error.code == "agent_approval_required"
    transfer_id = error.body["transferId"]
    pending = await call(app, agent_caller, "get_transfer", transferId=transfer_id)
    assert pending["agentApprovalStatus"] == "PENDING"
    assert (await refused(app, agent_caller, "decide_agent_payment")).code == "forbidden"
    restricted = await caller_of(app, await key_secret(owner.tenant, ["transfers:write"]))
    assert (await refused(app, restricted, "decide_agent_payment")).code == "forbidden"
    owner_caller = await caller_of(app, owner.tenant.secret)
    approved = await call(
        app, owner_caller, "decide_agent_payment", transferId=transfer_id, decision="APPROVE"
    )
    assert (approved["status"], approved["agentApprovalStatus"]) == ("PENDING", "APPROVED")


async def test_dry_run_answers_like_the_call_and_writes_nothing(app, owner: Owner) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    tool = tool_for(caller, app.state.settings, "create_transfer")
    arguments = tool.input.model_validate(_payment(owner, "25.00", submit=True))
    before = await _transfer_count(app, owner)
    previewed = await dry_run(environment_of(app), caller, tool, arguments)
    assert previewed.status == "PENDING"
    assert tool.summarize is not None
    summary = tool.summarize(arguments, previewed)
    assert summary.startswith(f"Send 25.00 USD from {owner.usd_account} to ")
    assert summary.endswith("by ACH")
    assert await _transfer_count(app, owner) == before
    balance = await call(app, caller, "get_balance", accountId=owner.usd_account)
    assert balance["available"]["amount"] == "1000000.00"


@pytest.mark.parametrize("tool_name", ["sandbox_fund_account"])
async def test_sandbox_tools_fund_in_decimals(app, owner: Owner, tool_name: str) -> None:
    caller = await caller_of(app, owner.tenant.secret)
    funded = await call(app, caller, tool_name, accountId=owner.usd_account, amount="0.01")
    assert funded["available"]["amount"] == "1000000.01"
    error = await refused(app, caller, tool_name, accountId=owner.usd_account, amount="0.001")
    assert error.code == "validation_error"


def _payment(owner: Owner, amount: str, **extra) -> dict:
    return {
        "customerId": owner.customer.id,
        "source": {"accountId": owner.usd_account},
        "destination": {
            "externalAccountId": owner.payee_account_id,
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": amount,
        "currency": "USD",
        **extra,
    }


async def _transfer_count(app, owner: Owner) -> int:
    async with app.state.database.session(write=False) as session:
        return await session.scalar(
            select(func.count())
            .select_from(Transfer)
            .where(Transfer.organization_id == owner.tenant.organization_id)
        )


async def test_an_owner_manages_mandates_with_tools_and_the_agent_pays_under_one(
    app, owner: Owner
) -> None:
    agent = await owner.create_agent(requireMandate=True)
    owner_caller = await caller_of(app, owner.tenant.secret)
    agent_caller = await caller_of(app, (await owner.agent_key(agent["id"]))["secret"])
    error = await refused(
        app, agent_caller, "create_transfer", **_payment(owner, "10.00", submit=True)
    )
    assert error.body["denial"]["code"] == "mandate_required"
    mandate = await call(
        app,
        owner_caller,
        "create_agent_mandate",
        agentId=agent["id"],
        currency="USD",
        payees=[{"type": "counterparty", "id": owner.counterparty_id}],
        maxPerPayment="50.00",
        budget="80.00",
        recurrence="DAILY",
        notAfter="2027-01-01T00:00:00Z",
        purpose="Invoices",
    )
    assert (mandate["budget"], mandate["used"], mandate["status"]) == ("80.00", "0.00", "ACTIVE")
    assert (await refused(app, agent_caller, "create_agent_mandate")).code == "forbidden"
    sent = await call(app, agent_caller, "create_transfer", **_payment(owner, "50.00", submit=True))
    assert sent["mandateId"] == mandate["id"]
    error = await refused(
        app, agent_caller, "create_transfer", **_payment(owner, "40.00", submit=True)
    )
    assert error.body["denial"]["code"] == "mandate_budget_exceeded"
    assert error.body["denial"]["remaining"] == "30.00"
    listed = await call(app, agent_caller, "list_agent_mandates", agentId=agent["id"])
    assert [(item["id"], item["used"], item["uses"]) for item in listed["data"]] == [
        (mandate["id"], "50.00", 1)
    ]
    revoked = await call(app, owner_caller, "revoke_agent_mandate", mandateId=mandate["id"])
    assert revoked["status"] == "REVOKED"
