"""HTTP endpoints of bank files (docs/rails.md)."""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.bankfiles import service
from corridor.bankfiles.schemas import (
    BankFileEntries,
    BankFileEntryRead,
    BankFileImport,
    BankFileRead,
)
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Bank files"]
Page = Annotated[PageRequest, Depends(page_request)]
NACHA_EXAMPLE = (
    "101 123456780 12345678902611181530A094101CORRIDOR SANDBOX BANK  ACME PAYMENTS\n"
    "5220ACME PAYMENTS                       1234567890PPDPAYMENT         261118   1123456780000001\n"
    "…\n"
)
PAIN_001_EXAMPLE = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn>'
    "<GrpHdr><MsgId>bkf_01m8a2q7c9x4yz3k8w5r6t1v0n</MsgId>…</GrpHdr>…</CstmrCdtTrfInitn></Document>"
)
MEDIA_TYPES = {"NACHA": "text/plain", "NACHA_RETURN": "text/plain"}


class Direction(StrEnum):
    OUTGOING = "OUTGOING"
    INCOMING = "INCOMING"


@router.get(
    "/bank-files",
    response_model=ListResponse[BankFileRead],
    tags=TAGS,
    summary="List bank files",
)
async def list_bank_files(
    context: Reading,
    page: Page,
    direction: Annotated[Direction | None, Query(description="OUTGOING or INCOMING")] = None,
    rail: Annotated[str | None, Query(max_length=20, pattern="^[A-Z_]+$")] = None,
    status: Annotated[str | None, Query(max_length=20, pattern="^[A-Z_]+$")] = None,
) -> ListResponse[BankFileRead]:
    """The files written for the bank (a NACHA file or a pain.001 per rail and window)
    and those it sent back (returns, notifications of change, status reports), newest
    first."""
    found = await service.list_files(
        context.session,
        caller=context.caller,
        page=page,
        direction=direction.value if direction else None,
        rail=rail,
        status=status,
    )
    return ListResponse[BankFileRead].of(found, BankFileRead.of)


@router.get(
    "/bank-files/{bank_file_id}",
    response_model=BankFileRead,
    tags=TAGS,
    summary="Get a bank file",
)
async def get_bank_file(bank_file_id: str, context: Reading) -> BankFileRead:
    """A bank file's record: its window, counts, totals, upload state, or (incoming) what
    reading it did."""
    file = await service.get_file(context.session, caller=context.caller, bank_file_id=bank_file_id)
    return BankFileRead.of(file)


@router.get(
    "/bank-files/{bank_file_id}/content",
    tags=TAGS,
    summary="Download a bank file",
    response_class=Response,
    responses={
        200: {
            "content": {
                "text/plain": {"schema": {"type": "string"}, "example": NACHA_EXAMPLE},
                "application/xml": {"schema": {"type": "string"}, "example": PAIN_001_EXAMPLE},
            }
        }
    },
)
async def get_bank_file_content(bank_file_id: str, context: Reading) -> Response:
    """The file itself, byte for byte: `text/plain` for NACHA, `application/xml` for
    ISO 20022."""
    file = await service.get_file(context.session, caller=context.caller, bank_file_id=bank_file_id)
    media_type = MEDIA_TYPES.get(file.format, "application/xml")
    return Response(
        file.content,
        media_type=media_type,
        headers={"Content-Disposition": f'attachment; filename="{file.name}"'},
    )


@router.get(
    "/bank-files/{bank_file_id}/entries",
    response_model=BankFileEntries,
    tags=TAGS,
    summary="List a bank file's entries",
)
async def list_bank_file_entries(bank_file_id: str, context: Reading) -> BankFileEntries:
    """The payments an outgoing file carries (at most 10,000), or those an incoming file
    answered, with their state."""
    entries = await service.entries_of(
        context.session, caller=context.caller, bank_file_id=bank_file_id
    )
    return BankFileEntries(data=[BankFileEntryRead.of(entry) for entry in entries])


@router.post(
    "/sandbox/bank-files/imports",
    status_code=201,
    response_model=BankFileRead,
    tags=["Sandbox"],
    summary="Import a file from the bank (sandbox)",
)
async def import_bank_file(body: BankFileImport, context: Context) -> Response:
    """Read a file as if the bank had sent it: a NACHA return/NOC file, or an ISO 20022
    pain.002, pacs.002, pacs.004 or camt.054. Returns reverse or fail their transfers,
    rejections fail them with the bank's reason, NOCs emit `bank_file.change_notified`.
    The same content imported again changes nothing and answers the first import. In
    production the bank's files arrive only over the bank connection (403 `sandbox_only`)."""
    file = await service.import_file(
        context.session,
        caller=context.caller,
        sandbox=context.settings.is_sandbox,
        name=body.name,
        content=body.content,
        now=context.now(),
    )
    return await context.respond(BankFileRead.of(file), status=201)
