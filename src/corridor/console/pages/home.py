"""The home page: balances per currency and what needs someone's action now (agent
payments to approve, transfers to review and to authorize, failing webhook endpoints);
the action counts reload themselves."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Response

from corridor.console.insight import home_insight
from corridor.console.layout import page
from corridor.console.routing import console_router
from corridor.console.session import Console, ConsolePage
from corridor.kit.pagination import PageRequest
from corridor.transfers import service as transfers
from corridor.transfers.rules.states import AgentApprovalStatus, TransferStatus
from corridor.treasury import service as treasury
from corridor.webhooks import service as webhooks

router = console_router()

# Counts stop here and show "99+": a badge, not a report, and never a whole-table scan.
attention_count_cap = 100
# Endpoints looked at for failures (an organization has a handful).
endpoints_checked_max = 250
attention_refresh_s = 5


@dataclass(frozen=True, slots=True)
class Attention:
    label: str
    count: int
    href: str | None  # None: no console page for it yet

    @property
    def shown(self) -> str:
        if self.count >= attention_count_cap:
            return f"{attention_count_cap - 1}+"
        return str(self.count)


async def _count(console: Console, filters: transfers.TransferFilters) -> int:
    return await transfers.count_transfers(
        console.session, caller=console.caller, filters=filters, cap=attention_count_cap
    )


async def _attention(console: Console) -> list[Attention]:
    approvals = await _count(
        console,
        transfers.TransferFilters(
            status=TransferStatus.DRAFT.value,
            agent_approval_status=AgentApprovalStatus.PENDING.value,
        ),
    )
    reviews = await _count(
        console, transfers.TransferFilters(status=TransferStatus.IN_REVIEW.value)
    )
    authorizations = await _count(
        console, transfers.TransferFilters(status=TransferStatus.PENDING_AUTHORIZATION.value)
    )
    endpoints = await webhooks.list_endpoints(
        console.session,
        caller=console.caller,
        page=PageRequest(limit=endpoints_checked_max, cursor=None),
    )
    failing = sum(
        1
        for endpoint in endpoints.items
        if endpoint.failing_since is not None or endpoint.disabled_reason in ("FAILING", "GONE")
    )
    return [
        Attention("Agent payments to approve", approvals, "/console/approvals"),
        Attention("Transfers to review", reviews, "/console/reviews"),
        Attention("Transfers to authorize", authorizations, "/console/authorizations"),
        Attention("Failing webhook endpoints", failing, "/console/webhooks"),
    ]


@router.get("")
async def home(console: ConsolePage) -> Response:
    balances = await treasury.organization_balances(console.session, caller=console.caller)
    return page(
        console,
        "home.html",
        balances=balances,
        attention=await _attention(console),
        refresh_s=attention_refresh_s,
        insight=await home_insight(console),
    )


@router.get("/attention")
async def attention(console: ConsolePage) -> Response:
    return page(
        console,
        "parts/attention.html",
        attention=await _attention(console),
        refresh_s=attention_refresh_s,
    )
