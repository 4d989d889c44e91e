"""Confirmations' states, who may decide where, and the hash binding one to its call. Pure."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from enum import StrEnum
from typing import Any

from corridor.auth.callers import ToolConfirmation


class ConfirmationStatus(StrEnum):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    REFUSED = "REFUSED"
    EXPIRED = "EXPIRED"


class Origin(StrEnum):
    """Who asked: a client of the MCP server, or the assistant's run (a confirmation card)."""

    MCP = "mcp"
    ASSISTANT = "assistant"


class DecidedVia(StrEnum):
    """Where the decision was made."""

    CONSOLE = "console"
    API = "api"
    # The person at the MCP client answered the form (2026-07-28 input_required).
    MCP_FORM = "mcp_form"
    # The person at the MCP client answered elicitation/create (2025-11-25).
    MCP_ELICITATION = "mcp_elicitation"
    ASSISTANT = "assistant"


# Refusals of a dry run that mean "past the agent's limits or mandate" (over_limit asks).
OVER_LIMIT_CODES = frozenset({"agent_limit_exceeded", "agent_approval_required"})
# How long a pending confirmation (and its requestState) is good for, by default.
confirmation_ttl_s_default = 600


def arguments_sha256(tool: str, arguments: dict[str, Any]) -> str:
    """The hash that binds a confirmation to exactly these arguments of this tool: SHA-256
    of the canonical JSON (sorted keys, no spaces) of the tool's name and its parsed
    arguments as sent."""
    canonical = json.dumps(
        {"tool": tool, "arguments": arguments},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def asks(policy: ToolConfirmation, *, would_exceed_limits: bool) -> bool:
    """Whether a write tool call waits for a person under `policy`."""
    if policy is ToolConfirmation.ALWAYS:
        return True
    if policy is ToolConfirmation.OVER_LIMIT:
        return would_exceed_limits
    return False


def current_status(status: str, expires_at: datetime | None, now: datetime) -> ConfirmationStatus:
    """A pending confirmation past its expiry is expired, whether or not a write said so."""
    found = ConfirmationStatus(status)
    if found is ConfirmationStatus.PENDING and expires_at is not None and expires_at <= now:
        return ConfirmationStatus.EXPIRED
    return found


def usable_approval(
    status: str, expires_at: datetime | None, executed_at: datetime | None, now: datetime
) -> bool:
    """An approval the same call may still use: approved, not yet used, not expired."""
    if status != ConfirmationStatus.APPROVED or executed_at is not None:
        return False
    return expires_at is None or now < expires_at
