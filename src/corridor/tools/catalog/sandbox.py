"""Sandbox tools (spec 1): stand-ins for verification, funding and settlement. They exist
only on a sandbox server and run the same services as the sandbox REST routes."""

from __future__ import annotations

from pydantic import Field

from corridor.accounts import service as accounts
from corridor.accounts.schemas import BalanceRead
from corridor.auth.scopes import Scope
from corridor.customers import service as customers
from corridor.customers.schemas.customer import CustomerRead
from corridor.customers.states import CustomerStatus
from corridor.kit.errors import SandboxOnly
from corridor.tools.amounts import DecimalString, minor_units_of
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import AccountId, CustomerId, TransferId, transfer_result
from corridor.tools.results import BalanceResult, TransferResult
from corridor.transfers.engine import sandbox


class ApproveCustomer(ToolInput):
    customer_id: CustomerId


class FundAccount(ToolInput):
    account_id: AccountId
    amount: DecimalString = Field(description="Decimal in the account's currency, e.g. '1000.00'")


class CompleteTransfer(ToolInput):
    transfer_id: TransferId


def _sandbox_only(context: ToolContext) -> None:
    if not context.settings.is_sandbox:
        raise SandboxOnly()


async def sandbox_approve_customer(context: ToolContext, args: ApproveCustomer) -> CustomerRead:
    _sandbox_only(context)
    customer = await customers.set_status_in_sandbox(
        context.session,
        caller=context.caller,
        customer_id=args.customer_id,
        target=CustomerStatus.ACTIVE,
        reason=None,
        sandbox=context.settings.is_sandbox,
        now=context.now,
    )
    return CustomerRead.of(customer)


async def sandbox_fund_account(context: ToolContext, args: FundAccount) -> BalanceResult:
    _sandbox_only(context)
    account = await accounts.read_account(
        context.session, caller=context.caller, account_id=args.account_id
    )
    funded = await accounts.fund_in_sandbox(
        context.session,
        caller=context.caller,
        account_id=account.id,
        amount=minor_units_of(args.amount, account.currency, field="amount"),
        currency=account.currency,
        sandbox=context.settings.is_sandbox,
        now=context.now,
    )
    return BalanceResult.of(BalanceRead.of(funded, as_of=context.now))


async def sandbox_complete_transfer(context: ToolContext, args: CompleteTransfer) -> TransferResult:
    _sandbox_only(context)
    found = await sandbox.complete_transfer(
        context.session, caller=context.caller, transfer_id=args.transfer_id, now=context.now
    )
    return transfer_result(found)


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="sandbox_approve_customer",
        title="Approve a customer (sandbox)",
        description=(
            "Sandbox only: stand in for verification and make a customer ACTIVE, which opens "
            "its balance accounts."
        ),
        input=ApproveCustomer,
        result=CustomerRead,
        kind=ToolKind.WRITE,
        scope=Scope.SANDBOX_WRITE,
        handler=sandbox_approve_customer,
        sandbox_only=True,
        for_platform_sessions=False,
        idempotent=True,
        summarize=lambda args, _result: f"Approve customer {args.customer_id} (sandbox)",
    ),
    Tool(
        name="sandbox_fund_account",
        title="Fund an account (sandbox)",
        description=(
            "Sandbox only: add test money to an ACTIVE customer's balance account, in the "
            "account's currency, as a decimal string in major units."
        ),
        input=FundAccount,
        result=BalanceResult,
        kind=ToolKind.WRITE,
        scope=Scope.SANDBOX_WRITE,
        handler=sandbox_fund_account,
        sandbox_only=True,
        for_platform_sessions=False,
        summarize=lambda args, _result: f"Add {args.amount} of test money to {args.account_id}",
    ),
    Tool(
        name="sandbox_complete_transfer",
        title="Complete a transfer (sandbox)",
        description=(
            "Sandbox only: settle a PENDING or PROCESSING transfer now (a deposit it waits "
            "for arrives, every remaining leg runs)."
        ),
        input=CompleteTransfer,
        result=TransferResult,
        kind=ToolKind.WRITE,
        scope=Scope.SANDBOX_WRITE,
        handler=sandbox_complete_transfer,
        sandbox_only=True,
        for_platform_sessions=False,
        summarize=lambda args, _result: f"Complete transfer {args.transfer_id} (sandbox)",
    ),
)
