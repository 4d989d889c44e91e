"""Wire shapes of agent mandates (API.md §9)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AwareDatetime, ConfigDict, Field, StrictInt, StrictStr, field_validator

from corridor.agents.mandates.rules import (
    MandatePayeeType,
    Recurrence,
    period_end,
    period_start,
    status_now,
)
from corridor.kit.money import MoneyError, parse_minor_units
from corridor.kit.schemas import (
    CurrencyCode,
    InSchema,
    RequestModel,
    ResponseModel,
    SingleLineText,
    Timestamp,
)

payees_max = 100
purpose_chars_max = 500
max_uses_max = 1_000_000_000
MANDATE_ID_EXAMPLE = "mdt_01jd3x0p6x9e3k2v1m8q4r7s5t"
_WHEN = "2026-12-01T00:00:00.000Z"
# A positive amount in minor units, as a string (the document says so: "0" is refused).
PositiveMinorUnitsText = Annotated[
    StrictStr, Field(examples=["100000"]), InSchema(pattern=r"^[1-9][0-9]{0,16}$")
]


def _positive_minor_units(value: str) -> str:
    try:
        units = parse_minor_units(value)
    except MoneyError as error:
        raise ValueError(str(error)) from None
    if units <= 0:
        raise ValueError("must be positive")
    return value


class MandatePayeeIn(RequestModel):
    type: MandatePayeeType = Field(examples=["counterparty"])
    id: Annotated[StrictStr, Field(max_length=64)] | None = Field(
        default=None, examples=["cp_01jd3x0p6x9e3k2v1m8q4r7s5t"]
    )
    address: Annotated[SingleLineText, Field(min_length=1, max_length=128)] | None = Field(
        default=None, description="For type address: the destination address (toAddress)"
    )


class BudgetIn(RequestModel):
    amount: PositiveMinorUnitsText = Field(examples=["100000"])
    recurrence: Recurrence = Field(default=Recurrence.NONE, examples=["MONTHLY"])

    @field_validator("amount")
    @classmethod
    def _positive(cls, value: str) -> str:
        return _positive_minor_units(value)


class MandateCreate(RequestModel):
    """Amounts are minor units of `currency` (the agent's) in strings."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "currency": "USD",
                    "payees": [{"type": "counterparty", "id": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}],
                    "maxPerPayment": "5000",
                    "budget": {"amount": "20000", "recurrence": "MONTHLY"},
                    "maxUses": 10,
                    "notBefore": "2026-12-01T00:00:00Z",
                    "notAfter": "2027-06-01T00:00:00Z",
                    "purpose": "Cloud hosting invoices",
                }
            ]
        }
    )

    currency: CurrencyCode = Field(examples=["USD"])
    payees: list[MandatePayeeIn] = Field(min_length=1, max_length=payees_max)
    max_per_payment: PositiveMinorUnitsText = Field(examples=["5000"])
    budget: BudgetIn
    max_uses: Annotated[StrictInt, Field(ge=1, le=max_uses_max)] | None = None
    not_before: AwareDatetime | None = Field(
        default=None, description="Defaults to now", examples=["2026-12-01T00:00:00Z"]
    )
    not_after: AwareDatetime = Field(examples=["2027-06-01T00:00:00Z"])
    purpose: Annotated[SingleLineText, Field(min_length=1, max_length=purpose_chars_max)]

    @field_validator("max_per_payment")
    @classmethod
    def _positive(cls, value: str) -> str:
        return _positive_minor_units(value)


class MandatePayeeRead(ResponseModel):
    type: str = Field(examples=["counterparty"])
    id: str | None = Field(default=None, examples=["cp_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    address: str | None = None


class BudgetRead(ResponseModel):
    amount: str = Field(examples=["20000"])
    recurrence: str = Field(examples=["MONTHLY"])


class MandateRead(ResponseModel):
    id: str = Field(examples=[MANDATE_ID_EXAMPLE])
    agent_id: str
    organization_id: str
    currency: str
    payees: list[MandatePayeeRead]
    max_per_payment: str
    budget: BudgetRead
    max_uses: int | None = None
    uses: int
    used: str = Field(description="Minor units consumed in the current budget period")
    period_resets_at: Timestamp | None = Field(default=None, examples=[_WHEN])
    not_before: Timestamp = Field(examples=[_WHEN])
    not_after: Timestamp = Field(examples=["2027-06-01T00:00:00.000Z"])
    purpose: str = Field(examples=["Cloud hosting invoices"])
    status: str = Field(examples=["ACTIVE"])
    deactivated_reason: str | None = None
    created_at: Timestamp = Field(examples=[_WHEN])
    updated_at: Timestamp = Field(examples=[_WHEN])

    @classmethod
    def of(cls, mandate: Any, now: datetime) -> MandateRead:
        """As of `now`: EXPIRED once past notAfter, and nothing used in a period that began
        since the last consumption."""
        current = period_start(mandate.budget_recurrence, now, created=mandate.period_start)
        fresh = mandate.budget_recurrence != Recurrence.NONE and current > mandate.period_start
        return cls(
            id=mandate.id,
            agent_id=mandate.agent_id,
            organization_id=mandate.organization_id,
            currency=mandate.currency,
            payees=[MandatePayeeRead(**payee) for payee in mandate.payees],
            max_per_payment=str(mandate.max_per_payment),
            budget=BudgetRead(
                amount=str(mandate.budget_amount), recurrence=mandate.budget_recurrence
            ),
            max_uses=mandate.max_uses,
            uses=mandate.uses,
            used="0" if fresh else str(mandate.used),
            period_resets_at=period_end(
                mandate.budget_recurrence, current if fresh else mandate.period_start
            ),
            not_before=mandate.not_before,
            not_after=mandate.not_after,
            purpose=mandate.purpose,
            status=status_now(mandate.status, mandate.not_after, now),
            deactivated_reason=mandate.deactivated_reason,
            created_at=mandate.created_at,
            updated_at=mandate.updated_at,
        )


class MandateRevoke(RequestModel):
    reason: Annotated[SingleLineText, Field(max_length=purpose_chars_max)] | None = None
