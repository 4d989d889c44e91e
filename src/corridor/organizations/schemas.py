"""Wire shapes of organizations and their configuration."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_serializer,
    model_validator,
)

from corridor.auth.schemas import ApiKeyRead
from corridor.kit.money import MoneyError, parse_minor_units
from corridor.kit.schemas import (
    Amount,
    AmountIn,
    CurrencyCode,
    Omittable,
    RequestModel,
    ResponseModel,
    ShownOnce,
    SingleLineText,
    Timestamp,
)
from corridor.organizations import configuration as rules
from corridor.organizations.configuration import Configuration, DeveloperFee, Threshold

organization_name_chars_max = 200
requests_per_second_per_key_max = 1_000_000

OrganizationKind = Literal["STANDARD", "PLATFORM"]


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    return text


def _valid_account_currencies(codes: list[str]) -> list[str]:
    problem = rules.account_currencies_problem(codes)
    if problem is not None:
        raise ValueError(problem)
    return codes


OrganizationName = Annotated[
    SingleLineText,
    Field(min_length=1, max_length=organization_name_chars_max, examples=["Acme Payments"]),
    AfterValidator(_not_blank),
]


def _valid_reporting_currency(code: str) -> str:
    problem = rules.reporting_currency_problem(code)
    if problem is not None:
        raise ValueError(problem)
    return code


ReportingCurrency = Annotated[
    CurrencyCode, Field(examples=["USD"]), AfterValidator(_valid_reporting_currency)
]

AccountCurrencies = Annotated[
    list[CurrencyCode],
    Field(min_length=1, max_length=rules.account_currencies_max, examples=[["USD", "EUR", "USDC"]]),
    AfterValidator(_valid_account_currencies),
]


class OrganizationRead(ResponseModel):
    id: str = Field(examples=["org_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    name: str
    kind: OrganizationKind = Field(
        description="PLATFORM: its API sessions must be bound to a customer (spec 5.7)"
    )
    parent_id: str | None = Field(description="The organization that created this one")
    created_at: Timestamp
    updated_at: Timestamp


class OrganizationCreate(RequestModel):
    """A child of the caller's organization."""

    model_config = {
        "json_schema_extra": {"examples": [{"name": "Acme Europe", "kind": "STANDARD"}]}
    }

    name: OrganizationName
    kind: OrganizationKind = "STANDARD"
    create_api_key: StrictBool = Field(
        default=False,
        description="Also make the child's first unrestricted API key; its secret is in this "
        "answer only",
    )


class OrganizationCreated(OrganizationRead, ShownOnce):
    """The new child organization, with its first key when `createApiKey` was true."""

    secret_fields = ("api_key_secret",)
    replay_note = (
        "The key's secret is shown once, in the first answer to this request, and is never "
        "stored. If it was lost, revoke the key (X-Corridor-Organization: <child id>, "
        "DELETE /v1/api-keys/{id}) and create another."
    )

    api_key: ApiKeyRead | None = Field(
        default=None, description='The child\'s first key, unrestricted (scopes ["*"])'
    )
    api_key_secret: str | None = Field(
        default=None,
        description="That key's whole secret, shown only in this answer: store it now",
    )

    def redacted(self) -> ShownOnce:
        """Without a secret to leave out, a replay is the first answer byte for byte."""
        return self if self.api_key_secret is None else super().redacted()

    # Replaces ShownOnce's serializer (a model has one): the key's two fields appear only
    # when a key was made, and `secretNote` stays last.
    @model_serializer(mode="wrap")
    def _note_last(self, handler):
        data = handler(self)
        note = None
        for name in ("secret_note", "secretNote"):
            note = data.pop(name, None) or note
        if self.api_key is None:
            for name in ("api_key", "apiKey", "api_key_secret", "apiKeySecret"):
                data.pop(name, None)
        if note is not None:
            data["secretNote"] = note
        return data


class OrganizationUpdate(RequestModel):
    model_config = {"json_schema_extra": {"examples": [{"name": "Acme Payments Ltd"}]}}

    name: OrganizationName = Omittable


class DefaultDeveloperFeeIn(RequestModel):
    fixed: StrictStr = Field(
        examples=["100"], description="Minor units of the transfer's currency, in a string"
    )
    percent: float = Field(
        strict=True,
        ge=0,
        le=1,
        allow_inf_nan=False,
        examples=[0.005],
        description="A fraction of the amount: 0.005 is 0.5%",
    )

    @model_validator(mode="after")
    def _fixed_is_minor_units(self) -> DefaultDeveloperFeeIn:
        try:
            parse_minor_units(self.fixed)
        except MoneyError as error:
            raise ValueError(f"fixed {error}") from None
        return self


class DefaultDeveloperFeeRead(ResponseModel):
    fixed: str = Field(examples=["100"])
    percent: float = Field(examples=[0.005])


class ConfigurationRead(ResponseModel):
    account_currencies: list[str] = Field(
        description="Balance accounts open in these currencies when a customer becomes ACTIVE"
    )
    transfer_authorization_threshold: Amount | None = Field(
        description="Submits above this amount need a second console user's authorization"
    )
    default_developer_fee: DefaultDeveloperFeeRead | None = Field(
        description="The developer fee of transfers that name none"
    )
    webhook_history_enabled: bool = Field(
        description="When false, webhook message history is not kept (`available` is false)"
    )
    reporting_currency: str = Field(
        description="The fiat currency treasury totals are converted to", examples=["USD"]
    )
    requests_per_second_per_key: int | None = Field(
        description="Requests per second each API key (or console user) may make before 429 "
        "`rate_limited`; null: the server's default (300). The server caps it (3000 by default)."
    )

    @classmethod
    def of(cls, configuration: Configuration) -> ConfigurationRead:
        threshold = configuration.transfer_authorization_threshold
        fee = configuration.default_developer_fee
        return cls(
            account_currencies=list(configuration.account_currencies),
            transfer_authorization_threshold=(
                Amount.of(threshold.minor_units, threshold.currency) if threshold else None
            ),
            default_developer_fee=(
                DefaultDeveloperFeeRead(fixed=str(fee.fixed_minor_units), percent=fee.percent)
                if fee
                else None
            ),
            webhook_history_enabled=configuration.webhook_history_enabled,
            reporting_currency=configuration.reporting_currency,
            requests_per_second_per_key=configuration.requests_per_second_per_key,
        )


class ConfigurationUpdate(RequestModel):
    """Only the fields sent change; send null to clear a nullable field."""

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "accountCurrencies": ["USD", "EUR", "USDC"],
                    "transferAuthorizationThreshold": {"currency": "USD", "value": "1000000"},
                    "defaultDeveloperFee": {"fixed": "100", "percent": 0.005},
                    "webhookHistoryEnabled": True,
                    "reportingCurrency": "USD",
                }
            ]
        }
    }

    account_currencies: AccountCurrencies = Omittable
    transfer_authorization_threshold: AmountIn | None = None
    default_developer_fee: DefaultDeveloperFeeIn | None = None
    webhook_history_enabled: StrictBool = Omittable
    reporting_currency: ReportingCurrency = Omittable
    requests_per_second_per_key: (
        Annotated[StrictInt, Field(ge=1, le=requests_per_second_per_key_max)] | None
    ) = None

    def changes(self) -> dict[str, Any]:
        """The sent fields as keyword arguments of `Configuration`."""
        changes: dict[str, Any] = {}
        for name in self.model_fields_set:
            changes[name] = _domain_value(getattr(self, name))
        return changes


def _domain_value(value: Any) -> Any:
    if isinstance(value, AmountIn):
        return Threshold(currency=value.currency, minor_units=value.minor_units)
    if isinstance(value, DefaultDeveloperFeeIn):
        return DeveloperFee(fixed_minor_units=int(value.fixed), percent=value.percent)
    if isinstance(value, list):
        return tuple(value)
    return value
