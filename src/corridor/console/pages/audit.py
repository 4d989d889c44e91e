"""The audit chain (issue 25, API.md 9): the organization's records, newest first,
filtered by agent and kind, each with its sequence, outcome and hash; and the result of
verifying the whole chain (the same `audit.rules.verify` as `corridor audit verify`)."""

from __future__ import annotations

from fastapi import Response

from corridor.agents import service as agents
from corridor.audit import service as audit
from corridor.audit.rules import AuditFilters, AuditKind, AuditOutcome
from corridor.console.layout import page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router
from corridor.console.session import ConsolePage
from corridor.kit.pagination import PageRequest, page_size_max

router = console_router()

OUTCOME_BADGES = {
    AuditOutcome.ALLOWED: "status-completed",
    AuditOutcome.APPROVED: "status-completed",
    AuditOutcome.CONFIRMED: "status-completed",
    AuditOutcome.PARKED: "status-pending-confirmation",
    AuditOutcome.DENIED: "status-refused",
    AuditOutcome.DECLINED: "status-refused",
    AuditOutcome.REFUSED: "status-refused",
    AuditOutcome.REVOKED: "status-refused",
}


@router.get("/audit")
async def audit_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=("agent", "kind"))
    await audit.link_before_read(
        console.request.app.state.database, console.session, console.caller.organization_id
    )
    found = await audit.list_events(
        console.session,
        caller=console.caller,
        filters=AuditFilters(agent_id=listing.get("agent"), kind=listing.get("kind")),
        page=listing.page,
    )
    verification = await audit.verify_for(console.session, caller=console.caller)
    listed = await agents.list_agents(
        console.session,
        caller=console.caller,
        customer_id=None,
        page=PageRequest(limit=page_size_max, cursor=None),
    )
    return page(
        console,
        "audit/list.html",
        listing=listing,
        found=found,
        rows=found.items,
        agents=listed.items,
        agent_names={agent.id: agent.name for agent in listed.items},
        kinds=[kind.value for kind in AuditKind],
        badges={outcome.value: badge for outcome, badge in OUTCOME_BADGES.items()},
        verification=verification,
    )
