"""Signing in to the console, its session cookie, the CSRF token, sign-out and expiry,
and the headers every console page carries."""

from __future__ import annotations

from datetime import timedelta

import httpx

from corridor.kit.clock import SystemClock
from tests.auth.test_rate_limits import _address, limited_app
from tests.conftest import client_for
from tests.console.helpers import console_browser, csrf_of, post_form, sign_in


async def test_root_and_console_lead_an_anonymous_visitor_to_sign_in(anonymous):
    root = await anonymous.get("/")
    assert root.status_code == 307 and root.headers["location"] == "/console"
    console = await anonymous.get("/console")
    assert console.status_code == 303
    assert console.headers["location"] == "/console/sign-in?next=%2Fconsole"
    page = await anonymous.get("/console/sign-in")
    assert page.status_code == 200
    assert '<label class="field" for="email">' in page.text


async def test_sign_in_sets_an_http_only_lax_session_cookie_and_opens_the_next_page(app, tenant):
    async with client_for(app) as client:
        form = await client.get("/console/sign-in?next=/console/transfers")
        answer = await client.post(
            "/console/sign-in",
            data={
                "email": tenant.console_email,
                "password": tenant.console_password,
                "csrf_token": csrf_of(form.text),
                "next": "/console/transfers",
            },
        )
        assert answer.status_code == 303, answer.text
        assert answer.headers["location"] == "/console/transfers"
        cookie = answer.headers["set-cookie"]
        assert "corridor_session=cs_" in cookie
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie
        # Sandbox serves plain HTTP on localhost; production marks it Secure (below).
        assert "Secure" not in cookie
        home = await client.get("/console")
        assert home.status_code == 200
        assert tenant.console_email in home.text


async def test_the_session_cookie_is_secure_outside_sandbox(production_app, make_tenant):
    tenant = await make_tenant(production_app)
    transport = httpx.ASGITransport(app=production_app)
    # Secure cookies travel over HTTPS only.
    async with httpx.AsyncClient(transport=transport, base_url="https://testserver") as client:
        answer = await sign_in(client, tenant.console_email, tenant.console_password)
        assert answer.status_code == 303
        session_cookie = next(
            value
            for value in answer.headers.get_list("set-cookie")
            if value.startswith("corridor_session=")
        )
        assert "Secure" in session_cookie


async def test_sign_in_never_leads_to_another_site(app, tenant):
    async with client_for(app) as client:
        form = await client.get("/console/sign-in")
        answer = await client.post(
            "/console/sign-in",
            data={
                "email": tenant.console_email,
                "password": tenant.console_password,
                "csrf_token": csrf_of(form.text),
                "next": "//evil.example/console",
            },
        )
        assert answer.headers["location"] == "/console"


async def test_a_wrong_password_is_refused_on_the_page(app, tenant):
    async with client_for(app) as client:
        answer = await sign_in(client, tenant.console_email, "not the password")
        assert answer.status_code == 401
        assert "Wrong email or password." in answer.text
        assert "corridor_session=" not in answer.headers.get("set-cookie", "")


async def test_a_sign_in_without_the_form_token_is_refused(app, tenant):
    async with client_for(app) as client:
        answer = await client.post(
            "/console/sign-in",
            data={"email": tenant.console_email, "password": tenant.console_password},
        )
        assert answer.status_code == 403
        assert "corridor_session=" not in answer.headers.get("set-cookie", "")


async def test_failed_sign_ins_are_throttled_per_email(database_url, make_tenant):
    async with limited_app(database_url) as application:
        tenant = await make_tenant(application)
        transport = httpx.ASGITransport(app=application, client=(_address(), 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            statuses = [
                (await sign_in(client, tenant.console_email, "wrong")).status_code
                for _ in range(10)
            ]
            assert statuses == [401] * 10
            # Spent: even the right password waits now.
            answer = await sign_in(client, tenant.console_email, tenant.console_password)
            assert answer.status_code == 429
            assert "Too many failed sign-ins" in answer.text
            assert int(answer.headers["retry-after"]) > 0


async def test_pages_carry_a_content_security_policy_without_inline_script(app, tenant):
    async with console_browser(app, tenant) as client:
        home = await client.get("/console")
    policy = home.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy
    assert home.headers["x-frame-options"] == "DENY"
    assert home.headers["cache-control"] == "no-store"
    assert "<script>" not in home.text and " on" + "click=" not in home.text


async def test_a_form_posted_without_the_csrf_token_is_refused(app, tenant):
    async with console_browser(app, tenant) as client:
        refused = await client.post("/console/sign-out", data={})
        assert refused.status_code == 403
        assert "security token" in refused.text
        wrong = await client.post("/console/sign-out", data={"csrf_token": "x" * 40})
        assert wrong.status_code == 403
        # Still signed in.
        assert (await client.get("/console")).status_code == 200


async def test_sign_out_ends_the_session(app, tenant):
    async with console_browser(app, tenant) as client:
        answer = await post_form(client, "/console", "/console/sign-out", {})
        assert answer.status_code == 303
        assert answer.headers["location"] == "/console/sign-in?signed_out=1"
        after = await client.get("/console")
        assert after.status_code == 303


async def test_an_expired_session_goes_back_to_sign_in_with_a_message(app, tenant, clock):
    async with console_browser(app, tenant) as client:
        clock.set(SystemClock().now() + timedelta(hours=13))
        answer = await client.get("/console?done=x")
        assert answer.status_code == 303
        location = answer.headers["location"]
        assert location.startswith("/console/sign-in?next=%2Fconsole%3Fdone%3Dx")
        assert location.endswith("expired=1")
        page = await client.get(location)
        assert "Your session has ended" in page.text


async def test_an_htmx_request_of_an_ended_session_is_redirected_by_header(app, tenant, clock):
    async with console_browser(app, tenant) as client:
        clock.set(SystemClock().now() + timedelta(hours=13))
        answer = await client.get("/console", headers={"HX-Request": "true"})
        assert answer.status_code == 200
        assert answer.headers["hx-redirect"].startswith("/console/sign-in")


async def test_static_assets_are_served_from_the_package(anonymous):
    htmx = await anonymous.get("/console/static/htmx.min.js")
    assert htmx.status_code == 200 and "htmx" in htmx.text
    assert htmx.headers["content-type"].startswith("text/javascript")
    assert (await anonymous.get("/console/static/../app.py")).status_code == 404
