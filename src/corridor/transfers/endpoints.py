"""HTTP endpoints of transfers (API.md §5 "Transfers"): drafts, actions, lists."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum
from typing import Annotated

import orjson
from fastapi import APIRouter, Depends, Query, Request, Response

from corridor.documents.schemas import DocumentRead
from corridor.kit.clock import as_utc
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import ListResponse, Page, PageRequest
from corridor.transfers import actions, service
from corridor.transfers.actions import Parked
from corridor.transfers.lifecycle import TransferWithLegs
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.repository import TransferFilters
from corridor.transfers.rules.flows import Flow
from corridor.transfers.rules.states import TransferStatus
from corridor.transfers.schemas.requests import (
    TransferCancel,
    TransferCreate,
    TransferDecision,
    TransferFund,
    TransferUpdate,
    client_reference_chars_max,
)
from corridor.transfers.schemas.transfer import TransferRead, transfer_json
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Transfers"]
AgentApprovalStatus = Annotated[str, Query(pattern="^(PENDING|APPROVED|DECLINED)$")]
Pages = Annotated[PageRequest, Depends(page_request)]


async def transfer_plugins(request: Request) -> TransferPlugins:
    """The agents, quotes and fixed-route plug-ins create_app wired (transfers/plugins.py).
    (async: FastAPI runs a plain `def` dependency in a thread, a hand-off per request.)"""
    return request.app.state.transfer_plugins


Plugins = Annotated[TransferPlugins, Depends(transfer_plugins)]


async def answer_submit(
    context: Context, outcome: TransferWithLegs | Parked, *, status: int = 200
) -> Response:
    """The transfer after a submit, or the 403 of a submit held for approval (its parked
    draft is committed all the same)."""
    if isinstance(outcome, Parked):
        return await context.refuse(outcome.refusal)
    return await context.respond_json(transfer_body(outcome), status=status)


def transfer_body(found: TransferWithLegs, counterparty: dict | None = None) -> bytes:
    """The transfer as the API shows it (TransferRead, schemas/transfer.py's `transfer_json`
    builds it straight as JSON: the same bytes, without a model in between)."""
    return orjson.dumps(transfer_json(found.transfer, found.legs, counterparty=counterparty))


def transfer_list(page: Page[TransferWithLegs]) -> Response:
    """ListResponse[TransferRead], built straight as JSON."""
    body = {
        "data": [transfer_json(found.transfer, found.legs) for found in page.items],
        "nextCursor": page.next_cursor,
        "hasMore": page.has_more,
    }
    return Response(orjson.dumps(body), media_type="application/json")


def _moment(value: datetime | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return as_utc(value)
    except (OverflowError, ValueError):
        raise ValidationFailed(field, "is out of range") from None


_MILLISECOND = timedelta(milliseconds=1)


def _created_bounds(
    after: datetime | None, before: datetime | None
) -> tuple[datetime | None, datetime | None]:
    """Compared as the API shows `createdAt` (milliseconds), so passing a transfer's own
    createdAt excludes that transfer: after X means shown > X, before X means shown < X."""
    lower = _moment(after, "createdAfter")
    upper = _moment(before, "createdBefore")
    try:
        if lower is not None:
            lower = lower.replace(microsecond=lower.microsecond // 1000 * 1000) + _MILLISECOND
        if upper is not None and upper.microsecond % 1000:
            upper = upper.replace(microsecond=upper.microsecond // 1000 * 1000) + _MILLISECOND
    except OverflowError:
        raise ValidationFailed("createdAfter", "is out of range") from None
    return lower, upper


@router.post(
    "/transfers",
    status_code=201,
    response_model=TransferRead,
    tags=TAGS,
    summary="Create a transfer",
)
async def create_transfer(body: TransferCreate, context: Context, plugins: Plugins) -> Response:
    """A DRAFT, or submitted at once with `confirm: true` (then nothing is created if the
    submit is refused). The flow and the legs are derived from source and destination;
    `destinationAmount` is computed. Takes `Idempotency-Key`."""
    outcome = await service.create_transfer(
        context.session, caller=context.caller, data=body, plugins=plugins, now=context.now()
    )
    return await answer_submit(context, outcome, status=201)


@router.get(
    "/transfers",
    response_model=ListResponse[TransferRead],
    tags=TAGS,
    summary="List transfers",
)
async def list_transfers(
    context: Reading,
    page: Pages,
    status: Annotated[TransferStatus | None, Query(description="Only this status")] = None,
    agent_approval_status: Annotated[
        AgentApprovalStatus | None, Query(alias="agentApprovalStatus")
    ] = None,
    customer_id: Annotated[str | None, Query(alias="customerId", max_length=64)] = None,
    flow: Annotated[Flow | None, Query(description="Only this flow")] = None,
    client_reference_id: Annotated[
        str | None, Query(alias="clientReferenceId", max_length=client_reference_chars_max)
    ] = None,
    created_after: Annotated[datetime | None, Query(alias="createdAfter")] = None,
    created_before: Annotated[datetime | None, Query(alias="createdBefore")] = None,
    include_child_organizations: Annotated[
        bool,
        Query(
            alias="includeChildOrganizations",
            description="Also the transfers of every organization below the caller's (a "
            "console session or an unrestricted key): an operator's queue, e.g. with "
            "status=IN_REVIEW. Each transfer names its organizationId; act on one by sending "
            "X-Corridor-Organization with that id.",
        ),
    ] = False,
) -> Response:
    """Newest first; a caller bound to a customer sees only that customer's transfers."""
    lower, upper = _created_bounds(created_after, created_before)
    filters = TransferFilters(
        status=status.value if status else None,
        agent_approval_status=agent_approval_status,
        customer_id=customer_id,
        flow=flow.value if flow else None,
        client_reference_id=client_reference_id,
        created_after=lower,
        created_before=upper,
        include_child_organizations=include_child_organizations,
    )
    found = await service.list_transfers(
        context.session, caller=context.caller, filters=filters, page=page
    )
    return transfer_list(found)


@router.get(
    "/transfers/{transfer_id}", response_model=TransferRead, tags=TAGS, summary="Get a transfer"
)
async def get_transfer(
    transfer_id: str,
    context: Context,
    expand: Annotated[
        str | None, Query(max_length=100, description="`counterparty` adds the counterparty")
    ] = None,
) -> Response:
    """One transfer with its source, destination, amounts, fees, legs and status.
    `expand=counterparty` adds the counterparty object."""
    view = await service.read_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        expand=[part.strip() for part in (expand or "").split(",") if part.strip()],
    )
    return Response(transfer_body(view.found, view.counterparty), media_type="application/json")


@router.patch(
    "/transfers/{transfer_id}",
    response_model=TransferRead,
    tags=TAGS,
    summary="Update a draft transfer",
)
async def update_transfer(
    transfer_id: str, body: TransferUpdate, context: Context, plugins: Plugins
) -> Response:
    """Only a DRAFT (409 `invalid_state` otherwise). Flow, legs and amounts are recomputed."""
    found = await service.update_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        data=body,
        plugins=plugins,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))


@router.post(
    "/transfers/{transfer_id}/submit",
    response_model=TransferRead,
    tags=TAGS,
    summary="Submit a draft transfer",
)
async def submit_transfer(transfer_id: str, context: Context, plugins: Plugins) -> Response:
    """DRAFT → PENDING (IN_REVIEW for platform sessions, PENDING_AUTHORIZATION above the
    organization's threshold). A balance source is held now (409 `insufficient_funds`
    leaves the DRAFT); a deposit flow gets `depositInstructions`. An agent key is held to
    its agent's limits and allowlist: 403 `agent_limit_exceeded` (with `denial` and
    `hint`), `agent_approval_required` (the draft waits with agentApprovalStatus PENDING),
    `agent_destination_not_allowed`, `agent_currency_mismatch` or `agent_inactive`."""
    outcome = await actions.submit_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        plugins=plugins,
        now=context.now(),
    )
    return await answer_submit(context, outcome)


@router.post(
    "/transfers/{transfer_id}/cancel",
    response_model=TransferRead,
    tags=TAGS,
    summary="Cancel a transfer",
)
async def cancel_transfer(
    transfer_id: str, context: Context, body: TransferCancel | None = None
) -> Response:
    """Before funds arrive → CANCELLED (a hold is released). In review with funds in →
    REVERSED when a refund address is known, else CANCELLED with the funds credited to
    the customer's balance. Processing or ended → 409."""
    found = await actions.cancel_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        reason=body.reason if body else None,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))


@router.post(
    "/transfers/{transfer_id}/fund",
    response_model=TransferRead,
    tags=TAGS,
    summary="Fund a pending transfer from a balance",
)
async def fund_transfer(transfer_id: str, body: TransferFund, context: Context) -> Response:
    """A PENDING transfer awaiting a deposit is funded from one of the customer's balance
    accounts in the source currency instead, and moves to PROCESSING."""
    found = await actions.fund_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        account_id=body.account_id,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))


@router.get(
    "/transfers/{transfer_id}/documents",
    response_model=ListResponse[DocumentRead],
    tags=TAGS,
    summary="List a transfer's documents",
)
async def list_documents(
    transfer_id: str, context: Context, page: Pages
) -> ListResponse[DocumentRead]:
    """Documents attached with `documentIds` or uploaded for this transfer, newest first."""
    found = await service.documents_of(
        context.session, caller=context.caller, transfer_id=transfer_id, page=page
    )
    return ListResponse[DocumentRead].of(found, DocumentRead.of)


@router.post(
    "/transfers/{transfer_id}/review",
    response_model=TransferRead,
    tags=TAGS,
    summary="Review a transfer (console)",
)
async def review_transfer(transfer_id: str, body: TransferDecision, context: Context) -> Response:
    """Console sessions only, on IN_REVIEW: APPROVE → PENDING (PROCESSING when the funds
    are in), REJECT → FAILED with the funds returned."""
    found = await actions.review_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))


@router.post(
    "/transfers/{transfer_id}/authorize",
    response_model=TransferRead,
    tags=TAGS,
    summary="Authorize a transfer (console)",
)
async def authorize_transfer(
    transfer_id: str, body: TransferDecision, context: Context
) -> Response:
    """Console sessions only, another user than the submitter, on PENDING_AUTHORIZATION:
    APPROVE → PENDING, REJECT → CANCELLED."""
    found = await actions.authorize_transfer(
        context.session,
        caller=context.caller,
        transfer_id=transfer_id,
        decision=body.decision,
        reason=body.reason,
        now=context.now(),
    )
    return await context.respond_json(transfer_body(found))


@router.get(
    "/customers/{customer_id}/transfers",
    response_model=ListResponse[TransferRead],
    tags=TAGS,
    summary="List a customer's transfers",
)
async def list_customer_transfers(customer_id: str, context: Reading, page: Pages) -> Response:
    """Transfers of one customer, newest first."""
    found = await service.list_customer_transfers(
        context.session, caller=context.caller, customer_id=customer_id, page=page
    )
    return transfer_list(found)


@router.get(
    "/accounts/{account_id}/transfers",
    response_model=ListResponse[TransferRead],
    tags=TAGS,
    summary="List a balance account's transfers",
)
async def list_account_transfers(account_id: str, context: Reading, page: Pages) -> Response:
    """Transfers that debit or credit the account, newest first."""
    found = await service.list_account_transfers(
        context.session, caller=context.caller, account_id=account_id, page=page
    )
    return transfer_list(found)
