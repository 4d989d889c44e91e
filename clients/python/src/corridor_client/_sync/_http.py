# Generated from corridor_client/_async/_http.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Sending calls (with retries), reading answers, and walking lists page by page."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
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


class Transport:
    """Sends a Call to the server: credentials, Idempotency-Key, retries, typed errors."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str,
        timeout_s: float,
        retry_policy: RetryPolicy,
        http_client: httpx.Client | None,
        headers: Mapping[str, str] | None,
        signing_key: Any = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._signer = RequestSigner(signing_key) if signing_key is not None else None
        self.retry_policy = retry_policy
        self._owns_http_client = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout_s)
        self._headers = {
            "Accept": "application/json",
            "User-Agent": f"corridor-client-python/{_VERSION}",
            **({"Authorization": f"Bearer {api_key}"} if api_key else {}),
            **(headers or {}),
        }

    def send(self, call: Call) -> httpx.Response:
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
                response = self._http.send(request)
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
            time.sleep(wait_s)

    def send_once(self, call: Call) -> httpx.Response:
        """One attempt whatever the status, for an answer whose error status still carries
        the body the caller wants (readiness: 503 with the failing checks). A failed
        connection raises."""
        request = self._http.build_request(
            call.method, self.base_url + call.path, params=call.query, headers=self._headers
        )
        try:
            return self._http.send(request)
        except httpx.TransportError as error:
            raise APIConnectionError(
                f"{call.method} {call.path}: {type(error).__name__}: {error}"
            ) from error

    def close(self) -> None:
        if self._owns_http_client:
            self._http.close()


class Pager(Generic[Item]):
    """Every item of a list, newest first, fetched a page at a time as the loop asks:
    `for transfer in client.transfers.list(status="PENDING"): ...`."""

    def __init__(
        self,
        transport: Transport,
        call: Call,
        page_model: type[Page[Item]],
    ) -> None:
        self._transport = transport
        self._call = call
        self._page_model = page_model

    def __iter__(self) -> Iterator[Item]:
        return self._items()

    def _items(self) -> Iterator[Item]:
        for page in self.pages():
            yield from page.data

    def first_page(self) -> Page[Item]:
        """Only the first page (with `next_cursor` / `following()` for the next)."""
        return self._page(self._call)

    def pages(self) -> Iterator[Page[Item]]:
        """Page after page until the last."""
        call = self._call
        cursors_seen: set[str] = set()
        while True:
            page = self._page(call)
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

    def _page(self, call: Call) -> Page[Item]:
        return _calls.parse(self._transport.send(call), self._page_model, call)


class Resource:
    """A group of operations (`client.transfers`, …) sharing the client's transport."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _send(self, call: Call, returns: type[Model]) -> Model:
        return _calls.parse(self._transport.send(call), returns, call)

    def _send_for_nothing(self, call: Call) -> None:
        self._transport.send(call)

    def _list(
        self,
        path: str,
        item: type[Item],
        page_model: type[Page[Any]] = Page,
        **query: Any,
    ) -> Pager[Item]:
        # Page[item] at run time: pydantic makes the page model of these items.
        items_page: type[Page[Item]] = cast(Any, page_model)[item]
        return Pager(self._transport, _calls.read(path, _calls.query(**query)), items_page)
