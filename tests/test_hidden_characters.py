"""Names, references and remarks refuse control, zero-width and bidirectional-control
characters with 422 `validation_error` naming the field; tab and line feed stay allowed in
free text (remarks, descriptions) and never in names. `kit.schemas.SingleLineText` and
`MultiLineText`, and every request body's strings through `RequestModel`."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from corridor.kit.schemas import RequestModel, SingleLineText
from tests.conftest import assert_error

HIDDEN = [
    "\x07",  # BEL
    "\x1b",  # ESC
    "\x7f",  # DEL
    "\x85",  # C1 next line
    "\x9b",  # C1 control sequence introducer
    "\u200b",  # zero-width space
    "\u200d",  # zero-width joiner
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\ufeff",  # byte-order mark
]
LINE_BREAKS = ["\t", "\n", "\r"]


async def _customer(tenant) -> str:
    response = await tenant.client.post(
        "/v1/customers/individual",
        json={"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.org"},
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


# (method, path, body with {} where the text goes, field as errors name it, multi-line?)
ENDPOINTS = [
    ("POST", "/v1/api-keys", {"name": "{}", "scopes": ["*"]}, "name", False),
    (
        "POST",
        "/v1/customers/individual",
        {"firstName": "{}", "lastName": "Lovelace", "email": "ada@example.org"},
        "firstName",
        False,
    ),
    (
        "POST",
        "/v1/customers/business",
        {"legalName": "{}", "email": "ops@example.org"},
        "legalName",
        False,
    ),
    (
        "POST",
        "/v1/counterparties",
        {"customerId": "CUSTOMER", "type": "INDIVIDUAL", "name": "{}"},
        "name",
        False,
    ),
    (
        "POST",
        "/v1/webhooks/endpoints",
        {"url": "http://127.0.0.1:9/hook", "description": "{}"},
        "description",
        True,
    ),
    ("POST", "/v1/assistant/threads", {"title": "{}"}, "title", False),
    ("PATCH", "/v1/organizations/current", {"name": "{}"}, "name", False),
    (
        "POST",
        "/v1/transfers",
        {"clientReferenceId": "{}"},
        "clientReferenceId",
        False,
    ),
    ("POST", "/v1/transfers", {"remarks": "{}"}, "remarks", True),
    (
        "POST",
        "/v1/transfers",
        {"destination": {"wireMessage": "{}"}},
        "destination.wireMessage",
        False,
    ),
]

# Each test below runs once per endpoint of the table.
each_endpoint = pytest.mark.parametrize(
    ("method", "path", "body", "field", "multi_line"),
    ENDPOINTS,
    ids=[f"{method} {path} {field}" for method, path, _, field, _ in ENDPOINTS],
)


def _filled(body, text: str, customer_id: str):
    if isinstance(body, dict):
        return {key: _filled(value, text, customer_id) for key, value in body.items()}
    if isinstance(body, list):
        return [_filled(item, text, customer_id) for item in body]
    if body == "{}":
        return f"Ada{text}Lovelace"
    return customer_id if body == "CUSTOMER" else body


def _names(response) -> list[str]:
    return [error["field"] for error in response.json().get("errors") or []]


@pytest.mark.parametrize("character", HIDDEN, ids=lambda c: f"U+{ord(c):04X}")
@each_endpoint
async def test_hidden_characters_are_refused_naming_the_field(
    tenant, method, path, body, field, multi_line, character
):
    customer_id = await _customer(tenant) if "CUSTOMER" in str(body) else ""
    response = await tenant.client.request(method, path, json=_filled(body, character, customer_id))
    refused = assert_error(response, 422, "validation_error")
    assert field in _names(response), refused
    message = next(e["message"] for e in refused["errors"] if e["field"] == field)
    assert f"U+{ord(character):04X} at position 3" in message, message


@pytest.mark.parametrize("surrogate", ["\ud800", "\udfff"], ids=["high", "low"])
@each_endpoint
async def test_an_unpaired_surrogate_is_refused_naming_the_field(
    tenant, method, path, body, field, multi_line, surrogate
):
    """JSON can write one (`"\\ud800"`); no database can store it: 422, never a 500."""
    customer_id = await _customer(tenant) if "CUSTOMER" in str(body) else ""
    content = json.dumps(_filled(body, surrogate, customer_id)).encode()  # escaped: ASCII
    response = await tenant.client.request(
        method, path, content=content, headers={"Content-Type": "application/json"}
    )
    refused = assert_error(response, 422, "validation_error")
    message = next(e["message"] for e in refused["errors"] if e["field"] == field)
    assert f"U+{ord(surrogate):04X} unpaired surrogate at position 3" in message, message


async def test_chat_text_keeps_emoji_and_joiners_and_refuses_an_unpaired_surrogate(tenant):
    thread = await tenant.client.post("/v1/assistant/threads", json={"title": "Surrogates"})
    assert thread.status_code == 201, thread.text
    messages = f"/v1/assistant/threads/{thread.json()['id']}/messages"
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # one emoji, zero-width joiners
    kept = await tenant.client.post(messages, json={"text": f"Pay the {family} fund"})
    assert kept.status_code == 201, kept.text
    refused = await tenant.client.post(
        messages,
        content=json.dumps({"text": "Pay \udc00 fund"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    error = assert_error(refused, 422, "validation_error")
    assert [e["field"] for e in error["errors"]] == ["text"]


class _Chat(RequestModel):
    free_text_fields = frozenset({"text"})

    text: str


def test_free_text_refuses_what_no_database_stores() -> None:
    assert _Chat.model_validate({"text": "ok \u200d"}).text == "ok \u200d"
    for text in ("nul \x00", "high \ud800", "low \udfff"):
        with pytest.raises(ValidationError, match=r"NUL .* or unpaired surrogates"):
            _Chat.model_validate({"text": text})


@pytest.mark.parametrize("character", LINE_BREAKS, ids=lambda c: f"U+{ord(c):04X}")
@each_endpoint
async def test_tabs_and_line_breaks_only_in_free_text(
    tenant, method, path, body, field, multi_line, character
):
    customer_id = await _customer(tenant) if "CUSTOMER" in str(body) else ""
    response = await tenant.client.request(method, path, json=_filled(body, character, customer_id))
    if multi_line:
        assert field not in (_names(response) if response.status_code == 422 else []), response.text
    else:
        refused = assert_error(response, 422, "validation_error")
        message = next(e["message"] for e in refused["errors"] if e["field"] == field)
        assert "single line" in message, message


async def test_a_refused_reference_never_reaches_a_transfer(tenant):
    """The refusal comes before anything is written: no draft keeps the text for a rail."""
    customer_id = await _customer(tenant)
    before = (await tenant.client.get("/v1/transfers")).json()["data"]
    response = await tenant.client.post(
        "/v1/transfers",
        json={
            "customerId": customer_id,
            "clientReferenceId": "inv\x1b[2J42",
            "remarks": "pay \u202eexe.txt",
        },
    )
    assert_error(response, 422, "validation_error")
    assert {"clientReferenceId", "remarks"} <= set(_names(response))
    assert (await tenant.client.get("/v1/transfers")).json()["data"] == before


class _Named(RequestModel):
    name: SingleLineText


@settings(max_examples=200, database=None, suppress_health_check=list(HealthCheck))
@given(st.text())
def test_a_single_line_name_keeps_exactly_the_text_its_pattern_allows(text):
    """The validator and the pattern the OpenAPI document states agree on any text."""
    import re

    from corridor.kit.schemas import single_line_text_pattern

    allowed = re.fullmatch(single_line_text_pattern, text) is not None
    try:
        _Named.model_validate({"name": text})
    except ValidationError:
        assert not allowed
    else:
        assert allowed
