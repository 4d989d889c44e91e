"""The assistant's states and limits (spec 2.10–2.12, 3.3; issue 11 item 8). Pure."""

from __future__ import annotations

from enum import StrEnum

# The hash binding a confirmation to exactly its arguments: one rule for every confirmation.
from corridor.confirmations.rules import arguments_sha256 as arguments_sha256


class RunStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


ACTIVE_RUN_STATUSES = frozenset(
    {RunStatus.QUEUED, RunStatus.RUNNING, RunStatus.AWAITING_CONFIRMATION}
)
ENDED_RUN_STATUSES = frozenset({RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED})


class ThreadStatus(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"


class Visibility(StrEnum):
    PRIVATE = "private"
    ORGANIZATION = "organization"


class App(StrEnum):
    CONSOLE = "console"
    ADMIN = "admin"
    COMPLIANCE = "compliance"


class PinnedType(StrEnum):
    CUSTOMER = "customer"
    TRANSFER = "transfer"
    AGENT = "agent"
    ACCOUNT = "account"


PINNED_ID_PREFIXES = {
    PinnedType.CUSTOMER: "cus",
    PinnedType.TRANSFER: "tfr",
    PinnedType.AGENT: "agt",
    PinnedType.ACCOUNT: "acc",
}


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class ToolCallStatus(StrEnum):
    PENDING_CONFIRMATION = "pending_confirmation"
    COMPLETED = "completed"
    FAILED = "failed"
    REJECTED = "rejected"
    CANCELLED = "cancelled"


message_text_chars_max = 8000
title_chars_max = 200
pinned_label_chars_max = 200
default_title = "New conversation"
