"""Queries of the hosted verification page: the session its link names, and what belongs
to it."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import for_update
from corridor.models.customer import AssociatedEntity, Customer, VerificationSession
from corridor.models.document import Document
from corridor.models.organization import Organization


async def verification_session(
    session: AsyncSession, session_id: str, *, locked: bool = False
) -> VerificationSession | None:
    statement = select(VerificationSession).where(VerificationSession.id == session_id)
    if locked:
        statement = for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


async def subject(
    session: AsyncSession, verification_session: VerificationSession
) -> tuple[Organization, Customer, AssociatedEntity | None]:
    organization = await session.get(Organization, verification_session.organization_id)
    customer = await session.get(Customer, verification_session.customer_id)
    entity = (
        await session.get(AssociatedEntity, verification_session.associated_entity_id)
        if verification_session.associated_entity_id
        else None
    )
    assert organization is not None and customer is not None
    return organization, customer, entity


async def documents_of_session(session: AsyncSession, session_id: str) -> list[Document]:
    statement = (
        select(Document).where(Document.verification_session_id == session_id).order_by(Document.id)
    )
    return list((await session.execute(statement)).scalars())
