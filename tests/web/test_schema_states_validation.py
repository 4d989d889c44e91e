"""The OpenAPI document states what the validators demand: a value the document calls valid
is never refused for its format.

For every operation, each query and path parameter, and each string field of its request
body (nested ones and list items too), values valid by the field's own schema are drawn
with Hypothesis (`from_regex` for a pattern, the enum's members, dates for a date-time,
any Unicode text within the length bounds otherwise; every draw is checked against the
schema with `jsonschema`) and sent in the operation's example request, one field changed
at a time. An answer may refuse it for a business reason (404, 409, insufficient funds),
but never with 422 `validation_error` naming that field: then the document was looser
than the server.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.test_openapi_examples import _examples_of, _json_content, _schemas, _spec

values_per_field = 12
# Operations whose answer is not the JSON API's (streams, the MCP transport, pages).
_SKIPPED_PATHS = (
    "/mcp",
    "/docs",
    "/hosted",
    "/v1/assistant/threads/{thread_id}/runs/{run_id}/events",
)


_STRING_KEYWORDS = ("pattern", "format", "enum", "minLength", "maxLength", "minimum", "maximum")


# Refusals a field's own schema cannot state, each for a reason the field's description or
# docs/decisions.md ("The OpenAPI document states what the validators demand") gives: a rule
# across fields, a lookup, the clock, or a check richer than a pattern.
KNOWN = {
    # Comma-separated lists of names from a closed set (the description lists them).
    ("GET", "/v1/customers/{customer_id}", "expand"),
    ("GET", "/v1/transfers/{transfer_id}", "expand"),
    ("GET", "/v1/webhooks/messages", "eventTypes"),
    # Only together with endpointId.
    ("GET", "/v1/webhooks/messages", "status"),
    # email-validator's rules (RFC 5321/6531, unsafe characters): the schema says format email.
    *{
        (method, path, "email")
        for method, path in [
            ("PATCH", "/v1/counterparties/{counterparty_id}"),
            ("PATCH", "/v1/customers/{customer_id}"),
            ("PATCH", "/v1/customers/{customer_id}/associated-entities/{entity_id}"),
            ("POST", "/v1/counterparties"),
            ("POST", "/v1/customers/business"),
            ("POST", "/v1/customers/individual"),
            ("POST", "/v1/customers/{customer_id}/associated-entities"),
            ("POST", "/v1/terms-of-service/acceptances"),
        ]
    },
    # A stablecoin reports in the fiat currency it is pegged to.
    ("PATCH", "/v1/organizations/current/configuration", "reportingCurrency"),
    # Lookups and the clock: an acceptance that exists, an adult, a window before now.
    ("POST", "/v1/customers/business", "tosAcceptanceId"),
    ("POST", "/v1/customers/individual", "tosAcceptanceId"),
    ("POST", "/v1/customers/individual", "dateOfBirth"),
    ("POST", "/v1/webhooks/endpoints/{endpoint_id}/replay", "since"),
    # A test event's type is one of the event catalog's (webhooks/catalog.py), as an
    # endpoint's eventTypes are: the document states their form, the catalog the names.
    ("POST", "/v1/webhooks/endpoints/{endpoint_id}/test", "type"),
    # The id's prefix follows pinnedContext.type.
    ("POST", "/v1/assistant/threads", "pinnedContext.id"),
    # Bank details are checked together, by country and rail (routing number, IBAN, sort code).
    *{
        ("POST", "/v1/external-accounts", field)
        for field in (
            "accountNumber",
            "bic",
            "country",
            "currency",
            "iban",
            "routingNumber",
            "sortCode",
        )
    },
    # The address format follows the chain.
    ("POST", "/v1/external-wallets", "address"),
    # A sandbox deposit moves some money.
    ("POST", "/v1/sandbox/deposits", "amount.value"),
    # The body is the transfer's; these two belong to other calls.
    ("POST", "/v1/transfers/intents/quote", "confirm"),
    ("POST", "/v1/transfers/intents/quote", "quoteId"),
    # The pattern states the scheme and the characters; the URL parser and the SSRF guard
    # (kit/urls.py) decide the rest (a host, an address allowed here).
    ("POST", "/v1/webhooks/endpoints", "url"),
    # whsec_ and base64 of 24 to 64 random bytes (the description says so).
    ("POST", "/v1/webhooks/endpoints", "secret"),
    ("POST", "/v1/webhooks/endpoints/{endpoint_id}/secret/rotate", "key"),
    # A bank's file: a NACHA file or an ISO 20022 message (the description says which).
    ("POST", "/v1/sandbox/bank-files/imports", "content"),
    # A bank statement: a camt.053 (XML) or a BAI2 file (the description says which).
    ("POST", "/v1/reconciliation/statements", "content"),
}


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = _schemas[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _options(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of a schema (`X | None` is anyOf [X, null])."""
    schema = _resolved(schema)
    if "anyOf" in schema or "oneOf" in schema:
        # Keywords beside anyOf (a parameter's pattern) apply to each alternative.
        shared = {key: schema[key] for key in _STRING_KEYWORDS if key in schema}
        found = []
        for option in schema.get("anyOf", schema.get("oneOf", [])):
            found += [
                {**option, **shared} if option.get("type") in ("string", "integer") else option
                for option in _options(option)
            ]
        return found
    return [] if schema.get("type") == "null" else [schema]


def _strategy(schema: dict[str, Any]) -> st.SearchStrategy[Any] | None:
    """Values valid by a scalar schema, or None for objects and arrays."""
    kind = schema.get("type")
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    if kind == "integer":
        return st.integers(schema.get("minimum", -(10**6)), schema.get("maximum", 10**6))
    if kind == "boolean":
        return st.booleans()
    if kind != "string":
        return None
    low, high = schema.get("minLength", 0), schema.get("maxLength", 300)
    if schema.get("format") == "date-time":
        moments = st.datetimes(
            min_value=datetime(1971, 1, 1), max_value=datetime(2999, 1, 1), timezones=st.just(UTC)
        )
        return moments.map(lambda moment: moment.isoformat().replace("+00:00", "Z"))
    if schema.get("format") == "date":
        return st.dates().map(lambda day: day.isoformat())
    if "pattern" in schema:
        return st.from_regex(schema["pattern"], fullmatch=True).filter(
            lambda text: low <= len(text) <= high
        )
    return st.text(min_size=low, max_size=min(high, 40))


def _draws(schema: dict[str, Any]) -> list[Any]:
    strategy = _strategy(schema)
    if strategy is None:
        return []
    drawn: list[Any] = []

    @settings(
        max_examples=values_per_field,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: Any) -> None:
        drawn.append(value)

    collect()
    checker = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    return [
        value
        for value in dict.fromkeys(map(json.dumps, drawn))
        if checker.is_valid(json.loads(value))
    ]


def _body_fields(
    schema: dict[str, Any], path: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Every scalar field of a body schema: its path and its own schema."""
    for option in _options(schema):
        if option.get("type") == "object" or "properties" in option:
            for name, field in option.get("properties", {}).items():
                yield from _body_fields(field, (*path, name))
        elif option.get("type") == "array":
            yield from _body_fields(option.get("items", {}), (*path, 0))
        elif _strategy(option) is not None:
            yield path, option


def _placed(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of `body` with `value` at `path` (objects and one-item lists made as needed)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = (
            list(body)
            if isinstance(body, list) and body
            else [{} if rest and isinstance(rest[0], str) else None]
        )
        items[0] = _placed(items[0], rest, value)
        return items
    changed = dict(body) if isinstance(body, dict) else {}
    changed[head] = _placed(changed.get(head), rest, value)
    return changed


def _field_name(path: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in path)


def _refused_for_format(response, field: str) -> bool:
    if response.status_code != 422:
        return False
    body = response.json()
    if body.get("code") != "validation_error":
        return False
    named = [
        error.get("field", "")
        for error in body.get("errors") or [{"field": body["message"].split(":")[0]}]
    ]
    return any(name == field or name.startswith(field + ".") for name in named)


def _cases() -> Iterator[tuple[str, str, str, dict[str, Any], Any]]:
    """(method, path template, field, request pieces, value) for every draw of every field."""
    for template, operations in _spec["paths"].items():
        if template.startswith(_SKIPPED_PATHS):
            continue
        for method, operation in operations.items():
            parameters = [
                p for p in operation.get("parameters", []) if p["in"] in ("path", "query")
            ]
            path_values = {p["name"]: "x" for p in parameters if p["in"] == "path"}
            content = _json_content(operation.get("requestBody", {}))
            body = copy.deepcopy(_examples_of(content)[0]) if content else None
            for parameter in parameters:
                for option in _options(parameter["schema"]):
                    for value in _draws(option):
                        value = json.loads(value)
                        pieces: dict[str, Any] = {
                            "path": dict(path_values),
                            "query": {},
                            "body": body,
                        }
                        pieces[parameter["in"]][parameter["name"]] = value
                        yield method, template, parameter["name"], pieces, value
            if content is None:
                continue
            for field_path, field_schema in _body_fields(content["schema"], ()):
                for value in _draws(field_schema):
                    value = json.loads(value)
                    pieces = {
                        "path": dict(path_values),
                        "query": {},
                        "body": _placed(body, field_path, value),
                    }
                    yield method, template, _field_name(field_path), pieces, value


def _url(template: str, path_values: dict[str, Any]) -> str:
    from urllib.parse import quote

    url = template
    for name, value in path_values.items():
        url = url.replace("{" + name + "}", quote(str(value), safe="") or "x")
    return url


async def test_no_value_valid_by_the_document_is_refused_for_its_format(tenant):
    refused: dict[tuple[str, str, str], list[str]] = {}
    sent = 0
    for method, template, field, pieces, value in _cases():
        query = {
            key: (json.dumps(item) if isinstance(item, bool) else item)
            for key, item in pieces["query"].items()
        }
        query = {
            key: (str(item).lower() if isinstance(item, bool) else item)
            for key, item in pieces["query"].items()
        }
        response = await tenant.client.request(
            method.upper(),
            _url(template, pieces["path"]),
            params=query,
            json=pieces["body"] if pieces["body"] is not None else None,
        )
        sent += 1
        assert response.status_code < 500, (method, template, field, value, response.text)
        if (method.upper(), template, field) not in KNOWN and _refused_for_format(response, field):
            refused.setdefault((method.upper(), template, field), []).append(
                f"{value!r}: {response.json()['message'][:120]}"
            )
    report = "\n".join(
        f"{method} {template} {field}: {len(values)} refused, e.g. {values[0]}"
        for (method, template, field), values in sorted(refused.items())
    )
    assert not refused, (
        f"{len(refused)} fields refuse values their schema allows ({sent} requests):\n{report}"
    )
