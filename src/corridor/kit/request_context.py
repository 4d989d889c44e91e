"""The id of the request being served, readable anywhere below the middleware."""

from __future__ import annotations

from contextvars import ContextVar

_request_id: ContextVar[str | None] = ContextVar("corridor_request_id", default=None)


def current_request_id() -> str | None:
    return _request_id.get()


def set_request_id(request_id: str | None):
    return _request_id.set(request_id)


def reset_request_id(token) -> None:
    _request_id.reset(token)


# Whether the app serving the request runs the sandbox (set by the request middleware);
# None outside a request. Rules that differ by environment inside request validation
# (reserved testing email domains) read it.
_sandbox: ContextVar[bool | None] = ContextVar("corridor_sandbox", default=None)


def in_sandbox() -> bool | None:
    return _sandbox.get()


def set_sandbox(sandbox: bool | None):
    return _sandbox.set(sandbox)


def reset_sandbox(token) -> None:
    _sandbox.reset(token)
