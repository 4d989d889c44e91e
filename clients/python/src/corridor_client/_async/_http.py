"""Sending calls (with retries), reading answers, and walking lists page by page."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any, Generic, TypeVar, cast

import httpx
from pydantic import BaseModel

from corridor_client import _calls
from corridor_client._calls import Call
from corridor_client._retries import Retries, RetryPolicy
from corridor_client._signing import RequestSigner
from corridor_client.errors import (
    APIConnectionError,
    AuthenticationError,
    CorridorError,
    error_body,
    error_from_response,
)
from corridor_client.pages import Page

Model = TypeVar("Model", bound=BaseModel)
Item = TypeVar("Item", bound=BaseModel)

_VERSION = "0.1.0"
# The only operations the server answers without credentials.
_OPEN_PATHS = frozenset({"/v1/health", "/v1/health/ready", "/v1/console/sessions"})


class AsyncTransport:
    """Sends a Call to the server: credentials, Idempotency-Key, retries, typed errors."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str,
        timeout_s: float,
        retry_policy: RetryPolicy,
        http_client: httpx.AsyncClient | None,
        headers: Mapping[str, str] | None,
        signing_key: Any = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._signer = RequestSigner(signing_key) if signing_key is not None else None
        self.retry_policy = retry_policy
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout_s)
        self._headers = {
            "Accept": "application/json",
            "User-Agent": f"corridor-client-python/{_VERSION}",
            **({"Authorization": f"Bearer {api_key}"} if api_key else {}),
            **(headers or {}),
        }

    async def send(self, call: Call) -> httpx.Response:
        """The first successful answer; an error answer or a failed connection raises a
        CorridorError once the retry policy gives up."""
        headers = dict(self._headers)
        if call.path not in _OPEN_PATHS and not any(
            name.lower() == "authorization" for name in headers
        ):
            raise AuthenticationError(
                f"{call.method} {call.path}: no API key: pass api_key=… or set "
                "CORRIDOR_API_KEY (nothing was sent)",
                code="no_api_key",
            )
        if call.idempotency_key is not None:
            headers["Idempotency-Key"] = call.idempotency_key
        retries = Retries(self.retry_policy)
        while True:
            try:
                request = self._http.build_request(
                    call.method,
                    self.base_url + call.path,
                    params=call.query,
                    json=call.body,
                    headers=headers,
                )
                if self._signer is not None:
                    self._signer.sign(request)  # each attempt: a new nonce and created
                response = await self._http.send(request)
            except httpx.TransportError as error:
                wait_s = retries.wait_after_error(call, error)
                if wait_s is None:
                    raise APIConnectionError(
                        f"{call.method} {call.path}: {type(error).__name__}: {error} "
                        f"(after {retries.attempts} attempt(s))"
                    ) from error
            else:
                if not response.is_error:
                    return response
                code = error_body(response).get("code")
                wait_s = retries.wait_after_answer(
                    call, response.status_code, response.headers, code
                )
                if wait_s is None:
                    raise error_from_response(response)
            await asyncio.sleep(wait_s)

    async def send_once(self, call: Call) -> httpx.Response:
        """One attempt whatever the status, for an answer whose error status still carries
        the body the caller wants (readiness: 503 with the failing checks). A failed
        connection raises."""
        request = self._http.build_request(
            call.method, self.base_url + call.path, params=call.query, headers=self._headers
        )
        try:
            return await self._http.send(request)
        except httpx.TransportError as error:
            raise APIConnectionError(
                f"{call.method} {call.path}: {type(error).__name__}: {error}"
            ) from error

    async def aclose(self) -> None:
        if self._owns_http_client:
            await self._http.aclose()


class AsyncPager(Generic[Item]):
    """Every item of a list, newest first, fetched a page at a time as the loop asks:
    `async for transfer in client.transfers.list(status="PENDING"): ...`."""

    def __init__(
        self,
        transport: AsyncTransport,
        call: Call,
        page_model: type[Page[Item]],
    ) -> None:
        self._transport = transport
        self._call = call
        self._page_model = page_model

    def __aiter__(self) -> AsyncIterator[Item]:
        return self._items()

    async def _items(self) -> AsyncIterator[Item]:
        async for page in self.pages():
            for item in page.data:
                yield item

    async def first_page(self) -> Page[Item]:
        """Only the first page (with `next_cursor` / `following()` for the next)."""
        return await self._page(self._call)

    async def pages(self) -> AsyncIterator[Page[Item]]:
        """Page after page until the last."""
        call = self._call
        cursors_seen: set[str] = set()
        while True:
            page = await self._page(call)
            yield page
            cursor = page.following()
            if cursor is None:
                return
            if cursor in cursors_seen:
                raise CorridorError(
                    f"{call.path}: the server sent cursor {cursor!r} twice", code="cursor_loop"
                )
            cursors_seen.add(cursor)
            call = _calls.read(call.path, {**(call.query or {}), page.cursor_parameter: cursor})

    async def _page(self, call: Call) -> Page[Item]:
        return _calls.parse(await self._transport.send(call), self._page_model, call)


class AsyncResource:
    """A group of operations (`client.transfers`, …) sharing the client's transport."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def _send(self, call: Call, returns: type[Model]) -> Model:
        return _calls.parse(await self._transport.send(call), returns, call)

    async def _send_for_nothing(self, call: Call) -> None:
        await self._transport.send(call)

    def _list(
        self,
        path: str,
        item: type[Item],
        page_model: type[Page[Any]] = Page,
        **query: Any,
    ) -> AsyncPager[Item]:
        # Page[item] at run time: pydantic makes the page model of these items.
        items_page: type[Page[Item]] = cast(Any, page_model)[item]
        return AsyncPager(self._transport, _calls.read(path, _calls.query(**query)), items_page)
