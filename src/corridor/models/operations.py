"""What the operations endpoints read: the workers' heartbeats (readiness)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class WorkerHeartbeat(Base):
    """One running worker process: written when it starts, renewed every
    `worker_heartbeat_s`, deleted when it stops on purpose (a killed one just ages)."""

    __tablename__ = "worker_heartbeats"
    id_prefix, resource_name = "wrk", "worker"

    id: Mapped[str] = id_column()  # wrk_…
    host: Mapped[str] = mapped_column(String(255))
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime]
    beat_at: Mapped[datetime] = mapped_column(index=True)
