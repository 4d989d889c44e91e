"""HTTP endpoints of documents: upload requests, the signed upload itself, confirm, get,
list and archive."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from corridor.documents import service
from corridor.documents.repository import DocumentFilters
from corridor.documents.rules import DocumentPurpose, DocumentStatus
from corridor.documents.schemas import DocumentRead, UploadRequestCreate, UploadRequestCreated
from corridor.documents.storage import DocumentStorage
from corridor.kit.errors import ValidationFailed
from corridor.kit.ids import id_pattern
from corridor.kit.pagination import ListResponse
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import Pages

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
uploads_router = APIRouter(responses=ERROR_RESPONSES)

TAGS: list[str | Enum] = ["Documents"]
id_chars_max = 64
signature_chars_max = 128


def document_storage(request: Request) -> DocumentStorage:
    storage: DocumentStorage = request.app.state.document_storage
    return storage


Storage = Annotated[DocumentStorage, Depends(document_storage)]


def _base_url(context: Context) -> str:
    return context.settings.public_base_url or str(context.request.base_url)


@router.post(
    "/documents/upload-requests",
    status_code=201,
    response_model=UploadRequestCreated,
    tags=TAGS,
    summary="Request a document upload",
)
async def create_upload_request(
    body: UploadRequestCreate, context: Context, storage: Storage
) -> Response:
    """Creates the document (`PENDING_UPLOAD`) and answers where to send the file: `PUT
    uploadUrl` with `uploadHeaders` and the file as the body, within 15 minutes (`expiresAt`),
    then `POST /v1/documents/{id}/confirm`. Types: PDF, JPEG, PNG, WebP, HEIC, TIFF; at most
    25 MiB (413 `payload_too_large` beyond).

    With local storage (the default) the upload URL is Corridor's own: no API key, the URL's
    signature is the credential; it works once, for 15 minutes, for exactly the declared
    `Content-Type` and size. Its refusals: 403 `invalid_signature` (the URL was changed),
    403 `upload_url_expired`, 409 `upload_url_used`, 413 `payload_too_large` (more bytes than
    declared), 422 `validation_error` (another type or size than declared; nothing is kept
    and the URL may be used again). It answers 204. With S3 storage it is a presigned S3
    URL."""
    requested = await service.request_upload(
        context.session,
        caller=context.caller,
        data=body,
        storage=storage,
        base_url=_base_url(context),
        now=context.now(),
    )
    created = UploadRequestCreated.made(
        requested.document,
        url=requested.target.url,
        headers=requested.target.headers,
        expires_at=requested.document.upload_expires_at,
    )
    return await context.respond(created, status=201)


# Not in the OpenAPI document: clients never build this URL, they use `uploadUrl` as given
# (which is S3's own when documents are stored there). Described under upload requests.
@uploads_router.put("/uploads/{document_id}", status_code=204, include_in_schema=False)
async def upload(
    document_id: str,
    request: Request,
    storage: Storage,
    expires: Annotated[int, Query(description="Part of the signed URL")],
    signature: Annotated[str, Query(max_length=signature_chars_max)],
) -> Response:
    """The `uploadUrl` of an upload request when documents are stored by Corridor itself: no
    API key, the signature is the credential. Send the declared `Content-Type` and exactly
    the declared number of bytes. Answers 204; the document stays `PENDING_UPLOAD` until
    confirmed."""
    length = request.headers.get("content-length")
    if length is not None and not length.isdigit():
        raise ValidationFailed("Content-Length", "must be a number of bytes")
    state = request.app.state
    await service.receive_upload(
        state.database,
        storage=storage,
        clock=state.clock,
        document_id=document_id,
        expires_unix=expires,
        signature=signature,
        content_type=request.headers.get("content-type"),
        content_length=int(length) if length is not None else None,
        body=request.stream(),
    )
    return Response(status_code=204)


@router.post(
    "/documents/{document_id}/confirm",
    response_model=DocumentRead,
    tags=TAGS,
    summary="Confirm a document's upload",
    responses={
        422: {"description": "`document_rejected`: the stored bytes are not those declared"}
    },
)
async def confirm_document(document_id: str, context: Context, storage: Storage) -> Response:
    """Checks the file arrived, its size is the declared size and its bytes are the declared
    type, records its SHA-256 and moves the document to `UPLOADED` (`document.confirmed`).
    Before any upload: 409 `invalid_state`. Bytes not as declared: 422 `document_rejected`,
    and the document is `REJECTED`."""
    confirmed = await service.confirm_document(
        context.session,
        caller=context.caller,
        storage=storage,
        document_id=document_id,
        now=context.now(),
    )
    if isinstance(confirmed, service.Rejected):
        return await context.refuse(confirmed.error)
    return await context.respond(DocumentRead.of(confirmed))


@router.get(
    "/documents/{document_id}", response_model=DocumentRead, tags=TAGS, summary="Get a document"
)
async def get_document(document_id: str, context: Context) -> DocumentRead:
    """A document of the organization: what it is, whose, its status (PENDING_UPLOAD,
    UPLOADED, REJECTED, ARCHIVED) and, once confirmed, its size and SHA-256."""
    document = await service.read_document(
        context.session, caller=context.caller, document_id=document_id
    )
    return DocumentRead.of(document)


@router.get(
    "/documents",
    response_model=ListResponse[DocumentRead],
    tags=TAGS,
    summary="List documents",
)
async def list_documents(
    context: Context,
    page: Pages,
    customer_id: Annotated[
        str | None,
        Query(
            alias="customerId",
            json_schema_extra={"pattern": id_pattern("cus")},
            max_length=id_chars_max,
        ),
    ] = None,
    transfer_id: Annotated[
        str | None,
        Query(
            alias="transferId",
            json_schema_extra={"pattern": id_pattern("tfr")},
            max_length=id_chars_max,
        ),
    ] = None,
    purpose: DocumentPurpose | None = None,
    status: DocumentStatus | None = None,
) -> ListResponse[DocumentRead]:
    """Newest first. `transferId` matches documents uploaded for that transfer."""
    found = await service.list_documents(
        context.session,
        caller=context.caller,
        filters=DocumentFilters(
            customer_id=customer_id,
            transfer_id=transfer_id,
            purpose=purpose.value if purpose else None,
            status=status.value if status else None,
        ),
        page=page,
    )
    return ListResponse[DocumentRead].of(found, DocumentRead.of)


@router.post(
    "/documents/{document_id}/archive",
    response_model=DocumentRead,
    tags=TAGS,
    summary="Archive a document",
)
async def archive_document(document_id: str, context: Context) -> Response:
    """Final; an archived document can no longer be attached to a transfer."""
    document = await service.archive_document(
        context.session, caller=context.caller, document_id=document_id, now=context.now()
    )
    return await context.respond(DocumentRead.of(document))
