"""HTTP endpoints of statements: an account's month as JSON, CSV or PDF, and the month's
transfers that did not touch its balance."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from corridor.kit.errors import ValidationFailed
from corridor.statements import exports, service
from corridor.statements.rules import StatementFormat, period_pattern
from corridor.statements.schemas import NonBalanceStatementRead, StatementRead
from corridor.web.context import Reading, RequestContext
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Accounts"]
period_chars_max = 7


_MEDIA_TYPES = {
    StatementFormat.JSON: "application/json",
    StatementFormat.CSV: "text/csv",
    StatementFormat.PDF: "application/pdf",
}

# A month with one funding, as /openapi.json shows the CSV (exports.statement_csv's rows).
_CSV_EXAMPLE = "\r\n".join(
    [
        ",".join(exports.CSV_COLUMNS),
        "2026-10-01T00:00:00.000Z,,OPENING_BALANCE,Opening balance,,,,100.00,USD",
        "2026-10-03T12:00:00.000Z,pst_01m87spang4c00r1cjxvrhg2t9,SANDBOX_FUNDING,"
        "Sandbox funding,,50.00,,150.00,USD",
        "2026-11-01T00:00:00.000Z,,CLOSING_BALANCE,Closing balance,,50.00,0.00,150.00,USD",
        "",
    ]
)

FormatQuery = Annotated[
    StatementFormat | None,
    Query(
        alias="format",
        description="json, csv or pdf; without it the Accept header decides (JSON by default)",
    ),
]


def _chosen_format(context: RequestContext, asked: StatementFormat | None) -> StatementFormat:
    if asked is not None:
        return asked
    accept = context.request.headers.get("accept", "").lower()
    for wanted in (StatementFormat.PDF, StatementFormat.CSV):
        if _MEDIA_TYPES[wanted] in accept:
            return wanted
    return StatementFormat.JSON


PeriodText = Annotated[
    str, Path(description="A UTC month, YYYY-MM", json_schema_extra={"pattern": period_pattern})
]


def _check_period_text(period: str) -> None:
    if len(period) > period_chars_max:
        raise ValidationFailed("period", "must be a month as YYYY-MM, e.g. 2026-01")


@router.get(
    "/accounts/{account_id}/statements/{period}",
    response_model=StatementRead,
    tags=TAGS,
    summary="Get an account's monthly statement",
    responses={
        200: {
            "content": {
                "text/csv": {"schema": {"type": "string"}, "example": _CSV_EXAMPLE},
                "application/pdf": {"schema": {"type": "string", "format": "binary"}},
            }
        }
    },
)
async def get_statement(
    account_id: str, period: PeriodText, context: Reading, format: FormatQuery = None
) -> Response:
    """The UTC month `period` (YYYY-MM): opening balance, every balance transaction with the
    running balance, closing balance, totals in and out. JSON, or with `Accept: text/csv` /
    `application/pdf` (or `?format=csv|pdf`) a CSV or a PDF to file. The current month runs
    to now (`complete: false`). A month in the future or before the account was opened is
    422."""
    _check_period_text(period)
    chosen = _chosen_format(context, format)
    statement = await service.monthly_statement(
        context.session,
        caller=context.caller,
        account_id=account_id,
        period=period,
        now=context.now(),
    )
    if chosen is StatementFormat.JSON:
        return Response(statement.model_dump_json(by_alias=True), media_type="application/json")
    body = (
        exports.statement_csv(statement)
        if chosen is StatementFormat.CSV
        else exports.statement_pdf(statement)
    )
    name = f"statement-{statement.account_id}-{statement.period}.{chosen.value}"
    return Response(
        body,
        media_type=_MEDIA_TYPES[chosen],
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


@router.get(
    "/accounts/{account_id}/statements/{period}/non-balance",
    response_model=NonBalanceStatementRead,
    tags=TAGS,
    summary="List a month's transfers that passed through an account",
)
async def get_non_balance_statement(
    account_id: str, period: PeriodText, context: Reading
) -> NonBalanceStatementRead:
    """Deposits of the month to the account's virtual accounts (its virtual bank account,
    fixed routes' accounts, deposit wallets) whose transfers went on without touching the
    balance: fixed routes converting and paying out, wallet-to-bank transfers."""
    _check_period_text(period)
    return await service.non_balance_statement(
        context.session,
        caller=context.caller,
        account_id=account_id,
        period=period,
        now=context.now(),
    )
