"""The bank connection: files carried over SFTP (asyncssh).

Layout on the bank's server: `<outbox>/<organization id>/<file name>` for Corridor's
files, `<inbox>/<organization id>/` for the bank's answers, `<archive>/<organization
id>/` for the answers Corridor has read (settings `bank_sftp_*`).

Uploads happen once. A file is written to a temporary name and renamed into place, so the
bank never reads half a file; the database records the upload in its own short
transaction after the rename (nothing is held locked during the network call). An upload
that fails (a dropped connection) is retried `bank_upload_retry_s` later; one whose
rename happened but whose record did not (a crash in between) finds the file already in
place at the next attempt, the same size, and is recorded without writing it again.

The inbox is read file by file: each is imported (once: by its SHA-256, reading.py) in a
transaction of its own and then moved to the archive; a file found again after a crash
between the two is recognised and only archived.
"""

from __future__ import annotations

import contextlib
import posixpath
import secrets
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import asyncssh
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.bankfiles import events, reading, repository
from corridor.bankfiles.errors import UnreadableBankFile
from corridor.config import Settings
from corridor.kit.clock import Clock, Moments
from corridor.kit.db import Database
from corridor.kit.ids import looks_like_id
from corridor.kit.logging import get_logger
from corridor.models import clock as sandbox_clocks
from corridor.models.bank_file import BankFile

logger = get_logger(__name__)

uploads_per_pass_max = 100
inbox_files_per_pass_max = 200
inbox_file_bytes_max = 5_000_000
error_chars_max = 500


@contextlib.asynccontextmanager
async def connected(settings: Settings) -> AsyncIterator[asyncssh.SFTPClient]:
    """An SFTP session to the bank. The bank's host key is checked against
    `bank_sftp_host_key`; without one (the sandbox only) it is not checked."""
    assert settings.bank_sftp_host is not None
    if settings.bank_sftp_host_key is None and not settings.is_sandbox:
        raise asyncssh.HostKeyNotVerifiable("set CORRIDOR_BANK_SFTP_HOST_KEY in production")
    known_hosts = (
        asyncssh.import_known_hosts(settings.bank_sftp_host_key)
        if settings.bank_sftp_host_key
        else None
    )
    keys = (
        [asyncssh.import_private_key(settings.bank_sftp_key.get_secret_value())]
        if settings.bank_sftp_key is not None
        else None
    )
    async with (
        asyncssh.connect(
            settings.bank_sftp_host,
            port=settings.bank_sftp_port,
            username=settings.bank_sftp_user,
            client_keys=keys,
            known_hosts=known_hosts,
            agent_path=None,
            password=None,
            connect_timeout=settings.bank_sftp_timeout_s,
        ) as connection,
        connection.start_sftp_client() as sftp,
    ):
        yield sftp


async def _put(sftp: asyncssh.SFTPClient, settings: Settings, file: BankFile) -> None:
    folder = posixpath.join(settings.bank_sftp_outbox, file.organization_id)
    await sftp.makedirs(folder, exist_ok=True)
    target = posixpath.join(folder, file.name)
    data = file.content.encode()
    if await sftp.exists(target) and (await sftp.stat(target)).size == len(data):
        return  # renamed into place by an attempt whose record was lost
    temporary = posixpath.join(folder, f".{file.name}.{secrets.token_hex(4)}.part")
    async with sftp.open(temporary, "wb") as handle:
        await handle.write(data)
    await sftp.posix_rename(temporary, target)


async def upload_due_files(
    database: Database, clock: Clock, *, settings: Settings, organization_id: str | None = None
) -> int:
    """Upload the written files whose time has come; the number uploaded."""
    async with database.session(write=False) as session:
        shifts = await sandbox_clocks.shifts(session, organization_id=organization_id)
        moments = Moments.at(clock.now(), shifts)
        due = await repository.files_to_upload(
            session, moments, organization_id=organization_id, limit=uploads_per_pass_max
        )
        files = await repository.files_by_ids(session, due)
    if not files:
        return 0
    uploaded = 0
    try:
        async with connected(settings) as sftp:
            for file in files:
                error = None
                try:
                    await _put(sftp, settings, file)
                except (OSError, asyncssh.Error) as problem:
                    error = problem
                uploaded += await _record(database, clock, shifts, file.id, error, settings)
                if error is not None:
                    break  # the connection is likely gone: the rest wait for the next pass
    except (OSError, asyncssh.Error) as error:
        logger.warning("bank_connection_failed", error=repr(error))
        for file in files:
            await _record(database, clock, shifts, file.id, error, settings, only_unsent=True)
    return uploaded


async def _record(
    database: Database,
    clock: Clock,
    shifts: dict,
    file_id: str,
    error: BaseException | None,
    settings: Settings,
    *,
    only_unsent: bool = False,
) -> int:
    async with database.session() as session, session.begin():
        file = await repository.file_for_upload(session, file_id)
        if file is None:
            return 0
        now = Moments.at(clock.now(), shifts).of(file.organization_id)
        file.updated_at = now
        if error is None and not only_unsent:
            file.status, file.uploaded_at, file.next_upload_at = "UPLOADED", now, None
            file.last_error = None
            events.file_event(session, events.UPLOADED, file, now=now)
            return 1
        file.upload_attempts += 1
        file.last_error = repr(error)[:error_chars_max]
        if file.upload_attempts >= settings.bank_upload_attempts_max:
            file.next_upload_at = None  # an operator's turn: `corridor bank-files upload`
        else:
            file.next_upload_at = now + timedelta(seconds=settings.bank_upload_retry_s)
        return 0


async def poll_inbox(database: Database, clock: Clock, *, settings: Settings) -> int:
    """Read every answer waiting in the inbox once; the number of files read."""
    read = 0
    async with connected(settings) as sftp:
        if not await sftp.exists(settings.bank_sftp_inbox):
            return 0
        for organization_id in sorted(await sftp.listdir(settings.bank_sftp_inbox)):
            if not looks_like_id(organization_id, "org"):
                continue
            folder = posixpath.join(settings.bank_sftp_inbox, organization_id)
            for name in sorted(await sftp.listdir(folder)):
                if name.startswith(".") or read >= inbox_files_per_pass_max:
                    continue
                read += await _take(sftp, database, clock, settings, organization_id, name)
    return read


async def _take(
    sftp: asyncssh.SFTPClient,
    database: Database,
    clock: Clock,
    settings: Settings,
    organization_id: str,
    name: str,
) -> int:
    source = posixpath.join(settings.bank_sftp_inbox, organization_id, name)
    attributes = await sftp.stat(source)
    if attributes.type != asyncssh.FILEXFER_TYPE_REGULAR:
        return 0
    if (attributes.size or 0) > inbox_file_bytes_max:
        logger.warning("bank_file_too_large", name=name, size=attributes.size)
        return 0
    async with sftp.open(source, "rb") as handle:
        raw: bytes = await handle.read()
    content = raw.decode("utf-8", errors="replace")
    async with database.session() as session, session.begin():
        now = await _now_of(session, clock, organization_id)
        if await repository.organization_or_none(session, organization_id) is None:
            return 0
        try:
            await reading.import_file(
                session, organization_id=organization_id, name=name, content=content, now=now
            )
        except UnreadableBankFile as error:
            logger.warning("bank_file_unreadable", name=name, error=error.message)
            await reading.keep_unreadable(
                session,
                organization_id=organization_id,
                name=name,
                content=content,
                error=error.message,
                now=now,
            )
    archive = posixpath.join(settings.bank_sftp_archive, organization_id)
    await sftp.makedirs(archive, exist_ok=True)
    await sftp.posix_rename(source, posixpath.join(archive, name))
    return 1


async def _now_of(session: AsyncSession, clock: Clock, organization_id: str) -> datetime:
    return (await sandbox_clocks.moments(session, clock, organization_id=organization_id)).of(
        organization_id
    )


async def rearm_failed_uploads(
    session: AsyncSession, *, organization_id: str, now: datetime
) -> int:
    """Files whose automatic retries ran out are due again (an operator's retry)."""
    return await repository.rearm_failed_uploads(session, organization_id=organization_id, now=now)
