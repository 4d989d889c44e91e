"""HTTP endpoint of a customer's treasury balances."""

from __future__ import annotations

from fastapi import APIRouter

from corridor.treasury import service
from corridor.treasury.schemas import TreasuryBalancesRead
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)


@router.get(
    "/customers/{customer_id}/treasury-balances",
    response_model=TreasuryBalancesRead,
    tags=["Customers"],
    summary="Get a customer's treasury balances",
)
async def get_treasury_balances(customer_id: str, context: Context) -> TreasuryBalancesRead:
    """Per currency, across the customer's balance accounts: `available`, `held` (reserved
    by transfers in flight), `pending` (incoming) and `total`; and every currency valued in
    the organization's `reportingCurrency` at the sandbox reference rate (no spread), with
    the rate, its provider and its date. Needs `accounts:read`."""
    return await service.treasury_balances(
        context.session, caller=context.caller, customer_id=customer_id, now=context.now()
    )
