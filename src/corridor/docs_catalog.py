"""The guide's event catalog and error-code catalog (docs/reference/events.md and
docs/reference/errors.md), generated from the code.

What the code holds is found in the code itself: the event types are the dotted type names
the sources write (string literals of an event resource, and `transfer.<status>` for every
status a transfer moves into), the error codes are the `code` of every CorridorError
subclass, every `code="…"` given to one, and the router's own answers (web/errors.py). What
a reader needs besides is written down once: when each event is emitted and which resource
its data is in the event catalog itself (webhooks/catalog.py, the list the API and the
console offer too), what an error means when its class does not say below. Payload
examples come from the schemas themselves: the OpenAPI document's examples
(web/openapi_examples.json) or, for a schema without one, an example made from its JSON
schema; the envelope is the webhook sender's own (webhooks/rules.payload).

`python -m corridor.docs_catalog` writes both pages; `python -m corridor.docs_catalog
--check` (what `make docs` runs before MkDocs) fails when a type or code in the code has no
entry in its catalog, an entry names nothing in the code, or a page differs from what it
would write."""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import inspect
import json
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import corridor
from corridor.kit.errors import CorridorError, error_body
from corridor.transfers.rules.states import TransferStatus
from corridor.webhooks import catalog
from corridor.webhooks import rules as webhook_rules

SOURCE = Path(corridor.__file__).resolve().parent
CHECKOUT = SOURCE.parents[1]
EVENTS_PAGE = Path("docs/reference/events.md")
ERRORS_PAGE = Path("docs/reference/errors.md")
# Not scanned: the catalogs themselves (their names are what the code is checked against).
_CATALOGS = frozenset({SOURCE / "docs_catalog.py", SOURCE / "webhooks" / "catalog.py"})
# The audit chain's kinds (`agent.payment.allowed`, …) are record kinds, not webhook events.
_NOT_EVENTS = frozenset({SOURCE / "audit" / "rules.py"})

_DOTTED = re.compile(r"^[a-z][a-z_]*(\.[a-z_]+)+$")
# The resources events are about: a dotted literal whose first part is one of these is an
# event type (other dotted literals are file names, loggers, span attributes, SSE events).
EVENT_RESOURCES = frozenset(
    {
        "account",
        "agent",
        "bank_file",
        "counterparty",
        "customer",
        "deposit",
        "document",
        "external_account",
        "external_wallet",
        "fixed_route",
        "organization",
        "reconciliation",
        "tos",
        "transfer",
    }
)


@dataclass(frozen=True)
class ErrorCode:
    code: str
    status: int
    meaning: str
    message: str


# What a code means when no class carrying it says so in its docstring.
ERROR_MEANINGS: dict[str, str] = {
    "agent_approval_refused": (
        "An owner's APPROVE of an agent's transfer was refused for a reason other than the "
        "agent's spend limits (those an approval skips)."
    ),
    "agent_approval_required": (
        "An agent's submit was over one of its limits: the draft is kept, waiting for an "
        "owner's approval; the body carries the denial (which limit, by how much)."
    ),
    "agent_currency_mismatch": "The agent's limits are in another currency than the transfer.",
    "agent_destination_not_allowed": "The agent may not pay this destination.",
    "agent_inactive": "The agent is paused or revoked.",
    "assistant_provider_not_configured": "No model provider is configured for the assistant.",
    "authorization_request_closed": "The OAuth authorization request was already decided.",
    "balance_limit_exceeded": "The credit would take the balance over its limit.",
    "bank_connection_missing": "The bank-file rail has no connection to send through.",
    "bad_request": "The request cannot be served as sent.",
    "conflict": "The request conflicts with the resource's current state.",
    "csrf_token_invalid": "A console form was sent without its session's CSRF token.",
    "customer_binding_required": "A platform session must act on behalf of a customer.",
    "forbidden": "The credential may not do this (scope, role or ownership).",
    "idempotency_key_in_progress": (
        "A request with this Idempotency-Key is still running; retry after Retry-After."
    ),
    "idempotency_key_reused": "The Idempotency-Key was used before with another request body.",
    "insufficient_scope": "The OAuth token lacks the scope this call needs.",
    "internal_error": "The server failed; nothing the client can fix (retry later).",
    "invalid_client_metadata": "The OAuth client's registration metadata is invalid.",
    "invalid_grant": "The OAuth code or refresh token is invalid, expired or used.",
    "invalid_json": "The body is not a JSON object.",
    "invalid_redirect_uri": "The OAuth redirect URI is not registered for the client.",
    "invalid_request": "The OAuth request is missing or repeats a parameter.",
    "invalid_scope": "The OAuth scope asked for is unknown or not allowed.",
    "invalid_state": "The resource's status does not allow this action (`currentStatus`).",
    "method_not_allowed": "The path does not take this method (`Allow` lists those it takes).",
    "not_found": "No such resource (or path) for this credential.",
    "payload_too_large": "The body is over the size allowed.",
    "quote_expired": "The quote's minute is over; confirm at the current rate instead.",
    "rate_limited": "Too many requests; retry after Retry-After seconds.",
    "nonce_reused": (
        "A signed agent request reused a nonce its key already used within the window."
    ),
    "sandbox_only": "This operation exists only in the sandbox.",
    "signature_expired": "A signed agent request's `created` is over 5 minutes old.",
    "signature_invalid": "A signed agent request's signature does not verify (the reason says why).",
    "signature_required": (
        "The agent has signing keys: every request with its keys must be signed (RFC 9421)."
    ),
    "statement_too_large": "The statement has too many lines to render at once.",
    "tool_call_arguments_changed": "The confirmed tool call's arguments changed since.",
    "tool_confirmation_already_decided": "The tool confirmation was already decided.",
    "tool_confirmation_expired": "The tool confirmation expired.",
    "tool_confirmation_refused": "A person refused the tool call.",
    "unauthorized": "Missing or invalid credentials.",
    "unauthorized_client": "The OAuth client may not use this grant type.",
    "unsupported_grant_type": "The OAuth grant type is not supported.",
    "upload_url_expired": "The document's upload URL expired; request a new one.",
    "upload_url_used": "The document's upload URL was already used.",
    "uri_too_long": "The URL (path and query) is over 8 KiB.",
    "validation_error": "A field is invalid (`errors` lists each field and why).",
    "verification_link_expired": "The hosted verification link expired.",
    "verification_link_used": "The hosted verification link was already used.",
}


# ---- what the code holds -------------------------------------------------------------


@dataclass(frozen=True)
class _Scan:
    dotted: frozenset[str]  # dotted string literals (event types among them)
    error_classes: tuple[tuple[str, str], ...]  # (module, class) of classes that set `code`
    codes_given: tuple[tuple[str, int | None], ...]  # `code="…"` (and `status=`) in calls
    # Classes whose __init__ takes the code: (module, class, its position) by class name,
    # and the string literals each call of such a name passes, by position.
    code_parameters: tuple[tuple[str, str, int], ...]
    calls: tuple[tuple[str, tuple[str | None, ...]], ...]


@functools.cache
def _scan() -> _Scan:
    """One pass over every source file of the package but the migrations and this one."""
    dotted: set[str] = set()
    classes: list[tuple[str, str]] = []
    given: list[tuple[str, int | None]] = []
    parameters: list[tuple[str, str, int]] = []
    calls: list[tuple[str, tuple[str | None, ...]]] = []
    for path in sorted(SOURCE.rglob("*.py")):
        if "migrations" in path.relative_to(SOURCE).parts or path in _CATALOGS | _NOT_EVENTS:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant):
                if isinstance(node.value, str) and _DOTTED.match(node.value):
                    dotted.add(node.value)
            elif isinstance(node, ast.ClassDef):
                if _sets_code(node):
                    classes.append((_module_name(path), node.name))
                position = _code_parameter(node)
                if position is not None:
                    parameters.append((_module_name(path), node.name, position))
            elif isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else None
                if isinstance(node.func, ast.Attribute):
                    called = node.func.attr
                if called is not None and node.args:
                    literals = tuple(
                        arg.value
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                        else None
                        for arg in node.args
                    )
                    if any(literals):
                        calls.append((called, literals))
                keywords = {keyword.arg: keyword.value for keyword in node.keywords}
                code, status = keywords.get("code"), keywords.get("status")
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    number = status.value if isinstance(status, ast.Constant) else None
                    given.append((code.value, number if isinstance(number, int) else None))
    return _Scan(frozenset(dotted), tuple(classes), tuple(given), tuple(parameters), tuple(calls))


def _code_parameter(node: ast.ClassDef) -> int | None:
    """The position of `code` among __init__'s arguments (after self), if it takes one."""
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
            names = [argument.arg for argument in statement.args.args[1:]]
            return names.index("code") if "code" in names else None
    return None


def _codes_passed() -> list[tuple[str, type[CorridorError]]]:
    """Codes passed positionally to a class whose __init__ takes the code."""
    scan = _scan()
    found = []
    for module_name, name, position in scan.code_parameters:
        cls = getattr(importlib.import_module(module_name), name, None)
        if not (inspect.isclass(cls) and issubclass(cls, CorridorError)):
            continue
        for called, literals in scan.calls:
            if called == name and position < len(literals) and literals[position]:
                found.append((str(literals[position]), cls))
    return found


def event_types_in_code() -> set[str]:
    """Every event type the sources write: dotted literals of an event resource, and
    `transfer.<status>` for each status a transfer moves into (DRAFT is its creation,
    `transfer.created`)."""
    found = {
        f"transfer.{status.value.lower()}"
        for status in TransferStatus
        if status is not TransferStatus.DRAFT
    }
    found |= {text for text in _scan().dotted if text.split(".")[0] in EVENT_RESOURCES}
    return found


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _error_classes() -> list[type[CorridorError]]:
    """Every CorridorError subclass that sets its own code, in the order of the sources."""
    found: list[type[CorridorError]] = []
    for module_name, name in _scan().error_classes:
        candidate = getattr(importlib.import_module(module_name), name, None)
        if inspect.isclass(candidate) and issubclass(candidate, CorridorError):
            found.append(candidate)
    return found


def _sets_code(node: ast.ClassDef) -> bool:
    for statement in node.body:
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                if any(isinstance(name, ast.Name) and name.id == "code" for name in names):
                    return True
    return False


def _codes_given() -> tuple[tuple[str, int | None], ...]:
    """`code="…"` given to a CorridorError (with `status=` when given there too)."""
    return _scan().codes_given


def error_codes_in_code() -> dict[str, ErrorCode]:
    """Every error code the API answers with: the first status and message seen for it."""
    from corridor.web.errors import _HTTP_CODES

    codes: dict[str, ErrorCode] = {}

    def add(code: str, status: int, meaning: str | None, message: str) -> None:
        if code in codes:
            return
        meaning = ERROR_MEANINGS.get(code) or meaning or ""
        codes[code] = ErrorCode(code, status, meaning, message)

    add(CorridorError.code, CorridorError.status, None, "The request cannot be served")
    # The kit's classes first: a code several classes share takes the kit's status.
    for cls in sorted(_error_classes(), key=lambda cls: cls.__module__ != "corridor.kit.errors"):
        doc = cls.__dict__.get("__doc__")
        meaning = " ".join(inspect.cleandoc(doc).split()) if doc else None
        add(cls.code, cls.status, meaning, _sample_message(cls))
    for code, status in _codes_given():
        add(code, status or 400, None, ERROR_MEANINGS.get(code, ""))
    for code, cls in _codes_passed():
        add(code, cls.status, None, ERROR_MEANINGS.get(code, ""))
    for status, (code, message) in _HTTP_CODES.items():
        add(code, status, None, message)
    return codes


def _sample_message(cls: type[CorridorError]) -> str:
    """The class's own message where it makes one without arguments, else its meaning."""
    try:
        return cls().message  # type: ignore[call-arg]
    except TypeError:
        return ERROR_MEANINGS.get(cls.code, cls.__name__)


# ---- examples from the schemas -------------------------------------------------------


def _openapi_examples() -> dict[str, Any]:
    return json.loads((SOURCE / "web" / "openapi_examples.json").read_text())


def _schema_class(dotted: str) -> Any:
    module, name = dotted.split(":")
    return getattr(importlib.import_module(module), name)


def example_from_schema(schema: dict[str, Any], definitions: dict[str, Any]) -> Any:
    """A value that fits a JSON schema: its examples or default where it has them."""
    if "$ref" in schema:
        return example_from_schema(definitions[schema["$ref"].split("/")[-1]], definitions)
    if schema.get("examples"):
        return schema["examples"][0]
    if "default" in schema:
        return schema["default"]
    if "enum" in schema:
        return schema["enum"][0]
    for union in ("anyOf", "oneOf", "allOf"):
        if union in schema:
            options = [option for option in schema[union] if option.get("type") != "null"]
            return example_from_schema(options[0], definitions) if options else None
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {
            name: example_from_schema(field, definitions)
            for name, field in schema.get("properties", {}).items()
        }
    if kind == "array":
        return []
    return {"integer": 0, "number": 0, "boolean": False, "null": None}.get(
        str(kind), schema.get("format", "string")
    )


def event_data_example(entry: catalog.EventType, examples: dict[str, Any]) -> Any:
    if entry.schema is None:
        return entry.data
    model = _schema_class(entry.schema)
    if model.__name__ in examples:
        return examples[model.__name__]
    schema = model.model_json_schema(by_alias=True)
    return example_from_schema(schema, schema.get("$defs", {}))


def _with_status(event_type: str, data: Any) -> Any:
    """A transfer's status event shows the transfer in that status."""
    resource, _, status = event_type.partition(".")
    statuses = {status.value.lower(): status.value for status in TransferStatus}
    if resource == "transfer" and isinstance(data, dict):
        if status in statuses:
            return {**data, "status": statuses[status]}
        if status == "created":
            return {**data, "status": TransferStatus.DRAFT.value}
    return data


# ---- the pages -----------------------------------------------------------------------

_EXAMPLE_AT = datetime(2026, 11, 27, 14, 2, 11, 482000, tzinfo=UTC)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def events_page() -> str:
    from corridor.config import Settings

    examples = _openapi_examples()
    schedule = Settings.model_fields["webhook_retry_schedule_s"].default
    waits = ", ".join(_duration(seconds) for seconds in schedule)
    lines = [
        "# Event catalog",
        "",
        "<!-- Generated by `python -m corridor.docs_catalog` from the code; do not edit. -->",
        "",
        "Every change writes its event in the same transaction as the change; the workers "
        "then POST it to each webhook endpoint that subscribes to its type (an endpoint "
        "with no `eventTypes` gets every type), signed the Standard Webhooks way. How to "
        "receive and verify them: [Webhooks](../quickstart/webhooks.md).",
        "",
        "## The envelope",
        "",
        'Every delivery\'s body is `{"type", "timestamp", "data"}`: the type below, when the '
        "event was written (UTC, milliseconds), and the resource as the API returns it at "
        "that moment. The headers are `webhook-id` (the `msg_…` message id, the same on "
        "every retry of it), `webhook-timestamp` and `webhook-signature`. The message's "
        "tags are the ids involved (the transfer, its customer, its counterparty, a leg); "
        "`GET /v1/webhooks/messages?tag=…` filters by them.",
        "",
        "## Ordering",
        "",
        "Deliveries are **not ordered**: attempts to one endpoint run concurrently and "
        "retries overtake, so `transfer.pending` may arrive before `transfer.created`, and "
        "`transfer.completed` before `transfer.processing`. Order them yourself, by the "
        "event's own fields:",
        "",
        "- `webhook-id` (the `msg_…` id) is a ULID, sortable by creation: of two messages, "
        "the one with the greater id was written later. The events of one change share a "
        "transaction and come in the order written.",
        "- `timestamp` is when the event was written; `data.updatedAt` (on resources that "
        "have it) when the resource last changed. Keep the state with the greatest "
        "`updatedAt` (then the greatest `webhook-id`) and ignore an older one that arrives "
        "late.",
        "- A transfer's `status` only moves forward (DRAFT → PENDING_AUTHORIZATION / "
        "IN_REVIEW → PENDING → PROCESSING → COMPLETED, or FAILED / CANCELLED, and "
        "COMPLETED → REVERSED): never move a stored transfer back on a late event.",
        "- When in doubt, fetch the resource (`GET /v1/transfers/{id}`): the API's answer "
        "is the current state.",
        "",
        "Delivery is at least once: de-duplicate by `webhook-id`.",
        "",
        "## Retries",
        "",
        f"An attempt that does not get a 2xx within {_duration(Settings.model_fields['webhook_timeout_s'].default)} "
        f"is retried: at once, then after {waits} "
        f"({webhook_rules.attempts_max(schedule)} attempts in all; "
        "`CORRIDOR_WEBHOOK_RETRY_SCHEDULE_S`). A `Retry-After` that asks for longer is "
        "honoured (up to a day). A 410 answer disables the endpoint at once; an endpoint "
        "that keeps failing for 5 days is disabled. Redirects are not followed. "
        "`POST /v1/webhooks/messages/{id}/resend` sends a message again, "
        "`POST /v1/webhooks/endpoints/{id}/replay` the failed ones of a period.",
        "",
        "## Event types",
        "",
        "| type | when it is emitted |",
        "|---|---|",
    ]
    events = catalog.EVENTS
    for event_type in sorted(events):
        anchor = event_type.replace(".", "").replace("_", "")
        lines.append(f"| [`{event_type}`](#{anchor}) | {events[event_type].when} |")
    lines.append("")
    for event_type in sorted(events):
        entry = events[event_type]
        data = _with_status(event_type, event_data_example(entry, examples))
        body = webhook_rules.payload(event_type, _EXAMPLE_AT, data)
        schema = (
            f"The data is a `{entry.schema.split(':')[1]}`, as the API returns it."
            if entry.schema
            else "The data is the object below."
        )
        lines += [
            f"### `{event_type}` {{#{event_type.replace('.', '').replace('_', '')}}}",
            "",
            f"{entry.when} {schema}",
            "",
            "```json",
            _json(body),
            "```",
            "",
        ]
    return "\n".join(lines)


def errors_page() -> str:
    codes = error_codes_in_code()
    lines = [
        "# Error codes",
        "",
        "<!-- Generated by `python -m corridor.docs_catalog` from the code; do not edit. -->",
        "",
        'Every error has one shape: `{"code", "message", "requestId"}`, plus `errors: '
        '[{"field", "message"}]` when fields are at fault, and more fields for some codes '
        "(`currentStatus` for `invalid_state`, the denial for an agent's limits). Match on "
        "`code`, never on the message. Each code's example body below is the class's own "
        "message where it has a fixed one.",
        "",
        "| code | HTTP status | meaning |",
        "|---|---|---|",
    ]
    for code in sorted(codes):
        error = codes[code]
        lines.append(f"| [`{code}`](#{code.replace('_', '')}) | {error.status} | {error.meaning} |")
    lines.append("")
    for code in sorted(codes):
        error = codes[code]
        body = error_body(code, error.message or error.meaning)
        body["requestId"] = "req_01m87py17w42f876w56avbebe1"
        lines += [
            f"### `{code}` {{#{code.replace('_', '')}}}",
            "",
            f"HTTP {error.status}. {error.meaning}",
            "",
            "```json",
            _json(body),
            "```",
            "",
        ]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:g} s"
    if seconds < 3600:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3600:g} h"


# ---- the check -----------------------------------------------------------------------


def problems() -> list[str]:
    """What keeps the catalogs from being complete: a type or code of the code without an
    entry, an entry for nothing in the code."""
    found = []
    in_code = event_types_in_code()
    events = catalog.EVENTS
    for event_type in sorted(in_code - events.keys()):
        found.append(f"event type {event_type!r} is in the code but not in the catalog")
    for event_type in sorted(events.keys() - in_code):
        found.append(f"event type {event_type!r} is in the catalog but not in the code")
    codes = error_codes_in_code()
    for code, error in sorted(codes.items()):
        if not error.meaning:
            found.append(f"error code {code!r} is in the code but not in the catalog")
    for code in sorted(ERROR_MEANINGS.keys() - codes.keys()):
        found.append(f"error code {code!r} is in the catalog but not in the code")
    return found


def pages() -> dict[Path, str]:
    return {EVENTS_PAGE: events_page(), ERRORS_PAGE: errors_page()}


def main(arguments: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corridor.docs_catalog")
    parser.add_argument("--check", action="store_true", help="fail if a page is not current")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout")
    options = parser.parse_args(arguments)
    missing = problems()
    for problem in missing:
        print(problem, file=sys.stderr)
    if missing:
        print(
            "add them to corridor/webhooks/catalog.py (event types) or "
            "corridor/docs_catalog.py (ERROR_MEANINGS)",
            file=sys.stderr,
        )
        return 1
    stale = []
    for relative, text in pages().items():
        path = options.root / relative
        if options.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(str(relative))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {relative}")
    if stale:
        print(
            f"not current: {', '.join(stale)}; run python -m corridor.docs_catalog",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
