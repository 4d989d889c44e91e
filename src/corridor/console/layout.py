"""What every console page shares: the navigation, the notice shown after an action, and
`page()`, which renders a template inside the base layout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi.responses import HTMLResponse

from corridor.console.rendering import render
from corridor.console.session import CSRF_FIELD, Console


@dataclass(frozen=True, slots=True)
class NavItem:
    path: str
    label: str
    starts_group: bool = False  # drawn with a divider before it (money, queues, setup)
    sandbox_only: bool = False  # listed only on a sandbox server (test mode)


# The navigation bar, in order, in groups: the money, the queues that need a person, the
# set-up, the assistant. A new page adds itself here (docs/console.md).
NAVIGATION: list[NavItem] = [
    NavItem("/console", "Home"),
    NavItem("/console/customers", "Customers"),
    NavItem("/console/transfers", "Transfers"),
    NavItem("/console/approvals", "Approvals", starts_group=True),
    NavItem("/console/reviews", "Review"),
    NavItem("/console/authorizations", "Authorization"),
    NavItem("/console/tool-confirmations", "Tool calls"),
    NavItem("/console/reconciliation", "Reconciliation"),
    NavItem("/console/agents", "Agents", starts_group=True),
    NavItem("/console/webhooks", "Webhooks"),
    NavItem("/console/api-keys", "API keys"),
    NavItem("/console/logs", "Logs"),
    NavItem("/console/audit", "Audit"),
    NavItem("/console/connected-apps", "Connected apps"),
    NavItem("/console/settings", "Settings"),
    NavItem("/console/assistant", "Assistant", starts_group=True),
    NavItem("/console/test-mode", "Test mode", sandbox_only=True),
]

# After an action a page redirects with `?done=<code>`; the layout shows the sentence.
NOTICES: dict[str, str] = {}


def notice(code: str, sentence: str) -> str:
    """Register the sentence shown after an action; returns the code to redirect with."""
    NOTICES[code] = sentence
    return code


def _current(path: str) -> str:
    """The navigation entry a path belongs to (the longest prefix)."""
    best = "/console"
    for item in NAVIGATION:
        if (path == item.path or path.startswith(item.path + "/")) and len(item.path) > len(best):
            best = item.path
    return best


def page(
    console: Console,
    template: str,
    *,
    status: int = 200,
    here: str | None = None,
    **values: Any,
) -> HTMLResponse:
    """Render `template` with what the layout needs. `here` is where a form of the page
    comes back to after its action (a polled partial names its full page)."""
    request = console.request
    return render(
        template,
        status=status,
        navigation=[
            item for item in NAVIGATION if console.settings.is_sandbox or not item.sandbox_only
        ],
        current=_current(request.url.path),
        here=here or request.url.path,
        user_email=console.user_email,
        csrf_token=console.csrf_token,
        csrf_field=CSRF_FIELD,
        sandbox=console.settings.is_sandbox,
        notice=NOTICES.get(request.query_params.get("done", "")),
        **values,
    )
