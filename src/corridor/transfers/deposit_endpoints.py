"""HTTP endpoints of money coming in (virtual accounts, unmatched deposits, the sandbox
deposit) and the sandbox transfer helpers."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Response

from corridor.kit.pagination import ListResponse, PageRequest
from corridor.transfers.deposits import instructions
from corridor.transfers.deposits import receiving as deposits
from corridor.transfers.endpoints import Plugins
from corridor.transfers.engine import sandbox
from corridor.transfers.schemas.deposits import DepositRead, VirtualAccountRead
from corridor.transfers.schemas.requests import SandboxDeposit, SandboxLegStatus
from corridor.transfers.schemas.transfer import TransferRead
from corridor.web.authentication import SandboxOnlyRoute
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
SANDBOX_TAGS: list[str | Enum] = ["Sandbox"]
Page = Annotated[PageRequest, Depends(page_request)]


@router.get(
    "/customers/{customer_id}/unmatched-deposits",
    response_model=ListResponse[DepositRead],
    tags=["Transfers"],
    summary="List a customer's unmatched deposits",
)
async def list_unmatched_deposits(
    customer_id: str, context: Reading, page: Page
) -> ListResponse[DepositRead]:
    """Money that arrived at the customer's deposit addresses or virtual accounts without
    matching a transfer waiting for it (wrong amount, rail, reference, or none waiting)."""
    found = await deposits.unmatched_deposits(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return ListResponse[DepositRead].of(found, DepositRead.of)


@router.post(
    "/sandbox/deposits",
    status_code=201,
    response_model=DepositRead,
    tags=SANDBOX_TAGS,
    summary="Simulate an incoming deposit (sandbox)",
    dependencies=[SandboxOnlyRoute],
)
async def simulate_deposit(body: SandboxDeposit, context: Context, plugins: Plugins) -> Response:
    """A deposit to a deposit address (`toAddress`) or a virtual bank account
    (`virtualAccountId` + `reference`). Matching a pending transfer's instructions (rail,
    currency, exact amount) funds it; anything else becomes an unmatched deposit. Emits
    `deposit.received` (and `deposit.unmatched`)."""
    deposit = await deposits.receive_deposit(
        context.session,
        caller=context.caller,
        payment_rail=body.payment_rail.value,
        currency=body.amount.currency,
        amount=body.amount.minor_units,
        to_address=body.to_address,
        virtual_account_id=body.virtual_account_id,
        from_address=body.from_address,
        reference=body.reference,
        plugins=plugins,
        now=context.now(),
    )
    return await context.respond(DepositRead.of(deposit), status=201)


@router.post(
    "/sandbox/transfers/{transfer_id}/complete",
    response_model=TransferRead,
    tags=SANDBOX_TAGS,
    summary="Complete a transfer (sandbox)",
    dependencies=[SandboxOnlyRoute],
)
async def complete_transfer(transfer_id: str, context: Context) -> Response:
    """Funds a deposit flow that still waits (exactly as instructed), then runs the
    remaining legs. Only PENDING or PROCESSING transfers."""
    found = await sandbox.complete_transfer(
        context.session, caller=context.caller, transfer_id=transfer_id, now=context.now()
    )
    return await context.respond(TransferRead.of(found.transfer, found.legs))


@router.post(
    "/sandbox/transfers/{transfer_id}/legs/{leg_id}/status",
    response_model=TransferRead,
    tags=SANDBOX_TAGS,
    summary="Set a transfer leg's status (sandbox)",
    dependencies=[SandboxOnlyRoute],
)
async def set_leg_status(
    transfer_id: str, leg_id: str, body: SandboxLegStatus, context: Context
) -> Response:
    """Force the current leg: COMPLETED (its money moves, the engine continues) or FAILED
    (the transfer fails and its money goes back, or a REFUND_* transfer sends it back).
    RETURNED, on a payout leg (PAYOUT_FIAT, WITHDRAW_CRYPTO) or a pull (DEPOSIT_FIAT)
    only: a COMPLETED transfer becomes REVERSED at `returnedAt`, a payout credited to
    `returnedToAccountId`, a pull's amount taken back from the balance it reached; one
    not yet settled fails as with FAILED. Any other leg: 409 `invalid_state`."""
    found = await sandbox.set_leg_status(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        leg_id=leg_id,
        status=body.status,
        reason=body.reason,
        now=context.now(),
    )
    return await context.respond(TransferRead.of(found.transfer, found.legs))


@router.get(
    "/accounts/{account_id}/virtual-accounts",
    response_model=ListResponse[VirtualAccountRead],
    tags=["Accounts"],
    summary="List an account's virtual accounts",
)
async def list_virtual_accounts(
    account_id: str, context: Reading, page: Page
) -> ListResponse[VirtualAccountRead]:
    """Where money for this balance account can be sent: the customer's virtual bank
    account in its currency (`vba_`) and the deposit wallets of its transfers (`vwa_`)."""
    found = await instructions.virtual_accounts(
        context.session, caller=context.caller, account_id=account_id, page=page
    )
    return ListResponse[VirtualAccountRead].of(found, VirtualAccountRead.of)
