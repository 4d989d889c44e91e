"""Test mode (sandbox only): the sandbox's own operations from the console, as the signed-in
user. Create a customer and approve it, fund a balance account, simulate an incoming
deposit, create (and submit) a transfer, move a leg's status, send a test event of a type
of the catalog to an endpoint, and make an agent's test payment as the agent.

Each form calls the service its REST endpoint calls (the sandbox routes of
`customers`, `accounts`, `transfers.deposit_endpoints`, `transfers.endpoints`), with the
organization's sandbox clock (`clocks.service.clock_for`). A refusal comes back as the page
with the API's status and message beside the form and nothing written. On a live server
every route of this module answers 404: test mode does not exist there."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlencode

from fastapi import Response

from corridor.accounts import service as accounts
from corridor.accounts.schemas import AccountRead, BalanceRead
from corridor.agents import service as agents
from corridor.agents.schemas import AgentRead
from corridor.clocks import service as clocks
from corridor.console.forms import parse_form
from corridor.console.layout import notice, page
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.customers import reading
from corridor.customers import service as customers
from corridor.customers.schemas.customer import CustomerRead, IndividualCustomerCreate
from corridor.customers.states import CustomerStatus
from corridor.kit import aftermath
from corridor.kit.clock import Clock
from corridor.kit.errors import CorridorError, NotFound, ValidationFailed
from corridor.kit.money import CURRENCIES, MoneyError, from_decimal_string
from corridor.kit.money import currency as currency_of
from corridor.kit.pagination import PageRequest
from corridor.rails.base import RailName
from corridor.transfers import service as transfers
from corridor.transfers.actions import Parked
from corridor.transfers.deposits import instructions
from corridor.transfers.deposits import receiving as deposits
from corridor.transfers.engine import sandbox as transfers_sandbox
from corridor.transfers.schemas.requests import SandboxDeposit, SandboxLegStatus, TransferCreate
from corridor.transfers.schemas.transfer import TransferRead
from corridor.webhooks import service as webhooks
from corridor.webhooks import testing as test_events
from corridor.webhooks.catalog import EVENT_TYPES

router = console_router()

PATH = "/console/test-mode"
# What the page lists to pick from: a sandbox organization has a handful of each.
choices_max = 50
LEG_STATUSES = ("COMPLETED", "FAILED", "RETURNED")
FINAL_LEG_STATUSES = frozenset({"COMPLETED", "FAILED", "CANCELLED", "RETURNED"})
NOTHING_SHOWN: dict[str, Any] = {
    "customer": None,
    "accounts": [],
    "virtual": [],
    "transfer": None,
    "current_leg": None,
    "deposit": {},
}
# What the page takes of a carried value (ids; the parked refusal's sentence).
context_chars_max = 240
# Ids the page carries from one action to the next (in the query string).
CONTEXT = ("customerId", "accountId", "transferId", "messageId", "depositId", "parked")

CUSTOMER_CREATED = notice("tm-customer", "Customer created (INCOMPLETE): approve it below.")
APPROVED = notice("tm-approved", "Customer approved: ACTIVE, its balance accounts are open.")
FUNDED = notice("tm-funded", "Account funded: the money is on its balance.")
DEPOSITED = notice("tm-deposit", "Deposit received.")
TRANSFER_CREATED = notice("tm-transfer", "Transfer created.")
LEG_MOVED = notice("tm-leg", "Leg moved: the transfer carries on from there.")
EVENT_SENT = notice("tm-event", "Test event queued for the endpoint.")
AGENT_PAID = notice("tm-agent-paid", "The agent's test payment was submitted within its limits.")
AGENT_PARKED = notice(
    "tm-agent-parked",
    "The agent's test payment is over a limit: parked for an owner's approval (Approvals).",
)


def _require_sandbox(console: Console) -> None:
    if not console.settings.is_sandbox:
        raise NotFound("page", PATH)


async def _clock(console: Console) -> Clock:
    return await clocks.clock_for(
        console.session, caller=console.caller, sandbox=True, base=console.clock
    )


def _minor(text: str, code: str, field: str = "amount") -> int:
    """A decimal amount typed in the currency's units (25.50) as minor units."""
    try:
        exponent = currency_of(code).exponent
    except (MoneyError, KeyError):
        raise ValidationFailed("currency", f"{code!r} is not a currency Corridor knows") from None
    try:
        minor = from_decimal_string(text.strip().replace(",", ""), exponent)
    except MoneyError as error:
        raise ValidationFailed(field, str(error)) from None
    if minor <= 0:
        raise ValidationFailed(field, "must be more than zero")
    return minor


def _amount(form: dict[str, str], prefix: str = "") -> dict[str, str]:
    code = form.get(prefix + "currency", "").strip().upper()
    text = form.get(prefix + "amount", "")
    if not text.strip():
        raise ValidationFailed("amount", "is required")
    return {"currency": code, "value": str(_minor(text, code))}


def _text(form: dict[str, str], name: str) -> str | None:
    return (form.get(name) or "").strip() or None


def _destination(form: dict[str, str]) -> dict[str, str]:
    """A balance account (acc_…) or an external account or wallet with its rail and
    currency, as the API's `destination`."""
    target = _text(form, "destinationId")
    if target is None:
        raise ValidationFailed(
            "destination", "is required: a balance account or an external account id"
        )
    if target.startswith("acc_"):
        return {"accountId": target}
    found: dict[str, str] = {"externalAccountId": target}
    for field, name in (("paymentRail", "paymentRail"), ("currency", "destinationCurrency")):
        value = _text(form, name)
        if value is not None:
            found[field] = value
    # An external account's currency: the one chosen, else the amount's (the source's).
    found.setdefault("currency", form.get("currency", "").strip().upper())
    return found


def _deposit_defaults(transfer: TransferRead) -> dict[str, str]:
    """A transfer waiting for a deposit: its instructions, so the deposit simulated is
    exactly the one it waits for."""
    found = transfer.deposit_instructions
    if found is None or transfer.status != "PENDING":
        return {}
    defaults = {
        "paymentRail": found.payment_rail,
        "amount": found.amount.display_value,
        "currency": found.amount.currency,
        "reference": found.reference or "",
    }
    if found.to_address:
        defaults["toAddress"] = found.to_address
    else:
        defaults["virtualAccountId"] = found.account_id
    return defaults


# --- The page -----------------------------------------------------------------------------


async def _context(console: Console, values: dict[str, str]) -> dict[str, Any]:
    """What the page shows of the ids carried along: the customer's accounts (and the
    first account's virtual accounts, where a deposit can be sent), the transfer's legs."""
    shown: dict[str, Any] = dict(NOTHING_SHOWN)
    now = (await _clock(console)).now()
    customer_id = values.get("customerId")
    if customer_id:
        view = await reading.read_customer(
            console.session, caller=console.caller, customer_id=customer_id, expand=["accounts"]
        )
        shown["customer"] = CustomerRead.of(view.customer)
        shown["accounts"] = [
            (AccountRead.of(account), BalanceRead.of(account, as_of=now))
            for account in view.accounts or []
        ]
    account_id = values.get("accountId") or (
        shown["accounts"][0][0].id if shown["accounts"] else None
    )
    if account_id:
        values.setdefault("accountId", account_id)
        virtual = await instructions.virtual_accounts(
            console.session,
            caller=console.caller,
            account_id=account_id,
            page=PageRequest(limit=choices_max, cursor=None),
        )
        shown["virtual"] = [item for item in virtual.items if item.id.startswith("vba_")]
    transfer_id = values.get("transferId")
    if transfer_id:
        found = (
            await transfers.read_transfer(
                console.session, caller=console.caller, transfer_id=transfer_id
            )
        ).found
        shown["transfer"] = TransferRead.of(found.transfer, found.legs)
        shown["deposit"] = _deposit_defaults(shown["transfer"])
        shown["current_leg"] = next(
            (leg.id for leg in found.legs if leg.status not in FINAL_LEG_STATUSES), None
        )
    return shown


async def _page(
    console: Console,
    *,
    status: int = 200,
    failed: str | None = None,
    error: CorridorError | None = None,
) -> Response:
    query = console.request.query_params
    values = {name: query[name][:context_chars_max] for name in CONTEXT if query.get(name)}
    sent = dict(console.form) if failed else {}
    for name in ("customerId", "accountId", "transferId"):
        if sent.get(name):
            values[name] = sent[name][:80]
    try:
        shown = await _context(console, values)
    except CorridorError:
        # An id carried along that no longer answers (or was mistyped): the page still opens.
        await console.session.rollback()
        shown = dict(NOTHING_SHOWN)
    endpoints = await webhooks.list_endpoints(
        console.session, caller=console.caller, page=PageRequest(limit=choices_max, cursor=None)
    )
    found_agents = await agents.list_agents(
        console.session,
        caller=console.caller,
        customer_id=None,
        page=PageRequest(limit=choices_max, cursor=None),
    )
    clock = await _clock(console)
    return page(
        console,
        "testmode/page.html",
        status=status,
        here=PATH,
        failed=failed,
        error=error,
        problems=(error.errors or []) if error is not None else [],
        sent=sent,
        values=values,
        shown=shown,
        now=clock.now(),
        endpoints=[endpoint for endpoint in endpoints.items if endpoint.deleted_at is None],
        agents=[AgentRead.of(agent) for agent in found_agents.items],
        event_types=EVENT_TYPES,
        currencies=list(CURRENCIES),
        rails=[rail.value for rail in RailName],
        leg_statuses=LEG_STATUSES,
    )


@router.get("/test-mode")
async def test_mode(console: ConsolePage) -> Response:
    _require_sandbox(console)
    return await _page(console)


Action = Callable[[Clock], Awaitable[dict[str, str]]]


async def _act(console: Console, form: str, action: Action) -> Response:
    """Run one sandbox operation; on success commit and go back to the page with the ids it
    made (`done` names the notice). A refusal the caller can act on (4xx) rolls back and
    shows the page with the API's message beside the form."""
    _require_sandbox(console)
    clock = await _clock(console)
    try:
        carried = await action(clock)
    except CorridorError as error:
        if error.status >= 500:
            raise
        await console.session.rollback()
        return await _page(console, status=error.status, failed=form, error=error)
    await console.commit()
    return redirect(console.request, f"{PATH}?{urlencode(carried)}#{form}")


# --- Customers ----------------------------------------------------------------------------


@router.post("/test-mode/customers")
async def create_customer(console: ConsolePage) -> Response:
    async def create(clock: Clock) -> dict[str, str]:
        data = parse_form(
            IndividualCustomerCreate,
            {
                "firstName": _text(console.form, "firstName"),
                "lastName": _text(console.form, "lastName"),
                "email": _text(console.form, "email"),
            },
        )
        customer = await customers.create_individual(
            console.session, caller=console.caller, data=data, now=clock.now()
        )
        return {"done": CUSTOMER_CREATED, "customerId": customer.id}

    return await _act(console, "customer", create)


@router.post("/test-mode/approve")
async def approve_customer(console: ConsolePage) -> Response:
    async def approve(clock: Clock) -> dict[str, str]:
        customer_id = _text(console.form, "customerId")
        if customer_id is None:
            raise ValidationFailed("customerId", "is required")
        customer = await customers.set_status_in_sandbox(
            console.session,
            caller=console.caller,
            customer_id=customer_id,
            target=CustomerStatus.ACTIVE,
            reason=None,
            sandbox=console.settings.is_sandbox,
            now=clock.now(),
        )
        return {"done": APPROVED, "customerId": customer.id}

    return await _act(console, "approve", approve)


# --- Money in -----------------------------------------------------------------------------


@router.post("/test-mode/fund")
async def fund_account(console: ConsolePage) -> Response:
    async def fund(clock: Clock) -> dict[str, str]:
        account_id = _text(console.form, "accountId")
        if account_id is None:
            raise ValidationFailed("accountId", "is required")
        amount = _amount(console.form)
        account = await accounts.fund_in_sandbox(
            console.session,
            caller=console.caller,
            account_id=account_id,
            amount=int(amount["value"]),
            currency=amount["currency"],
            sandbox=console.settings.is_sandbox,
            now=clock.now(),
        )
        carried = {"done": FUNDED, "accountId": account.id}
        if account.customer_id:
            carried["customerId"] = account.customer_id
        return carried

    return await _act(console, "fund", fund)


@router.post("/test-mode/deposit")
async def simulate_deposit(console: ConsolePage) -> Response:
    async def deposit(clock: Clock) -> dict[str, str]:
        body = parse_form(
            SandboxDeposit,
            {
                "paymentRail": _text(console.form, "paymentRail"),
                "amount": _amount(console.form),
                "virtualAccountId": _text(console.form, "virtualAccountId"),
                "toAddress": _text(console.form, "toAddress"),
                "reference": _text(console.form, "reference"),
            },
        )
        received = await deposits.receive_deposit(
            console.session,
            caller=console.caller,
            payment_rail=body.payment_rail.value,
            currency=body.amount.currency,
            amount=body.amount.minor_units,
            to_address=body.to_address,
            virtual_account_id=body.virtual_account_id,
            from_address=body.from_address,
            reference=body.reference,
            plugins=console.plugins,
            now=clock.now(),
        )
        carried = {"done": DEPOSITED, "depositId": received.id, "customerId": received.customer_id}
        if received.transfer_id:
            carried["transferId"] = received.transfer_id
        return carried

    return await _act(console, "deposit", deposit)


# --- Transfers ----------------------------------------------------------------------------


def _transfer_create(
    form: dict[str, str], *, source_account: str | None, customer_id: str | None
) -> TransferCreate:
    if form.get("confirm") not in ("yes", "no"):
        raise ValidationFailed("confirm", "choose whether to submit it now or keep a draft")
    if source_account is None:
        raise ValidationFailed("source", "is required: the balance account to pay from")
    return parse_form(
        TransferCreate,
        {
            "customerId": customer_id,
            "source": {"accountId": source_account},
            "destination": _destination(form),
            "amount": _amount(form),
            "confirm": form.get("confirm") == "yes",
        },
    )


@router.post("/test-mode/transfers")
async def create_transfer(console: ConsolePage) -> Response:
    async def create(clock: Clock) -> dict[str, str]:
        source = _text(console.form, "sourceAccountId")
        # The customer whose transfer it is: the source account's (the API asks an
        # organization's caller to name it).
        owner = (
            await accounts.read_account(console.session, caller=console.caller, account_id=source)
            if source is not None
            else None
        )
        data = _transfer_create(
            console.form,
            source_account=source,
            customer_id=owner.customer_id if owner is not None else None,
        )
        outcome = await transfers.create_transfer(
            console.session,
            caller=console.caller,
            data=data,
            plugins=console.plugins,
            now=clock.now(),
        )
        if isinstance(outcome, Parked):  # a guard parked it (agents only): shown as such
            raise outcome.refusal
        return {
            "done": TRANSFER_CREATED,
            "transferId": outcome.transfer.id,
            "customerId": outcome.transfer.customer_id,
        }

    return await _act(console, "transfer", create)


@router.post("/test-mode/legs")
async def move_leg(console: ConsolePage) -> Response:
    async def move(clock: Clock) -> dict[str, str]:
        transfer_id = _text(console.form, "transferId")
        leg_id = _text(console.form, "legId")
        if transfer_id is None:
            raise ValidationFailed("transferId", "is required")
        if leg_id is None:
            raise ValidationFailed("legId", "is required")
        body = parse_form(
            SandboxLegStatus,
            {"status": _text(console.form, "status"), "reason": _text(console.form, "reason")},
        )
        found = await transfers_sandbox.set_leg_status(
            console.session,
            caller=console.caller,
            transfer_id=transfer_id,
            leg_id=leg_id,
            status=body.status,
            reason=body.reason,
            now=clock.now(),
        )
        return {
            "done": LEG_MOVED,
            "transferId": found.transfer.id,
            "customerId": found.transfer.customer_id,
        }

    return await _act(console, "leg", move)


# --- Webhooks -----------------------------------------------------------------------------


@router.post("/test-mode/events")
async def send_test_event(console: ConsolePage) -> Response:
    async def send(clock: Clock) -> dict[str, str]:
        endpoint_id = _text(console.form, "endpointId")
        if endpoint_id is None:
            raise ValidationFailed("endpointId", "is required: add an endpoint on Webhooks first")
        sent = await test_events.send_test_event(
            console.session,
            caller=console.caller,
            event_type=console.form.get("type", ""),
            endpoint_id=endpoint_id,
            sandbox=console.settings.is_sandbox,
            now=clock.now(),
        )
        return {"done": EVENT_SENT, "messageId": sent.message.id}

    return await _act(console, "event", send)


# --- Agents -------------------------------------------------------------------------------


@router.post("/test-mode/agent-payments")
async def agent_payment(console: ConsolePage) -> Response:
    """The transfer is created and submitted as the agent (the caller its newest live key
    authenticates as), so its status, allowlist and limits decide. Over a limit an
    approval agent's payment is parked: the parked draft is kept (as the API's 403 keeps
    it) and the page says so; a refused one writes nothing."""
    _require_sandbox(console)
    agent_id = _text(console.form, "agentId")
    clock = await _clock(console)
    try:
        if agent_id is None:
            raise ValidationFailed("agentId", "is required: create an agent first")
        as_agent = await agents.sandbox_agent_caller(
            console.session,
            caller=console.caller,
            agent_id=agent_id,
            sandbox=console.settings.is_sandbox,
        )
        source = next(iter(as_agent.account_ids or ()), None)
        data = _transfer_create(
            {**console.form, "confirm": "yes"}, source_account=source, customer_id=None
        )
        outcome = await transfers.create_transfer(
            console.session, caller=as_agent, data=data, plugins=console.plugins, now=clock.now()
        )
    except CorridorError as error:
        if error.status >= 500:
            raise
        await console.session.rollback()
        await aftermath.write_within(console.session, error)  # the audit chain's denial
        return await _page(console, status=error.status, failed="agent", error=error)
    await console.commit()
    if isinstance(outcome, Parked):
        carried = {
            "done": AGENT_PARKED,
            "transferId": outcome.found.transfer.id,
            "parked": outcome.refusal.message[:200],
        }
    else:
        carried = {"done": AGENT_PAID, "transferId": outcome.transfer.id}
    return redirect(console.request, f"{PATH}?{urlencode(carried)}#agent")
