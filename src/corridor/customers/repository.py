"""Queries of customers and their onboarding rows, always filtered to what the caller may see."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.models.customer import (
    AssociatedEntity,
    Customer,
    EnhancedDiligenceRfi,
    TermsOfServiceAcceptance,
    VerificationSession,
)
from corridor.models.ledger import LedgerAccount

CUSTOMER_BALANCE = "CUSTOMER_BALANCE"


def visible_customers(caller: Caller) -> Select[Customer]:
    """The customers this caller may see: its organization's, or only the one it is bound to."""
    statement = select(Customer).where(Customer.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Customer.id == caller.customer_id)
    return statement


async def names_of(
    session: AsyncSession, caller: Caller, customer_ids: Sequence[str]
) -> dict[str, str]:
    statement = visible_customers(caller).with_only_columns(Customer.id, Customer.name)
    rows = await session.execute(statement.where(Customer.id.in_(sorted(set(customer_ids)))))
    return {customer_id: name for customer_id, name in rows}


def _like_pattern(text: str) -> str:
    """`text` anywhere, its LIKE wildcards taken literally (escape character `\\`)."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def filtered_customers(
    caller: Caller,
    *,
    status: str | None,
    type_: str | None,
    email: str | None,
    search: str | None = None,
) -> Select[Customer]:
    statement = visible_customers(caller)
    if search is not None:
        pattern = _like_pattern(search)
        statement = statement.where(
            or_(
                func.lower(Customer.name).like(pattern, escape="\\"),
                func.lower(Customer.email).like(pattern, escape="\\"),
            )
        )
    if status is not None:
        statement = statement.where(Customer.status == status)
    if type_ is not None:
        statement = statement.where(Customer.type == type_)
    if email is not None:
        statement = statement.where(func.lower(Customer.email) == email.lower())
    return statement


async def customer_id_using_terms(session: AsyncSession, acceptance_id: str) -> str | None:
    statement = select(Customer.id).where(Customer.tos_acceptance_id == acceptance_id)
    return (await session.execute(statement)).scalar_one_or_none()


def terms_of_service_acceptances(organization_id: str) -> Select[TermsOfServiceAcceptance]:
    return select(TermsOfServiceAcceptance).where(
        TermsOfServiceAcceptance.organization_id == organization_id
    )


async def terms_of_service_acceptance(
    session: AsyncSession, organization_id: str, acceptance_id: str, *, for_update: bool = False
) -> TermsOfServiceAcceptance | None:
    statement = terms_of_service_acceptances(organization_id).where(
        TermsOfServiceAcceptance.id == acceptance_id
    )
    if for_update:
        statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


async def balance_accounts(session: AsyncSession, customer: Customer) -> Sequence[LedgerAccount]:
    statement = (
        select(LedgerAccount)
        .where(
            LedgerAccount.organization_id == customer.organization_id,
            LedgerAccount.customer_id == customer.id,
            LedgerAccount.kind == CUSTOMER_BALANCE,
        )
        .order_by(LedgerAccount.id)
    )
    return list((await session.execute(statement)).scalars())


async def associated_entities(
    session: AsyncSession, customer: Customer
) -> Sequence[AssociatedEntity]:
    statement = (
        select(AssociatedEntity)
        .where(
            AssociatedEntity.organization_id == customer.organization_id,
            AssociatedEntity.customer_id == customer.id,
        )
        .order_by(AssociatedEntity.id)
    )
    return list((await session.execute(statement)).scalars())


def entities_of(customer: Customer) -> Select[AssociatedEntity]:
    return select(AssociatedEntity).where(
        AssociatedEntity.organization_id == customer.organization_id,
        AssociatedEntity.customer_id == customer.id,
    )


async def delete_associated_entity(session: AsyncSession, entity: AssociatedEntity) -> None:
    # Its verification links go with it; deleted explicitly so no backend relies on cascades.
    await session.execute(
        delete(VerificationSession).where(VerificationSession.associated_entity_id == entity.id)
    )
    await session.delete(entity)
    await session.flush()


async def pending_rfi(
    session: AsyncSession, customer: Customer, *, for_update: bool = False
) -> EnhancedDiligenceRfi | None:
    statement = (
        select(EnhancedDiligenceRfi)
        .where(
            EnhancedDiligenceRfi.organization_id == customer.organization_id,
            EnhancedDiligenceRfi.customer_id == customer.id,
            EnhancedDiligenceRfi.status == "PENDING",
        )
        .order_by(EnhancedDiligenceRfi.id.desc())
        .limit(1)
    )
    if for_update:
        statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def visible_verification_sessions(caller: Caller) -> Select[VerificationSession]:
    statement = select(VerificationSession).where(
        VerificationSession.organization_id == caller.organization_id
    )
    if caller.customer_id is not None:
        statement = statement.where(VerificationSession.customer_id == caller.customer_id)
    return statement


async def latest_verification_session(
    session: AsyncSession, customer: Customer
) -> VerificationSession | None:
    statement = (
        select(VerificationSession)
        .where(
            VerificationSession.organization_id == customer.organization_id,
            VerificationSession.customer_id == customer.id,
            VerificationSession.associated_entity_id.is_(None),
        )
        .order_by(VerificationSession.id.desc())
        .limit(1)
    )
    return (await session.execute(statement)).scalar_one_or_none()
