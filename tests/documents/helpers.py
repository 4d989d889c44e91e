"""Documents through the public API: upload requests, the signed PUT, confirmation."""

from __future__ import annotations

from typing import Any

import httpx

from tests.documents import files


async def request_upload(
    client: httpx.AsyncClient, content: bytes, *, expect: int = 201, **fields: Any
) -> dict:
    """POST /v1/documents/upload-requests for `content` (a PDF unless told otherwise)."""
    body: dict[str, Any] = {
        "purpose": "proof_of_address",
        "fileName": "utility-bill.pdf",
        "contentType": "application/pdf",
        "size": len(content),
        **fields,
    }
    response = await client.post("/v1/documents/upload-requests", json=body)
    assert response.status_code == expect, response.text
    return response.json()


async def put_file(
    client: httpx.AsyncClient,
    created: dict,
    content: bytes,
    *,
    url: str | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """PUT the bytes to the upload URL as a client would: the headers the answer named, no
    API key."""
    sent = dict(created["uploadHeaders"]) if headers is None else dict(headers)
    sent.pop("Content-Length", None)  # httpx sets it from the body
    request = client.build_request(
        "PUT", url or created["uploadUrl"], content=content, headers=sent
    )
    request.headers.pop("Authorization", None)
    return await client.send(request)


async def confirmed_document(
    client: httpx.AsyncClient, customer_id: str, content: bytes | None = None, **fields: Any
) -> dict:
    """A document of the customer, uploaded and confirmed (UPLOADED)."""
    content = content if content is not None else files.pdf()
    created = await request_upload(client, content, customerId=customer_id, **fields)
    uploaded = await put_file(client, created, content)
    assert uploaded.status_code == 204, uploaded.text
    confirmed = await client.post(f"/v1/documents/{created['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    return confirmed.json()
