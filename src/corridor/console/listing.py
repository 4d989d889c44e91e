"""Lists on console pages: the page size, the cursor and the filters read from the query
string (only the filters a page names), and the links to the next page that keep them."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from fastapi import Request

from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import Page, PageRequest

console_page_size_default = 25
filter_chars_max = 100


@dataclass(frozen=True)
class Listing:
    path: str
    page: PageRequest
    filters: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        return self.filters.get(name) or None

    def url(self, *, cursor: str | None = None) -> str:
        query = dict(self.filters)
        if self.page.limit != console_page_size_default:
            query["limit"] = str(self.page.limit)
        if cursor:
            query["cursor"] = cursor
        return self.path + (f"?{urlencode(query)}" if query else "")

    def next_url(self, found: Page) -> str | None:
        """The link to the page after `found`, or None on the last page."""
        return self.url(cursor=found.next_cursor) if found.has_more and found.next_cursor else None

    @property
    def first_url(self) -> str | None:
        """Back to the first page with the same filters, when not on it."""
        return self.url() if self.page.cursor else None


def listing_of(request: Request, *, filters: tuple[str, ...] = ()) -> Listing:
    """The list a page was asked for. Filters are passed through as text; the service the
    page calls checks them (a bad value is a 422 page, as the API answers 422)."""
    query = request.query_params
    raw_limit = query.get("limit") or str(console_page_size_default)
    if not raw_limit.isdigit():
        raise ValidationFailed("limit", "must be a whole number")
    page = PageRequest.checked(limit=int(raw_limit), cursor=query.get("cursor") or None)
    chosen: dict[str, str] = {}
    for name in filters:
        value = (query.get(name) or "").strip()
        if len(value) > filter_chars_max:
            raise ValidationFailed(name, f"must be at most {filter_chars_max} characters")
        if value:
            chosen[name] = value
    return Listing(path=request.url.path, page=page, filters=chosen)
