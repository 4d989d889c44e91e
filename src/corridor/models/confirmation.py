"""Write tool calls waiting for a person (API.md 9, `tcf_…`): one record kind for the MCP
server's confirmations and the assistant's confirmation cards."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class ToolConfirmationRecord(Base):
    """One write tool call of one credential with exactly these arguments (bound by their
    hash), its decision (who, when, how) and, once carried out, its outcome."""

    __tablename__ = "tool_confirmations"
    id_prefix, resource_name = "tcf", "tool confirmation"
    __table_args__ = (
        Index("ix_tool_confirmations_organization_id_status", "organization_id", "status"),
        Index("ix_tool_confirmations_actor_id_arguments_sha256", "actor_id", "arguments_sha256"),
    )

    id: Mapped[str] = id_column()  # tcf_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    # mcp or assistant: who asked.
    origin: Mapped[str] = mapped_column(String(20))
    tool: Mapped[str] = mapped_column(String(100))
    arguments: Mapped[dict[str, Any]]
    arguments_sha256: Mapped[str] = mapped_column(String(64))
    # What a person reads: the summary and the effect of a dry run (amounts, payee, rail).
    summary: Mapped[str] = mapped_column(Text)
    effect: Mapped[str] = mapped_column(Text)
    # The credential that called: its kind (auth.callers.CallerKind) and id (key_…, usr_…).
    credential_kind: Mapped[str] = mapped_column(String(30))
    actor_id: Mapped[str] = mapped_column(String(40))
    agent_id: Mapped[str | None] = mapped_column(String(40))
    customer_id: Mapped[str | None] = mapped_column(String(40))
    # PENDING, APPROVED, REFUSED, EXPIRED.
    status: Mapped[str] = mapped_column(String(20))
    decided_by: Mapped[str | None] = mapped_column(String(40))
    # console, api, mcp_form, mcp_elicitation, assistant: where the decision was made.
    decided_via: Mapped[str | None] = mapped_column(String(30))
    decided_at: Mapped[datetime | None]
    # Set once, when the approved call ran (it runs at most once).
    executed_at: Mapped[datetime | None]
    outcome: Mapped[dict[str, Any] | None]
    assistant_tool_call_id: Mapped[str | None] = mapped_column(
        ForeignKey("assistant_tool_calls.id", ondelete="CASCADE"), unique=True
    )
    # None: it waits as long as its assistant run does.
    expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
