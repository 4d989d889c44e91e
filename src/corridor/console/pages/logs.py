"""The request log (issue 28), as Stripe's Logs: the organization's API requests of the
last days, filtered by key and status, searched, each error row opening to the error body
the client got. The same service as `GET /v1/request-logs` (`requestlogs.service`)."""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import Depends, Request, Response

from corridor.auth import service as auth_service
from corridor.console.layout import page
from corridor.console.listing import listing_of
from corridor.console.routing import console_router
from corridor.console.session import ConsolePage
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import PageRequest, page_size_max
from corridor.requestlogs import service as request_logs
from corridor.requestlogs.rules import RequestLogFilters, status_range

router = console_router()

STATUS_CLASSES = [
    ("2xx", "Succeeded (2xx)"),
    ("4xx", "Failed (4xx)"),
    ("5xx", "Server error (5xx)"),
]


async def _flush(request: Request) -> None:
    """This process's requests not yet written are written before the page reads."""
    buffer = getattr(request.app.state, "request_log", None)
    if buffer is not None:
        await buffer.flush()


@router.get("/logs")
async def log_list(_flushed: Annotated[None, Depends(_flush)], console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=("key", "status", "q"))
    status = listing.get("status")
    statuses = status_range(status) if status else None
    if status and statuses is None:
        raise ValidationFailed("status", "must be a status (404) or a class of them (4xx)")
    found = await request_logs.list_request_logs(
        console.session,
        caller=console.caller,
        filters=RequestLogFilters(
            credential_id=listing.get("key"), status=statuses, query=listing.get("q")
        ),
        page=listing.page,
    )
    keys = await auth_service.list_api_keys(
        console.session, caller=console.caller, page=PageRequest(limit=page_size_max, cursor=None)
    )
    return page(
        console,
        "logs/list.html",
        listing=listing,
        found=found,
        rows=found.items,
        keys=keys.items,
        key_names={key.id: key.name for key in keys.items},
        status_classes=STATUS_CLASSES,
        pretty=lambda body: json.dumps(body, indent=2, ensure_ascii=False),
        retention_days=console.settings.request_log_retention_days,
    )
