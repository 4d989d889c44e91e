"""Harvests response examples for the OpenAPI document from the test suite's own traffic:

    .venv/bin/python -m pytest tests -p tests.openapi_examples_recorder --ignore tests/test_fuzz.py

records every 2xx JSON answer the tests receive and, at the end, writes the richest one of
each response schema (the most non-null values) to the file named by
CORRIDOR_RECORD_EXAMPLES_TO, secrets replaced by placeholders. The result is a draft:
docs/decisions.md ("API reference pages") says how src/corridor/web/openapi_examples.json
is kept."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import httpx
import pytest

from corridor.app import create_app
from corridor.config import Settings

_spec = create_app(
    Settings(database_url="sqlite+aiosqlite:///openapi-only.db"), run_workers_in_process=False
).openapi()
_routes: list[tuple[re.Pattern[str], str, str]] = sorted(
    (
        (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path, method)
        for path, operations in _spec["paths"].items()
        for method in operations
    ),
    key=lambda route: route[1].count("{"),
)
_recorded: dict[str, list[Any]] = {}


def _response_schema(method: str, path: str, status: int) -> str | None:
    for pattern, template, operation_method in _routes:
        if operation_method == method.lower() and pattern.match(path):
            response = _spec["paths"][template][operation_method]["responses"].get(str(status))
            schema = (response or {}).get("content", {}).get("application/json", {}).get("schema")
            reference = (schema or {}).get("$ref")
            return reference.rsplit("/", 1)[-1] if reference else None
    return None


def _record(response: httpx.Response) -> None:
    if not 200 <= response.status_code < 300 or not response.content:
        return
    if "expand" in response.request.url.params:  # expanded answers carry more than the schema
        return
    if not response.headers.get("content-type", "").startswith("application/json"):
        return
    name = _response_schema(
        response.request.method, response.request.url.path, response.status_code
    )
    if name is None:
        return
    if name.startswith("ListResponse_"):
        body = response.json()
        item_name = name.removeprefix("ListResponse_").removesuffix("_")
        for item in body.get("data", []):
            _recorded.setdefault(item_name, []).append(item)
        return
    _recorded.setdefault(name, []).append(response.json())


def _filled(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_filled(item) for item in value.values())
    if isinstance(value, list):
        return sum(_filled(item) for item in value) if value else 0
    return 0 if value is None else 1


_secret_fields = {"secret", "key", "token"}
_secret_prefixes = {"key": "whsec_", "token": "cs_"}


def _placeholder(field: str, owner: dict[str, Any]) -> str:
    """A fake secret with the real one's prefix (`sk_sandbox_agent_`, `whsec_`, …)."""
    prefix = _secret_prefixes.get(field, "")
    if field == "secret" and isinstance(owner.get("prefix"), str):
        prefix = owner["prefix"].rsplit("_", 1)[0] + "_"
    return prefix + "EXAMPLE" + "x" * 24


def _without_secrets(value: Any) -> Any:
    """Secrets replaced by placeholders; the test client's host by the default address."""
    if isinstance(value, dict):
        return {
            field: _placeholder(field, value)
            if field in _secret_fields and isinstance(item, str)
            else _without_secrets(item)
            for field, item in value.items()
        }
    if isinstance(value, list):
        return [_without_secrets(item) for item in value]
    if isinstance(value, str):
        value = value.replace("http://testserver", "http://127.0.0.1:8000")
        return re.sub(r"([?&]token=)[^&]+", r"\1EXAMPLE", value)
    return value


def _patch(client_class: type, name: str) -> None:
    original = getattr(client_class, name)
    if getattr(original, "_recording", False):
        return
    if name == "send" and client_class is httpx.AsyncClient:

        async def send(self, request, **kwargs):
            response = await original(self, request, **kwargs)
            await response.aread()
            _record(response)
            return response
    else:

        def send(self, request, **kwargs):  # type: ignore[misc]
            response = original(self, request, **kwargs)
            response.read()
            _record(response)
            return response

    send._recording = True  # type: ignore[attr-defined]
    setattr(client_class, name, send)


def pytest_configure(config: pytest.Config) -> None:
    _patch(httpx.AsyncClient, "send")
    _patch(httpx.Client, "send")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get("CORRIDOR_RECORD_EXAMPLES_TO")
    if not target:
        return
    examples = {
        name: _without_secrets(max(bodies, key=_filled))
        for name, bodies in sorted(_recorded.items())
    }
    with open(target, "w") as output:
        json.dump(examples, output, indent=2, ensure_ascii=False)
        output.write("\n")
