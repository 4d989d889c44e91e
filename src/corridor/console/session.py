"""Who is using the console page: the console session of the cookie, checked on every
request (expired or signed out → back to sign-in), the CSRF token every write must carry,
and the request's one unit of work."""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Annotated
from urllib.parse import parse_qsl

from fastapi import Depends, Request

from corridor.auth import service as auth_service
from corridor.auth.callers import Caller
from corridor.auth.secrets import csrf_token
from corridor.config import Settings
from corridor.console.errors import SignInRequired
from corridor.kit.clock import Clock
from corridor.kit.errors import CsrfTokenInvalid, Unauthorized, ValidationFailed
from corridor.transfers.plugins import TransferPlugins
from corridor.web.authentication import CONSOLE_SESSION_COOKIE, CSRF_HEADER
from corridor.web.ratelimits import RateLimiter, client_address

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncSession

CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD"})
# A console form is a handful of fields; a body with more is not one of ours.
form_fields_max = 40
form_bytes_max = 64 * 1024


@dataclass
class Console:
    """One console request: the signed-in user's caller, its session token's CSRF token,
    the posted form (writes), and the unit of work. Pages call services with
    `console.session` and `console.caller`, then `commit()` once."""

    session: AsyncSession  # only through the services: import-linter's console contract
    caller: Caller
    clock: Clock
    settings: Settings
    request: Request
    token: str
    user_email: str
    form: dict[str, str] = field(default_factory=dict)
    _reading: AsyncSession | None = field(default=None, repr=False)

    @property
    def reading(self) -> AsyncSession:
        """A session for charts and exports, which read and decide nothing: on the read
        replica while it is fresh (kit/replica.py), else this request's own session."""
        database = self.request.app.state.database
        if database.replica is None:
            return self.session
        if self._reading is None:
            self._reading = database.reading_session()
        return self._reading

    async def close_reading(self) -> None:
        if self._reading is not None:
            await self._reading.close()

    @property
    def csrf_token(self) -> str:
        return csrf_token(self.token)

    @property
    def plugins(self) -> TransferPlugins:
        return self.request.app.state.transfer_plugins

    def now(self) -> datetime:
        return self.clock.now()

    async def commit(self) -> None:
        await self.session.commit()


async def read_form(request: Request) -> dict[str, str]:
    """An application/x-www-form-urlencoded body (the console's forms send no files)."""
    body = await request.body()
    if len(body) > form_bytes_max:
        raise ValidationFailed("form", f"is over {form_bytes_max} bytes")
    try:
        pairs = parse_qsl(body.decode("utf-8"), max_num_fields=form_fields_max)
    except (UnicodeDecodeError, ValueError):
        raise ValidationFailed("form", "is not a form this console sent") from None
    return dict(pairs)


def check_csrf(request: Request, form: dict[str, str], token: str) -> None:
    """A write carries the session's CSRF token in its form (plain forms) or in the
    X-Corridor-CSRF header (htmx requests, console.js adds it): a page of another site
    can make the browser send the cookie, never read the token."""
    sent = request.headers.get(CSRF_HEADER) or form.get(CSRF_FIELD, "")
    if not sent or not hmac.compare_digest(sent.encode(), csrf_token(token).encode()):
        raise CsrfTokenInvalid(
            "This form is missing its security token or it belongs to another session: "
            "reload the page and try again"
        )


async def _console(request: Request) -> AsyncIterator[Console]:
    state = request.app.state
    token = request.cookies.get(CONSOLE_SESSION_COOKIE, "")
    if not token:
        raise SignInRequired(expired=False)
    write = request.method not in SAFE_METHODS
    form = await read_form(request) if write else {}
    limiter: RateLimiter = state.rate_limiter
    async with state.database.session(write=write) as session:
        try:
            async with limiter.authentication_attempt(address=client_address(request.client)):
                caller = await auth_service.authenticate(
                    session,
                    credential=token,
                    key_environment=state.settings.key_environment,
                    now=state.clock.now(),
                )
            if not caller.is_console:
                raise Unauthorized()
            current = await auth_service.current_session(session, caller=caller, token=token)
        except Unauthorized:
            raise SignInRequired(expired=True) from None
        if write:
            check_csrf(request, form, token)
        console = Console(
            session=session,
            caller=caller,
            clock=state.clock,
            settings=state.settings,
            request=request,
            token=token,
            user_email=current.user.email,
            form=form,
        )
        try:
            yield console
        except BaseException:
            await session.rollback()
            raise
        finally:
            await console.close_reading()
        if session.in_transaction():
            await session.commit()


# scope="function": the unit of work ends (commits) before the page is sent.
ConsolePage = Annotated[Console, Depends(_console, scope="function")]
