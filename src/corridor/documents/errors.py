"""The documents domain's errors (docs/decisions.md "Documents")."""

from __future__ import annotations

from corridor.kit.errors import CorridorError, PayloadTooLarge, ValidationFailed


class DocumentTooLarge(PayloadTooLarge):
    def __init__(self, limit_bytes: int) -> None:
        super().__init__(
            f"A document may be at most {limit_bytes // (1024 * 1024)} MiB ({limit_bytes} bytes)",
            errors=[{"field": "size", "message": f"at most {limit_bytes} bytes"}],
        )


class UnsupportedContentType(ValidationFailed):
    def __init__(self, field: str, content_type: str, accepted: tuple[str, ...]) -> None:
        super().__init__(
            field, f"{content_type!r} is not accepted; send one of {', '.join(accepted)}"
        )


class UploadSignatureInvalid(CorridorError):
    """The URL was not made by this server, or was changed after it was signed."""

    status, code = 403, "invalid_signature"

    def __init__(self) -> None:
        super().__init__(
            "The upload URL's signature does not match; use the uploadUrl exactly as returned"
        )


class UploadUrlExpired(CorridorError):
    status, code = 403, "upload_url_expired"

    def __init__(self) -> None:
        super().__init__(
            "This upload URL has expired; create a new upload request "
            "(POST /v1/documents/upload-requests)"
        )


class UploadUrlUsed(CorridorError):
    status, code = 409, "upload_url_used"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class UploadRefused(CorridorError):
    """The bytes sent are not what the upload request declared; nothing was stored."""

    status, code = 422, "validation_error"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", errors=[{"field": field, "message": message}])


class DocumentRejected(CorridorError):
    """Confirm found the stored object is not what was declared: the document is REJECTED."""

    status, code = 422, "document_rejected"

    def __init__(self, document_id: str, reason: str) -> None:
        super().__init__(
            f"Document {document_id} was rejected: {reason}. Create a new upload request.",
            extra={"documentId": document_id, "reason": reason},
        )
