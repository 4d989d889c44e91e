"""`POST /v1/transfers` the express way (transfers/express), in front of the app.

An ASGI layer inside RequestMiddleware (request id, body limit, access log): a
create+submit it can take is answered here in one statement (two when its rows were not
read lately); any other request, and any request the express path declines, reaches the
app exactly as it came, body included, and is answered by the general path
(`endpoints.create_transfer`), the one the OpenAPI document describes. The express path
answers what the general path would: the same 201 body, the same rate limiting and the
same stored Idempotency-Key answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import asyncpg
import orjson
from fastapi.security.utils import get_authorization_scheme_param
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.datastructures import Address
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from corridor.auth import service as auth
from corridor.auth.callers import Caller, CallerKind
from corridor.auth.secrets import hash_secret, is_agent_key_secret
from corridor.config import Settings
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.errors import CorridorError, ServiceUnavailable
from corridor.kit.logging import get_logger
from corridor.transfers.express import statements
from corridor.transfers.express.known import KnownReads
from corridor.transfers.express.statements import Written
from corridor.transfers.express.submit import NotExpress, Wanted, create_and_submit, wanted
from corridor.transfers.plugins import TransferPlugins
from corridor.transfers.schemas.requests import TransferCreate
from corridor.web import idempotency
from corridor.web.authentication import ON_BEHALF_OF_HEADER, ORGANIZATION_HEADER
from corridor.web.context import IDEMPOTENCY_HEADER
from corridor.web.errors import RateLimited, database_unavailable, error_response
from corridor.web.ratelimits import REQUEST_STATE_KEY, RateLimiter, client_address
from corridor.web.replay import replayed

PATH = "/v1/transfers"
logger = get_logger("corridor.express")
_IDEMPOTENCY_KEY = IDEMPOTENCY_HEADER.lower().encode()
_DECLINING_HEADERS = frozenset(
    name.lower().encode() for name in (ORGANIZATION_HEADER, ON_BEHALF_OF_HEADER)
)


@dataclass(frozen=True, slots=True)
class HandOn:
    """The request goes the general way, for this reason (logged at debug level)."""

    reason: str


@dataclass
class ExpressTally:
    """Of the create+submits this process saw: answered the express way, handed on to the
    general way (outside the express case, or refused by a rule); and the reads sent."""

    answered: int = 0
    handed_on: int = 0
    # Reads sent: a create+submit naming rows read lately sends none (express/known.py).
    reads: int = 0


class ExpressCreateSubmit:
    """The express create+submit in front of `app` (PostgreSQL; `express_submit` on)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        database: Database,
        clock: Clock,
        settings: Settings,
        plugins: TransferPlugins,
        rate_limiter: RateLimiter,
        tally: ExpressTally,
    ) -> None:
        self.app = app
        self.tally = tally
        self.known = KnownReads()
        self.database = database
        self.clock = clock
        self.settings = settings
        self.plugins = plugins
        self.rate_limiter = rate_limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or scope["path"] != PATH
            # A body of declared length only: RequestMiddleware has bounded it already.
            or not any(name == b"content-length" for name, _ in scope["headers"])
        ):
            await self.app(scope, receive, send)
            return
        body = await _body(receive)
        if body is None:  # the client went away mid-body
            return
        answer = await self._answer(scope, body)
        if isinstance(answer, HandOn):
            self.tally.handed_on += 1
            logger.debug("express_handed_on", reason=answer.reason)
            await self.app(scope, replayed(body, receive), send)
            return
        self.tally.answered += 1
        await answer(scope, receive, send)

    async def _answer(self, scope: Scope, body: bytes) -> Response | HandOn:
        """The express answer, or why the request goes the general way."""
        headers = _headers(scope)
        credential = _bearer(headers)
        idempotency_key = headers.get(_IDEMPOTENCY_KEY)
        if (
            credential is None
            # An agent's key is never served here: nothing is read for it.
            or is_agent_key_secret(credential)
            or _DECLINING_HEADERS & headers.keys()
            or not headers.get(b"content-type", b"").startswith(b"application/json")
            or (
                idempotency_key is not None
                and not 1 <= len(idempotency_key) <= idempotency.idempotency_key_chars_max
            )
        ):
            return HandOn("the headers: another credential, caller or content type")
        try:
            # orjson refuses some bodies Python's json reads (a byte-order mark, NaN, an
            # unpaired surrogate): they go the general way, which answers them. An integer
            # past 64 bits it reads as the float json's would become: only floats take one.
            data = TransferCreate.model_validate(orjson.loads(body))
            names = wanted(data)
            auth.check_key_environment(credential, self.settings.key_environment)
        except (ValueError, ValidationError, NotExpress, CorridorError) as declined:
            return HandOn(_reason("the body or key", declined))
        key = idempotency_key.decode("latin-1") if idempotency_key is not None else None
        try:
            async with self.rate_limiter.authentication_attempt(address=_address(scope)):
                return await self._create_and_submit(scope, body, credential, data, names, key)
        except RateLimited as refused:
            return error_response(refused)
        except (PoolTimeout, DBAPIError) as failure:
            unavailable = database_unavailable(failure)
            if unavailable is None:
                return HandOn(_reason("a database error", failure))
            return error_response(unavailable)

    async def _create_and_submit(
        self,
        scope: Scope,
        body: bytes,
        credential: str,
        data: TransferCreate,
        names: Wanted,
        idempotency_key: str | None,
    ) -> Response | HandOn:
        secret_hash = hash_secret(credential)
        async with self.database.held_connection() as raw:
            driver: asyncpg.Connection = raw.driver_connection
            read = self.known.get(secret_hash, names)
            if read is None:
                self.tally.reads += 1
                try:
                    read = await statements.read(driver, secret_hash=secret_hash, wanted=names)
                except Exception as failure:  # nothing written: the general way answers
                    if not isinstance(failure, asyncpg.PostgresError) or isinstance(
                        failure, asyncpg.PostgresConnectionError
                    ):
                        raw.invalidate(failure)
                    return HandOn(_reason("the read failed", failure))
                if read is None:
                    return HandOn("no such key")
            caller = _caller(read.key, secret_hash)
            if caller is None:
                return HandOn("not a live organization key of a standard organization")
            now = self.clock.now()
            try:
                submitted = create_and_submit(
                    caller=caller, data=data, found=read.found, plugins=self.plugins, now=now
                )
            except NotExpress as declined:
                # Kept all the same: the next such request (the same payout to a
                # counterparty) is handed on without a read. Nothing is written from a
                # kept read unchecked, so a stale one only hands a request on.
                self.known.keep(secret_hash, names, read)
                return HandOn(_reason("the rules", declined))
            except CorridorError as declined:
                return HandOn(_reason("the rules", declined))
            answer = submitted.answer
            window = await self.rate_limiter.hit_request_of(
                caller, configuration=read.key.configuration
            )
            # Counted once: the general way, if it takes the request now, does not count it again.
            scope.setdefault("state", {})[REQUEST_STATE_KEY] = window
            kept = self._kept_answer(caller, body, idempotency_key, answer, now=now)
            try:
                written = await statements.write(
                    driver, submitted, read=read, kept_answer=kept, now=now
                )
            except asyncpg.PostgresError as failure:
                if isinstance(failure, asyncpg.PostgresConnectionError):
                    raw.invalidate(failure)
                    return _lost()
                # Refused by the database (the Idempotency-Key taken): nothing written.
                return HandOn(_reason("the write failed", failure))
            except (OSError, asyncpg.InterfaceError) as failure:
                raw.invalidate(failure)
                return _lost()
        if written is Written.STALE:
            self.known.forget(secret_hash, names)
            return HandOn("a row changed since it was read")
        if written is Written.HOLD_REFUSED:
            return HandOn("the hold was refused")  # the general way says why
        self.known.keep(secret_hash, names, read)
        # Answered here, not handed on: the request log names its caller (web/middleware.py).
        scope.setdefault("state", {})["caller"] = caller
        return Response(answer, status_code=201, media_type="application/json")

    def _kept_answer(
        self,
        caller: Caller,
        body: bytes,
        idempotency_key: str | None,
        answer: str,
        *,
        now: Any,
    ) -> Any:
        if idempotency_key is None:
            return None
        use = idempotency.KeyUse(
            organization_id=caller.organization_id,
            key=idempotency_key,
            request_fingerprint=idempotency.fingerprint(
                "POST", PATH, body, caller=f"{caller.actor_id} {caller.customer_id or ''}"
            ),
            now=now,
            lifetime_s=self.settings.idempotency_key_lifetime_s,
        )
        return idempotency.completed_record(use, status=201, body=answer)


def _caller(key: statements.KeyRow, secret_hash: str) -> Caller | None:
    """The organization key's caller (None: revoked, an agent's key, a platform's key)."""
    if key.kind != "ORGANIZATION" or not auth.is_live_key(
        key.secret_hash, key.revoked_at, secret_hash
    ):
        return None
    caller = auth.organization_key_caller(
        key_id=key.key_id,
        organization_id=key.organization_id,
        organization_kind=key.organization_kind,
        scopes=key.scopes,
    )
    return caller if caller.kind is CallerKind.ORGANIZATION_KEY else None


def _reason(what: str, error: Exception) -> str:
    """Why a request was handed on, for the debug log: our own refusals' words, only the
    kind of anything else (a validation error or a database one quotes what was sent)."""
    detail = str(error) if isinstance(error, NotExpress | CorridorError) else type(error).__name__
    return f"{what}: {detail}"[:200]


def _lost() -> Response:
    """The connection broke while the write ran: whether it committed is unknown, so the
    client is told to retry (safely, with its Idempotency-Key)."""
    return error_response(ServiceUnavailable("The database connection was lost; retry shortly"))


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lower-case name; the first of repeated ones, as Starlette."""
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        found.setdefault(name, value)
    return found


def _bearer(headers: dict[bytes, bytes]) -> str | None:
    """`Authorization: Bearer <credential>` as FastAPI's HTTPBearer reads it."""
    authorization = headers.get(b"authorization")
    if authorization is None:
        return None
    scheme, credential = get_authorization_scheme_param(authorization.decode("latin-1"))
    if scheme.lower() != "bearer" or not credential:
        return None
    return credential


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return client_address(Address(*client) if client else None)


async def _body(receive: Receive) -> bytes | None:
    """The whole body (RequestMiddleware bounds it), or None when the client disconnected."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)
