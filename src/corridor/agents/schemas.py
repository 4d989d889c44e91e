"""Wire shapes of agents, their keys, their spend and agent approvals (API.md §5, §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator

from corridor.agents import spend
from corridor.agents.rules import (
    AgentStatus,
    ApprovalDecision,
    NewPayeeAction,
    OverLimitAction,
    PayeeType,
)
from corridor.auth.callers import ToolConfirmation
from corridor.auth.schemas import KEY_REPLAY_NOTE
from corridor.kit.money import MoneyError, minor_units_pattern, parse_minor_units
from corridor.kit.schemas import (
    CurrencyCode,
    InSchema,
    MultiLineText,
    RequestModel,
    ResponseModel,
    ShownOnce,
    SingleLineText,
    Timestamp,
)

name_chars_max = 200
description_chars_max = 1000
allowlist_entries_max = 100
daily_payment_count_max = 1_000_000
approval_reason_chars_max = 500

AGENT_ID_EXAMPLE = "agt_01jd3x0p6x9e3k2v1m8q4r7s5t"


def _minor_units(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_minor_units(value)
    except MoneyError as error:
        raise ValueError(str(error)) from None
    return value


MinorUnitsText = Annotated[
    StrictStr, Field(examples=["100000"]), InSchema(pattern=minor_units_pattern)
]


class LimitsIn(RequestModel):
    """Minor units of `currency` in strings; null (or absent) means no limit."""

    currency: CurrencyCode | None = Field(
        default=None, description="Defaults to the funding account's currency", examples=["USD"]
    )
    per_transfer: MinorUnitsText | None = Field(default=None, examples=["50000"])
    daily: MinorUnitsText | None = Field(default=None, examples=["100000"])
    monthly: MinorUnitsText | None = Field(default=None, examples=["1000000"])
    daily_payment_count: (
        Annotated[StrictInt, Field(ge=1, le=daily_payment_count_max, examples=[20])] | None
    ) = Field(
        default=None,
        description="At most this many payments submitted per UTC day (a positive integer); "
        "null means no limit",
    )

    @field_validator("per_transfer", "daily", "monthly")
    @classmethod
    def _limit_is_minor_units(cls, value: str | None) -> str | None:
        return _minor_units(value)


class AllowlistEntry(RequestModel):
    type: PayeeType
    id: Annotated[
        StrictStr, Field(min_length=1, max_length=64, examples=["cp_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    ]


Allowlist = Annotated[list[AllowlistEntry], Field(max_length=allowlist_entries_max)]
Name = Annotated[
    SingleLineText, Field(min_length=1, max_length=name_chars_max, examples=["Invoice bot"])
]
Description = Annotated[
    MultiLineText,
    Field(max_length=description_chars_max, examples=["Pays approved supplier invoices"]),
]


class AgentCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "customerId": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "sourceAccountId": "acc_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "name": "Invoice bot",
                    "description": "Pays approved supplier invoices",
                    "limits": {"currency": "USD", "perTransfer": "50000", "daily": "100000"},
                    "destinationAllowlist": [
                        {"type": "counterparty", "id": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}
                    ],
                    "overLimitAction": "REQUEST_APPROVAL",
                }
            ]
        }
    )

    customer_id: Annotated[
        StrictStr, Field(max_length=64, examples=["cus_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    ]
    source_account_id: Annotated[
        StrictStr, Field(max_length=64, examples=["acc_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    ]
    name: Name
    description: Description | None = None
    limits: LimitsIn | None = None
    destination_allowlist: Allowlist = Field(
        default_factory=list,
        description="The only payees the agent may pay; empty means none yet",
    )
    over_limit_action: OverLimitAction = OverLimitAction.REJECT
    require_mandate: StrictBool = Field(
        default=False, description="Pay only under one of the agent's mandates"
    )
    new_payee_action: NewPayeeAction = Field(
        default=NewPayeeAction.ALLOW,
        description="REQUEST_APPROVAL: a payment to a payee the agent never paid waits for "
        "an owner's approval, whatever overLimitAction says",
    )


class AgentUpdate(RequestModel):
    """Only the fields sent change. `limits` merges field by field (null removes a limit);
    `destinationAllowlist` replaces the list. `customerId`, `sourceAccountId` and
    `limits.currency` are fixed at creation (422 when sent with another value)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"limits": {"daily": "200000"}, "status": "paused"},
                {
                    "destinationAllowlist": [
                        {"type": "counterparty", "id": "cp_01jd3x0p6x9e3k2v1m8q4r7s5t"}
                    ]
                },
            ]
        }
    )

    name: Name | None = None
    description: Description | None = None
    limits: LimitsIn | None = None
    destination_allowlist: Allowlist | None = None
    over_limit_action: OverLimitAction | None = None
    require_mandate: StrictBool | None = None
    new_payee_action: NewPayeeAction | None = None
    status: (
        Annotated[
            StrictStr,
            Field(max_length=20, examples=["paused"], description="active or paused"),
            InSchema(pattern="^([Aa][Cc][Tt][Ii][Vv][Ee]|[Pp][Aa][Uu][Ss][Ee][Dd])$"),
        ]
        | None
    ) = None
    customer_id: Annotated[StrictStr, Field(max_length=64)] | None = None
    source_account_id: Annotated[StrictStr, Field(max_length=64)] | None = None

    @field_validator("status")
    @classmethod
    def _status_is_active_or_paused(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.upper() not in (AgentStatus.ACTIVE, AgentStatus.PAUSED):
            raise ValueError("must be active or paused (revoke with POST /v1/agents/{id}/revoke)")
        return value.upper()


class LimitsRead(ResponseModel):
    currency: str = Field(examples=["USD"])
    per_transfer: str | None = Field(examples=["50000"])
    daily: str | None = Field(examples=["100000"])
    monthly: str | None = Field(examples=["1000000"])
    daily_payment_count: int | None = Field(
        default=None, examples=[20], description="Payments per UTC day; null: no limit"
    )


class AllowlistEntryRead(ResponseModel):
    type: str = Field(examples=["counterparty"])
    id: str = Field(examples=["cp_01jd3x0p6x9e3k2v1m8q4r7s5t"])


def _text(value: int | None) -> str | None:
    return None if value is None else str(value)


class AgentRead(ResponseModel):
    id: str = Field(examples=[AGENT_ID_EXAMPLE])
    organization_id: str
    customer_id: str
    source_account_id: str
    name: str
    description: str | None = None
    limits: LimitsRead
    destination_allowlist: list[AllowlistEntryRead]
    over_limit_action: str = Field(examples=["REQUEST_APPROVAL"])
    require_mandate: bool = False
    new_payee_action: str = Field(default="ALLOW", examples=["ALLOW"])
    status: str = Field(examples=["ACTIVE"])
    created_at: Timestamp
    updated_at: Timestamp
    revoked_at: Timestamp | None = None

    @classmethod
    def of(cls, agent: Any) -> AgentRead:
        return cls(
            id=agent.id,
            organization_id=agent.organization_id,
            customer_id=agent.customer_id,
            source_account_id=agent.source_account_id,
            name=agent.name,
            description=agent.description,
            limits=LimitsRead(
                currency=agent.currency,
                per_transfer=_text(agent.per_transfer_limit),
                daily=_text(agent.daily_limit),
                monthly=_text(agent.monthly_limit),
                daily_payment_count=agent.daily_payment_count,
            ),
            destination_allowlist=[
                AllowlistEntryRead(type=entry["type"], id=entry["id"])
                for entry in agent.destination_allowlist
            ],
            over_limit_action=agent.over_limit_action,
            require_mandate=bool(agent.require_mandate),
            new_payee_action=agent.new_payee_action,
            status=agent.status,
            created_at=agent.created_at,
            updated_at=agent.updated_at,
            revoked_at=agent.revoked_at,
        )


class AgentKeyCreate(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"name": "Invoice bot, production"}]})

    name: Name | None = Field(default=None, description="Defaults to the agent's name")


class AgentKeyRead(ResponseModel):
    id: str = Field(examples=["key_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    agent_id: str = Field(examples=[AGENT_ID_EXAMPLE])
    name: str
    scopes: list[str] = Field(examples=[["accounts:read", "customers:read", "transfers:read"]])
    prefix: str = Field(examples=["sk_sandbox_agent_Ab3dE9"])
    tool_confirmation: ToolConfirmation = Field(
        description="When its write tools (MCP) wait for a person: `never` unless an owner "
        "set `always` or `over_limit` (PATCH /v1/api-keys/{keyId})"
    )
    created_at: Timestamp
    revoked_at: Timestamp | None = None
    last_used_at: Timestamp | None = None


class AgentKeyCreated(AgentKeyRead, ShownOnce):
    secret_fields = ("secret",)
    replay_note = KEY_REPLAY_NOTE

    secret: str | None = Field(
        description="The whole secret. Shown only in this response: store it now. null in an "
        "idempotent replay of this request (`secretNote` says why): the secret is never stored."
    )


class SpendWindowRead(ResponseModel):
    window: str = Field(examples=["day"])
    limit: str | None = Field(examples=["100000"], description="null: no limit in this window")
    used: str = Field(examples=["95000"])
    remaining: str | None = Field(examples=["5000"], description="null when there is no limit")
    resets_at: Timestamp


class PaymentCountRead(ResponseModel):
    """The payments counted in the UTC day of now against `dailyPaymentCount`."""

    window: str = Field(examples=["day"])
    limit: int | None = Field(examples=[20], description="null: no daily payment count")
    used: int = Field(examples=[3])
    remaining: int | None = Field(examples=[17], description="null when there is no limit")
    resets_at: Timestamp


class AgentSpendRead(ResponseModel):
    agent_id: str = Field(examples=[AGENT_ID_EXAMPLE])
    currency: str = Field(examples=["USD"])
    windows: list[SpendWindowRead]
    payments: PaymentCountRead | None = Field(
        default=None, description="How many payments were counted today, and the limit"
    )

    @classmethod
    def of(cls, agent: Any, usage: spend.Usage, now: datetime) -> AgentSpendRead:
        """The day and month windows that contain `now`, in minor-unit strings."""
        windows = (
            ("day", agent.daily_limit, usage.day_minor, spend.day_span(now)),
            ("month", agent.monthly_limit, usage.month_minor, spend.month_span(now)),
        )
        return cls(
            agent_id=agent.id,
            currency=agent.currency,
            windows=[
                SpendWindowRead(
                    window=window,
                    limit=_text(limit),
                    used=str(used),
                    remaining=_text(spend.remaining(limit, used)),
                    resets_at=span.end,
                )
                for window, limit, used, span in windows
            ],
            payments=PaymentCountRead(
                window="day",
                limit=agent.daily_payment_count,
                used=usage.day_payments,
                remaining=spend.remaining(agent.daily_payment_count, usage.day_payments),
                resets_at=spend.day_span(now).end,
            ),
        )


class AgentApproval(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"decision": "APPROVE", "reason": "Supplier invoice checked"},
                {"decision": "DECLINE", "reason": "Not an invoice we expect"},
            ]
        }
    )

    decision: ApprovalDecision = Field(examples=["APPROVE"])
    reason: (
        Annotated[
            StrictStr,
            Field(max_length=approval_reason_chars_max, examples=["Supplier invoice checked"]),
        ]
        | None
    ) = None


class SigningKeyCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "publicKeyJwk": {
                        "kty": "OKP",
                        "crv": "Ed25519",
                        "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
                    }
                }
            ]
        }
    )

    public_key_jwk: dict[str, Any] = Field(
        description="An Ed25519 (kty OKP) or ECDSA P-256 (kty EC) public JSON Web Key"
    )


class SigningKeyRead(ResponseModel):
    id: str = Field(examples=["sgk_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    agent_id: str = Field(examples=[AGENT_ID_EXAMPLE])
    key_id: str = Field(
        description="The keyid a signature names: the key's RFC 7638 thumbprint",
        examples=["kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"],
    )
    algorithm: str = Field(examples=["ed25519"], description="ed25519 or ecdsa-p256-sha256")
    public_key_jwk: dict[str, Any]
    created_at: Timestamp
    revoked_at: Timestamp | None = None
