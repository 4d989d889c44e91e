"""Where documents' bytes live: object storage through obstore, local files by default (the
upload URL is then Corridor's own signed PUT) or S3-compatible storage (a presigned URL).

Objects are written under `uploads/…` by the client and copied to `documents/…` when
confirmed, so nothing sent to an upload URL afterwards can change a confirmed file.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import AsyncIterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import obstore
from obstore.store import LocalStore, S3Store

from corridor.config import Settings
from corridor.documents import rules

signing_key_bytes = 32
SIGNING_KEY_FILE = "signing.key"


@dataclass(frozen=True, slots=True)
class UploadTarget:
    url: str
    headers: dict[str, str]


def upload_key(organization_id: str, document_id: str) -> str:
    return f"uploads/{organization_id}/{document_id}"


def storage_key(organization_id: str, document_id: str) -> str:
    return f"documents/{organization_id}/{document_id}"


def signing_key(settings: Settings) -> bytes:
    """The configured key, or one kept in the data directory (made on first use, 0600)."""
    if settings.signing_key is not None:
        return settings.signing_key.get_secret_value().encode()
    directory = settings.data_directory
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SIGNING_KEY_FILE
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip().encode()
    with os.fdopen(descriptor, "w") as file:
        file.write(secrets.token_hex(signing_key_bytes))
    return path.read_text().strip().encode()


class DocumentStorage:
    """The object store and how clients reach it. Nothing is made (folder, key, client)
    until first used, so an app built only for its OpenAPI document touches no disk."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        # True: Corridor receives the PUT itself (local files); False: the store does (S3).
        self.serves_uploads = not settings.documents_s3_bucket

    @cached_property
    def _key(self) -> bytes:
        return signing_key(self._settings)

    @cached_property
    def store(self) -> Any:
        settings = self._settings
        if settings.documents_s3_bucket:
            config: dict[str, Any] = {"region": settings.documents_s3_region}
            if settings.documents_s3_endpoint:
                config["endpoint"] = settings.documents_s3_endpoint
                config["allow_http"] = settings.documents_s3_endpoint.startswith("http://")
                config["virtual_hosted_style_request"] = False
            if settings.documents_s3_access_key_id:
                config["access_key_id"] = settings.documents_s3_access_key_id
            if settings.documents_s3_secret_access_key is not None:
                secret = settings.documents_s3_secret_access_key.get_secret_value()
                config["secret_access_key"] = secret
            return S3Store(settings.documents_s3_bucket, **config)
        directory = settings.documents_directory or settings.data_directory / "documents"
        Path(directory).mkdir(parents=True, exist_ok=True)
        return LocalStore(str(directory), mkdir=True)

    # --- upload URLs ------------------------------------------------------------------

    async def upload_target(
        self,
        *,
        document_id: str,
        key: str,
        content_type: str,
        size_bytes: int,
        base_url: str,
        now: datetime,
        expires_at: datetime,
    ) -> UploadTarget:
        headers = {"Content-Type": content_type, "Content-Length": str(size_bytes)}
        if self.serves_uploads:
            expires_unix = int(expires_at.timestamp())
            query = urlencode(
                {
                    "expires": expires_unix,
                    "signature": rules.upload_signature(self._key, document_id, expires_unix),
                }
            )
            return UploadTarget(f"{base_url.rstrip('/')}/uploads/{document_id}?{query}", headers)
        url = await obstore.sign_async(self.store, "PUT", key, expires_at - now)
        return UploadTarget(url, headers)

    def signature_matches(self, document_id: str, expires_unix: int, signature: str) -> bool:
        return rules.signature_matches(self._key, document_id, expires_unix, signature)

    # --- objects ------------------------------------------------------------------------

    async def write(self, key: str, chunks: AsyncIterable[bytes]) -> None:
        """Stored whole or not at all (obstore writes to a temporary object, then moves it)."""
        await obstore.put_async(self.store, key, chunks)

    async def size_of(self, key: str) -> int | None:
        try:
            meta = await obstore.head_async(self.store, key)
        except FileNotFoundError:
            return None
        return int(meta["size"])

    async def copy(self, source: str, destination: str) -> None:
        await obstore.copy_async(self.store, source, destination)

    async def delete(self, key: str) -> None:
        try:
            await obstore.delete_async(self.store, key)
        except FileNotFoundError:
            return

    async def head_bytes(self, key: str, count: int) -> bytes:
        size = await self.size_of(key)
        if not size:
            return b""
        found = await obstore.get_range_async(self.store, key, start=0, length=min(count, size))
        return bytes(found)

    async def read(self, key: str) -> bytes:
        found = await obstore.get_async(self.store, key)
        return bytes(await found.bytes_async())

    async def sha256(self, key: str) -> str:
        digest = hashlib.sha256()
        found = await obstore.get_async(self.store, key)
        async for chunk in found.stream(min_chunk_size=1024 * 1024):
            digest.update(chunk)
        return digest.hexdigest()


def expiry(now: datetime) -> datetime:
    return now + timedelta(seconds=rules.upload_url_lifetime_s)
