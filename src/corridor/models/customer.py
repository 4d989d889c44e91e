"""Customers and what belongs to their onboarding: associated entities, terms of service,
verification sessions and enhanced-diligence requests for information."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class TermsOfServiceAcceptance(Base):
    __tablename__ = "tos_acceptances"
    id_prefix, resource_name = "tos", "terms-of-service acceptance"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # PENDING, ACCEPTED
    version: Mapped[str] = mapped_column(String(40))
    email: Mapped[str | None] = mapped_column(String(320))
    redirect_url: Mapped[str | None] = mapped_column(String(2048))
    accepted_ip: Mapped[str | None] = mapped_column(String(64))
    accepted_user_agent: Mapped[str | None] = mapped_column(String(512))
    created_at: Mapped[datetime]
    accepted_at: Mapped[datetime | None]


class Customer(Base):
    __tablename__ = "customers"
    id_prefix, resource_name = "cus", "customer"
    __table_args__ = (Index("ix_customers_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    type: Mapped[str] = mapped_column(String(20))  # INDIVIDUAL, BUSINESS
    status: Mapped[str] = mapped_column(String(20), index=True)
    status_reason: Mapped[str | None] = mapped_column(String(500))
    email: Mapped[str] = mapped_column(String(320))
    name: Mapped[str] = mapped_column(String(300))
    first_name: Mapped[str | None] = mapped_column(String(100))
    last_name: Mapped[str | None] = mapped_column(String(100))
    date_of_birth: Mapped[str | None] = mapped_column(String(10))
    phone: Mapped[str | None] = mapped_column(String(32))
    nationality: Mapped[str | None] = mapped_column(String(2))
    tax_identification_number: Mapped[str | None] = mapped_column(String(64))
    legal_name: Mapped[str | None] = mapped_column(String(300))
    dba_name: Mapped[str | None] = mapped_column(String(300))
    registration_number: Mapped[str | None] = mapped_column(String(100))
    incorporation_country: Mapped[str | None] = mapped_column(String(2))
    website: Mapped[str | None] = mapped_column(String(2048))
    address: Mapped[dict[str, Any] | None]
    # Saved individual or business verification answers, as last PUT.
    verification: Mapped[dict[str, Any]] = mapped_column(default=dict)
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    tos_acceptance_id: Mapped[str | None] = mapped_column(
        ForeignKey("tos_acceptances.id"), unique=True
    )
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None]
    archived_at: Mapped[datetime | None]


class AssociatedEntity(Base):
    """An owner, director, control person or signer of a business customer."""

    __tablename__ = "associated_entities"
    id_prefix, resource_name = "ae", "associated entity"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))  # INDIVIDUAL, BUSINESS
    roles: Mapped[list[Any]] = mapped_column(default=list)
    # Ownership in basis points (2500 = 25%); None when the entity owns nothing.
    ownership_basis_points: Mapped[int | None] = mapped_column(Integer)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    verification_status: Mapped[str] = mapped_column(String(20), default="NOT_STARTED")
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class VerificationSession(Base):
    """A hosted verification link for a customer or one of its associated entities."""

    __tablename__ = "verification_sessions"
    id_prefix, resource_name = "vs", "verification session"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    associated_entity_id: Mapped[str | None] = mapped_column(
        ForeignKey("associated_entities.id", ondelete="CASCADE")
    )
    status: Mapped[str] = mapped_column(String(20))  # CREATED, COMPLETED, EXPIRED
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class EnhancedDiligenceRfi(Base):
    """A request for information raised while a customer is under review."""

    __tablename__ = "enhanced_diligence_rfis"
    id_prefix, resource_name = "rfi", "request for information"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # PENDING, SUBMITTED, CLOSED
    steps: Mapped[list[Any]] = mapped_column(default=list)
    answers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None]
