"""Documents: files a customer or transfer carries (proof of address, invoices, identity
documents), uploaded straight to object storage and confirmed by Corridor."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class Document(Base):
    """A file's record; the bytes live in object storage under `storage_key`.

    PENDING_UPLOAD until confirmed (the object exists, its size and sniffed type match,
    its SHA-256 recorded), then UPLOADED; ARCHIVED by the client; REJECTED when the bytes
    that arrived were not what the upload request declared.
    """

    __tablename__ = "documents"
    id_prefix, resource_name = "doc", "document"
    __table_args__ = (
        Index("ix_documents_organization_id_id", "organization_id", "id"),
        Index("ix_documents_organization_id_customer_id", "organization_id", "customer_id"),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"))
    transfer_id: Mapped[str | None] = mapped_column(ForeignKey("transfers.id"), index=True)
    # Uploaded through the hosted verification page of this session.
    verification_session_id: Mapped[str | None] = mapped_column(
        ForeignKey("verification_sessions.id", ondelete="SET NULL")
    )
    purpose: Mapped[str] = mapped_column(String(40))
    file_name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(20), index=True)
    rejection_reason: Mapped[str | None] = mapped_column(String(500))
    sha256: Mapped[str | None] = mapped_column(String(64))
    # Where the client's PUT lands, and where a confirmed file is kept.
    upload_key: Mapped[str] = mapped_column(String(300))
    storage_key: Mapped[str] = mapped_column(String(300))
    upload_expires_at: Mapped[datetime]
    # A PUT through Corridor's own signed URL in progress (a claim) and its success: the
    # URL is single-use.
    upload_started_at: Mapped[datetime | None]
    upload_received_at: Mapped[datetime | None]
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    uploaded_at: Mapped[datetime | None]
    archived_at: Mapped[datetime | None]
