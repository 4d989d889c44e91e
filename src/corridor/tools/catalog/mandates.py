"""Agent mandate tools for an owner (console sessions and unrestricted keys): list an
agent's mandates, create one, revoke one. Amounts are decimals in major units."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, Field

from corridor.agents.mandates import service as mandates
from corridor.agents.mandates.rules import Recurrence
from corridor.agents.mandates.schemas import (
    MandateCreate,
    MandatePayeeIn,
    MandateRead,
    payees_max,
    purpose_chars_max,
)
from corridor.auth.scopes import Scope
from corridor.kit.clock import isoformat_z
from corridor.kit.schemas import CurrencyCode, SingleLineText
from corridor.tools.amounts import DecimalString, decimal_of, minor_units_of
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind, ToolResult
from corridor.tools.catalog.common import AgentId, Identifier, PagedInput
from corridor.tools.results import ListResult

MandateId = Annotated[Identifier, Field(description="An agent mandate id (mdt_…)")]


class MandateResult(ToolResult):
    id: str
    agent_id: str
    status: str
    currency: str
    payees: list[dict[str, str]]
    max_per_payment: str = Field(description="Decimal")
    budget: str = Field(description="Decimal, per period")
    recurrence: str
    used: str = Field(description="Decimal, in the current period")
    uses: int
    max_uses: int | None
    period_resets_at: str | None
    not_before: str
    not_after: str
    purpose: str

    @classmethod
    def of(cls, read: MandateRead) -> MandateResult:
        money = read.currency
        return cls(
            id=read.id,
            agent_id=read.agent_id,
            status=read.status,
            currency=money,
            payees=[payee.model_dump(mode="json", exclude_none=True) for payee in read.payees],
            max_per_payment=decimal_of(int(read.max_per_payment), money),
            budget=decimal_of(int(read.budget.amount), money),
            recurrence=read.budget.recurrence,
            used=decimal_of(int(read.used), money),
            uses=read.uses,
            max_uses=read.max_uses,
            period_resets_at=isoformat_z(read.period_resets_at) if read.period_resets_at else None,
            not_before=isoformat_z(read.not_before),
            not_after=isoformat_z(read.not_after),
            purpose=read.purpose,
        )


class ListMandates(PagedInput):
    agent_id: AgentId


class CreateMandate(ToolInput):
    agent_id: AgentId
    currency: CurrencyCode = Field(description="The agent's currency")
    payees: list[MandatePayeeIn] = Field(min_length=1, max_length=payees_max)
    max_per_payment: DecimalString
    budget: DecimalString
    recurrence: Recurrence = Field(
        default=Recurrence.NONE, description="NONE, DAILY, WEEKLY (from Monday) or MONTHLY (UTC)"
    )
    max_uses: Annotated[int, Field(ge=1)] | None = None
    not_before: AwareDatetime | None = None
    not_after: AwareDatetime
    purpose: Annotated[SingleLineText, Field(min_length=1, max_length=purpose_chars_max)]


class RevokeMandate(ToolInput):
    mandate_id: MandateId


def _result(mandate: object, now: datetime) -> MandateResult:
    return MandateResult.of(MandateRead.of(mandate, now))


async def list_mandates(context: ToolContext, args: ListMandates) -> ListResult[MandateResult]:
    found = await mandates.list_mandates(
        context.session, caller=context.caller, agent_id=args.agent_id, page=args.page()
    )
    return ListResult[MandateResult].of(found, lambda mandate: _result(mandate, context.now))


async def create_mandate(context: ToolContext, args: CreateMandate) -> MandateResult:
    money = args.currency
    data = MandateCreate.model_validate(
        {
            "currency": money,
            "payees": [payee.model_dump(mode="json", exclude_none=True) for payee in args.payees],
            "maxPerPayment": str(
                minor_units_of(args.max_per_payment, money, field="maxPerPayment")
            ),
            "budget": {
                "amount": str(minor_units_of(args.budget, money, field="budget")),
                "recurrence": args.recurrence.value,
            },
            "maxUses": args.max_uses,
            "notBefore": isoformat_z(args.not_before) if args.not_before else None,
            "notAfter": isoformat_z(args.not_after),
            "purpose": args.purpose,
        }
    )
    mandate = await mandates.create_mandate(
        context.session, caller=context.caller, agent_id=args.agent_id, data=data, now=context.now
    )
    return _result(mandate, context.now)


async def revoke_mandate(context: ToolContext, args: RevokeMandate) -> MandateResult:
    mandate = await mandates.revoke_mandate(
        context.session,
        caller=context.caller,
        mandate_id=args.mandate_id,
        now=context.now,
        reason=None,
    )
    return _result(mandate, context.now)


def _summarize_create(args: CreateMandate, result: object) -> str:
    per = "" if args.recurrence == Recurrence.NONE else f" {args.recurrence.value.lower()}"
    return (
        f"Let agent {args.agent_id} pay {len(args.payees)} payee(s) up to {args.budget} "
        f"{args.currency}{per}, at most {args.max_per_payment} {args.currency} a payment, "
        f"until {isoformat_z(args.not_after)}"
    )


def _summarize_revoke(args: RevokeMandate, result: object) -> str:
    return f"Revoke agent mandate {args.mandate_id} (final)"


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_agent_mandates",
        title="List an agent's mandates",
        description=(
            "An agent's mandates: payees, maximum per payment, budget per period and what "
            "is used of it (decimals), uses, window and status."
        ),
        input=ListMandates,
        result=ListResult[MandateResult],
        kind=ToolKind.READ,
        scope=Scope.AGENTS_MANAGE,
        handler=list_mandates,
        agent_key_reads_own=True,
    ),
    Tool(
        name="create_agent_mandate",
        title="Create an agent mandate",
        description=(
            "Authorise an agent to pay these payees at most max_per_payment at once and "
            "budget per period (NONE, DAILY, WEEKLY, MONTHLY, UTC), max_uses times, between "
            "not_before and not_after. Amounts are decimals in the agent's currency."
        ),
        input=CreateMandate,
        result=MandateResult,
        kind=ToolKind.WRITE,
        scope=Scope.AGENTS_MANAGE,
        handler=create_mandate,
        for_agent_keys=False,
        for_platform_sessions=False,
        unrestricted_only=True,
        summarize=_summarize_create,
    ),
    Tool(
        name="revoke_agent_mandate",
        title="Revoke an agent mandate",
        description="Final: the mandate admits no payment from now on.",
        input=RevokeMandate,
        result=MandateResult,
        kind=ToolKind.WRITE,
        scope=Scope.AGENTS_MANAGE,
        handler=revoke_mandate,
        for_agent_keys=False,
        for_platform_sessions=False,
        unrestricted_only=True,
        destructive=True,
        summarize=_summarize_revoke,
    ),
)
