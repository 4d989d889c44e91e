"""Answers that come from under the routes are in /openapi.json (issue 30 item 1): 429
with its RateLimit-* fields and Retry-After, 503 with Retry-After, 414, and 405 with Allow
where another route can answer it, each in the error shape with an example. Real answers
match what the document says of them, and `schemathesis run --checks all` against
`corridor serve` finds no status code, header or body the document does not describe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from sqlalchemy import select

from corridor.app import create_app
from corridor.config import Environment, Settings
from tests.conftest import BACKENDS, POSTGRES_URL, assert_error, built_app, migrated_database
from tests.live_server import LiveServer, live_corridor

_spec = create_app(
    Settings(database_url="sqlite+aiosqlite:///openapi-only.db"), run_workers_in_process=False
).openapi()
_PROBES = {("get", "/v1/health"), ("get", "/v1/health/ready")}
_RATE_LIMIT_FIELDS = {
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
}


def _operations():
    for path, operations in _spec["paths"].items():
        for method, operation in operations.items():
            yield method, path, operation


def _resolved(node: dict[str, Any]) -> dict[str, Any]:
    """A response or header object, its `$ref` followed."""
    while "$ref" in node:
        _, section, name = node["$ref"].removeprefix("#/").split("/")
        node = _spec["components"][section][name]
    return node


def _answer(method: str, path: str, status: int) -> dict[str, Any]:
    return _resolved(_spec["paths"][path][method]["responses"][str(status)])


def _error_schema_validates(body: Any) -> None:
    schema = {**_spec["components"]["schemas"]["ErrorBody"], "components": _spec["components"]}
    jsonschema.Draft202012Validator(schema).validate(body)


# --- The document ------------------------------------------------------------------------


def test_every_operation_documents_429_and_503_in_the_error_shape_with_an_example():
    missing = []
    for method, path, operation in _operations():
        statuses = set(operation["responses"])
        # The probes take no credential, so nothing limits them; they have their own 503.
        wanted = {"503"} if (method, path) in _PROBES else {"429", "503", "414"}
        if not wanted <= statuses:
            missing.append(f"{method.upper()} {path}: {sorted(wanted - statuses)}")
    assert missing == []
    limited = _answer("post", "/v1/transfers", 429)
    assert set(limited["headers"]) == _RATE_LIMIT_FIELDS
    assert all(_resolved(header)["required"] for header in limited["headers"].values())
    unavailable = _answer("post", "/v1/transfers", 503)
    assert set(unavailable["headers"]) == {"Retry-After"}
    for status, code in ((429, "rate_limited"), (503, "service_unavailable"), (414, None)):
        content = _answer("get", "/v1/customers", status)["content"]["application/json"]
        assert content["schema"]["$ref"].endswith("/ErrorBody")
        _error_schema_validates(content["example"])
        assert code is None or content["example"]["code"] == code


def test_405_is_documented_where_another_route_serves_the_path():
    # DELETE /v1/webhooks/endpoints/{id} with the id `x/secret` is GET …/{id}/secret's path.
    allowed = _answer("delete", "/v1/webhooks/endpoints/{endpoint_id}", 405)
    assert set(allowed["headers"]) == {"Allow"}
    _error_schema_validates(allowed["content"]["application/json"]["example"])
    # A path without parameters is only ever its own operation's.
    assert "405" not in _spec["paths"]["/v1/customers"]["get"]["responses"]
    assert "405" not in _spec["paths"]["/v1/webhooks/endpoints"]["post"]["responses"]


# --- Real answers match the document -------------------------------------------------------


def _matches_document(response: httpx.Response, method: str, path: str) -> None:
    answer = _answer(method, path, response.status_code)
    for name, header in answer.get("headers", {}).items():
        header = _resolved(header)
        if header["required"]:
            assert name.lower() in response.headers, name
        if name.lower() in response.headers and header["schema"]["type"] == "integer":
            assert int(response.headers[name]) >= header["schema"]["minimum"]
    _error_schema_validates(response.json())


async def test_a_405_and_a_414_are_answered_as_documented(app, tenant):
    endpoint = await tenant.client.post(
        "/v1/webhooks/endpoints", json={"url": "https://example.com/hooks"}
    )
    assert endpoint.status_code == 201, endpoint.text
    refused = await tenant.client.delete(f"/v1/webhooks/endpoints/{endpoint.json()['id']}%2Fsecret")
    assert_error(refused, 405, "method_not_allowed")
    assert refused.headers["allow"] == "GET"
    _matches_document(refused, "delete", "/v1/webhooks/endpoints/{endpoint_id}")
    too_long = await tenant.client.get("/v1/customers", params={"cursor": "x" * 9000})
    assert_error(too_long, 414, "uri_too_long")
    _matches_document(too_long, "get", "/v1/customers")


async def test_a_429_is_answered_as_documented(database_url, make_tenant):
    async with built_app(
        database_url,
        Environment.SANDBOX,
        rate_limits_enabled=True,
        rate_limit_requests_per_key=1,
    ) as application:
        tenant = await make_tenant(application)
        answers = [await tenant.client.get("/v1/customers") for _ in range(3)]
    refused = [answer for answer in answers if answer.status_code == 429]
    assert refused, [answer.status_code for answer in answers]
    for answer in refused:
        assert_error(answer, 429, "rate_limited")
        _matches_document(answer, "get", "/v1/customers")


@pytest.mark.skipif(
    POSTGRES_URL is None,
    reason="SQLite's writers queue for its one connection: no pool to run out of",
)
async def test_a_503_is_answered_as_documented(tmp_path, make_tenant):
    async with (
        migrated_database("postgresql", tmp_path) as url,
        built_app(
            url,
            Environment.SANDBOX,
            database_pool_size=1,
            database_pool_overflow=0,
            database_pool_timeout_s=0.2,
        ) as application,
    ):
        tenant = await make_tenant(application)
        async with application.state.database.session() as holder:
            await holder.execute(select(1))  # the pool's only connection, held
            refused = await tenant.client.get("/v1/customers")
    assert_error(refused, 503, "service_unavailable")
    _matches_document(refused, "get", "/v1/customers")


# --- schemathesis run --checks all ----------------------------------------------------------

# Failure codes that compare an answer with the document (schemathesis' ST1xx: a server
# error, an undocumented status code, content type or header, a body its schema refuses).
# The other checks judge requests (ST2xx: a valid-looking request refused for a business
# rule, such as a quote between one currency and itself), resources (ST3xx) or credentials
# (ST4xx: past the failed-authentication limit a bad key gets 429, by design).
_ANSWER_CHECK = re.compile(r"❌\s+(ST1\d\d) ([^:\n]+): (\d+)")
_FAILURE_SUMMARY = re.compile(r"❌\s+(ST\d{3}) ([^:\n]+): (\d+)")
# Bounded: one generated case per operation and phase.
examples_per_operation = 1


def _schemathesis(live: LiveServer, document: Path) -> str:
    command = [
        sys.executable,
        "-c",
        "from schemathesis.cli import schemathesis; schemathesis()",
        "run",
        str(document),
        "--url",
        live.base_url,
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {live.api_key}",
        "--phases",
        "examples,fuzzing",
        "--max-examples",
        str(examples_per_operation),
        "--continue-on-failure",
        "--suppress-health-check",
        "all",
        "--no-color",
    ]
    # Run from the document's folder: schemathesis keeps a cache in its working directory.
    finished = subprocess.run(
        command, capture_output=True, text=True, timeout=3600, cwd=document.parent
    )
    return finished.stdout + finished.stderr


def _status_counts(live: LiveServer) -> dict[str, float]:
    text = httpx.get(f"{live.base_url}/metrics", timeout=60).text
    counts: dict[str, float] = {}
    for line in text.splitlines():
        found = re.match(r'corridor_http_requests_total\{.*status="(\d+)".*\} ([0-9.e+]+)', line)
        if found:
            counts[found.group(1)] = counts.get(found.group(1), 0) + float(found.group(2))
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_schemathesis_finds_no_answer_the_document_does_not_describe(tmp_path, backend):
    # Limits on, and tight for failures: schemathesis' bad-credential checks run into them.
    settings = {
        "CORRIDOR_RATE_LIMITS_ENABLED": "true",
        "CORRIDOR_RATE_LIMIT_AUTHENTICATION_FAILURES_PER_ADDRESS": "3 per minute",
    }
    with live_corridor(backend, tmp_path, workers=True, settings=settings) as live:
        document = tmp_path / "openapi.json"
        served = httpx.get(f"{live.base_url}/openapi.json", timeout=120)
        assert served.status_code == 200
        document.write_text(json.dumps(served.json()))
        report = _schemathesis(live, document)
        counts = _status_counts(live)
    assert "Test cases:" in report, report[-3000:]
    tested = re.search(r"Tested: (\d+)", report)
    assert tested and int(tested.group(1)) >= len(list(_operations())) - 5, report[-3000:]
    failures = {code: title for code, title, _ in _FAILURE_SUMMARY.findall(report)}
    answers_not_described = {
        code: title for code, title, _ in _ANSWER_CHECK.findall(report) if code in failures
    }
    assert answers_not_described == {}, report[-6000:]
    # The run met the answers it is about: it ran into the rate limits.
    assert counts.get("429", 0) > 0, counts
