"""Reading the request log: the organization's, for a caller that may read the
organization (`organizations:read`); never an agent's key or a caller bound to a customer,
whose view is one customer's."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.kit.errors import Forbidden
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.request_log import RequestLog
from corridor.requestlogs import repository
from corridor.requestlogs.rules import RequestLogFilters

READ_SCOPE = Scope.ORGANIZATIONS_READ


def _check_reader(caller: Caller) -> None:
    caller.require_scope(READ_SCOPE)
    if caller.kind is CallerKind.AGENT_KEY or caller.customer_id is not None:
        raise Forbidden(
            "The request log is the organization's: a caller bound to one customer cannot read it"
        )


async def list_request_logs(
    session: AsyncSession, *, caller: Caller, filters: RequestLogFilters, page: PageRequest
) -> Page[RequestLog]:
    _check_reader(caller)
    statement = repository.filtered_request_logs(caller, filters)
    return await fetch_page(session, statement, RequestLog.id, page)


async def read_request_log(session: AsyncSession, *, caller: Caller, request_id: str) -> RequestLog:
    _check_reader(caller)
    return await repository.get_request_log(session, caller, request_id)


async def request_logs_after(
    session: AsyncSession,
    *,
    caller: Caller,
    filters: RequestLogFilters,
    after_id: str | None,
    latest: int = 10,
) -> list[RequestLog]:
    """What a tail prints next, oldest first: the requests after `after_id` (every one,
    page by page), or with no `after_id` the `latest` few."""
    _check_reader(caller)
    statement = repository.filtered_request_logs(caller, replace(filters, after_id=after_id))
    if after_id is None:
        page = await fetch_page(session, statement, RequestLog.id, PageRequest(latest, None))
        return list(reversed(page.items))
    found: list[RequestLog] = []
    cursor: str | None = None
    while True:
        page = await fetch_page(session, statement, RequestLog.id, PageRequest(250, cursor))
        found += page.items
        if not page.has_more:
            return list(reversed(found))
        cursor = page.next_cursor
