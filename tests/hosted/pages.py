"""Helpers of the hosted page's HTTP tests: open a page as its link does, and read what its
forms send (the link's token and the page's CSRF token)."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

_HIDDEN = re.compile(r'<input type="hidden" name="(token|csrf)" value="([^"]*)">')


def secrets_of(page: str) -> dict[str, str]:
    """The hidden fields every form of the page carries."""
    found = {name: html.unescape(value) for name, value in _HIDDEN.findall(page)}
    assert set(found) == {"token", "csrf"}, "the page's forms carry the token and CSRF token"
    return found


async def link_secrets(client, url: str) -> tuple[str, dict[str, str]]:
    """Open the link; answers (session id, the fields its forms send)."""
    address = urlsplit(url)
    page = await client.get(f"{address.path}?{address.query}")
    assert page.status_code == 200, page.text
    session_id = address.path.rsplit("/", 1)[-1]
    secrets = secrets_of(page.text)
    assert secrets["token"] == parse_qs(address.query)["token"][0]
    return session_id, secrets


def field_error(page: str, name: str) -> str | None:
    """The message shown under the field `name` (None when there is none)."""
    found = re.search(rf'data-error-for="{re.escape(name)}">([^<]*)<', page)
    return html.unescape(found.group(1)) if found else None
