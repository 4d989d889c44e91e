"""The home page: balances per currency and what needs someone's action now."""

from __future__ import annotations

from fastapi import Response

from corridor.console.layout import page
from corridor.console.routing import console_router
from corridor.console.session import ConsolePage

router = console_router()


@router.get("")
async def home(console: ConsolePage) -> Response:
    return page(console, "home.html")
