"""Who may call: console users and their sessions, organization and agent API keys."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class ConsoleUser(Base):
    __tablename__ = "console_users"
    id_prefix, resource_name = "usr", "console user"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]


class ConsoleSession(Base):
    __tablename__ = "console_sessions"
    id_prefix, resource_name = "cs", "console session"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("console_users.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class ApiKey(Base):
    __tablename__ = "api_keys"
    id_prefix, resource_name = "key", "API key"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    # ORGANIZATION or AGENT; agent keys carry the agent they speak for.
    kind: Mapped[str] = mapped_column(String(20), default="ORGANIZATION")
    agent_id: Mapped[str | None] = mapped_column(String(40), index=True)
    name: Mapped[str] = mapped_column(String(200))
    scopes: Mapped[list[Any]] = mapped_column(default=list)
    # sandbox or live: the environment word in the secret.
    environment: Mapped[str] = mapped_column(String(10))
    prefix: Mapped[str] = mapped_column(String(40))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    # always, over_limit or never (auth.callers.ToolConfirmation): whether its write tool
    # calls wait for a person. Organization keys default to always, agent keys to never.
    tool_confirmation: Mapped[str] = mapped_column(String(20), default="always")


class PlatformSession(Base):
    """A platform organization's REST session bound to one customer (spec 5.7): made when
    a platform key creates a business customer; its `ps_…` token is a bearer credential
    that acts as the key, bound to that customer."""

    __tablename__ = "platform_sessions"
    id_prefix, resource_name = "pss", "platform session"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    api_key_id: Mapped[str] = mapped_column(ForeignKey("api_keys.id"), index=True)
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
