"""The administration pages (agents, webhooks, API keys, organization settings), in the
order their routes are matched: `console/app.py` adds them to `PAGES` in one line."""

from __future__ import annotations

from corridor.console.pages import (
    agents,
    api_keys,
    audit,
    connected_apps,
    logs,
    settings,
    webhooks,
)

ROUTERS = [
    agents.router,
    webhooks.router,
    api_keys.router,
    logs.router,
    audit.router,
    connected_apps.router,
    settings.router,
]
