"""Requests as values (method, path, query, body, Idempotency-Key) and answers as models.

Both clients build the same `Call`s here and read answers with the same `parse`; only the
sending (sync or async) differs.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
import pydantic
from pydantic import BaseModel

# A module, not its names: errors imports _retries, which imports this module.
from corridor_client import errors
from corridor_client._base import CorridorModel, ResponseInfo

Model = TypeVar("Model", bound=BaseModel)

# HTTP methods a server may receive twice with the same effect (RFC 9110 §9.2.2).
_IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: Mapping[str, str] | None = None
    body: Mapping[str, Any] | None = None
    idempotency_key: str | None = None

    @property
    def replayable(self) -> bool:
        """Safe to send again after an attempt that may have reached the server: the
        method is idempotent, or the server recognises the repeat by its Idempotency-Key."""
        return self.method in _IDEMPOTENT_METHODS or self.idempotency_key is not None


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def read(path: str, query: Mapping[str, str] | None = None) -> Call:
    return Call("GET", path, query=query)


def create(path: str, body: Mapping[str, Any] | None, idempotency_key: str | None) -> Call:
    """A POST that creates: it always carries an Idempotency-Key, the caller's or a new one,
    and keeps it for every retry."""
    return Call("POST", path, body=body, idempotency_key=idempotency_key or new_idempotency_key())


def action(
    path: str, body: Mapping[str, Any] | None = None, idempotency_key: str | None = None
) -> Call:
    """A POST that acts on a resource (submit, cancel, …): a key only if the caller gives one,
    so without it the action is never sent twice."""
    return Call("POST", path, body=body, idempotency_key=idempotency_key)


def update(path: str, body: Mapping[str, Any], method: str = "PATCH") -> Call:
    return Call(method, path, body=body)


def delete(path: str) -> Call:
    return Call("DELETE", path)


def path(template: str, *ids: str) -> str:
    """`template` with each `{}` replaced by an id, percent-encoded so an id can never
    reach another path."""
    for value in ids:
        if not isinstance(value, str) or not value:
            raise ValueError(f"an id must be a non-empty string, not {value!r}")
    return template.format(*(quote(value, safe="") for value in ids))


def body(
    model: type[Model], given: Model | Mapping[str, Any] | None, fields: Mapping[str, Any]
) -> dict[str, Any]:
    """The JSON body of a request: a model instance, a mapping or keyword fields (snake_case
    or camelCase names), checked against the server's schema before anything is sent. Only
    the fields given are sent, so `None` given on purpose clears a field in a PATCH."""
    if given is not None and fields:
        raise TypeError("pass either a model or mapping, or keyword fields, not both")
    if isinstance(given, model):
        instance = given
    else:
        try:
            instance = model.model_validate(given if given is not None else dict(fields))
        except pydantic.ValidationError as error:
            raise errors.RequestValidationError.of(model, error) from None
    return instance.model_dump(mode="json", by_alias=True, exclude_unset=True)


def optional_body(
    model: type[Model], given: Model | Mapping[str, Any] | None, fields: Mapping[str, Any]
) -> dict[str, Any] | None:
    """For operations whose body may be left out entirely."""
    if given is None and not fields:
        return None
    return body(model, given, fields)


def query(**parameters: Any) -> dict[str, str]:
    """Query parameters in the server's form (camelCase names given by the caller here):
    `None` left out, enums by value, booleans as true/false, times in ISO 8601, sequences
    comma-separated."""
    formed: dict[str, str] = {}
    for name, value in parameters.items():
        if value is None:
            continue
        formed[name] = _query_value(name, value)
    return formed


def _query_value(name: str, value: Any) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"{name}: a datetime needs a time zone (use UTC)")
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Sequence):
        return ",".join(_query_value(name, item) for item in value)
    raise TypeError(f"{name}: cannot send {type(value).__name__} as a query parameter")


def response_info(response: httpx.Response, call: Call) -> ResponseInfo:
    return ResponseInfo(
        status=response.status_code,
        headers=response.headers,
        request_id=response.headers.get("x-request-id"),
        idempotency_key=call.idempotency_key,
    )


def parse(response: httpx.Response, model: type[Model], call: Call) -> Model:
    """The answer as `model`, remembering its response (`last_response`)."""
    try:
        parsed = model.model_validate_json(response.content)
    except pydantic.ValidationError as error:
        raise errors.ResponseValidationError.of(response, model, error) from error
    if isinstance(parsed, CorridorModel):
        parsed._last_response = response_info(response, call)
    return parsed
