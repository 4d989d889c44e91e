"""Documents on S3-compatible storage: a real presigned PUT to a local S3 server (moto's
server mode, started here), then confirm reads the object back from it."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from fastapi import FastAPI

from corridor.config import Environment
from tests.conftest import Tenant, assert_error, built_app
from tests.documents import files
from tests.documents.helpers import request_upload
from tests.live_server import free_port
from tests.support import create_individual

server_start_s_max = 60
BUCKET = "corridor-documents"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's S3 server on a free port, with an empty bucket."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + server_start_s_max
    try:
        while True:
            try:
                httpx.get(endpoint, timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, "moto server exited"
                assert time.monotonic() < deadline, "moto server did not start"
                time.sleep(0.2)
        assert httpx.put(f"{endpoint}/{BUCKET}").status_code == 200
        yield endpoint
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
async def s3_app(database_url, s3_endpoint) -> AsyncIterator[FastAPI]:
    async with built_app(
        database_url,
        Environment.SANDBOX,
        documents_s3_bucket=BUCKET,
        documents_s3_endpoint=s3_endpoint,
        documents_s3_access_key_id="testing",
        documents_s3_secret_access_key="testing",
    ) as application:
        yield application


@pytest.fixture
async def s3_tenant(s3_app, make_tenant) -> Tenant:
    return await make_tenant(s3_app)


def _objects(endpoint: str, prefix: str) -> list[str]:
    listing = httpx.get(f"{endpoint}/{BUCKET}", params={"list-type": "2", "prefix": prefix})
    return [part.split("</Key>")[0] for part in listing.text.split("<Key>")[1:] if "</Key>" in part]


async def test_a_presigned_upload_to_s3_is_confirmed(s3_app, s3_tenant, s3_endpoint):
    customer = await create_individual(s3_tenant.client)
    content = files.pdf("Bank statement")
    created = await request_upload(
        s3_tenant.client, content, customerId=customer["id"], purpose="bank_statement"
    )
    url = created["uploadUrl"]
    assert url.startswith(f"{s3_endpoint}/{BUCKET}/uploads/{s3_tenant.organization_id}/")
    assert "X-Amz-Signature=" in url and "X-Amz-Expires=900" in url

    before = await s3_tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert_error(before, 409, "invalid_state")

    async with httpx.AsyncClient() as outside:
        uploaded = await outside.put(
            url, content=content, headers={"Content-Type": created["uploadHeaders"]["Content-Type"]}
        )
    assert uploaded.status_code == 200, uploaded.text

    confirmed = await s3_tenant.client.post(f"/v1/documents/{created['id']}/confirm")
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["status"] == "UPLOADED"
    assert confirmed.json()["sha256"] == hashlib.sha256(content).hexdigest()
    kept = f"documents/{s3_tenant.organization_id}/{created['id']}"
    assert _objects(s3_endpoint, kept) == [kept]
    assert _objects(s3_endpoint, f"uploads/{s3_tenant.organization_id}/{created['id']}") == []
    assert await s3_app.state.document_storage.read(kept) == content


async def test_s3_bytes_other_than_declared_reject_the_document(s3_tenant, s3_endpoint):
    customer = await create_individual(s3_tenant.client)
    content = files.pdf()
    wrong_size = await request_upload(s3_tenant.client, content, customerId=customer["id"])
    wrong_type = await request_upload(s3_tenant.client, content, customerId=customer["id"])
    image = files.png()
    async with httpx.AsyncClient() as outside:
        await outside.put(wrong_size["uploadUrl"], content=content + b"more")
        await outside.put(
            wrong_type["uploadUrl"], content=image + b"\0" * (len(content) - len(image))
        )
    for created, reason in [(wrong_size, "bytes were uploaded"), (wrong_type, "image/png")]:
        refused = await s3_tenant.client.post(f"/v1/documents/{created['id']}/confirm")
        body = assert_error(refused, 422, "document_rejected")
        assert body["documentId"] == created["id"] and reason in body["reason"]
        fetched = await s3_tenant.client.get(f"/v1/documents/{created['id']}")
        assert fetched.json()["status"] == "REJECTED"
        assert reason in fetched.json()["rejectionReason"]
        assert _objects(s3_endpoint, f"documents/{s3_tenant.organization_id}/{created['id']}") == []
        again = await s3_tenant.client.post(f"/v1/documents/{created['id']}/confirm")
        assert_error(again, 409, "invalid_state")
