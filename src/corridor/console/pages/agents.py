"""Agents: the list (the list API's customer filter), and one agent with its spend per
window drawn against its limit, its keys, and the actions on it: pause, resume, revoke,
issue a key (its secret shown once, in the answer to the POST only) and revoke a key.
Each calls the service the REST endpoint calls (`agents.service`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastapi import Response
from pydantic import ValidationError

from corridor.agents import service as agents
from corridor.agents.mandates import service as mandates
from corridor.agents.mandates.schemas import MandateRead
from corridor.agents.rules import AgentStatus, NewPayeeAction, OverLimitAction, PayeeType
from corridor.agents.schemas import (
    AgentCreate,
    AgentKeyCreate,
    AgentRead,
    AgentSpendRead,
    AgentUpdate,
)
from corridor.auth.callers import ToolConfirmation
from corridor.console.forms import parse_form, problems_by_field
from corridor.console.layout import notice, page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.customers import service as customers
from corridor.kit.errors import CorridorError, ValidationFailed
from corridor.kit.money import CURRENCIES, MoneyError, from_decimal_string
from corridor.kit.money import currency as currency_of
from corridor.kit.pagination import PageRequest

router = console_router()

# The keys shown on an agent's page, newest first (an agent has a handful).
agent_keys_shown_max = 50
# Past this share of a window's limit the meter turns amber (then red at the limit).
meter_warning_share = 0.8

CREATED = notice("agent-created", "Agent created: issue it a key for its program.")
PAUSED = notice("agent-paused", "Paused: the agent's submits are refused until it resumes.")
RESUMED = notice("agent-resumed", "Resumed: the agent can submit again.")
REVOKED = notice("agent-revoked", "Revoked: the agent and all its keys stopped working.")
MANDATE_REVOKED = notice("mandate-revoked", "Mandate revoked: it admits no payment any more.")
KEY_REVOKED = notice("agent-key-revoked", "Key revoked: it stopped working at once.")


@dataclass(frozen=True, slots=True)
class Meter:
    """One spend window as drawn: how much of the limit is used (0..1 for the bar)."""

    window: str
    currency: str
    limit_minor: int | None
    used_minor: int
    remaining_minor: int | None
    resets_at: datetime

    @property
    def share(self) -> float:
        if self.limit_minor is None:
            return 0.0
        if self.limit_minor == 0:  # nothing may be spent: the window is full
            return 1.0
        return min(self.used_minor / self.limit_minor, 1.0)

    @property
    def percent(self) -> int:
        return round(self.share * 100)

    @property
    def level(self) -> str:
        if self.limit_minor is None:
            return "none"
        if self.used_minor >= self.limit_minor:
            return "full"
        return "warning" if self.share >= meter_warning_share else "ok"


def meters_of(spend: AgentSpendRead) -> list[Meter]:
    return [
        Meter(
            window=window.window,
            currency=spend.currency,
            limit_minor=int(window.limit) if window.limit is not None else None,
            used_minor=int(window.used),
            remaining_minor=int(window.remaining) if window.remaining is not None else None,
            resets_at=window.resets_at,
        )
        for window in spend.windows
    ]


@router.get("/agents")
async def agent_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=("customerId",))
    found = await agents.list_agents(
        console.session,
        caller=console.caller,
        customer_id=listing.get("customerId"),
        page=listing.page,
    )
    rows = [AgentRead.of(agent) for agent in found.items]
    names = await customers.names_of(
        console.session, caller=console.caller, customer_ids=[row.customer_id for row in rows]
    )
    return page(console, "agents/list.html", listing=listing, found=found, rows=rows, names=names)


async def _agent_page(
    console: Console, agent_id: str, *, created_key: object = None, status: int = 200
) -> Response:
    now = console.now()
    agent, usage = await agents.spend_of(
        console.session, caller=console.caller, agent_id=agent_id, now=now
    )
    keys = await agents.list_agent_keys(
        console.session,
        caller=console.caller,
        agent_id=agent.id,
        page=PageRequest(limit=agent_keys_shown_max, cursor=None),
    )
    names = await customers.names_of(
        console.session, caller=console.caller, customer_ids=[agent.customer_id]
    )
    found_mandates = await mandates.list_mandates(
        console.session,
        caller=console.caller,
        agent_id=agent.id,
        page=PageRequest(limit=agent_keys_shown_max, cursor=None),
    )
    spend = AgentSpendRead.of(agent, usage, now)
    return page(
        console,
        "agents/detail.html",
        mandates=[MandateRead.of(mandate, now) for mandate in found_mandates.items],
        status=status,
        agent=AgentRead.of(agent),
        meters=meters_of(spend),
        payments=spend.payments,
        keys=keys,
        customer_name=names.get(agent.customer_id),
        created_key=created_key,
        policy_values=[policy.value for policy in ToolConfirmation],
    )


# --- Creating an agent (spec 4.5: a console session or an unrestricted key) ----------------

AGENT_FORM_FIELDS = (
    "customerId",
    "sourceAccountId",
    "name",
    "description",
    "currency",
    "perTransfer",
    "daily",
    "monthly",
    "overLimitAction",
    "dailyPaymentCount",
    "newPayeeAction",
    "allowlist",
)
LIMIT_FIELDS = ("perTransfer", "daily", "monthly")


def _limits_of(form: dict[str, str], problems: dict[str, str]) -> dict[str, object]:
    """The limits typed as decimal amounts of the chosen currency, in minor units, and the
    daily payment count as a whole number."""
    code = form.get("currency") or "USD"
    limits: dict[str, object] = {"currency": code}
    for field in LIMIT_FIELDS:
        text = (form.get(field) or "").strip().replace(",", "")
        if not text:
            limits[field] = None
            continue
        try:
            minor = from_decimal_string(text, currency_of(code).exponent)
            if minor < 0:
                raise MoneyError("must not be negative")
            limits[field] = str(minor)
        except MoneyError as error:
            problems[field] = str(error)
    count = (form.get("dailyPaymentCount") or "").strip()
    if count:
        # A whole number of payments; anything else goes to validation as typed.
        limits["dailyPaymentCount"] = int(count) if count.isdigit() else count
    return limits


def _allowlist_of(text: str, problems: dict[str, str]) -> list[dict[str, str]]:
    """One payee a line: its type and id (`counterparty cp_…`)."""
    entries = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            problems["allowlist"] = f"{line.strip()[:80]!r}: write the type and the id"
            continue
        entries.append({"type": parts[0], "id": parts[1]})
    return entries


def _agent_create_of(form: dict[str, str], problems: dict[str, str]) -> AgentCreate | None:
    values = {
        "customerId": form.get("customerId", "").strip(),
        "sourceAccountId": form.get("sourceAccountId", "").strip(),
        "name": form.get("name", "").strip(),
        "description": form.get("description", "").strip() or None,
        "limits": _limits_of(form, problems),
        "destinationAllowlist": _allowlist_of(form.get("allowlist", ""), problems),
        "overLimitAction": form.get("overLimitAction") or "REJECT",
        "newPayeeAction": form.get("newPayeeAction") or "ALLOW",
    }
    try:
        return AgentCreate.model_validate(values)
    except ValidationError as error:
        for problem in error.errors():
            location = [str(part) for part in problem["loc"]]
            field = location[1] if location[:1] == ["limits"] and len(location) > 1 else location[0]
            if field == "destinationAllowlist":
                field = "allowlist"
            problems.setdefault(field, problem["msg"].removeprefix("Value error, "))
        return None


def _form_field(api_field: str) -> str:
    if api_field == "limits":
        return "currency"
    if api_field.startswith("destinationAllowlist"):
        return "allowlist"
    return api_field


def _new_agent_page(
    console: Console, *, sent: dict[str, str], problems: dict[str, str], status: int = 200
) -> Response:
    return page(
        console,
        "agents/new.html",
        status=status,
        sent=sent,
        problems=problems,
        currencies=list(CURRENCIES),
        actions=[action.value for action in OverLimitAction],
        new_payee_actions=[action.value for action in NewPayeeAction],
        payee_types=[payee.value for payee in PayeeType],
    )


@router.get("/agents/new")
async def new_agent(console: ConsolePage) -> Response:
    customer_id = console.request.query_params.get("customerId", "")[:64]
    return _new_agent_page(console, sent={"customerId": customer_id}, problems={})


@router.post("/agents/new")
async def create_agent(console: ConsolePage) -> Response:
    sent = {name: console.form.get(name, "") for name in AGENT_FORM_FIELDS}
    problems: dict[str, str] = {}
    data = _agent_create_of(console.form, problems)
    if data is not None and not problems:
        try:
            agent = await agents.create_agent(
                console.session, caller=console.caller, data=data, now=console.now()
            )
        except CorridorError as error:
            # Refusals about what was typed (an unknown customer or account, a customer not
            # ACTIVE) are shown with the form; any other goes to the error page.
            if error.status not in (404, 409, 422):
                raise
            await console.session.rollback()
            problems = {
                _form_field(field): message for field, message in problems_by_field(error).items()
            }
        else:
            await console.commit()
            return redirect(console.request, f"/console/agents/{agent.id}?done={CREATED}")
    return _new_agent_page(console, sent=sent, problems=problems, status=422)


@router.get("/agents/{agent_id}")
async def agent_detail(agent_id: str, console: ConsolePage) -> Response:
    return await _agent_page(console, agent_id)


async def _set_status(console: Console, agent_id: str, status: AgentStatus, done: str) -> Response:
    await agents.update_agent(
        console.session,
        caller=console.caller,
        agent_id=agent_id,
        data=AgentUpdate(status=status.value.lower()),
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/agents/{agent_id}?done={done}")


@router.post("/agents/{agent_id}/pause")
async def pause_agent(agent_id: str, console: ConsolePage) -> Response:
    return await _set_status(console, agent_id, AgentStatus.PAUSED, PAUSED)


@router.post("/agents/{agent_id}/resume")
async def resume_agent(agent_id: str, console: ConsolePage) -> Response:
    return await _set_status(console, agent_id, AgentStatus.ACTIVE, RESUMED)


@router.post("/agents/{agent_id}/revoke")
async def revoke_agent(agent_id: str, console: ConsolePage) -> Response:
    if console.form.get("confirm") != "yes":
        raise ValidationFailed("confirm", "tick the box to confirm: revoking cannot be undone")
    await agents.revoke_agent(
        console.session, caller=console.caller, agent_id=agent_id, now=console.now()
    )
    await console.commit()
    return redirect(console.request, f"/console/agents/{agent_id}?done={REVOKED}")


@router.post("/agents/{agent_id}/keys")
async def issue_key(agent_id: str, console: ConsolePage) -> Response:
    """The new key's secret is in this answer only (Cache-Control: no-store, as every
    console page): never stored, never in a URL or a redirect."""
    body = parse_form(AgentKeyCreate, {"name": console.form.get("name")})
    key, secret = await agents.create_agent_key(
        console.session,
        caller=console.caller,
        agent_id=agent_id,
        name=body.name,
        key_environment=console.settings.key_environment,
        now=console.now(),
    )
    await console.commit()
    return await _agent_page(
        console, agent_id, created_key={"name": key.name, "secret": secret}, status=201
    )


@router.post("/agents/{agent_id}/keys/{key_id}/revoke")
async def revoke_key(agent_id: str, key_id: str, console: ConsolePage) -> Response:
    await agents.revoke_agent_key(
        console.session,
        caller=console.caller,
        agent_id=agent_id,
        key_id=key_id,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/agents/{agent_id}?done={KEY_REVOKED}")


@router.post("/agents/{agent_id}/mandates/{mandate_id}/revoke")
async def revoke_mandate(agent_id: str, mandate_id: str, console: ConsolePage) -> Response:
    await mandates.revoke_mandate(
        console.session,
        caller=console.caller,
        mandate_id=mandate_id,
        now=console.now(),
        reason=None,
    )
    await console.commit()
    return redirect(console.request, f"/console/agents/{agent_id}?done={MANDATE_REVOKED}")
