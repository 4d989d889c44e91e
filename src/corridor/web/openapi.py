"""OpenAPI pieces shared by every router: the one error shape of API.md section 2, and the
example answers of every operation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from pydantic import Field

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


def install_examples(app: FastAPI) -> None:
    """The app's OpenAPI document, built once, carries the examples of `examples_path`."""
    generate = app.openapi
    examples = json.loads(examples_path.read_text())

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = add_examples(generate(), examples)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
