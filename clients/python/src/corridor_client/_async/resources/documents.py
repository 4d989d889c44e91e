"""Documents: upload requests, confirmation, reading, listing and archiving.

The file's bytes do not go through this client: `PUT` them to the `upload_url` of the
upload request with its `upload_headers` (any HTTP client; no API key), then `confirm`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource
from corridor_client.models import (
    DocumentPurpose,
    DocumentRead,
    DocumentStatus,
    UploadRequestCreate,
    UploadRequestCreated,
)


class AsyncDocuments(AsyncResource):
    async def create_upload_request(
        self,
        params: UploadRequestCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> UploadRequestCreated:
        """A PENDING_UPLOAD document and its single-use upload URL (15 minutes)."""
        body = _calls.body(UploadRequestCreate, params, fields)
        call = _calls.create("/v1/documents/upload-requests", body, idempotency_key)
        return await self._send(call, UploadRequestCreated)

    async def confirm(
        self, document_id: str, *, idempotency_key: str | None = None
    ) -> DocumentRead:
        """Checks the uploaded bytes (size, type) and records their SHA-256: UPLOADED."""
        path = _calls.path("/v1/documents/{}/confirm", document_id)
        return await self._send(_calls.action(path, None, idempotency_key), DocumentRead)

    async def retrieve(self, document_id: str) -> DocumentRead:
        path = _calls.path("/v1/documents/{}", document_id)
        return await self._send(_calls.read(path), DocumentRead)

    def list(
        self,
        *,
        customer_id: str | None = None,
        transfer_id: str | None = None,
        purpose: DocumentPurpose | str | None = None,
        status: DocumentStatus | str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[DocumentRead]:
        return self._list(
            "/v1/documents",
            DocumentRead,
            customerId=customer_id,
            transferId=transfer_id,
            purpose=purpose,
            status=status,
            limit=limit,
        )

    async def archive(
        self, document_id: str, *, idempotency_key: str | None = None
    ) -> DocumentRead:
        path = _calls.path("/v1/documents/{}/archive", document_id)
        return await self._send(_calls.action(path, None, idempotency_key), DocumentRead)
