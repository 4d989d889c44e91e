"""Every operation of the OpenAPI document is described and shows examples, and every
example in it is valid against its own schema: what Swagger UI and ReDoc show a
developer is an answer the server could really give."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from corridor.app import create_app
from corridor.config import Settings

_spec = create_app(
    Settings(database_url="sqlite+aiosqlite:///openapi-only.db"), run_workers_in_process=False
).openapi()
_schemas = _spec["components"]["schemas"]


def _closed(schema: Any) -> Any:
    """The schema with every object closed to properties it does not name, so an example
    that keeps a field the server no longer sends (or misspells one) fails."""
    if isinstance(schema, list):
        return [_closed(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    closed = {key: _closed(value) for key, value in schema.items()}
    if "properties" in closed and "additionalProperties" not in closed:
        closed["additionalProperties"] = False
    return closed


_document = {"components": {"schemas": _closed(copy.deepcopy(_schemas))}}
_registry = Registry().with_resource("urn:corridor", Resource(_document, DRAFT202012))


def _validate(example: Any, schema: dict[str, Any]) -> str | None:
    validator = jsonschema.Draft202012Validator(
        {"$id": "urn:corridor-example", **_closed(copy.deepcopy(_rebased(schema)))},
        registry=_registry,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )
    errors = sorted(validator.iter_errors(example), key=lambda error: list(error.path))
    return "; ".join(f"{list(error.path)}: {error.message[:200]}" for error in errors) or None


def _rebased(schema: Any) -> Any:
    """$refs of the document (#/components/…) pointed at the registered copy."""
    if isinstance(schema, list):
        return [_rebased(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: ("urn:corridor" + value if key == "$ref" else _rebased(value))
        for key, value in schema.items()
    }


def _operations() -> Iterator[tuple[str, dict[str, Any]]]:
    for path, operations in _spec["paths"].items():
        for method, operation in operations.items():
            yield f"{method.upper()} {path}", operation


def _json_content(part: dict[str, Any]) -> dict[str, Any] | None:
    return part.get("content", {}).get("application/json")


def _referenced(schema: dict[str, Any]) -> dict[str, Any]:
    """The component a body's schema names (an optional body is anyOf [it, null])."""
    if "$ref" not in schema:
        schema = next(option for option in schema.get("anyOf", []) if "$ref" in option)
    return _schemas[schema["$ref"].rsplit("/", 1)[-1]]


def _examples_of(content: dict[str, Any]) -> list[Any]:
    found = [content["example"]] if "example" in content else []
    found += [entry["value"] for entry in content.get("examples", {}).values()]
    return found or list(_referenced(content["schema"]).get("examples", []))


def test_every_operation_has_a_description():
    missing = [name for name, operation in _operations() if not operation.get("description")]
    assert missing == []


def test_every_request_body_has_an_example_valid_against_its_schema():
    problems = []
    for name, operation in _operations():
        content = _json_content(operation.get("requestBody", {}))
        if content is None:
            continue
        examples = _examples_of(content)
        if not examples:
            problems.append(f"{name}: request body without an example")
        for example in examples:
            if error := _validate(example, _referenced(content["schema"])):
                problems.append(f"{name}: request example: {error}")
    assert problems == []


def test_every_success_answer_with_a_body_has_an_example_valid_against_its_schema():
    """Every content type of every success answer (JSON, the SSE stream, CSV): only a file
    (format binary, a PDF) has no example to show."""
    problems = []
    for name, operation in _operations():
        for status, response in operation["responses"].items():
            if not status.startswith("2"):
                continue
            for media_type, content in response.get("content", {}).items():
                if content.get("schema", {}).get("format") == "binary":
                    continue
                if "example" not in content:
                    problems.append(f"{name}: {status} {media_type} answer without an example")
                elif error := _media_example_error(media_type, content):
                    problems.append(f"{name}: {status} {media_type} example: {error}")
    assert problems == []


# What each SSE event of the assistant's stream carries (API.md §5 "Assistant").
_EVENT_DATA_SCHEMAS = {
    "run.status": {"$ref": "#/components/schemas/AssistantRunRead"},
    "message.created": {"$ref": "#/components/schemas/AssistantMessageRead"},
    "message.updated": {"$ref": "#/components/schemas/AssistantMessageRead"},
    "text.delta": {
        "type": "object",
        "properties": {"messageId": {"type": "string"}, "text": {"type": "string"}},
        "required": ["messageId", "text"],
    },
}


def _media_example_error(media_type: str, content: dict[str, Any]) -> str | None:
    example = content["example"]
    if media_type == "application/json":
        return _validate(example, content["schema"])
    if error := _validate(example, content["schema"]):
        return error
    if media_type == "text/event-stream":
        return _event_stream_error(example)
    return None if example.strip() else "empty"


def _event_stream_error(stream: str) -> str | None:
    """Each event is `id`, `event` and `data` lines (data a JSON object of its event's
    schema), events apart by a blank line."""
    events = [block for block in stream.split("\n\n") if block.strip()]
    if not events or not stream.endswith("\n\n"):
        return "no events, or the last one unterminated"
    for block in events:
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        if set(fields) != {"id", "event", "data"} or not fields["id"].isdigit():
            return f"not an id/event/data event: {block!r}"
        if fields["event"] not in _EVENT_DATA_SCHEMAS:
            return f"unknown event {fields['event']!r}"
        if error := _validate(json.loads(fields["data"]), _EVENT_DATA_SCHEMAS[fields["event"]]):
            return f"{fields['event']}: {error}"
    return None


def test_every_example_anywhere_in_the_document_is_valid():
    """Schemas' own examples, each field's examples and each parameter's examples."""
    problems = []
    for name, schema in _schemas.items():
        for example in schema.get("examples", []):
            if error := _validate(example, schema):
                problems.append(f"{name}: {error}")
        for field, field_schema in schema.get("properties", {}).items():
            for example in field_schema.get("examples", []):
                if error := _validate(example, field_schema):
                    problems.append(f"{name}.{field}: {error}")
    for name, operation in _operations():
        for parameter in operation.get("parameters", []):
            for example in parameter.get("examples", {}).values():
                value = example.get("value") if isinstance(example, dict) else example
                if error := _validate(value, parameter["schema"]):
                    problems.append(f"{name} parameter {parameter['name']}: {error}")
    assert problems == []


@pytest.mark.parametrize(
    ("example", "schema_name"),
    [
        ({"name": "k", "scopes": ["*"], "nmae": "typo"}, "ApiKeyCreate"),
        ({"name": 12, "scopes": ["*"]}, "ApiKeyCreate"),
        ({"scopes": ["*"]}, "ApiKeyCreate"),
        ({"amount": {"currency": "USD", "value": 5}}, "SandboxFund"),
    ],
)
def test_the_check_refuses_an_example_the_server_would_refuse(example, schema_name):
    assert _validate(example, _schemas[schema_name]) is not None
