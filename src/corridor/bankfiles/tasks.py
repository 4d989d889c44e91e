"""The bank files' worker tasks: write the windows that came due, upload what was written,
read what the bank left in the inbox. Idle (no query) unless file rails are configured."""

from __future__ import annotations

from corridor.bankfiles import transport, writing
from corridor.bankfiles.profile import profile_of
from corridor.config import get_settings
from corridor.kit.clock import Clock
from corridor.kit.db import Database


async def write_and_upload(database: Database, clock: Clock) -> int:
    settings = get_settings()
    if not settings.file_rails:
        return 0
    done = await writing.write_due_files(database, clock, profile=profile_of(settings))
    if settings.bank_sftp_host is not None:
        done += await transport.upload_due_files(database, clock, settings=settings)
    return done


async def read_inbox(database: Database, clock: Clock) -> int:
    settings = get_settings()
    if not settings.file_rails or settings.bank_sftp_host is None:
        return 0
    return await transport.poll_inbox(database, clock, settings=settings)
