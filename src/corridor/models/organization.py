"""Organizations: the tenant every other row belongs to."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class Organization(Base):
    __tablename__ = "organizations"
    id_prefix, resource_name = "org", "organization"

    id: Mapped[str] = id_column()
    name: Mapped[str] = mapped_column(String(200))
    # STANDARD, or PLATFORM (its sessions must be bound to a customer, spec 5.7).
    kind: Mapped[str] = mapped_column(String(20), default="STANDARD")
    parent_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"), index=True)
    configuration: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
