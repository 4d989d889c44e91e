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
