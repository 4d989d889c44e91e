"""HTTP endpoints of the accounts domain: balance accounts, balances, balance transactions,
and sandbox funding."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.accounts import service
from corridor.accounts.schemas import AccountRead, BalanceRead, BalanceTransactionRead, SandboxFund
from corridor.kit.money import CURRENCIES
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.authentication import SandboxOnlyRoute
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

TAGS: list[str | Enum] = ["Accounts"]
id_chars_max = 64

Page = Annotated[PageRequest, Depends(page_request)]


def _account_list(page) -> ListResponse[AccountRead]:
    return ListResponse[AccountRead].of(page, AccountRead.of)


@router.get(
    "/accounts",
    response_model=ListResponse[AccountRead],
    tags=TAGS,
    summary="List balance accounts",
)
async def list_accounts(
    context: Reading,
    page: Page,
    customer_id: Annotated[
        str | None,
        Query(
            alias="customerId",
            max_length=id_chars_max,
            description="Only this customer's accounts",
            examples=["cus_01jd3x0p6x9e3k2v1m8q4r7s5t"],
        ),
    ] = None,
    currency: Annotated[
        str | None,
        Query(
            max_length=10,
            description="Only accounts in this currency",
            examples=["USD"],
            json_schema_extra={"enum": sorted(CURRENCIES)},
        ),
    ] = None,
) -> ListResponse[AccountRead]:
    """Customers' balance accounts, newest first. A caller bound to a customer sees its own."""
    found = await service.list_accounts(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        currency=currency,
        page=page,
    )
    return _account_list(found)


@router.get(
    "/customers/{customer_id}/accounts",
    response_model=ListResponse[AccountRead],
    tags=TAGS,
    summary="List a customer's balance accounts",
)
async def list_customer_accounts(
    customer_id: str, context: Reading, page: Page
) -> ListResponse[AccountRead]:
    """One account per currency of the organization's configuration, opened when the
    customer became ACTIVE; empty before that."""
    found = await service.list_customer_accounts(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return _account_list(found)


@router.get(
    "/accounts/{account_id}", response_model=AccountRead, tags=TAGS, summary="Get a balance account"
)
async def get_account(account_id: str, context: Context) -> AccountRead:
    """One balance account: its currency, owner and status. The money in it is at
    `/v1/accounts/{id}/balance`."""
    account = await service.read_account(
        context.session, caller=context.caller, account_id=account_id
    )
    return AccountRead.of(account)


@router.get(
    "/accounts/{account_id}/balance",
    response_model=BalanceRead,
    tags=TAGS,
    summary="Get an account's balance",
)
async def get_balance(account_id: str, context: Context) -> BalanceRead:
    """`available` may be spent now (posted minus pending debits); `pending` is incoming
    money not yet available; `total` is both."""
    account = await service.read_account(
        context.session, caller=context.caller, account_id=account_id
    )
    return BalanceRead.of(account, as_of=context.now())


@router.get(
    "/accounts/{account_id}/balance-transactions",
    response_model=ListResponse[BalanceTransactionRead],
    tags=TAGS,
    summary="List an account's balance transactions",
)
async def list_balance_transactions(
    account_id: str, context: Reading, page: Page
) -> ListResponse[BalanceTransactionRead]:
    """Every movement of the balance, newest first; `balanceAfter` is the posted balance
    once the transaction applied."""
    found = await service.balance_transactions(
        context.session, caller=context.caller, account_id=account_id, page=page
    )
    return ListResponse[BalanceTransactionRead].of(found)


@router.post(
    "/sandbox/accounts/{account_id}/fund",
    response_model=BalanceRead,
    tags=["Sandbox"],
    summary="Fund a balance account (sandbox)",
    dependencies=[SandboxOnlyRoute],
)
async def fund_account(account_id: str, body: SandboxFund, context: Context) -> Response:
    """Adds money to an ACTIVE customer's account, in the account's currency, and answers
    with the balance after it. Emits `account.funded`. Sandbox only (403 `sandbox_only`)."""
    account = await service.fund_in_sandbox(
        context.session,
        caller=context.caller,
        account_id=account_id,
        amount=body.amount.minor_units,
        currency=body.amount.currency,
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    return await context.respond(BalanceRead.of(account, as_of=context.now()))
