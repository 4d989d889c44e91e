"""OpenAPI pieces shared by every router: the one error shape of API.md section 2, and the
example answers of every operation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route

from corridor.kit.schemas import ResponseModel


class FieldError(ResponseModel):
    field: str = Field(examples=["remarks"])
    message: str = Field(examples=["String should have at most 1000 characters"])


class ErrorBody(ResponseModel):
    code: str = Field(examples=["validation_error"])
    message: str = Field(examples=["remarks: String should have at most 1000 characters"])
    request_id: str | None = Field(default=None, examples=["req_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    errors: list[FieldError] | None = None


def _error(description: str) -> dict[str, Any]:
    return {"model": ErrorBody, "description": description}


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: _error("`invalid_json`: the body is not a JSON object"),
    401: _error(
        "`unauthorized`: credentials missing, unknown, revoked or of the other environment"
    ),
    403: _error("`forbidden`, `sandbox_only` or `customer_binding_required`"),
    404: _error("`not_found`: unknown id, or an id of another organization"),
    409: _error(
        "`invalid_state`, `insufficient_funds`, `idempotency_key_reused` or `idempotency_key_in_progress`"
    ),
    413: _error("`payload_too_large`: body over 1 MiB"),
    422: _error("`validation_error`: field-level problems, listed in `errors`"),
}


# One example answer per response schema, taken from real answers of the test suite
# (tests/openapi_examples_recorder.py) and kept valid by tests/web/test_openapi_examples.py.
examples_path = Path(__file__).with_name("openapi_examples.json")
_list_prefix = "ListResponse_"


def _list_example(name: str, examples: dict[str, Any]) -> dict[str, Any] | None:
    item = examples.get(name.removeprefix(_list_prefix).removesuffix("_"))
    if item is None:
        return None
    return {"data": [item], "nextCursor": None, "hasMore": False}


def add_examples(spec: dict[str, Any], examples: dict[str, Any]) -> dict[str, Any]:
    """Give each component schema its example (a list: one page of one item), and each
    operation's success answer the example of its schema, so Swagger UI and ReDoc show a
    real answer rather than one made up from field types."""
    schemas = spec.get("components", {}).get("schemas", {})
    for name, schema in schemas.items():
        example = _list_example(name, examples) if name.startswith(_list_prefix) else None
        example = examples.get(name, example)
        if example is not None:
            schema["examples"] = [example]
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {}).get("application/json")
                reference = (content or {}).get("schema", {}).get("$ref", "")
                target = schemas.get(reference.rsplit("/", 1)[-1], {})
                if status.startswith("2") and target.get("examples"):
                    content["example"] = target["examples"][0]
    return spec


# --- Answers any operation may give -----------------------------------------------------
# Rate limits (web/ratelimits.py), an exhausted database pool (web/errors.py), an over-long
# URL (web/middleware.py) and a path another route serves with other methods come from
# layers under the routes, so no router names them: they are added to every operation
# they can reach, from one definition each (components.responses and components.headers).


def _header(
    description: str, schema: dict[str, Any], example: Any, *, required: bool = True
) -> dict[str, Any]:
    return {"description": description, "required": required, "schema": schema, "example": example}


_SECONDS = {"type": "integer", "minimum": 1}
_COUNT = {"type": "integer", "minimum": 0}
COMMON_HEADERS: dict[str, dict[str, Any]] = {
    "RetryAfter": _header("Seconds to wait before sending the request again.", _SECONDS, 1),
    "RetryAfterUnavailable": _header(
        "Seconds to wait before sending the request again: always with "
        "`service_unavailable` (the request changed nothing); not with a 503 that says the "
        "server is configured without something (`assistant_provider_not_configured`).",
        _SECONDS,
        1,
        required=False,
    ),
    "RateLimitLimit": _header("The requests (or failures) the window allows.", _SECONDS, 300),
    "RateLimitRemaining": _header("What is left of the window: 0 on a 429.", _COUNT, 0),
    "RateLimitReset": _header("Seconds until the window has room again.", _SECONDS, 1),
    "RateLimitPolicy": _header(
        "The limit and its window in seconds (IETF RateLimit header fields draft).",
        {"type": "string"},
        "300;w=1",
    ),
    "Allow": _header(
        "The methods this path answers (RFC 9110).", {"type": "string"}, "GET, PATCH, DELETE"
    ),
}
_RATE_LIMIT_HEADERS = {
    "Retry-After": "RetryAfter",
    "RateLimit-Limit": "RateLimitLimit",
    "RateLimit-Remaining": "RateLimitRemaining",
    "RateLimit-Reset": "RateLimitReset",
    "RateLimit-Policy": "RateLimitPolicy",
}


def _refs(headers: dict[str, str]) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{key}"} for name, key in headers.items()}


def _error_answer(
    description: str, example: dict[str, Any], headers: dict[str, Any] | None = None
) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": description,
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/ErrorBody"},
                "example": {**example, "requestId": "req_01jd3x0p6x9e3k2v1m8q4r7s5t"},
            }
        },
    }
    if headers:
        answer["headers"] = headers
    return answer


COMMON_RESPONSES: dict[str, dict[str, Any]] = {
    "RateLimited": _error_answer(
        "`rate_limited`: too many requests with this credential (its organization's "
        "`requestsPerSecondPerKey`, or the server's default), too many credentials from this "
        "address that did not authenticate, or too many failed sign-ins. Wait `Retry-After` "
        "seconds; the RateLimit-* fields describe the window that is spent.",
        {
            "code": "rate_limited",
            "message": "Too many requests with this credential: at most 300 per second",
        },
        _refs(_RATE_LIMIT_HEADERS),
    ),
    "ServiceUnavailable": _error_answer(
        "`service_unavailable`: no database connection was free in time, or the database "
        "refused or lost one. The request changed nothing (its Idempotency-Key is not "
        "spent): send it again after `Retry-After` seconds.",
        {
            "code": "service_unavailable",
            "message": "Too many requests in flight; no database connection was free",
        },
        _refs({"Retry-After": "RetryAfterUnavailable"}),
    ),
    "MethodNotAllowed": _error_answer(
        "`method_not_allowed`: the path, with the path parameters sent (an id holding an "
        "encoded `/`), is one another operation serves with other methods; `Allow` names "
        "them.",
        {"code": "method_not_allowed", "message": "Method not allowed on this path"},
        _refs({"Allow": "Allow"}),
    ),
    "UriTooLong": _error_answer(
        "`uri_too_long`: the path and query are longer than 8 KiB.",
        {"code": "uri_too_long", "message": "The URL (path and query) is longer than 8192 bytes"},
    ),
}
# The status each common answer is given under, in the operations that do not name it.
_COMMON_STATUSES = {
    "429": "RateLimited",
    "503": "ServiceUnavailable",
    "405": "MethodNotAllowed",
    "414": "UriTooLong",
}
# The probes take no credential (nothing to limit) and document their own 503.
_UNLIMITED = frozenset({("get", "/v1/health"), ("get", "/v1/health/ready")})


def _segments(path: str) -> list[str | None]:
    """A route's path as segments: text, or None for a segment holding a parameter."""
    return [None if "{" in part else part for part in path.strip("/").split("/")]


def _may_reach(sent: list[str | None], served: list[str | None], prefix: bool) -> bool:
    """Whether a request to the `sent` template, each parameter any text (a `/` in it
    makes more segments), can have the path of the `served` template (or start with it,
    a mount's `prefix`), whose parameters are one segment each."""
    pending = [(0, 0)]  # (segments of `sent` used, segments of `served` matched)
    seen = set(pending)
    while pending:
        i, j = pending.pop()
        if j == len(served) and (i == len(sent) or prefix):
            return True
        if i == len(sent) or j == len(served):
            continue
        part, target = sent[i], served[j]
        if part is None:
            # The parameter's text ends with this segment, or goes on into the next.
            following = [(i + 1, j + 1), (i, j + 1)]
        elif target is None or target == part:
            following = [(i + 1, j + 1)]
        else:
            following = []
        for state in following:
            if state not in seen:
                seen.add(state)
                pending.append(state)
    return False


_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def _methods_at(routes: list[BaseRoute], path: str) -> set[str]:
    """The methods the app serves at `path`, as its router matches them."""
    served = set()
    for method in _METHODS:
        scope = {"type": "http", "path": path, "root_path": "", "method": method, "headers": []}
        for route in routes:
            match, _ = route.matches(scope)
            if match is Match.FULL:
                served.add(method)
                break
    return served


def _may_answer_405(
    method: str, path: str, templates: list[tuple[str, bool]], routes: list[BaseRoute]
) -> bool:
    """Starlette answers 405 when no route serves the request's method at its path and one
    serves another method there. A path without parameters is always this operation's; one
    with parameters may be another route's (`/v1/webhooks/endpoints/{id}` sent
    `ep_1%2Fsecret` is `/v1/webhooks/endpoints/{id}/secret`, GET only). `templates`: every
    path the app serves (True for a mount's prefix)."""
    sent = _segments(path)
    if None not in sent:
        return False
    for template, prefix in templates:
        if template == path or not _may_reach(sent, _segments(template), prefix):
            continue
        example = "/" + "/".join(part or "x" for part in _segments(template))
        served = _methods_at(routes, example + ("/x" if prefix else ""))
        if served and method.upper() not in served:
            return True
    return False


def _templates(spec: dict[str, Any], routes: list[BaseRoute]) -> list[tuple[str, bool]]:
    """The paths of the document's operations, and of the app's routes and mounts outside
    it (the MCP endpoint, the console, the reference pages' assets)."""
    found = [(path, False) for path in spec.get("paths", {})]
    for route in routes:
        if isinstance(route, Route):
            found.append((route.path, False))
        elif isinstance(route, Mount) and route.path:
            found.append((route.path, True))
    return found


def add_common_responses(spec: dict[str, Any], routes: list[BaseRoute]) -> dict[str, Any]:
    """Document 429, 503, 414 (and 405 where another route can answer it) on the operations
    that do not name them, as references to one definition each."""
    templates = _templates(spec, routes)
    components = spec.setdefault("components", {})
    components.setdefault("headers", {}).update(COMMON_HEADERS)
    components.setdefault("responses", {}).update(COMMON_RESPONSES)
    for path, operations in spec.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status, name in _COMMON_STATUSES.items():
                if status in responses:
                    continue
                if status == "429" and (method, path) in _UNLIMITED:
                    continue
                if status == "405" and not _may_answer_405(method, path, templates, routes):
                    continue
                responses[status] = {"$ref": f"#/components/responses/{name}"}
            operation["responses"] = dict(sorted(responses.items()))
    return spec


def install_examples(app: FastAPI) -> None:
    """The app's OpenAPI document, built once, carries the examples of `examples_path` and
    the answers every operation may give (`add_common_responses`)."""
    generate = app.openapi
    examples = json.loads(examples_path.read_text())

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = add_examples(generate(), examples)
            app.openapi_schema = add_common_responses(spec, app.router.routes)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    _serve_rendered_once(app)


def _serve_rendered_once(app: FastAPI) -> None:
    """`/openapi.json` answers the document rendered once (per `root_path`, which FastAPI
    names in `servers`), not serialised again on every request: the same bytes FastAPI's
    own route renders (its JSONResponse), without the ~20 ms of JSON encoding per fetch."""
    rendered: dict[str, bytes] = {}
    path = app.openapi_url
    assert path is not None, "the app serves its OpenAPI document"
    fastapi_route = next(
        index
        for index, route in enumerate(app.router.routes)
        if isinstance(route, Route) and route.path == path
    )
    render = app.router.routes[fastapi_route].endpoint  # type: ignore[attr-defined]

    async def openapi_json(request: Request) -> Response:
        root_path = request.scope.get("root_path", "").rstrip("/")
        body = rendered.get(root_path)
        if body is None:
            body = rendered[root_path] = (await render(request)).body
        return Response(body, media_type="application/json")

    app.router.routes[fastapi_route] = Route(path, openapi_json, include_in_schema=False)
