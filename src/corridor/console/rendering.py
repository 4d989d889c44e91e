"""The console's pages as HTML: one Jinja2 environment (autoescaping every template), the
security headers every answer carries, and the filters templates format values with."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, PackageLoader, StrictUndefined

from corridor.kit.clock import as_utc
from corridor.kit.schemas import Amount

# No inline script or style anywhere: scripts and stylesheets come from /console/static.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Pages show money and people: never kept by a shared cache or the back button's cache.
    "Cache-Control": "no-store",
}


def _when(value: datetime | str | None) -> str:
    """A moment as people read it, in UTC to the second."""
    if value is None:
        return "—"
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return as_utc(value).strftime("%Y-%m-%d %H:%M:%S UTC")


def _money(amount: Any) -> str:
    """An Amount of the API (`displayValue` and `currency`) as `1,250.00 USD`."""
    if amount is None:
        return "—"
    display = getattr(amount, "display_value", None) or str(getattr(amount, "value", amount))
    whole, _, fraction = display.partition(".")
    sign = "-" if whole.startswith("-") else ""
    digits = whole.lstrip("-")
    grouped = f"{int(digits):,}" if digits.isdigit() else digits
    number = f"{sign}{grouped}" + (f".{fraction}" if fraction else "")
    return f"{number} {amount.currency}"


def _minor(minor_units: int | None, currency: str) -> str:
    """Integer minor units of a currency, shown as `_money` shows an Amount."""
    if minor_units is None:
        return "—"
    return _money(Amount.of(minor_units, currency))


def _status_class(status: str | None) -> str:
    """A CSS class for a status word: the badge's colour."""
    return "status-" + (status or "none").lower().replace("_", "-")


templates = Environment(
    loader=PackageLoader("corridor.console", "templates"),
    # Every template escapes what it prints, whatever its file name.
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters["when"] = _when
templates.filters["money"] = _money
templates.filters["minor"] = _minor
templates.filters["status_class"] = _status_class


def render(
    template: str, *, status: int = 200, headers: dict[str, str] | None = None, **values: Any
) -> HTMLResponse:
    body = templates.get_template(template).render(**values)
    return HTMLResponse(body, status_code=status, headers={**SECURITY_HEADERS, **(headers or {})})
