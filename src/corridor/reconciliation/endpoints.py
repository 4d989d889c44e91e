"""HTTP endpoints of reconciliation (docs/rails.md, "Reconciliation")."""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.kit.pagination import ListResponse, PageRequest
from corridor.reconciliation import service
from corridor.reconciliation.schemas import (
    BankStatementImport,
    BankStatementLineRead,
    BankStatementLineResolve,
    BankStatementRead,
)
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1/reconciliation", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Reconciliation"]
Page = Annotated[PageRequest, Depends(page_request)]


class LineStatus(StrEnum):
    MATCHED = "MATCHED"
    EXCEPTION = "EXCEPTION"
    RESOLVED = "RESOLVED"


@router.post(
    "/statements",
    status_code=201,
    response_model=BankStatementRead,
    tags=TAGS,
    summary="Import a bank statement",
)
async def import_statement(body: BankStatementImport, context: Context) -> Response:
    """Read a camt.053 statement or a BAI2 file and match every line to a payment
    Corridor sent or pulled, by reference (end-to-end id, UETR, trace number or transfer
    id), side and amount. What does not match (no or unknown reference, another amount, a second line for a payment
    already matched) becomes an exception, with a `reconciliation.exception` event. The
    same statement imported again changes nothing."""
    statement = await service.import_statement(
        context.session,
        caller=context.caller,
        name=body.name,
        content=body.content,
        now=context.now(),
    )
    return await context.respond(BankStatementRead.of(statement), status=201)


@router.get(
    "/statements/{statement_id}",
    response_model=BankStatementRead,
    tags=TAGS,
    summary="Get an imported statement",
)
async def get_statement(statement_id: str, context: Reading) -> BankStatementRead:
    """The statement's counts: lines, matched, exceptions."""
    statement = await service.get_statement(
        context.session, caller=context.caller, statement_id=statement_id
    )
    return BankStatementRead.of(statement)


@router.get(
    "/lines",
    response_model=ListResponse[BankStatementLineRead],
    tags=TAGS,
    summary="List statement lines (the exceptions list)",
)
async def list_lines(
    context: Reading,
    page: Page,
    status: Annotated[
        LineStatus | None, Query(description="EXCEPTION: what an operator has to resolve")
    ] = None,
    statement_id: Annotated[str | None, Query(alias="statementId", max_length=40)] = None,
) -> ListResponse[BankStatementLineRead]:
    """Statement lines, newest first; `status=EXCEPTION` is the exceptions list."""
    found = await service.list_lines(
        context.session,
        caller=context.caller,
        page=page,
        status=status.value if status else None,
        statement_id=statement_id,
    )
    return ListResponse[BankStatementLineRead].of(found, BankStatementLineRead.of)


@router.post(
    "/lines/{line_id}/resolve",
    response_model=BankStatementLineRead,
    tags=TAGS,
    summary="Resolve an exception",
)
async def resolve_line(line_id: str, body: BankStatementLineResolve, context: Context) -> Response:
    """Say what an exception was (and, if it was one, which transfer): it leaves the
    exceptions list; `reconciliation.resolved` is emitted. 409 for a line that is not an
    exception."""
    line = await service.resolve_exception(
        context.session,
        caller=context.caller,
        line_id=line_id,
        resolution=body.resolution,
        transfer_id=body.transfer_id,
        now=context.now(),
    )
    return await context.respond(BankStatementLineRead.of(line))
