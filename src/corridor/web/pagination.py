"""The `limit` and `cursor` query parameters of every list (API.md section 3)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

from corridor.kit.pagination import (
    PageRequest,
    cursor_pattern,
    page_size_default,
    page_size_max,
)


async def page_request(
    limit: Annotated[
        int, Query(ge=1, le=page_size_max, description="Items per page, 1 to 250")
    ] = page_size_default,
    cursor: Annotated[
        str | None,
        Query(
            max_length=64,
            description="`nextCursor` of the previous page",
            json_schema_extra={"pattern": cursor_pattern},
        ),
    ] = None,
) -> PageRequest:
    return PageRequest.checked(limit=limit, cursor=cursor)


Pages = Annotated[PageRequest, Depends(page_request)]
