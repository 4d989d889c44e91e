"""Agent tools: list agents, read an agent's spend, and an owner's decision on an agent
payment parked for approval (console sessions and unrestricted keys only)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from corridor.agents import approvals
from corridor.agents import service as agents
from corridor.agents.rules import ApprovalDecision
from corridor.agents.schemas import AgentRead, AgentSpendRead, approval_reason_chars_max
from corridor.auth.scopes import Scope
from corridor.kit.schemas import MultiLineText
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import (
    AgentId,
    CustomerId,
    PagedInput,
    TransferId,
    transfer_result,
)
from corridor.tools.results import AgentResult, AgentSpendResult, ListResult, TransferResult


class ListAgents(PagedInput):
    customer_id: CustomerId | None = None


class AgentInput(ToolInput):
    agent_id: AgentId


class DecideAgentPayment(ToolInput):
    transfer_id: TransferId
    decision: ApprovalDecision = Field(description="APPROVE submits it; DECLINE cancels it")
    reason: Annotated[MultiLineText, Field(max_length=approval_reason_chars_max)] | None = None


async def list_agents(context: ToolContext, args: ListAgents) -> ListResult[AgentResult]:
    found = await agents.list_agents(
        context.session, caller=context.caller, customer_id=args.customer_id, page=args.page()
    )
    return ListResult[AgentResult].of(found, lambda agent: AgentResult.of(AgentRead.of(agent)))


async def get_agent_spend(context: ToolContext, args: AgentInput) -> AgentSpendResult:
    agent, usage = await agents.spend_of(
        context.session, caller=context.caller, agent_id=args.agent_id, now=context.now
    )
    return AgentSpendResult.of(AgentSpendRead.of(agent, usage, context.now))


async def decide_agent_payment(context: ToolContext, args: DecideAgentPayment) -> TransferResult:
    found = await approvals.decide(
        context.session,
        caller=context.caller,
        transfer_id=args.transfer_id,
        decision=args.decision,
        reason=args.reason,
        plugins=context.plugins,
        now=context.now,
    )
    return transfer_result(found)


def _summarize_decision(args: DecideAgentPayment, result: object) -> str:
    verb = "Approve" if args.decision is ApprovalDecision.APPROVE else "Decline"
    if isinstance(result, TransferResult):
        return (
            f"{verb} agent {result.agent_id}'s payment {args.transfer_id} of "
            f"{result.source_amount.text()}"
        )
    return f"{verb} the agent payment {args.transfer_id}"


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_agents",
        title="List agents",
        description="List spending agents with their limits (decimals) and status.",
        input=ListAgents,
        result=ListResult[AgentResult],
        kind=ToolKind.READ,
        scope=Scope.AGENTS_MANAGE,
        handler=list_agents,
        for_agent_keys=False,
    ),
    Tool(
        name="get_agent_spend",
        title="Get an agent's spend",
        description=(
            "What an agent has spent today and this month against its limits, and what "
            "remains, as decimals. An agent key reads its own agent."
        ),
        input=AgentInput,
        result=AgentSpendResult,
        kind=ToolKind.READ,
        scope=Scope.AGENTS_MANAGE,
        handler=get_agent_spend,
        agent_key_reads_own=True,
    ),
    Tool(
        name="decide_agent_payment",
        title="Approve or decline an agent payment",
        description=(
            "An owner's decision on an agent payment awaiting approval (a DRAFT with "
            "agentApprovalStatus PENDING): APPROVE submits it, skipping only the spend "
            "limits; DECLINE cancels it."
        ),
        input=DecideAgentPayment,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=decide_agent_payment,
        for_agent_keys=False,
        for_platform_sessions=False,
        unrestricted_only=True,
        destructive=True,
        summarize=_summarize_decision,
    ),
)
