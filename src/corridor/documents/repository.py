"""Queries for documents: what a caller may see, filters, and the rows an upload needs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import for_update
from corridor.models.customer import Customer
from corridor.models.document import Document
from corridor.models.transfer import Transfer


@dataclass(frozen=True, slots=True)
class DocumentFilters:
    customer_id: str | None = None
    transfer_id: str | None = None
    purpose: str | None = None
    status: str | None = None


def visible_documents(caller: Caller) -> Select[Document]:
    statement = select(Document).where(Document.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Document.customer_id == caller.customer_id)
    return statement


def filtered_documents(caller: Caller, filters: DocumentFilters) -> Select[Document]:
    statement = visible_documents(caller)
    if filters.customer_id is not None:
        statement = statement.where(Document.customer_id == filters.customer_id)
    if filters.transfer_id is not None:
        statement = statement.where(Document.transfer_id == filters.transfer_id)
    if filters.purpose is not None:
        statement = statement.where(Document.purpose == filters.purpose)
    if filters.status is not None:
        statement = statement.where(Document.status == filters.status)
    return statement


def documents_of_transfer(
    caller: Caller, *, transfer_id: str, attached_ids: Sequence[str]
) -> Select[Document]:
    """Uploaded for the transfer, or attached to it with `documentIds`."""
    statement = visible_documents(caller)
    condition = Document.transfer_id == transfer_id
    if attached_ids:
        condition = or_(condition, Document.id.in_(sorted(attached_ids)))
    return statement.where(condition)


def visible_customers(caller: Caller) -> Select[Customer]:
    statement = select(Customer).where(Customer.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Customer.id == caller.customer_id)
    return statement


def visible_transfers(caller: Caller) -> Select[Transfer]:
    statement = select(Transfer).where(Transfer.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Transfer.customer_id == caller.customer_id)
    return statement


async def documents_by_id(
    session: AsyncSession, caller: Caller, document_ids: Sequence[str]
) -> dict[str, Document]:
    if not document_ids:
        return {}
    statement = visible_documents(caller).where(Document.id.in_(sorted(set(document_ids))))
    return {document.id: document for document in (await session.execute(statement)).scalars()}


async def document_for_upload(session: AsyncSession, document_id: str) -> Document | None:
    """Any organization's document, locked: the upload URL's signature is the credential."""
    statement = select(Document).where(Document.id == document_id)
    return (await session.execute(for_update(session, statement))).scalar_one_or_none()


async def release_upload_claim(
    session: AsyncSession, document_id: str, claimed_at: datetime
) -> None:
    """Drop an upload's claim on the document, if it is still the claim made at `claimed_at`."""
    await session.execute(
        update(Document)
        .where(Document.id == document_id, Document.upload_started_at == claimed_at)
        .values(upload_started_at=None)
    )
