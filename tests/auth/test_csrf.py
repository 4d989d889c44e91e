"""CSRF (issue 10): a request that changes something and is authenticated by the console
cookie alone needs the session's CSRF token in X-Corridor-CSRF; bearer requests do not."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest

from tests.conftest import assert_error, client_for

CSRF = "X-Corridor-CSRF"
WRITES = [
    ("POST", "/v1/api-keys", {"name": "from a page", "scopes": ["*"]}),
    ("POST", "/v1/organizations", {"name": "Child"}),
    ("PATCH", "/v1/organizations/current", {"name": "Renamed"}),
    ("POST", "/v1/webhooks/endpoints", {"url": "https://example.com/hooks"}),
]


@contextlib.asynccontextmanager
async def _signed_in_browser(app, tenant) -> AsyncIterator[tuple[httpx.AsyncClient, dict]]:
    """A client that holds only the session cookie, as a browser does, and the sign-in answer."""
    async with client_for(app) as browser:
        signed_in = await browser.post(
            "/v1/console/sessions",
            json={"email": tenant.console_email, "password": tenant.console_password},
        )
        assert signed_in.status_code == 201, signed_in.text
        assert "corridor_session" in browser.cookies
        yield browser, signed_in.json()


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
async def test_a_cookie_write_without_the_csrf_token_is_refused_and_changes_nothing(
    app, tenant, method, path, body
):
    async with _signed_in_browser(app, tenant) as (browser, _):
        keys_before = (await tenant.client.get("/v1/api-keys")).json()["data"]
        for headers in ({}, {CSRF: "forged"}, {CSRF: ""}):
            refused = await browser.request(method, path, json=body, headers=headers)
            problem = assert_error(refused, 403, "csrf_token_invalid")
            assert CSRF in problem["message"]
        assert (await tenant.client.get("/v1/api-keys")).json()["data"] == keys_before
        current = (await tenant.client.get("/v1/organizations/current")).json()
        assert current["name"] != "Renamed"
        endpoints = (await tenant.client.get("/v1/webhooks/endpoints")).json()["data"]
        assert endpoints == []


@pytest.mark.parametrize(("method", "path", "body"), WRITES)
async def test_a_cookie_write_with_the_sessions_csrf_token_goes_through(
    app, tenant, method, path, body
):
    async with _signed_in_browser(app, tenant) as (browser, signed_in):
        response = await browser.request(
            method, path, json=body, headers={CSRF: signed_in["csrfToken"]}
        )
        assert response.status_code in (200, 201), response.text


async def test_the_token_is_returned_at_sign_in_and_by_get_of_the_session(app, tenant):
    async with _signed_in_browser(app, tenant) as (browser, signed_in):
        current = await browser.get("/v1/console/sessions/current")
        assert current.status_code == 200, current.text
        assert current.json()["csrfToken"] == signed_in["csrfToken"]
        assert current.json()["user"] == signed_in["user"]
        assert current.json()["expiresAt"] == signed_in["expiresAt"]
        assert len(signed_in["csrfToken"]) >= 40
    async with client_for(app, {"Authorization": f"Bearer {signed_in['token']}"}) as console:
        assert (await console.get("/v1/console/sessions/current")).json() == current.json()
    assert_error(await tenant.client.get("/v1/console/sessions/current"), 403, "forbidden")


async def test_each_session_has_its_own_token(app, tenant):
    async with (
        _signed_in_browser(app, tenant) as (first, first_session),
        _signed_in_browser(app, tenant) as (_, second_session),
    ):
        assert first_session["csrfToken"] != second_session["csrfToken"]
        body = {"name": "Child"}
        crossed = await first.post(
            "/v1/organizations", json=body, headers={CSRF: second_session["csrfToken"]}
        )
        assert_error(crossed, 403, "csrf_token_invalid")


async def test_bearer_and_reads_need_no_csrf_token(app, tenant):
    async with _signed_in_browser(app, tenant) as (browser, signed_in):
        assert (await browser.get("/v1/api-keys")).status_code == 200
        # A bearer token wins over the cookie, and a page of another site cannot send one.
        bearer = {"Authorization": f"Bearer {signed_in['token']}"}
        created = await browser.post("/v1/organizations", json={"name": "B"}, headers=bearer)
        assert created.status_code == 201, created.text
    created = await tenant.client.post("/v1/organizations", json={"name": "Key"})
    assert created.status_code == 201, created.text


async def test_sign_out_by_cookie_needs_the_token_too(app, tenant):
    async with _signed_in_browser(app, tenant) as (browser, signed_in):
        assert_error(
            await browser.delete("/v1/console/sessions/current"), 403, "csrf_token_invalid"
        )
        assert (await browser.get("/v1/api-keys")).status_code == 200
        signed_out = await browser.delete(
            "/v1/console/sessions/current", headers={CSRF: signed_in["csrfToken"]}
        )
        assert signed_out.status_code == 204
