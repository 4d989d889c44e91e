"""The bank files' use cases for the API and the CLI: list and read files, read one's
content and entries, import a file the bank sent (sandbox: the API; production: the bank
connection and the CLI), write the files due now."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.bankfiles import reading, repository
from corridor.kit.errors import SandboxOnly
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.bank_file import BankFile, BankFileEntry


async def list_files(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    direction: str | None = None,
    rail: str | None = None,
    status: str | None = None,
) -> Page[BankFile]:
    caller.require_scope(Scope.TRANSFERS_READ)
    statement = repository.filtered_files(caller, direction=direction, rail=rail, status=status)
    return await fetch_page(session, statement, BankFile.id, page)


async def get_file(session: AsyncSession, *, caller: Caller, bank_file_id: str) -> BankFile:
    caller.require_scope(Scope.TRANSFERS_READ)
    return await repository.file_of(session, caller, bank_file_id)


async def entries_of(
    session: AsyncSession, *, caller: Caller, bank_file_id: str
) -> list[BankFileEntry]:
    """The payments an outgoing file carries, or those an incoming one answered."""
    file = await get_file(session, caller=caller, bank_file_id=bank_file_id)
    if file.direction == "OUTGOING":
        return await repository.entries_of_file(session, file.id)
    references = list((file.summary or {}).get("references", []))
    return await repository.entries_named(session, file.organization_id, references)


async def import_file(
    session: AsyncSession,
    *,
    caller: Caller,
    sandbox: bool,
    name: str,
    content: str,
    now: datetime,
) -> BankFile:
    """A file the bank sent, read and applied. Through the API only in the sandbox (an
    answer moves money back: in production only the bank connection delivers them)."""
    if not sandbox:
        raise SandboxOnly()
    caller.require_scope(Scope.SANDBOX_WRITE)
    return await reading.import_file(
        session, organization_id=caller.organization_id, name=name, content=content, now=now
    )
