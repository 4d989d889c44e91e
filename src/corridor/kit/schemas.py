"""Pydantic bases and shared field types for the wire format of API.md section 1."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    StrictStr,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel

from corridor.kit.clock import isoformat_z
from corridor.kit.money import MoneyError, amount_object, currency, parse_minor_units


def contains_nul_character(value: Any) -> bool:
    """Whether text anywhere inside `value` holds a NUL character (PostgreSQL cannot store one)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
    return False


class RequestModel(BaseModel):
    """A request body: camelCase names only, unknown fields refused, no NUL characters."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_nul_characters(cls, value: Any) -> Any:
        # Nested request models check their own fields, so only plain values are walked here.
        if not isinstance(value, BaseModel) and contains_nul_character(value):
            raise ValueError("must not contain NUL (\\u0000) characters")
        return value


class ResponseModel(BaseModel):
    """A response body: built from Python names, sent with camelCase names."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


Timestamp = Annotated[datetime, PlainSerializer(isoformat_z, return_type=str)]


def _currency_code(code: str) -> str:
    try:
        currency(code)
    except MoneyError as error:
        raise ValueError(str(error)) from None
    return code


def _country_code(code: str) -> str:
    if len(code) != 2 or not code.isalpha() or not code.isupper():
        raise ValueError("must be an ISO 3166-1 alpha-2 country code, e.g. US")
    return code


CurrencyCode = Annotated[StrictStr, AfterValidator(_currency_code)]
CountryCode = Annotated[StrictStr, AfterValidator(_country_code)]
ShortText = Annotated[StrictStr, Field(min_length=1, max_length=200)]


class AmountIn(RequestModel):
    """Request amount: integer minor units in a string."""

    currency: CurrencyCode
    value: StrictStr = Field(examples=["12550"])

    @model_validator(mode="after")
    def _value_is_minor_units(self) -> AmountIn:
        try:
            parse_minor_units(self.value)
        except MoneyError as error:
            raise ValueError(f"value {error}") from None
        return self

    @property
    def minor_units(self) -> int:
        return int(self.value)


class Amount(ResponseModel):
    """The Amount object of spec 2.1."""

    currency: str = Field(examples=["USD"])
    exponent: int = Field(examples=[2])
    value: str = Field(examples=["12550"])
    display_value: str = Field(examples=["125.50"])

    @classmethod
    def of(cls, minor_units: int, currency_code: str) -> Amount:
        return cls.model_validate(amount_object(minor_units, currency_code))


class AddressIn(RequestModel):
    address_line1: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    address_line2: Annotated[StrictStr, Field(max_length=200)] | None = None
    city: Annotated[StrictStr, Field(min_length=1, max_length=100)]
    state: Annotated[StrictStr, Field(max_length=100)] | None = None
    postal_code: Annotated[StrictStr, Field(max_length=20)] | None = None
    country: CountryCode


class Address(ResponseModel):
    address_line1: str
    address_line2: str | None = None
    city: str
    state: str | None = None
    postal_code: str | None = None
    country: str


class Deleted(ResponseModel):
    id: str
    deleted: bool = True


class Sparse(ResponseModel):
    """A response model that leaves out its `optional` fields while they are None."""

    optional: ClassVar[frozenset[str]] = frozenset()
    # The optional fields' Python and wire names, worked out once per class (an alias
    # generator run on every answer showed up among a create+submit's top costs).
    _optional_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._optional_keys = tuple(
            dict.fromkeys(key for name in sorted(cls.optional) for key in (name, to_camel(name)))
        )

    @model_serializer(mode="wrap")
    def _leave_out_absent(self, handler):
        data = handler(self)
        for key in self._optional_keys:
            if key in data and data[key] is None:
                del data[key]
        return data


class ShownOnce(Sparse):
    """An answer that carries a secret shown once (a key's secret, a signing secret, a URL
    with a token). The secret is never stored: when the answer is kept for an idempotent
    replay (`RequestContext.respond`), the kept copy has the `secret_fields` set to null
    and `secretNote` saying why, so a replay never shows the secret again."""

    secret_fields: ClassVar[tuple[str, ...]] = ()
    # What a replay tells the client about the missing secret.
    replay_note: ClassVar[str] = (
        "The secret is shown once, in the first answer to this request, and is never stored, "
        "so a replay cannot show it again."
    )

    secret_note: str | None = Field(
        default=None,
        description="Only in an idempotent replay (`Idempotent-Replayed: true`): the secret "
        "fields are null because a secret is shown once and never stored; this says what to do.",
    )

    @model_serializer(mode="wrap")
    def _note_last(self, handler):
        data = handler(self)
        for key in ("secret_note", "secretNote"):
            if key in data:
                note = data.pop(key)
                if note is not None:
                    data[key] = note
        return data

    def redacted(self) -> ShownOnce:
        """This answer without its secrets, as a replay shows it."""
        blanked: dict[str, Any] = dict.fromkeys(self.secret_fields)
        return self.model_copy(update={**blanked, "secret_note": self.replay_note})


def _drop_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


# A request field that may be left out but, when sent, may not be null. Its Python default
# None means "left out" (check `model_fields_set`); the schema shows no default.
Omittable: Any = Field(default=None, json_schema_extra=_drop_default)
