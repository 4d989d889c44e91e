"""Signing in to the console and out of it: the same console sessions as
`POST /v1/console/sessions`, the same throttle of failed sign-ins."""

from __future__ import annotations

import hmac

from fastapi import Request, Response

from corridor.auth import service as auth_service
from corridor.auth.secrets import random_token
from corridor.console.rendering import render
from corridor.console.routing import SIGN_IN_PATH, console_router, local_path, redirect
from corridor.console.session import CSRF_FIELD, ConsolePage, read_form
from corridor.kit.errors import Unauthorized
from corridor.web.authentication import CONSOLE_SESSION_COOKIE
from corridor.web.errors import RateLimited
from corridor.web.ratelimits import RateLimiter, client_address

router = console_router()

# Before there is a session, the sign-in form is protected by a token of its own (double
# submit: a cookie and the same value in the form), so no other site can sign a browser
# in to an account of its choosing.
SIGN_IN_COOKIE = "corridor_console_sign_in"
sign_in_cookie_lifetime_s = 60 * 60
email_chars_max = 320
password_chars_max = 200


def _sign_in_page(
    request: Request,
    *,
    status: int = 200,
    message: str | None = None,
    email: str = "",
    next_path: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    form_token = request.cookies.get(SIGN_IN_COOKIE) or random_token()
    notice = None
    if request.query_params.get("expired"):
        notice = "Your session has ended. Sign in again to continue."
    elif request.query_params.get("signed_out"):
        notice = "You are signed out."
    response = render(
        "sign_in.html",
        status=status,
        headers=headers,
        message=message,
        notice=notice,
        email=email,
        next_path=local_path(next_path or request.query_params.get("next")),
        form_token=form_token,
        csrf_field=CSRF_FIELD,
        sandbox=request.app.state.settings.is_sandbox,
    )
    response.set_cookie(
        SIGN_IN_COOKIE,
        form_token,
        max_age=sign_in_cookie_lifetime_s,
        path=SIGN_IN_PATH,
        httponly=True,
        secure=not request.app.state.settings.is_sandbox,
        samesite="strict",
    )
    return response


@router.get("/sign-in")
async def sign_in_page(request: Request) -> Response:
    return _sign_in_page(request)


@router.post("/sign-in")
async def sign_in(request: Request) -> Response:
    state = request.app.state
    form = await read_form(request)
    email = form.get("email", "").strip()[:email_chars_max]
    password = form.get("password", "")[:password_chars_max]
    next_path = form.get("next")
    expected = request.cookies.get(SIGN_IN_COOKIE, "")
    sent = form.get(CSRF_FIELD, "")
    if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        return _sign_in_page(
            request,
            status=403,
            message="The sign-in form had expired. Please try again.",
            email=email,
            next_path=next_path,
        )
    if not email or not password:
        return _sign_in_page(
            request,
            status=422,
            message="Enter your email and password.",
            email=email,
            next_path=next_path,
        )
    limiter: RateLimiter = state.rate_limiter
    try:
        async with state.database.session(write=True) as session:
            async with limiter.sign_in_attempt(email=email, address=client_address(request.client)):
                signed_in = await auth_service.sign_in(
                    session,
                    email=email,
                    password=password,
                    now=state.clock.now(),
                    lifetime_s=state.settings.console_session_lifetime_s,
                )
            await session.commit()
    except Unauthorized:
        return _sign_in_page(
            request,
            status=401,
            message="Wrong email or password.",
            email=email,
            next_path=next_path,
        )
    except RateLimited as refused:
        return _sign_in_page(
            request,
            status=429,
            message="Too many failed sign-ins. Wait a few minutes before trying again.",
            email=email,
            next_path=next_path,
            headers=refused.headers,
        )
    response = redirect(request, local_path(next_path))
    response.set_cookie(
        CONSOLE_SESSION_COOKIE,
        signed_in.token,
        max_age=state.settings.console_session_lifetime_s,
        httponly=True,
        secure=not state.settings.is_sandbox,
        samesite="lax",
    )
    response.delete_cookie(SIGN_IN_COOKIE, path=SIGN_IN_PATH)
    return response


@router.post("/sign-out")
async def sign_out(console: ConsolePage) -> Response:
    await auth_service.sign_out(
        console.session, caller=console.caller, token=console.token, now=console.now()
    )
    await console.commit()
    response = redirect(console.request, f"{SIGN_IN_PATH}?signed_out=1")
    response.delete_cookie(CONSOLE_SESSION_COOKIE)
    return response
