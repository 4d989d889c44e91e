"""Transfer tools: list, get, create (a draft, or submitted at once), update a draft,
submit, cancel. Amounts are decimal strings in major units."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictStr

from corridor.accounts import service as accounts
from corridor.auth.scopes import Scope
from corridor.kit.errors import ValidationFailed
from corridor.kit.schemas import CurrencyCode, MultiLineText
from corridor.tools.amounts import DecimalString, minor_units_of
from corridor.tools.base import Refused, Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import (
    CounterpartyId,
    CustomerId,
    Identifier,
    PagedInput,
    TransferId,
    transfer_result,
)
from corridor.tools.results import ListResult, TransferResult
from corridor.transfers import actions, service
from corridor.transfers.actions import Parked
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.repository import TransferFilters
from corridor.transfers.rules.reasons import PaymentReason
from corridor.transfers.rules.states import AgentApprovalStatus, TransferStatus
from corridor.transfers.schemas.requests import (
    DestinationIn,
    Remarks,
    SourceIn,
    TransferCreate,
    TransferUpdate,
    client_reference_chars_max,
    reason_chars_max,
)

ClientReference = Annotated[StrictStr, Field(max_length=client_reference_chars_max)]


class ListTransfers(PagedInput):
    status: TransferStatus | None = None
    agent_approval_status: AgentApprovalStatus | None = Field(
        default=None, description="PENDING: agent payments waiting for an owner's decision"
    )
    customer_id: CustomerId | None = None


class TransferInput(ToolInput):
    transfer_id: TransferId


class _PaymentFields(ToolInput):
    counterparty_id: CounterpartyId | None = None
    client_reference_id: ClientReference | None = None
    remarks: Remarks | None = None
    payment_reason: PaymentReason | None = None


class CreateTransfer(_PaymentFields):
    customer_id: CustomerId | None = Field(
        default=None,
        description="Left out: the customer this credential acts for, or the source account's",
    )
    source: SourceIn = Field(
        description="{accountId} (a balance), {externalAccountId, paymentRail} (pull from a "
        "bank account) or {currency, paymentRail} (a deposit to make)"
    )
    destination: DestinationIn = Field(
        description="{accountId}, {externalAccountId, paymentRail, currency} or "
        "{toAddress, paymentRail, currency}"
    )
    amount: DecimalString
    currency: CurrencyCode = Field(description="The currency of `amount` (the source's)")
    quote_id: Identifier | None = Field(
        default=None, description="A quote (quo_…) to lock the rate"
    )
    submit: StrictBool = Field(
        default=False, description="true: submit at once (money moves); false: leave a DRAFT"
    )


class UpdateTransfer(_PaymentFields):
    transfer_id: TransferId
    amount: DecimalString | None = None
    currency: CurrencyCode | None = Field(default=None, description="Required with `amount`")
    source: SourceIn | None = None
    destination: DestinationIn | None = None


class CancelTransfer(TransferInput):
    reason: Annotated[MultiLineText, Field(max_length=reason_chars_max)] | None = None


def _sent(model: ToolInput, *names: str) -> dict[str, Any]:
    """The fields of `model` a caller sent, by their camelCase names, nested models as sent."""
    shown = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {
        key: value
        for key, value in shown.items()
        if key in {model.__class__.model_fields[name].alias for name in names}
    }


_PAYMENT = ("counterparty_id", "client_reference_id", "remarks", "payment_reason")


def rest_create(args: CreateTransfer, *, customer_id: str | None = None) -> TransferCreate:
    """The REST request these arguments stand for (amount in minor units)."""
    minor = minor_units_of(args.amount, args.currency, field="amount")
    sent = _sent(args, "customer_id", "source", "destination", "quote_id", *_PAYMENT)
    if customer_id is not None:
        sent["customerId"] = customer_id
    return TransferCreate.model_validate(
        {
            **sent,
            "amount": {"currency": args.currency, "value": str(minor)},
            "confirm": args.submit,
        }
    )


async def _source_customer(context: ToolContext, args: CreateTransfer) -> str | None:
    """Left out, the customer is the source balance account's (a model need not look it up)."""
    if args.customer_id is not None or context.caller.customer_id is not None:
        return None
    if args.source.account_id is None:
        return None
    account = await accounts.get_account(
        context.session, caller=context.caller, account_id=args.source.account_id
    )
    return account.customer_id


def rest_update(args: UpdateTransfer) -> TransferUpdate:
    changes = _sent(args, "source", "destination", *_PAYMENT)
    if args.amount is not None or args.currency is not None:
        if args.amount is None or args.currency is None:
            raise ValidationFailed("amount", "send amount and currency together")
        minor = minor_units_of(args.amount, args.currency, field="amount")
        changes["amount"] = {"currency": args.currency, "value": str(minor)}
    return TransferUpdate.model_validate(changes)


def _submitted(outcome: TransferWithLegs | Parked) -> TransferResult | Refused:
    if isinstance(outcome, Parked):
        return Refused(outcome.refusal)
    return transfer_result(outcome)


async def list_transfers(context: ToolContext, args: ListTransfers) -> ListResult[TransferResult]:
    filters = TransferFilters(
        status=args.status.value if args.status else None,
        agent_approval_status=args.agent_approval_status.value
        if args.agent_approval_status
        else None,
        customer_id=args.customer_id,
    )
    found = await service.list_transfers(
        context.session, caller=context.caller, filters=filters, page=args.page()
    )
    return ListResult[TransferResult].of(found, transfer_result)


async def get_transfer(context: ToolContext, args: TransferInput) -> TransferResult:
    view = await service.read_transfer(
        context.session, caller=context.caller, transfer_id=args.transfer_id
    )
    return transfer_result(view.found)


async def create_transfer(context: ToolContext, args: CreateTransfer) -> TransferResult | Refused:
    outcome = await service.create_transfer(
        context.session,
        caller=context.caller,
        data=rest_create(args, customer_id=await _source_customer(context, args)),
        plugins=context.plugins,
        now=context.now,
    )
    return _submitted(outcome)


async def update_transfer(context: ToolContext, args: UpdateTransfer) -> TransferResult:
    found = await service.update_transfer(
        context.session,
        caller=context.caller,
        transfer_id=args.transfer_id,
        data=rest_update(args),
        plugins=context.plugins,
        now=context.now,
    )
    return transfer_result(found)


async def submit_transfer(context: ToolContext, args: TransferInput) -> TransferResult | Refused:
    outcome = await actions.submit_transfer(
        context.session,
        caller=context.caller,
        transfer_id=args.transfer_id,
        plugins=context.plugins,
        now=context.now,
    )
    return _submitted(outcome)


async def cancel_transfer(context: ToolContext, args: CancelTransfer) -> TransferResult:
    found = await actions.cancel_transfer(
        context.session,
        caller=context.caller,
        transfer_id=args.transfer_id,
        reason=args.reason,
        now=context.now,
    )
    return transfer_result(found)


def _payee(result: TransferResult) -> str:
    destination = result.destination
    name = destination.get("accountName") or destination.get("toAddress")
    where = destination.get("accountId") or destination.get("externalAccountId")
    return f"{name} ({where})" if name and where else str(name or where or "the destination")


def describe_payment(result: TransferResult) -> str:
    """'Send 25.00 USD from acc_… to Bob Builder (ext_…) by ACH'."""
    source = result.source.get("accountId") or result.source.get("externalAccountId")
    origin = f" from {source}" if source else ""
    rail = result.destination.get("paymentRail")
    by = f" by {rail}" if rail else ""
    converted = (
        f", arriving as {result.destination_amount.text()}"
        if result.destination_amount.currency != result.source_amount.currency
        else ""
    )
    return f"Send {result.source_amount.text()}{origin} to {_payee(result)}{by}{converted}"


def _summarize_create(args: CreateTransfer, result: Any) -> str:
    if isinstance(result, TransferResult):
        text = describe_payment(result)
        return text if args.submit else f"Create a draft: {text.replace('Send', 'send', 1)}"
    verb = "Send" if args.submit else "Create a draft transfer of"
    return f"{verb} {args.amount} {args.currency}"


def _summarize_submit(args: TransferInput, result: Any) -> str:
    if isinstance(result, TransferResult):
        return f"Submit {args.transfer_id}: {describe_payment(result)}"
    return f"Submit transfer {args.transfer_id}"


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_transfers",
        title="List transfers",
        description=(
            "List transfers newest first; filter by status, customerId, or "
            "agentApprovalStatus PENDING (agent payments awaiting an owner's decision)."
        ),
        input=ListTransfers,
        result=ListResult[TransferResult],
        kind=ToolKind.READ,
        scope=Scope.TRANSFERS_READ,
        handler=list_transfers,
    ),
    Tool(
        name="get_transfer",
        title="Get a transfer",
        description="One transfer with its status, amounts, fees, legs and payee.",
        input=TransferInput,
        result=TransferResult,
        kind=ToolKind.READ,
        scope=Scope.TRANSFERS_READ,
        handler=get_transfer,
    ),
    Tool(
        name="create_transfer",
        title="Create a transfer",
        description=(
            "Create a transfer as a DRAFT, or with submit true create and submit it at once. "
            'amount is an exact decimal string in major units of currency ("25.50" USD, '
            '"100.000001" USDC), never minor units. Pay a payee with destination '
            "{externalAccountId, paymentRail, currency}."
        ),
        input=CreateTransfer,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=create_transfer,
        destructive=True,
        summarize=_summarize_create,
    ),
    Tool(
        name="update_transfer",
        title="Update a draft transfer",
        description=(
            "Change a DRAFT transfer: amount with currency (decimal string), source or "
            "destination fields, remarks, payment reason. Fees and legs are recomputed."
        ),
        input=UpdateTransfer,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=update_transfer,
        idempotent=True,
        summarize=lambda args, _result: f"Update draft transfer {args.transfer_id}",
    ),
    Tool(
        name="submit_transfer",
        title="Submit a draft transfer",
        description=(
            "Submit a DRAFT transfer: money starts moving. An agent key is held to its spend "
            "limits; a refusal says why, with the limit, what was used and what remains."
        ),
        input=TransferInput,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=submit_transfer,
        destructive=True,
        summarize=_summarize_submit,
    ),
    Tool(
        name="cancel_transfer",
        title="Cancel a transfer",
        description="Cancel a transfer before its funds arrive (a DRAFT or PENDING one).",
        input=CancelTransfer,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.TRANSFERS_WRITE,
        handler=cancel_transfer,
        destructive=True,
        summarize=lambda args, _result: f"Cancel transfer {args.transfer_id}",
    ),
)
