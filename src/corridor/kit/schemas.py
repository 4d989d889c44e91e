"""Pydantic bases and shared field types for the wire format of API.md section 1."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PlainSerializer,
    StrictStr,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from corridor.kit.clock import isoformat_z
from corridor.kit.money import CURRENCIES, MoneyError, amount_object, currency, parse_minor_units

# Characters no name, reference or remark needs and that can hide or disguise text: C0
# controls but tab, line feed and carriage return; DEL and the C1 controls; zero-width
# spaces, joiners and marks (U+200B-U+200F); bidirectional embeddings, overrides and
# isolates (U+202A-U+202E, U+2066-U+2069); the byte-order mark (U+FEFF).
_HIDDEN_CHARACTERS = (
    r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff"
)
# A single line also refuses tab, line feed, carriage return and the Unicode separators.
_LINE_BREAKS = r"\t\n\r\u2028\u2029"
# The same classes as JSON Schema (ECMA-262) patterns, stated in the OpenAPI document.
multi_line_text_pattern = f"^[^{_HIDDEN_CHARACTERS}]*$"
# An http(s) URL: no whitespace and none of the characters above.
web_address_pattern = rf"^https?://[^\s{_HIDDEN_CHARACTERS}]*$"
single_line_text_pattern = f"^[^{_HIDDEN_CHARACTERS}{_LINE_BREAKS}]*$"
# Unpaired surrogates (U+D800-U+DFFF alone) are no text: JSON can write them (`"\ud800"`),
# and neither UTF-8 nor a database can hold them. Refused by the server, outside the
# patterns: a JSON Schema pattern reads text as UTF-16, where every emoji is a pair of them.
_SURROGATES = r"\ud800-\udfff"
_MULTI_LINE = re.compile(f"[{_HIDDEN_CHARACTERS}{_SURROGATES}]")
_SINGLE_LINE = re.compile(f"[{_HIDDEN_CHARACTERS}{_LINE_BREAKS}{_SURROGATES}]")
_UNSTORABLE = re.compile(f"[\\x00{_SURROGATES}]")


def _first_refused(text: str, refused: re.Pattern[str]) -> str | None:
    found = refused.search(text)
    if found is None:
        return None
    character = found.group()
    if character == "\x00":
        name = " NUL"
    elif "\ud800" <= character <= "\udfff":
        name = " unpaired surrogate"
    else:
        name = ""
    return f"U+{ord(character):04X}{name} at position {found.start()}"


def refuse_hidden_characters(text: str) -> str:
    if (where := _first_refused(text, _MULTI_LINE)) is not None:
        raise ValueError(
            f"must not contain control, zero-width or bidirectional-control characters ({where})"
        )
    return text


def refuse_line_breaks_and_hidden_characters(text: str) -> str:
    refuse_hidden_characters(text)
    if (where := _first_refused(text, _SINGLE_LINE)) is not None:
        raise ValueError(f"must be a single line without tabs or line breaks ({where})")
    return text


class InSchema:
    """JSON Schema keywords stating what a field's validator demands (pattern, enum,
    minimum, …), added to the field's schema so the OpenAPI document is as strict as the
    server. A marker inside `Annotated`, so it composes with any `Field(...)`."""

    __slots__ = ("keywords",)

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema.update(self.keywords)
        return schema


# Free text that may run over several lines (remarks, descriptions, reasons).
MultiLineText = Annotated[
    StrictStr,
    AfterValidator(refuse_hidden_characters),
    InSchema(pattern=multi_line_text_pattern),
]
# Names, titles, labels and references: one line of visible text.
SingleLineText = Annotated[
    StrictStr,
    AfterValidator(refuse_line_breaks_and_hidden_characters),
    InSchema(pattern=single_line_text_pattern),
]


def _hidden_character_in(value: Any) -> str | None:
    """Where text anywhere inside `value` holds a hidden character (see above), or None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if (where := _first_refused(item, _MULTI_LINE)) is not None:
                return where
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
    return None


def contains_unstorable_character(value: Any) -> bool:
    """Whether text anywhere inside `value` holds a NUL character (PostgreSQL cannot store
    one) or an unpaired surrogate (no database can)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _UNSTORABLE.search(item) is not None:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            pending.extend(item)
    return False


def _state_the_text_pattern(schema: dict[str, Any]) -> None:
    """Give every string of a request field the pattern its validator applies (nested
    models are definitions of their own, stated when they are made)."""
    if schema.get("type") == "string" and not {"pattern", "enum", "const", "format"} & set(schema):
        schema["pattern"] = multi_line_text_pattern
    for key in ("anyOf", "oneOf", "allOf"):
        for option in schema.get(key, []):
            _state_the_text_pattern(option)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _state_the_text_pattern(schema[key])
    for field in schema.get("properties", {}).values():
        _state_the_text_pattern(field)


class RequestModel(BaseModel):
    """A request body: camelCase names only, unknown fields refused, no hidden characters.

    Every string anywhere in a body refuses NUL, the other control characters but tab and
    line breaks, zero-width and bidirectional-control characters, and unpaired surrogates;
    names and references (`SingleLineText`) refuse tabs and line breaks too. A model may
    name fields in `free_text_fields` that take any character but NUL and unpaired
    surrogates (chat text, where emoji and some scripts need zero-width joiners)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)
    free_text_fields: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        definition = handler.resolve_ref_schema(schema)
        free = {to_camel(name) for name in cls.free_text_fields}
        for name, field in definition.get("properties", {}).items():
            if name not in free:
                _state_the_text_pattern(field)
        return schema

    @field_validator("*", mode="after")
    @classmethod
    def _refuse_hidden_characters(cls, value: Any, info: ValidationInfo) -> Any:
        # Nested request models check their own fields, so only plain values are walked here.
        if isinstance(value, BaseModel):
            return value
        if info.field_name in cls.free_text_fields:
            if contains_unstorable_character(value):
                raise ValueError(
                    "must not contain NUL (\\u0000) characters or unpaired surrogates"
                    " (\\ud800-\\udfff)"
                )
            return value
        if (where := _hidden_character_in(value)) is not None:
            raise ValueError(
                "must not contain control, zero-width or bidirectional-control characters"
                f" ({where})"
            )
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


CurrencyCode = Annotated[
    StrictStr, AfterValidator(_currency_code), InSchema(enum=sorted(CURRENCIES))
]
country_code_pattern = "^[A-Z]{2}$"
CountryCode = Annotated[
    StrictStr, AfterValidator(_country_code), InSchema(pattern=country_code_pattern)
]
ShortText = Annotated[SingleLineText, Field(min_length=1, max_length=200)]


def json_kind(value: Any) -> str:
    """What a JSON value is, in the words an error message uses."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a JSON number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__


class AmountIn(RequestModel):
    """Request amount: integer minor units in a string."""

    currency: CurrencyCode
    value: StrictStr = Field(examples=["12550"])

    @model_validator(mode="before")
    @classmethod
    def _an_amount_object(cls, data: Any) -> Any:
        """The REST form is an object; a decimal string such as "25.50" is the tools'
        form (MCP, the assistant), and the error says which form this is and which that."""
        if isinstance(data, dict | AmountIn):
            return data
        raise ValueError(
            'must be an object such as {"currency": "USD", "value": "2550"} (value: '
            f"integer minor units in a string), not {json_kind(data)}; decimal amounts "
            'such as "25.50" are the form of the tools (MCP, the assistant)'
        )

    @field_validator("value", mode="before")
    @classmethod
    def _value_is_a_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value
        raise ValueError(
            f'must be integer minor units in a string, such as "2550" for 25.50 USD, '
            f"not {json_kind(value)}"
        )

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
    address_line1: Annotated[SingleLineText, Field(min_length=1, max_length=200)]
    address_line2: Annotated[SingleLineText, Field(max_length=200)] | None = None
    city: Annotated[SingleLineText, Field(min_length=1, max_length=100)]
    state: Annotated[SingleLineText, Field(max_length=100)] | None = None
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
