"""A write-tool call confirmed or refused by a person is on the audit chain (issue 25),
in the decision's transaction: the REST decision of an owner on an MCP client's call."""

from __future__ import annotations

from tests.console.test_tool_confirmations import _pending


async def test_confirmed_and_refused_tool_calls_are_recorded(app, tenant):
    approve, refuse = await _pending(app, tenant, "25.00"), await _pending(app, tenant, "26.00")
    for confirmation_id, approved in ((approve, True), (refuse, False)):
        decided = await tenant.client.post(
            f"/v1/tool-confirmations/{confirmation_id}/decision", json={"approved": approved}
        )
        assert decided.status_code == 200, decided.text
    again = await tenant.client.post(
        f"/v1/tool-confirmations/{approve}/decision", json={"approved": False}
    )
    assert again.status_code == 409

    events = (await tenant.client.get("/v1/audit-events")).json()["data"]
    decided = {event["detail"]["confirmationId"]: event for event in events}
    assert len(events) == 2  # the refused second decision wrote nothing
    assert decided[approve]["kind"] == "tool.call.confirmed"
    assert decided[approve]["outcome"] == "confirmed"
    assert decided[refuse]["kind"] == "tool.call.refused"
    assert decided[refuse]["outcome"] == "refused"
    assert decided[approve]["actor"]["type"] == "api_key"
    assert decided[approve]["detail"]["tool"] == "create_transfer"
    assert decided[approve]["detail"]["origin"] == "mcp"
    assert decided[approve]["detail"]["caller"]["type"] == "organization_key"


async def test_a_tool_call_denied_by_the_agents_limits_is_recorded_a_dry_run_is_not(app, owner):
    """The tools' runner (MCP, the assistant) writes the denial after its rollback; the
    assistant's preview (a dry run, always rolled back) records nothing."""
    from corridor.tools.registry import ToolError, dry_run, parse_arguments, tool_for
    from tests.tools.support import caller_of, environment_of, refused
    from tests.tools.test_registry import _payment

    agent = await owner.create_agent()
    caller = await caller_of(app, (await owner.agent_key(agent["id"]))["secret"])
    payment = _payment(owner, "500.01", submit=True)
    error = await refused(app, caller, "create_transfer", **payment)
    assert error.code == "agent_limit_exceeded"
    tool = tool_for(caller, app.state.settings, "create_transfer")
    try:
        await dry_run(environment_of(app), caller, tool, parse_arguments(tool, payment))
    except ToolError as previewed:
        assert previewed.code == "agent_limit_exceeded"
    events = (
        await owner.client.get(
            "/v1/audit-events", params={"agentId": agent["id"], "kind": "agent.payment.denied"}
        )
    ).json()["data"]
    assert len(events) == 1
    assert events[0]["detail"]["code"] == "per_transfer_limit_exceeded"
