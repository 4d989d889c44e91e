"""/openapi.json, as served, is a valid OpenAPI 3.1 document (openapi-spec-validator
checks it against the specification's own schema, references included), so generators
and viewers (Swagger UI, ReDoc, `make sdk-models`) read what the specification says."""

from __future__ import annotations

from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

from corridor.app import create_app
from corridor.config import Settings


def test_served_openapi_document_is_valid_openapi_3_1(tmp_path):
    app = create_app(
        Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'openapi.db'}"),
        run_workers_in_process=False,
    )
    with TestClient(app) as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.1.")
    validate(document, cls=OpenAPIV31SpecValidator)


def test_document_is_rendered_once_and_served_as_fastapi_renders_it(tmp_path):
    """Every fetch answers the same bytes, those of FastAPI's own JSON rendering of the
    document (what it served before the rendering was kept), and a `root_path` behind a
    proxy still names its server, as FastAPI's route does."""
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'openapi.db'}")
    app = create_app(settings, run_workers_in_process=False)
    with TestClient(app) as client:
        first, second = client.get("/openapi.json"), client.get("/openapi.json")
    assert first.headers["content-type"] == "application/json"
    assert first.content == second.content == JSONResponse(app.openapi()).body
    proxied_app = create_app(settings, run_workers_in_process=False)
    with TestClient(proxied_app, root_path="/payments") as proxied:
        behind = proxied.get("/openapi.json").json()
    assert behind["servers"][0] == {"url": "/payments"}
    assert "servers" not in first.json()
