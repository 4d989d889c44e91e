"""Wire shapes of documents and upload requests."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, StrictInt, StrictStr

from corridor.documents.rules import (
    ACCEPTED_CONTENT_TYPES,
    DocumentPurpose,
    DocumentStatus,
    document_bytes_max,
    file_name_chars_max,
)
from corridor.kit.schemas import RequestModel, ResponseModel, ShownOnce, SingleLineText, Timestamp
from corridor.models.document import Document

_DOCUMENT_ID = "doc_01jd3x0p6x9e3k2v1m8q4r7s5t"
_CUSTOMER_ID = "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"
Identifier = Annotated[StrictStr, Field(min_length=1, max_length=64)]


class UploadRequestCreate(RequestModel):
    """What the file will be. Send `customerId`, `transferId` (the customer is the
    transfer's), or both."""

    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "customerId": _CUSTOMER_ID,
                    "purpose": "proof_of_address",
                    "fileName": "utility-bill.pdf",
                    "contentType": "application/pdf",
                    "size": 48213,
                }
            ]
        }
    }

    customer_id: Identifier | None = Field(default=None, examples=[_CUSTOMER_ID])
    transfer_id: Identifier | None = Field(default=None, examples=[None])
    purpose: DocumentPurpose = Field(examples=[DocumentPurpose.PROOF_OF_ADDRESS])
    file_name: Annotated[SingleLineText, Field(min_length=1, max_length=file_name_chars_max)] = (
        Field(examples=["utility-bill.pdf"])
    )
    content_type: Annotated[StrictStr, Field(min_length=1, max_length=100)] = Field(
        description=f"One of {', '.join(ACCEPTED_CONTENT_TYPES)}; checked against the bytes",
        json_schema_extra={"enum": list(ACCEPTED_CONTENT_TYPES)},
        examples=["application/pdf"],
    )
    size: StrictInt = Field(
        ge=1,
        description=f"Exact size in bytes, at most {document_bytes_max} (25 MiB)",
        examples=[48213],
    )


class DocumentRead(ResponseModel):
    """A file of a customer (and maybe of one of its transfers)."""

    id: str = Field(examples=[_DOCUMENT_ID])
    organization_id: str
    customer_id: str = Field(examples=[_CUSTOMER_ID])
    transfer_id: str | None = Field(examples=[None])
    purpose: DocumentPurpose
    file_name: str = Field(examples=["utility-bill.pdf"])
    content_type: str = Field(examples=["application/pdf"])
    size: int = Field(description="Bytes", examples=[48213])
    status: DocumentStatus = Field(
        description="PENDING_UPLOAD until confirmed, then UPLOADED; ARCHIVED; REJECTED when "
        "the bytes that arrived were not those declared"
    )
    sha256: str | None = Field(description="Hex SHA-256 of the bytes, set when confirmed")
    rejection_reason: str | None = None
    upload_expires_at: Timestamp = Field(description="When the upload URL stops working")
    created_at: Timestamp
    updated_at: Timestamp
    uploaded_at: Timestamp | None = Field(description="When the upload was confirmed")
    archived_at: Timestamp | None

    @classmethod
    def of(cls, document: Document) -> DocumentRead:
        return cls(
            id=document.id,
            organization_id=document.organization_id,
            customer_id=document.customer_id,
            transfer_id=document.transfer_id,
            purpose=DocumentPurpose(document.purpose),
            file_name=document.file_name,
            content_type=document.content_type,
            size=document.size_bytes,
            status=DocumentStatus(document.status),
            sha256=document.sha256,
            rejection_reason=document.rejection_reason,
            upload_expires_at=document.upload_expires_at,
            created_at=document.created_at,
            updated_at=document.updated_at,
            uploaded_at=document.uploaded_at,
            archived_at=document.archived_at,
        )


class UploadRequestCreated(DocumentRead, ShownOnce):
    """The new document, and where to send its bytes: `PUT uploadUrl` with `uploadHeaders`
    and the file as the body, before `expiresAt`; then `POST /v1/documents/{id}/confirm`."""

    secret_fields = ("upload_url",)
    replay_note = (
        "The upload URL is a credential, shown once and never stored, so this replay cannot "
        "show it. Make a new upload request if it was lost."
    )

    upload_url: str | None = Field(
        description="Single-use, expiring; a Corridor URL (local storage) or a presigned S3 "
        "URL. null in an idempotent replay of this request (`secretNote` says why)."
    )
    upload_method: Literal["PUT"] = "PUT"
    upload_headers: dict[str, str] = Field(
        examples=[{"Content-Type": "application/pdf", "Content-Length": "48213"}]
    )
    expires_at: Timestamp

    @classmethod
    def made(
        cls, document: Document, *, url: str, headers: dict[str, str], expires_at: datetime
    ) -> UploadRequestCreated:
        return cls(
            **DocumentRead.of(document).model_dump(),
            upload_url=url,
            upload_headers=headers,
            expires_at=expires_at,
        )
