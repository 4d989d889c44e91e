"""Request and response shapes of fixed routes (API.md §5 "Fixed routes")."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field

from corridor.fixedroutes.rules import FixedRouteStatus, FixedRouteType
from corridor.kit.schemas import CurrencyCode, RequestModel, ResponseModel, Sparse, Timestamp
from corridor.models.transfer import FixedRoute, VirtualAccount
from corridor.rails.base import RailName
from corridor.transfers.deposits import instructions as deposits
from corridor.transfers.schemas.parts import DestinationRead
from corridor.transfers.schemas.requests import DestinationIn, Identifier, PaymentDetailsIn

_CUSTOMER_ID = "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"
_EXTERNAL_ACCOUNT_ID = "ext_01jd3x0p6x9e3k2v1m8q4r7s5t"
_BANK_EXAMPLE: dict[str, Any] = {
    "customerId": _CUSTOMER_ID,
    "source": {"currency": "USD", "paymentRail": "WIRE"},
    "destination": {
        "toAddress": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
        "currency": "USDC",
        "paymentRail": "BASE",
    },
    "developerFee": {"fixed": "100", "percent": 0.005},
    "clientReferenceId": "payroll-route-7",
}
_WALLET_EXAMPLE: dict[str, Any] = {
    "customerId": _CUSTOMER_ID,
    "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
    "destination": {
        "externalAccountId": _EXTERNAL_ACCOUNT_ID,
        "paymentRail": "ACH",
        "currency": "USD",
        "achReference": "USDC OFFRAMP",
    },
    "remarks": "Every USDC deposit goes to the operating account",
}


class RouteSourceIn(RequestModel):
    """What the route receives: a fiat currency and bank rail (virtual bank account), or a
    stablecoin and its chain (virtual wallet)."""

    currency: CurrencyCode = Field(examples=["USD"])
    payment_rail: RailName = Field(examples=["WIRE"])


class FixedRouteCreate(PaymentDetailsIn):
    """A route: its source (currency and rail), the destination every deposit is paid out
    to (the same shape as a transfer's), and what each transfer carries."""

    model_config = ConfigDict(json_schema_extra={"examples": [_BANK_EXAMPLE, _WALLET_EXAMPLE]})

    customer_id: Identifier | None = None
    source: RouteSourceIn
    destination: DestinationIn


class FixedRouteValidate(FixedRouteCreate):
    """The body of a create; `type` optional (by default a chain rail means a virtual
    wallet, any other rail a virtual bank account)."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{**_BANK_EXAMPLE, "type": "VIRTUAL_BANK_ACCOUNT"}]}
    )

    type: FixedRouteType | None = None


class FixedRouteUpdate(PaymentDetailsIn):
    """Every field optional. `destination` is merged into the route's (a field sent as
    null is removed) and checked again; `source` and `virtualAccountId` cannot change."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"status": "PAUSED"},
                {"destination": {"wireMessage": "Invoice 42"}, "remarks": "April"},
            ]
        }
    )

    status: FixedRouteStatus | None = None
    destination: DestinationIn | None = None
    # Accepted only to refuse them with a clear message (422 naming the field).
    source: dict[str, Any] | None = None
    virtual_account_id: Identifier | None = None


# --- Responses ----------------------------------------------------------------------------


class RouteSourceRead(ResponseModel):
    currency: str = Field(examples=["USD"])
    payment_rail: str = Field(examples=["WIRE"])


class RouteDepositInstructionsRead(Sparse):
    """Spec 2.7 without an amount (any amount may be sent): the fiat variant (bank name,
    account and routing numbers or IBAN and BIC) or the crypto variant (`toAddress`)."""

    optional: ClassVar[frozenset[str]] = frozenset(
        {
            "to_address",
            "blockchain_memo",
            "bank_name",
            "account_number",
            "routing_number",
            "iban",
            "bic",
            "account_holder_name",
        }
    )
    type: Literal["crypto", "fiat"]
    payment_rail: str = Field(examples=["WIRE"])
    account_id: str = Field(description="The route's own virtual bank account or wallet")
    currency: str = Field(examples=["USD"])
    to_address: str | None = None
    blockchain_memo: str | None = None
    bank_name: str | None = None
    account_number: str | None = None
    routing_number: str | None = None
    iban: str | None = None
    bic: str | None = None
    account_holder_name: str | None = None

    @classmethod
    def of(cls, account: VirtualAccount, payment_rail: str) -> RouteDepositInstructionsRead:
        """Exactly as a transfer's instructions show the account (deposits.instructions_of)."""
        fields = deposits.instructions_of(account, payment_rail)
        return cls.model_validate({**fields, "currency": account.currency})


class RouteFeeRead(ResponseModel):
    fixed: str = Field(examples=["100"])
    percent: float = Field(examples=[0.005])


class FixedRouteRead(ResponseModel):
    id: str = Field(examples=["frt_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    organization_id: str
    customer_id: str
    type: FixedRouteType
    status: FixedRouteStatus
    flow: str = Field(examples=["FIAT_TO_CRYPTO"])
    source: RouteSourceRead
    destination: DestinationRead
    deposit_instructions: RouteDepositInstructionsRead
    counterparty_id: str | None
    developer_fee: RouteFeeRead | None = Field(
        description="Null when the route names no fee (the organization's default applies)"
    )
    client_reference_id: str | None
    remarks: str | None
    internal_remarks: str | None
    payment_reason: str | None
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, route: FixedRoute, account: VirtualAccount, *, flow: str) -> FixedRouteRead:
        fee = route.developer_fee_request
        return cls(
            id=route.id,
            organization_id=route.organization_id,
            customer_id=route.customer_id,
            type=FixedRouteType(route.type),
            status=FixedRouteStatus(route.status),
            flow=flow,
            source=RouteSourceRead(
                currency=route.source_currency, payment_rail=route.source_payment_rail
            ),
            destination=DestinationRead.model_validate(route.destination),
            deposit_instructions=RouteDepositInstructionsRead.of(
                account, route.source_payment_rail
            ),
            counterparty_id=route.counterparty_id,
            developer_fee=(
                RouteFeeRead(fixed=fee["fixed"], percent=float(fee["percent"])) if fee else None
            ),
            client_reference_id=route.client_reference_id,
            remarks=route.remarks,
            internal_remarks=route.internal_remarks,
            payment_reason=route.payment_reason,
            created_at=route.created_at,
            updated_at=route.updated_at,
        )


class RouteProblem(ResponseModel):
    field: str = Field(examples=["destination.paymentRail"])
    message: str = Field(examples=["ACH does not carry EUR"])


class FixedRouteValidation(ResponseModel):
    """200 whether the route is possible or not; nothing is created."""

    valid: bool
    flow: str | None = Field(examples=["FIAT_TO_CRYPTO"])
    errors: list[RouteProblem]
