"""The assistant's tables: threads, their messages, runs, write tool calls waiting for a
person's confirmation, and the events of each run (what its SSE stream replays)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class AssistantThread(Base):
    __tablename__ = "assistant_threads"
    id_prefix, resource_name = "thr", "assistant thread"
    __table_args__ = (
        Index("ix_assistant_threads_organization_id_user_id", "organization_id", "user_id"),
        Index("ix_assistant_threads_retention_expires_at", "retention_expires_at"),
    )

    id: Mapped[str] = id_column()  # thr_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    # The console user (usr_…) or the API key (key_…) the thread belongs to.
    user_id: Mapped[str] = mapped_column(String(40))
    app: Mapped[str] = mapped_column(String(20))
    env: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(200))
    # active or archived.
    status: Mapped[str] = mapped_column(String(20))
    # private (its user only) or organization (every assistant user of the organization).
    visibility: Mapped[str] = mapped_column(String(20))
    pinned_context: Mapped[dict[str, Any] | None]
    # The agent (agt_…) the thread acts as: its tool calls carry the agent's authority (its
    # limits, allowlist and mandates); null when it acts as its user. Set at creation only.
    agent_id: Mapped[str | None] = mapped_column(String(40))
    mcp_session_ids: Mapped[dict[str, Any]] = mapped_column(default=dict)
    last_message_at: Mapped[datetime | None]
    last_read_message_id: Mapped[str | None] = mapped_column(String(40))
    retention_expires_at: Mapped[datetime]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class AssistantRun(Base):
    """One answer to one user message: the model loop, its usage and where it stands."""

    __tablename__ = "assistant_runs"
    id_prefix, resource_name = "run", "assistant run"
    __table_args__ = (
        Index("ix_assistant_runs_status_lease_expires_at", "status", "lease_expires_at"),
        Index("ix_assistant_runs_thread_id", "thread_id"),
    )

    id: Mapped[str] = id_column()  # run_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    thread_id: Mapped[str] = mapped_column(ForeignKey("assistant_threads.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(40))
    app: Mapped[str] = mapped_column(String(20))
    # queued, running, awaiting_confirmation, completed, failed, cancelled.
    status: Mapped[str] = mapped_column(String(30))
    provider: Mapped[str] = mapped_column(String(30))
    model: Mapped[str | None] = mapped_column(String(100))
    # The model conversation of this run so far (pydantic-ai messages as JSON), so a run
    # resumes after a restart or a crashed worker exactly where it stood.
    history: Mapped[list[Any]] = mapped_column(default=list)
    tool_call_count: Mapped[int] = mapped_column(Integer, default=0)
    tokens_in: Mapped[int] = mapped_column(BigInteger, default=0)
    tokens_out: Mapped[int] = mapped_column(BigInteger, default=0)
    cost_usd: Mapped[str | None] = mapped_column(String(40))
    error: Mapped[str | None] = mapped_column(Text)
    # A worker holds a running run until then; after it, another worker takes it over.
    lease_expires_at: Mapped[datetime | None]
    # The next event's sequence number (the SSE id clients resume from).
    next_event_sequence: Mapped[int] = mapped_column(Integer, default=1)
    cancel_requested_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # The trace of the request that asked for the run (W3C traceparent), when traces are
    # on: the worker carrying the run out continues it (kit/tracing.py).
    trace_context: Mapped[str | None] = mapped_column(String(55))


class AssistantMessage(Base):
    __tablename__ = "assistant_messages"
    id_prefix, resource_name = "amsg", "assistant message"
    __table_args__ = (Index("ix_assistant_messages_thread_id_id", "thread_id", "id"),)

    id: Mapped[str] = id_column()  # amsg_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    thread_id: Mapped[str] = mapped_column(ForeignKey("assistant_threads.id", ondelete="CASCADE"))
    run_id: Mapped[str | None] = mapped_column(ForeignKey("assistant_runs.id", ondelete="CASCADE"))
    # user, assistant or tool.
    role: Mapped[str] = mapped_column(String(20))
    parts: Mapped[list[Any]] = mapped_column(default=list)
    tokens_in: Mapped[int | None] = mapped_column(BigInteger)
    tokens_out: Mapped[int | None] = mapped_column(BigInteger)
    cost_usd: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]


class AssistantToolCall(Base):
    """A write the model asked for, held until the thread's user confirms or refuses it.

    The arguments are stored when the run pauses and bound by their hash: confirming runs
    exactly these, whatever the model says afterwards.
    """

    __tablename__ = "assistant_tool_calls"
    id_prefix, resource_name = "tc", "tool call"
    __table_args__ = (Index("ix_assistant_tool_calls_run_id", "run_id"),)

    id: Mapped[str] = id_column()  # tc_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    run_id: Mapped[str] = mapped_column(ForeignKey("assistant_runs.id", ondelete="CASCADE"))
    message_id: Mapped[str] = mapped_column(ForeignKey("assistant_messages.id", ondelete="CASCADE"))
    # The id the model gave the call, to answer it in the model's conversation.
    model_call_id: Mapped[str] = mapped_column(String(200))
    tool: Mapped[str] = mapped_column(String(100))
    arguments: Mapped[dict[str, Any]]
    arguments_sha256: Mapped[str] = mapped_column(String(64))
    args_summary: Mapped[str] = mapped_column(Text)
    preview: Mapped[str] = mapped_column(Text)
    # pending_confirmation, completed, failed, rejected, cancelled.
    status: Mapped[str] = mapped_column(String(30))
    # What the model is told: the result (JSON) or the error body.
    outcome: Mapped[dict[str, Any] | None]
    decided_by: Mapped[str | None] = mapped_column(String(40))
    decided_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class AssistantRunEvent(Base):
    """What a run's SSE stream sends, in order; `sequence` is the event id clients resume
    from with Last-Event-ID."""

    __tablename__ = "assistant_run_events"
    __table_args__ = (UniqueConstraint("run_id", "sequence"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    run_id: Mapped[str] = mapped_column(ForeignKey("assistant_runs.id", ondelete="CASCADE"))
    sequence: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
