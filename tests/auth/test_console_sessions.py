"""Console sign-in: argon2 passwords, 12-hour sessions, cookie, sign-out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.conftest import assert_error, client_for


async def test_sign_in_returns_a_token_that_lasts_twelve_hours(tenant, anonymous, clock, app):
    now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    clock.set(now)
    response = await anonymous.post(
        "/v1/console/sessions",
        json={"email": tenant.console_email, "password": tenant.console_password},
    )
    assert response.status_code == 201, response.text
    session = response.json()
    assert session["token"].startswith("cs_")
    assert session["expiresAt"] == "2026-03-02T21:00:00.000Z"
    assert session["user"]["email"] == tenant.console_email
    assert "httponly" in response.headers["set-cookie"].lower()

    async with client_for(app, {"Authorization": f"Bearer {session['token']}"}) as console:
        assert (await console.get("/v1/api-keys")).status_code == 200
        clock.set(now + timedelta(hours=11, minutes=59))
        assert (await console.get("/v1/api-keys")).status_code == 200
        clock.set(now + timedelta(hours=12))
        assert_error(await console.get("/v1/api-keys"), 401, "unauthorized")


async def test_wrong_password_and_unknown_email_get_the_same_answer(tenant, anonymous):
    wrong_password = await anonymous.post(
        "/v1/console/sessions", json={"email": tenant.console_email, "password": "not-it"}
    )
    unknown_email = await anonymous.post(
        "/v1/console/sessions", json={"email": "nobody@example.com", "password": "not-it"}
    )
    assert_error(wrong_password, 401, "unauthorized")
    assert_error(unknown_email, 401, "unauthorized")
    assert wrong_password.json()["message"] == unknown_email.json()["message"]


async def test_session_cookie_authenticates_and_sign_out_ends_it(tenant, app):
    async with client_for(app) as browser:
        signed_in = await browser.post(
            "/v1/console/sessions",
            json={"email": tenant.console_email, "password": tenant.console_password},
        )
        assert signed_in.status_code == 201
        assert (await browser.get("/v1/api-keys")).status_code == 200
        token = signed_in.json()["token"]
        signed_out = await browser.delete(
            "/v1/console/sessions/current",
            headers={"X-Corridor-CSRF": signed_in.json()["csrfToken"]},
        )
        assert signed_out.status_code == 204
    async with client_for(app, {"Authorization": f"Bearer {token}"}) as console:
        assert_error(await console.get("/v1/api-keys"), 401, "unauthorized")


async def test_sign_in_validates_its_body(anonymous):
    assert_error(
        await anonymous.post("/v1/console/sessions", json={"email": 5, "password": "x"}),
        422,
        "validation_error",
    )
    assert_error(await anonymous.post("/v1/console/sessions", content=b"{"), 400, "invalid_json")
