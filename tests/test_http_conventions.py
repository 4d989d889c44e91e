"""Conventions every endpoint shares: error shape, request ids, body limits, OpenAPI."""

from __future__ import annotations

import pytest

from tests.conftest import assert_error


async def test_every_response_carries_a_request_id(anonymous):
    response = await anonymous.get("/v1/health")
    assert response.status_code == 200
    assert response.headers["x-request-id"].startswith("req_")


async def test_health_reports_the_database_without_authentication(anonymous):
    body = (await anonymous.get("/v1/health")).json()
    assert body["status"] == "ok"
    assert body["database"] == "ok"
    assert body["environment"] == "sandbox"


async def test_malformed_json_is_400_invalid_json(tenant):
    for content in (b"{", b"not json", b"", b"[1, 2]", b'"text"', b"\xff\xfe"):
        response = await tenant.client.post(
            "/v1/api-keys", content=content, headers={"Content-Type": "application/json"}
        )
        assert_error(response, 400, "invalid_json")


async def test_unknown_and_server_owned_fields_are_rejected(tenant):
    body = assert_error(
        await tenant.client.post(
            "/v1/api-keys", json={"name": "k", "scopes": ["*"], "id": "key_x", "nmae": "typo"}
        ),
        422,
        "validation_error",
    )
    fields = {error["field"] for error in body["errors"]}
    assert {"id", "nmae"} <= fields
    assert all(error["message"] == "unknown field" for error in body["errors"])


async def test_wrong_types_are_validation_errors(tenant):
    body = assert_error(
        await tenant.client.post("/v1/api-keys", json={"name": 12, "scopes": "*"}),
        422,
        "validation_error",
    )
    assert {error["field"] for error in body["errors"]} == {"name", "scopes"}


async def test_unknown_path_and_method_use_the_error_shape(tenant):
    assert_error(await tenant.client.get("/v1/no-such-thing"), 404, "not_found")
    assert_error(await tenant.client.put("/v1/api-keys"), 405, "method_not_allowed")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/v1/transfers", "GET, POST"),
        ("PUT", "/v1/transfers", "GET, POST"),
        ("PUT", "/v1/customers/cus_01jd3x0p6x9e3k2v1m8q4r7s5t", "GET, PATCH"),
        ("DELETE", "/v1/customers/cus_01jd3x0p6x9e3k2v1m8q4r7s5t", "GET, PATCH"),
        ("PUT", "/v1/api-keys", "GET, POST"),
        ("GET", "/v1/transfers/tr_01jd3x0p6x9e3k2v1m8q4r7s5t/submit", "POST"),
        ("DELETE", "/v1/health", "GET"),
    ],
)
async def test_a_405_lists_the_methods_the_path_accepts_in_allow(tenant, method, path, allowed):
    """RFC 9110 15.5.6: a 405 carries Allow; Starlette's own header named only the first
    route of the path (GET), not the POST beside it."""
    response = await tenant.client.request(method, path)
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["allow"] == allowed


async def test_every_405_of_every_documented_path_carries_allow(app, tenant):
    """Every path of the OpenAPI document, asked with each method it does not document,
    answers 405 with Allow naming at least the documented methods and never the refused
    one (a literal path such as /v1/customers/individual may also match a templated one,
    whose methods then answer instead)."""
    every_method = {"GET", "POST", "PUT", "PATCH", "DELETE"}
    refusals = 0
    for template, operations in app.openapi()["paths"].items():
        path = template.replace("{", "x").replace("}", "")
        accepted = {method.upper() for method in operations}
        for method in sorted(every_method - accepted):
            response = await tenant.client.request(method, path)
            if response.status_code != 405:
                continue
            refusals += 1
            allowed = set(response.headers["allow"].split(", "))
            assert allowed >= accepted and method not in allowed, (method, path, allowed)
            assert response.json()["code"] == "method_not_allowed"
    assert refusals > 200


async def test_body_over_one_mebibyte_is_refused(tenant):
    huge = b'{"name": "' + b"x" * (1024 * 1024) + b'", "scopes": ["*"]}'
    response = await tenant.client.post(
        "/v1/api-keys", content=huge, headers={"Content-Type": "application/json"}
    )
    assert_error(response, 413, "payload_too_large")


async def test_url_over_eight_kibibytes_is_refused_with_414(tenant):
    at_limit = "/v1/accounts/" + "a" * (8 * 1024 - len("/v1/accounts/"))
    assert_error(await tenant.client.get(at_limit), 404, "not_found")
    assert_error(await tenant.client.get(at_limit + "a"), 414, "uri_too_long")
    long_query = "/v1/accounts?cursor=" + "b" * (8 * 1024)
    assert_error(await tenant.client.get(long_query), 414, "uri_too_long")


async def test_openapi_and_docs_are_served(anonymous):
    spec = (await anonymous.get("/openapi.json")).json()
    assert spec["info"]["title"] == "Corridor"
    assert "/v1/api-keys" in spec["paths"]
    assert "/v1/health" in spec["paths"]
    docs = await anonymous.get("/docs")
    assert docs.status_code == 200
    assert "swagger" in docs.text.lower()


async def test_openapi_documents_the_error_shape_not_fastapis_default(anonymous):
    spec = (await anonymous.get("/openapi.json")).json()
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    responses = spec["paths"]["/v1/api-keys"]["post"]["responses"]
    assert responses["422"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")


async def test_nul_characters_are_refused_wherever_they_hide(tenant):
    """PostgreSQL text cannot hold NUL; it must be a 422, never a 500, on every backend."""
    body = assert_error(
        await tenant.client.post("/v1/api-keys", json={"name": "bad\u0000name", "scopes": ["*"]}),
        422,
        "validation_error",
    )
    assert "NUL" in body["message"]
    assert body["errors"][0]["field"] == "name"
    nested = await tenant.client.post(
        "/v1/api-keys", json={"name": "ok", "scopes": ["customers:read\u0000"]}
    )
    assert_error(nested, 422, "validation_error")
    assert_error(await tenant.client.delete("/v1/api-keys/key_%00"), 422, "validation_error")
    assert_error(await tenant.client.get("/v1/api-keys?cursor=%00"), 422, "validation_error")


def _request_schema_has_examples(content: dict, schemas: dict) -> bool:
    if content.get("example") or content.get("examples"):
        return True
    schema = content["schema"]
    if "$ref" not in schema:  # an optional body: anyOf [the model, null]
        schema = next(option for option in schema.get("anyOf", []) if "$ref" in option)
    target = schemas[schema["$ref"].rsplit("/", 1)[-1]]
    if "example" in target or "examples" in target:
        return True
    return any(
        "example" in field or "examples" in field for field in target.get("properties", {}).values()
    )


async def test_openapi_documents_every_operation_with_a_summary_and_body_examples(anonymous):
    spec = (await anonymous.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]
    undocumented = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if not operation.get("summary"):
                undocumented.append(f"{method.upper()} {path}: no summary")
            body = operation.get("requestBody")
            if body and not _request_schema_has_examples(
                body["content"]["application/json"], schemas
            ):
                undocumented.append(f"{method.upper()} {path}: request body without examples")
            if not any(status.startswith("2") for status in operation["responses"]):
                undocumented.append(f"{method.upper()} {path}: no success response")
    assert undocumented == []
