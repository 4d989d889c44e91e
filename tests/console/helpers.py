"""A console user's browser without a browser: an HTTP client that signs in through the
sign-in form and sends forms with the page's CSRF token, as the pages do."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from tests.conftest import Tenant, client_for

_CSRF_META = re.compile(r'<meta name="corridor-csrf" content="([^"]+)">')
_FORM_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_of(html: str) -> str:
    found = _CSRF_META.search(html) or _FORM_TOKEN.search(html)
    assert found, "the page carries no CSRF token"
    return found.group(1)


async def sign_in(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    form = await client.get("/console/sign-in")
    return await client.post(
        "/console/sign-in",
        data={"email": email, "password": password, "csrf_token": csrf_of(form.text)},
    )


@asynccontextmanager
async def console_browser(app, tenant: Tenant) -> AsyncIterator[httpx.AsyncClient]:
    """A client signed in to the console as the tenant's console user."""
    async with client_for(app) as client:
        answer = await sign_in(client, tenant.console_email, tenant.console_password)
        assert answer.status_code == 303, answer.text
        yield client


async def post_form(client: httpx.AsyncClient, page: str, action: str, data: dict[str, str]):
    """Open `page`, then post `data` with its CSRF token to `action`."""
    opened = await client.get(page)
    assert opened.status_code == 200, opened.text
    return await client.post(action, data={**data, "csrf_token": csrf_of(opened.text)})
