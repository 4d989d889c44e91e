"""GET /v1/request-logs: the organization's API requests of the last days."""

from __future__ import annotations

from datetime import datetime
from enum import Enum, StrEnum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from corridor.kit.clock import as_utc
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import ListResponse
from corridor.requestlogs import service
from corridor.requestlogs.rules import STATUS_FILTER_PATTERN, RequestLogFilters, status_range
from corridor.requestlogs.schemas import RequestLogRead
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import Pages

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Request logs"]


class HttpMethod(StrEnum):
    GET = "GET"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"
    DELETE = "DELETE"


def _moment(value: datetime | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return as_utc(value)
    except (OverflowError, ValueError):
        raise ValidationFailed(field, "is out of range") from None


async def _flush(request: Request) -> None:
    """This process's requests not yet written are written first, before the request's
    unit of work reads anything (its snapshot would miss them): a client sees its own."""
    buffer = getattr(request.app.state, "request_log", None)
    if buffer is not None:
        await buffer.flush()


Flushed = Annotated[None, Depends(_flush)]


@router.get(
    "/request-logs",
    response_model=ListResponse[RequestLogRead],
    tags=TAGS,
    summary="List API requests",
)
async def list_request_logs(
    _flushed: Flushed,
    context: Context,
    page: Pages,
    api_key_id: Annotated[
        str | None,
        Query(
            alias="apiKeyId",
            max_length=40,
            description="Only the requests of this key (key_…) or OAuth grant (oag_…)",
        ),
    ] = None,
    status: Annotated[
        str | None,
        Query(
            description="A status (`404`) or a class of them (`4xx`, `5xx`)",
            pattern=STATUS_FILTER_PATTERN,
        ),
    ] = None,
    method: Annotated[HttpMethod | None, Query(description="Only this method")] = None,
    path: Annotated[
        str | None,
        Query(description="Only paths starting with this (`/v1/transfers`)", max_length=500),
    ] = None,
    q: Annotated[
        str | None,
        Query(
            description="Search: a part of the path, an error code, an Idempotency-Key, or a "
            "request id",
            min_length=1,
            max_length=200,
        ),
    ] = None,
    created_after: Annotated[datetime | None, Query(alias="createdAfter")] = None,
    created_before: Annotated[datetime | None, Query(alias="createdBefore")] = None,
) -> ListResponse[RequestLogRead]:
    """Requests made with the organization's API keys, agent keys and OAuth tokens (not the
    console's own), newest first, for the last `CORRIDOR_REQUEST_LOG_RETENTION_DAYS` days
    (7). Each row has the method, the path (never the query string), the status, the
    latency, the Idempotency-Key and, for a 4xx or 5xx, the error body the client got.
    Request bodies and headers are never kept. Needs `organizations:read`; a caller bound
    to one customer (an agent's key, a platform session) is refused."""
    statuses = status_range(status) if status is not None else None
    lower = _moment(created_after, "createdAfter")
    upper = _moment(created_before, "createdBefore")
    filters = RequestLogFilters(
        credential_id=api_key_id,
        status=statuses,
        method=method.value if method is not None else None,
        path_prefix=path,
        query=q,
        created_after=lower,
        created_before=upper,
    )
    found = await service.list_request_logs(
        context.session, caller=context.caller, filters=filters, page=page
    )
    return ListResponse[RequestLogRead].of(found, RequestLogRead.model_validate)


@router.get(
    "/request-logs/{request_id}",
    response_model=RequestLogRead,
    tags=TAGS,
    summary="Get an API request",
)
async def get_request_log(request_id: str, _flushed: Flushed, context: Context) -> RequestLogRead:
    """One request by its id (the `X-Request-Id` it was answered with, the `requestId` of
    its error body)."""
    found = await service.read_request_log(
        context.session, caller=context.caller, request_id=request_id
    )
    return RequestLogRead.model_validate(found)
