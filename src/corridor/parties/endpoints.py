"""HTTP endpoints of the parties domain: counterparties, external accounts, external wallets."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.kit.ids import id_pattern
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.parties import service
from corridor.parties.addresses import Chain
from corridor.parties.rules import BeneficiaryType, PartyStatus
from corridor.parties.schemas import (
    BankCodeValidation,
    BankCodeValidationRead,
    CounterpartyCreate,
    CounterpartyRead,
    CounterpartyUpdate,
    ExternalAccountCreate,
    ExternalAccountRead,
    ExternalAccountUpdate,
    ExternalWalletCreate,
    ExternalWalletRead,
    ExternalWalletUpdate,
)
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

COUNTERPARTIES: list[str | Enum] = ["Counterparties"]
EXTERNAL_ACCOUNTS: list[str | Enum] = ["External accounts"]
EXTERNAL_WALLETS: list[str | Enum] = ["External wallets"]

CustomerFilter = Annotated[
    str | None,
    Query(
        alias="customerId",
        json_schema_extra={"pattern": id_pattern("cus")},
        max_length=64,
        description="Only this customer's (its own and its counterparties')",
    ),
]
CounterpartyFilter = Annotated[
    str | None,
    Query(
        alias="counterpartyId",
        json_schema_extra={"pattern": id_pattern("cp")},
        max_length=64,
        description="Only this one's",
    ),
]
StatusFilter = Annotated[PartyStatus | None, Query(description="ACTIVE or CLOSED")]


# --- Counterparties -----------------------------------------------------------------------


@router.post(
    "/counterparties",
    status_code=201,
    response_model=CounterpartyRead,
    tags=COUNTERPARTIES,
    summary="Create a counterparty",
)
async def create_counterparty(body: CounterpartyCreate, context: Context) -> Response:
    """Someone `customerId` pays. The address comes back with an ASCII `transliterated` form.
    409 `invalid_state` when the customer is ARCHIVED."""
    counterparty = await service.create_counterparty(
        context.session,
        caller=context.caller,
        data=body,
        now=context.now(),
    )
    return await context.respond(CounterpartyRead.of(counterparty), status=201)


@router.get(
    "/counterparties",
    response_model=ListResponse[CounterpartyRead],
    tags=COUNTERPARTIES,
    summary="List counterparties",
)
async def list_counterparties(
    context: Reading,
    page: Annotated[PageRequest, Depends(page_request)],
    customer_id: Annotated[
        str | None,
        Query(
            alias="customerId",
            json_schema_extra={"pattern": id_pattern("cus")},
            max_length=64,
            description="Only this customer's",
        ),
    ] = None,
    beneficiary_type: Annotated[
        BeneficiaryType | None,
        Query(alias="beneficiaryType", description="INDIVIDUAL or BUSINESS"),
    ] = None,
) -> ListResponse[CounterpartyRead]:
    """The people and businesses the organization's customers pay, newest first; filter by
    `customerId` or `beneficiaryType`."""
    result = await service.list_counterparties(
        context.session,
        caller=context.caller,
        page=page,
        customer_id=customer_id,
        beneficiary_type=beneficiary_type,
    )
    return ListResponse[CounterpartyRead].of(result, CounterpartyRead.of)


@router.get(
    "/counterparties/{counterparty_id}",
    response_model=CounterpartyRead,
    tags=COUNTERPARTIES,
    summary="Get a counterparty",
)
async def get_counterparty(counterparty_id: str, context: Context) -> CounterpartyRead:
    """One counterparty: its name, type, address and status."""
    counterparty = await service.read_counterparty(
        context.session,
        caller=context.caller,
        counterparty_id=counterparty_id,
    )
    return CounterpartyRead.of(counterparty)


@router.patch(
    "/counterparties/{counterparty_id}",
    response_model=CounterpartyRead,
    tags=COUNTERPARTIES,
    summary="Update a counterparty",
)
async def update_counterparty(
    counterparty_id: str, body: CounterpartyUpdate, context: Context
) -> Response:
    """Only the fields sent change; a new `address` replaces the old one whole."""
    counterparty = await service.update_counterparty(
        context.session,
        caller=context.caller,
        counterparty_id=counterparty_id,
        changes=body,
        now=context.now(),
    )
    return await context.respond(CounterpartyRead.of(counterparty))


@router.delete(
    "/counterparties/{counterparty_id}",
    status_code=204,
    tags=COUNTERPARTIES,
    summary="Delete a counterparty",
)
async def delete_counterparty(counterparty_id: str, context: Context) -> Response:
    """The counterparty is 404 afterwards and its external accounts and wallets are closed;
    transfers that already name it keep showing it."""
    await service.delete_counterparty(
        context.session,
        caller=context.caller,
        counterparty_id=counterparty_id,
        now=context.now(),
    )
    return Response(status_code=204)


# --- External bank accounts ---------------------------------------------------------------


@router.post(
    "/external-accounts",
    status_code=201,
    response_model=ExternalAccountRead,
    tags=EXTERNAL_ACCOUNTS,
    summary="Add an external bank account",
)
async def create_external_account(body: ExternalAccountCreate, context: Context) -> Response:
    """Of a customer (`customerId`) or of one of its counterparties (`counterpartyId`).
    Routing numbers, IBANs and BICs are checked (422 names the field); `supportedRails`
    says how it can be paid. The full account number and IBAN are never returned."""
    account = await service.create_external_account(
        context.session, caller=context.caller, data=body, now=context.now()
    )
    return await context.respond(ExternalAccountRead.of(account), status=201)


@router.get(
    "/external-accounts",
    response_model=ListResponse[ExternalAccountRead],
    tags=EXTERNAL_ACCOUNTS,
    summary="List external bank accounts",
)
async def list_external_accounts(
    context: Reading,
    page: Annotated[PageRequest, Depends(page_request)],
    customer_id: CustomerFilter = None,
    counterparty_id: CounterpartyFilter = None,
    status: StatusFilter = None,
) -> ListResponse[ExternalAccountRead]:
    """Bank accounts outside Corridor that transfers pay to or draw from, newest first; filter
    by customer, counterparty or status. Account numbers show only their last four digits."""
    result = await service.list_external_accounts(
        context.session,
        caller=context.caller,
        page=page,
        customer_id=customer_id,
        counterparty_id=counterparty_id,
        status=status,
    )
    return ListResponse[ExternalAccountRead].of(result, ExternalAccountRead.of)


@router.post(
    "/external-accounts/validate-bank-code",
    response_model=BankCodeValidationRead,
    tags=EXTERNAL_ACCOUNTS,
    summary="Check a routing number, IBAN, BIC or sort code",
)
async def validate_bank_code(body: BankCodeValidation, context: Context) -> BankCodeValidationRead:
    """200 whether the code is valid or not. Check digits are verified (ABA, IBAN mod 97);
    `bankName` is given when the code identifies the bank."""
    return service.validate_bank_code(context.caller, body)


@router.get(
    "/external-accounts/{external_account_id}",
    response_model=ExternalAccountRead,
    tags=EXTERNAL_ACCOUNTS,
    summary="Get an external bank account",
)
async def get_external_account(external_account_id: str, context: Context) -> ExternalAccountRead:
    """One external bank account, its number shown by its last four digits only."""
    account = await service.read_external_account(
        context.session,
        caller=context.caller,
        external_account_id=external_account_id,
    )
    return ExternalAccountRead.of(account)


@router.patch(
    "/external-accounts/{external_account_id}",
    response_model=ExternalAccountRead,
    tags=EXTERNAL_ACCOUNTS,
    summary="Update an external bank account",
)
async def update_external_account(
    external_account_id: str, body: ExternalAccountUpdate, context: Context
) -> Response:
    """Names, type and label only; the numbers never change. 409 when CLOSED."""
    account = await service.update_external_account(
        context.session,
        caller=context.caller,
        external_account_id=external_account_id,
        changes=body,
        now=context.now(),
    )
    return await context.respond(ExternalAccountRead.of(account))


@router.post(
    "/external-accounts/{external_account_id}/close",
    response_model=ExternalAccountRead,
    tags=EXTERNAL_ACCOUNTS,
    summary="Close an external bank account",
)
async def close_external_account(external_account_id: str, context: Context) -> Response:
    """Final: a CLOSED account can no longer be paid or changed (409 when already CLOSED)."""
    account = await service.close_external_account(
        context.session,
        caller=context.caller,
        external_account_id=external_account_id,
        now=context.now(),
    )
    return await context.respond(ExternalAccountRead.of(account))


# --- External wallets ---------------------------------------------------------------------


@router.post(
    "/external-wallets",
    status_code=201,
    response_model=ExternalWalletRead,
    tags=EXTERNAL_WALLETS,
    summary="Add an external wallet",
)
async def create_external_wallet(body: ExternalWalletCreate, context: Context) -> Response:
    """Of a customer (`customerId`) or of one of its counterparties (`counterpartyId`).
    The address is checked for its chain (422 `address` with the reason)."""
    wallet = await service.create_external_wallet(
        context.session, caller=context.caller, data=body, now=context.now()
    )
    return await context.respond(ExternalWalletRead.of(wallet), status=201)


@router.get(
    "/external-wallets",
    response_model=ListResponse[ExternalWalletRead],
    tags=EXTERNAL_WALLETS,
    summary="List external wallets",
)
async def list_external_wallets(
    context: Reading,
    page: Annotated[PageRequest, Depends(page_request)],
    customer_id: CustomerFilter = None,
    counterparty_id: CounterpartyFilter = None,
    status: StatusFilter = None,
    chain: Annotated[Chain | None, Query(description="Only this chain")] = None,
) -> ListResponse[ExternalWalletRead]:
    """Blockchain addresses outside Corridor, newest first; filter by customer, counterparty,
    status or chain."""
    result = await service.list_external_wallets(
        context.session,
        caller=context.caller,
        page=page,
        customer_id=customer_id,
        counterparty_id=counterparty_id,
        status=status,
        chain=chain,
    )
    return ListResponse[ExternalWalletRead].of(result, ExternalWalletRead.of)


@router.get(
    "/external-wallets/{external_wallet_id}",
    response_model=ExternalWalletRead,
    tags=EXTERNAL_WALLETS,
    summary="Get an external wallet",
)
async def get_external_wallet(external_wallet_id: str, context: Context) -> ExternalWalletRead:
    """One external wallet: its chain, address and status."""
    wallet = await service.read_external_wallet(
        context.session,
        caller=context.caller,
        external_wallet_id=external_wallet_id,
    )
    return ExternalWalletRead.of(wallet)


@router.patch(
    "/external-wallets/{external_wallet_id}",
    response_model=ExternalWalletRead,
    tags=EXTERNAL_WALLETS,
    summary="Update an external wallet",
)
async def update_external_wallet(
    external_wallet_id: str, body: ExternalWalletUpdate, context: Context
) -> Response:
    """Only the label changes; the chain and address never do. 409 when CLOSED."""
    wallet = await service.update_external_wallet(
        context.session,
        caller=context.caller,
        external_wallet_id=external_wallet_id,
        changes=body,
        now=context.now(),
    )
    return await context.respond(ExternalWalletRead.of(wallet))
