"""GET /v1/transfers/{transferId}/receipts and GET /.well-known/jwks.json."""

from __future__ import annotations

import json
from enum import Enum

from fastapi import APIRouter, Response

from corridor.receipts import service
from corridor.receipts.rules import JWKS_MAX_AGE_S
from corridor.receipts.schemas import ReceiptList, ReceiptRead
from corridor.web.context import Context, Public
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Receipts"]


@router.get(
    "/v1/transfers/{transfer_id}/receipts",
    response_model=ReceiptList,
    tags=TAGS,
    summary="List a transfer's receipts",
)
async def list_receipts(transfer_id: str, context: Context) -> ReceiptList:
    """The signed receipts of an agent's payment (API.md 9), oldest first: AUTHORIZED when
    its agent's submit was let through, APPROVED or DECLINED by its owner, then COMPLETED,
    FAILED or RETURNED. Each `jws` verifies offline against /.well-known/jwks.json. A
    transfer no agent made has none (`data` is empty). Whoever may see the transfer sees
    them (`transfers:read`)."""
    found = await service.list_receipts(
        context.session, caller=context.caller, transfer_id=transfer_id
    )
    return ReceiptList(data=[ReceiptRead.model_validate(receipt) for receipt in found])


# Out of the OpenAPI document, as the other /.well-known documents: not an API call of the
# SDKs (docs/quickstart/agents.md "Receipts" shows it).
@router.get("/.well-known/jwks.json", include_in_schema=False)
async def jwks(context: Public) -> Response:
    """The public keys receipts are signed with (no authentication)."""
    document = await service.jwks(context.session)
    return Response(
        json.dumps(document),
        media_type="application/json",
        headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE_S}"},
    )
