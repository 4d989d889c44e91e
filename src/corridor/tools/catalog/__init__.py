"""Every tool, declared once per domain."""

from __future__ import annotations

from corridor.tools.base import Tool
from corridor.tools.catalog import (
    accounts,
    agents,
    customers,
    mandates,
    parties,
    quotes,
    sandbox,
    transfers,
    webhooks,
)

TOOLS: tuple[Tool, ...] = (
    *customers.TOOLS,
    *accounts.TOOLS,
    *parties.TOOLS,
    *transfers.TOOLS,
    *quotes.TOOLS,
    *agents.TOOLS,
    *mandates.TOOLS,
    *webhooks.TOOLS,
    *sandbox.TOOLS,
)
