"""Documents: upload requests, Corridor's own signed uploads, confirmation, reading,
archiving, and the checks transfers use before attaching documents."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.documents import repository, rules
from corridor.documents.errors import (
    DocumentRejected,
    DocumentTooLarge,
    UnsupportedContentType,
    UploadRefused,
    UploadSignatureInvalid,
    UploadUrlExpired,
    UploadUrlUsed,
)
from corridor.documents.repository import DocumentFilters
from corridor.documents.rules import DocumentStatus
from corridor.documents.schemas import DocumentRead, UploadRequestCreate
from corridor.documents.storage import (
    DocumentStorage,
    UploadTarget,
    expiry,
    storage_key,
    upload_key,
)
from corridor.kit.clock import Clock
from corridor.kit.db import Database, get_visible
from corridor.kit.errors import InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.document import Document
from corridor.models.event import emit

READ_SCOPE = Scope.DOCUMENTS_READ
WRITE_SCOPE = Scope.DOCUMENTS_WRITE
ARCHIVED_CUSTOMER = "ARCHIVED"


def _event(session: AsyncSession, event_type: str, document: Document, now: datetime) -> None:
    emit(
        session,
        organization_id=document.organization_id,
        event_type=event_type,
        data=DocumentRead.of(document).to_json_dict(),
        tags=[document.id, document.customer_id, document.transfer_id or ""],
        at=now,
    )


def _base_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


# --- Upload requests ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UploadRequested:
    document: Document
    target: UploadTarget


async def request_upload(
    session: AsyncSession,
    *,
    caller: Caller,
    data: UploadRequestCreate,
    storage: DocumentStorage,
    base_url: str,
    now: datetime,
    verification_session_id: str | None = None,
) -> UploadRequested:
    """A PENDING_UPLOAD document and the signed URL its bytes go to (15 minutes).
    `verification_session_id`: uploaded through that session's hosted page."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    content_type = _base_type(data.content_type)
    if content_type not in rules.ACCEPTED_CONTENT_TYPES:
        raise UnsupportedContentType("contentType", data.content_type, rules.ACCEPTED_CONTENT_TYPES)
    if data.size > rules.document_bytes_max:
        raise DocumentTooLarge(rules.document_bytes_max)
    problem = rules.file_name_problem(data.file_name)
    if problem is not None:
        raise ValidationFailed("fileName", problem)
    customer_id, transfer_id = await _owner(session, caller, data)
    document_id = new_id("doc")
    document = Document(
        id=document_id,
        organization_id=caller.organization_id,
        customer_id=customer_id,
        transfer_id=transfer_id,
        verification_session_id=verification_session_id,
        purpose=data.purpose.value,
        file_name=data.file_name,
        content_type=content_type,
        size_bytes=data.size,
        status=DocumentStatus.PENDING_UPLOAD.value,
        upload_key=upload_key(caller.organization_id, document_id),
        storage_key=storage_key(caller.organization_id, document_id),
        upload_expires_at=expiry(now),
        created_by=caller.actor_id,
        created_at=now,
        updated_at=now,
    )
    session.add(document)
    await session.flush()
    target = await storage.upload_target(
        document_id=document.id,
        key=document.upload_key,
        content_type=content_type,
        size_bytes=document.size_bytes,
        base_url=base_url,
        now=now,
        expires_at=document.upload_expires_at,
    )
    _event(session, "document.created", document, now)
    return UploadRequested(document, target)


async def _owner(
    session: AsyncSession, caller: Caller, data: UploadRequestCreate
) -> tuple[str, str | None]:
    """The customer (and transfer) the document belongs to; 404 for ids not the caller's."""
    transfer_id = None
    customer_id = data.customer_id
    if data.transfer_id is not None:
        transfer = await get_visible(
            session, repository.visible_transfers(caller), data.transfer_id
        )
        if customer_id is not None and customer_id != transfer.customer_id:
            raise ValidationFailed("customerId", "must be the transfer's customer (or left out)")
        customer_id, transfer_id = transfer.customer_id, transfer.id
    if customer_id is None:
        raise ValidationFailed("customerId", "send customerId, transferId, or both")
    customer = await get_visible(session, repository.visible_customers(caller), customer_id)
    if customer.status == ARCHIVED_CUSTOMER:
        raise InvalidState(
            f"Customer {customer.id} is ARCHIVED; it takes no new documents",
            current_status=customer.status,
        )
    return customer.id, transfer_id


# --- Corridor's own signed upload ---------------------------------------------------------


async def receive_upload(
    database: Database,
    *,
    storage: DocumentStorage,
    clock: Clock,
    document_id: str,
    expires_unix: int,
    signature: str,
    content_type: str | None,
    content_length: int | None,
    body: AsyncIterable[bytes],
) -> Document:
    """The PUT of an upload URL: signature, expiry, single use, declared type and size.

    Its own short transactions around the transfer of bytes, so a slow client never holds
    a database lock: claim the URL, store the bytes (whole or not at all), mark it used. An
    upload refused or broken off releases the claim, so the URL may be tried again until it
    expires; only a complete upload uses it up.
    """
    if not looks_like_id(document_id, "doc") or not storage.signature_matches(
        document_id, expires_unix, signature
    ):
        raise UploadSignatureInvalid()
    claimed_at = clock.now()
    if claimed_at.timestamp() >= expires_unix:
        raise UploadUrlExpired()
    async with database.session() as session, session.begin():
        document = await repository.document_for_upload(session, document_id)
        if document is None:
            raise NotFound("document", document_id)
        _check_unused(document, claimed_at)
        _check_declared(document, content_type, content_length)
        document.upload_started_at = claimed_at
    try:
        await storage.write(document.upload_key, _checked(body, document))
    except BaseException:
        await _release_claim(database, document_id, claimed_at)
        raise
    async with database.session() as session, session.begin():
        found = await repository.document_for_upload(session, document_id)
        assert found is not None
        found.upload_received_at = clock.now()
        found.updated_at = found.upload_received_at
        return found


def _check_unused(document: Document, now: datetime) -> None:
    if document.upload_received_at is not None or document.status != DocumentStatus.PENDING_UPLOAD:
        raise UploadUrlUsed("This upload URL has been used; create a new upload request")
    if document.upload_started_at is not None:
        raise UploadUrlUsed("An upload to this URL is in progress")


def _check_declared(document: Document, content_type: str | None, length: int | None) -> None:
    if content_type is None or _base_type(content_type) != document.content_type:
        raise UploadRefused(
            "Content-Type", f"must be {document.content_type}, as declared in the upload request"
        )
    if length is not None and length > document.size_bytes:
        raise DocumentTooLarge(document.size_bytes)
    if length is not None and length != document.size_bytes:
        raise UploadRefused(
            "Content-Length", f"must be {document.size_bytes}, as declared in the upload request"
        )


async def _checked(body: AsyncIterable[bytes], document: Document) -> AsyncIterator[bytes]:
    """The body, refused as soon as it outgrows the declared size or its first bytes are
    not the declared type."""
    received = 0
    head = b""
    async for chunk in body:
        if not chunk:
            continue
        received += len(chunk)
        if received > document.size_bytes:
            raise DocumentTooLarge(document.size_bytes)
        if len(head) < rules.sniff_bytes:
            head += chunk[: rules.sniff_bytes - len(head)]
            if len(head) >= rules.sniff_bytes:
                _check_type(head, document)
        yield chunk
    if received != document.size_bytes:
        raise UploadRefused(
            "body", f"{received} bytes arrived; the upload request declared {document.size_bytes}"
        )
    if len(head) < rules.sniff_bytes:
        _check_type(head, document)


def _check_type(head: bytes, document: Document) -> None:
    found = rules.sniffed_content_type(head)
    if found != document.content_type:
        raise UploadRefused("body", _type_mismatch(found, document.content_type))


def _type_mismatch(found: str | None, declared: str) -> str:
    what = f"are {found}" if found else "are not a recognised file type"
    return f"the bytes {what}, not {declared} as declared"


async def _release_claim(database: Database, document_id: str, claimed_at: datetime) -> None:
    async with database.session() as session, session.begin():
        await repository.release_upload_claim(session, document_id, claimed_at)


# --- Confirm, read, list, archive ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Rejected:
    """Confirm found the bytes are not those declared: the document is now REJECTED (a
    change to keep), and the client is told why."""

    document: Document
    error: DocumentRejected


async def confirm_document(
    session: AsyncSession,
    *,
    caller: Caller,
    storage: DocumentStorage,
    document_id: str,
    now: datetime,
) -> Document | Rejected:
    """The object exists, its size and sniffed type match, its SHA-256 is recorded:
    UPLOADED, with `document.confirmed`."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    document = await get_visible(
        session, repository.visible_documents(caller), document_id, locked=True
    )
    if document.status != DocumentStatus.PENDING_UPLOAD:
        raise InvalidState(
            f"Document {document.id} is {document.status}; only PENDING_UPLOAD is confirmed",
            current_status=document.status,
        )
    if not await _settle_object(storage, document):
        raise InvalidState(
            f"Nothing has been uploaded for document {document.id} yet: PUT the file to its "
            "uploadUrl first",
            current_status=document.status,
        )
    reason = await _problem_with(storage, document)
    if reason is not None:
        await storage.delete(document.storage_key)
        await storage.delete(document.upload_key)
        document.status = DocumentStatus.REJECTED.value
        document.rejection_reason = reason
        document.updated_at = now
        _event(session, "document.rejected", document, now)
        return Rejected(document, DocumentRejected(document.id, reason))
    document.sha256 = await storage.sha256(document.storage_key)
    document.status = DocumentStatus.UPLOADED.value
    document.uploaded_at = now
    document.updated_at = now
    await storage.delete(document.upload_key)
    _event(session, "document.confirmed", document, now)
    return document


async def _settle_object(storage: DocumentStorage, document: Document) -> bool:
    """Copy the upload to the document's own key; False when nothing was uploaded. A confirm
    that copied but did not commit has left the copy in place already."""
    if storage.serves_uploads and document.upload_received_at is None:
        return False
    if await storage.size_of(document.upload_key) is not None:
        await storage.copy(document.upload_key, document.storage_key)
        return True
    return await storage.size_of(document.storage_key) is not None


async def _problem_with(storage: DocumentStorage, document: Document) -> str | None:
    size = await storage.size_of(document.storage_key)
    if size != document.size_bytes:
        return f"{size} bytes were uploaded; the upload request declared {document.size_bytes}"
    found = rules.sniffed_content_type(
        await storage.head_bytes(document.storage_key, rules.sniff_bytes)
    )
    if found != document.content_type:
        return _type_mismatch(found, document.content_type)
    return None


async def read_document(session: AsyncSession, *, caller: Caller, document_id: str) -> Document:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    return await get_visible(session, repository.visible_documents(caller), document_id)


async def list_documents(
    session: AsyncSession, *, caller: Caller, filters: DocumentFilters, page: PageRequest
) -> Page[Document]:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    _check_filter_id("customerId", filters.customer_id, "cus")
    _check_filter_id("transferId", filters.transfer_id, "tfr")
    statement = repository.filtered_documents(caller, filters)
    return await fetch_page(session, statement, Document.id, page)


def _check_filter_id(field: str, value: str | None, prefix: str) -> None:
    if value is not None and not looks_like_id(value, prefix):
        raise ValidationFailed(field, f"must be an id ({prefix}_…)")


async def archive_document(
    session: AsyncSession, *, caller: Caller, document_id: str, now: datetime
) -> Document:
    """Final: an archived document cannot be attached to a transfer; its bytes are kept."""
    caller.require_scope(WRITE_SCOPE)
    caller.require_customer_binding()
    document = await get_visible(
        session, repository.visible_documents(caller), document_id, locked=True
    )
    if document.status == DocumentStatus.ARCHIVED:
        raise InvalidState(
            f"Document {document.id} is already ARCHIVED", current_status=document.status
        )
    document.status = DocumentStatus.ARCHIVED.value
    document.archived_at = now
    document.updated_at = now
    _event(session, "document.archived", document, now)
    return document


# --- What transfers ask -------------------------------------------------------------------


async def attachable(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    transfer_id: str | None,
    document_ids: Sequence[str],
) -> list[str]:
    """`documentIds` of a transfer: confirmed documents of its organization and customer
    (and not uploaded for another transfer), in the order sent, without repeats."""
    wanted = list(dict.fromkeys(document_ids))
    found = await repository.documents_by_id(session, caller, wanted)
    for index, document_id in enumerate(document_ids):
        field = f"documentIds.{index}"
        document = found.get(document_id)
        if document is None:
            raise ValidationFailed(field, f"no document {document_id!r}")
        if document.customer_id != customer_id:
            raise ValidationFailed(field, "must be a document of the transfer's customer")
        if document.status != DocumentStatus.UPLOADED:
            raise ValidationFailed(
                field, f"is {document.status}; only confirmed (UPLOADED) documents attach"
            )
        if document.transfer_id is not None and document.transfer_id != transfer_id:
            raise ValidationFailed(field, f"belongs to transfer {document.transfer_id}")
    return wanted


async def documents_of_transfer(
    session: AsyncSession,
    *,
    caller: Caller,
    transfer_id: str,
    attached_ids: Sequence[str],
    page: PageRequest,
) -> Page[Document]:
    """Documents uploaded for the transfer or attached to it; the transfer is the caller's."""
    statement = repository.documents_of_transfer(
        caller, transfer_id=transfer_id, attached_ids=attached_ids
    )
    return await fetch_page(session, statement, Document.id, page)
