"""MCP sessions, kept in the database so any API process serves them and they outlive a
restart: who opened each, and the customer a platform session is bound to inside it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class McpSession(Base):
    """One MCP session of Corridor's tool server: a Streamable HTTP client's
    `Mcp-Session-Id`, a `corridor mcp` process, or an assistant thread's session."""

    __tablename__ = "mcp_sessions"
    id_prefix, resource_name = "mcps", "MCP session"
    __table_args__ = (
        Index("ix_mcp_sessions_actor_id_last_used_at", "actor_id", "last_used_at"),
        Index("ix_mcp_sessions_expires_at", "expires_at"),
    )

    id: Mapped[str] = id_column()  # mcps_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    # The credential that opened it (key_… or usr_…): only the same one may continue it.
    actor_id: Mapped[str] = mapped_column(String(40))
    # The customer a platform session is bound to in this MCP session (spec 5.7).
    customer_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"))
    # Set when the session is an assistant thread's (the thread's mcpSessionIds).
    thread_id: Mapped[str | None] = mapped_column(
        ForeignKey("assistant_threads.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[datetime]
    last_used_at: Mapped[datetime]
    # Renewed when it is used; past it the session is unknown and the retention worker
    # deletes it.
    expires_at: Mapped[datetime]
