"""Pure rules of the request log: what a status filter means, and what of an answer is kept."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

STATUS_FILTER_PATTERN = r"^[1-5]([0-9]{2}|xx|XX)$"
_STATUS_FILTER = re.compile(STATUS_FILTER_PATTERN)
# An error body is the house error JSON, a few hundred bytes; more is cut.
error_body_bytes_max = 8 * 1024
idempotency_key_chars_max = 255
error_code_chars_max = 64


@dataclass(frozen=True, slots=True)
class StatusRange:
    """Statuses from `low` to `high` inclusive: `404` is 404 to 404, `4xx` 400 to 499."""

    low: int
    high: int


@dataclass(frozen=True, slots=True)
class RequestLogFilters:
    credential_id: str | None = None
    status: StatusRange | None = None
    method: str | None = None
    path_prefix: str | None = None
    query: str | None = None
    created_after: datetime | None = None  # inclusive
    created_before: datetime | None = None  # exclusive
    # Only requests after this one (ids sort by time): what `corridor logs tail` has not shown.
    after_id: str | None = None


def status_range(text: str) -> StatusRange | None:
    """The statuses a filter names (`404`, `4xx`), or None when it names none."""
    if not _STATUS_FILTER.match(text):
        return None
    if text[1:].lower() == "xx":
        first = int(text[0]) * 100
        return StatusRange(first, first + 99)
    return StatusRange(int(text), int(text))


def error_body(status: int, body: bytes) -> dict[str, Any] | None:
    """The error JSON a client got for a 4xx or 5xx (None for a success, or a body that is
    not a JSON object: a plain-text answer of the server is summed up in its place)."""
    if status < 400:
        return None
    if not body:
        return None
    if len(body) > error_body_bytes_max:
        return {"code": None, "message": f"(error body of {len(body)} bytes not kept)"}
    try:
        parsed = json.loads(body)
    except ValueError:
        return {"code": None, "message": body[:500].decode("utf-8", "replace")}
    return parsed if isinstance(parsed, dict) else {"code": None, "message": str(parsed)[:500]}


def error_code(body: dict[str, Any] | None) -> str | None:
    code = body.get("code") if body else None
    return code[:error_code_chars_max] if isinstance(code, str) else None
