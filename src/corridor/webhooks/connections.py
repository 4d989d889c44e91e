"""Pooled HTTP/1.1 connections for webhook attempts: one POST, the start of the answer.

An attempt needs little of HTTP: one POST with a small body over a kept-alive connection,
the status, `Retry-After` and the first few KiB of the answer. httpx spent most of a
delivery's CPU in its layers (URL and header objects, a pool that polls every connection's
socket on each request), so the worker writes the request in one send and reads the answer
with asyncio's streams here. Framing follows RFC 9112: no body for 1xx, 204 and 304; a
chunked or Content-Length body is read to its end when it is short (the connection is then
kept), a longer one or a body that ends with the connection closes it.

Connections are pooled per origin: host name, checked address, port and scheme, so a TLS
session or a kept connection is never shared between names that share an address.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from dataclasses import dataclass, field

# The status line and headers of an answer; longer is a protocol error.
answer_head_bytes_max = 64 * 1024
# Header lines of one answer (trailers of a chunked body count too).
answer_header_lines_max = 200
# Past the excerpt, up to this much more of a body is read so the connection can be kept.
drain_bytes_max = 64 * 1024
# Idle connections kept per origin, and for how long (receivers close idle ones too).
idle_connections_per_origin_max = 64
idle_s_max = 5.0
_NO_BODY_STATUSES = frozenset({204, 304})


class ConnectFailed(OSError):
    """No connection could be opened (refused, unreachable, TLS handshake failed)."""


class ProtocolError(Exception):
    """The answer is not HTTP/1.x as RFC 9112 frames it."""


class ConnectionLost(Exception):
    """The connection ended before the whole answer arrived."""


@dataclass(frozen=True, slots=True)
class Origin:
    scheme: str
    host: str  # the URL's host name: TLS name check and pool separation
    address: str  # the checked address the connection goes to
    port: int


@dataclass(frozen=True, slots=True)
class Answer:
    status_code: int
    retry_after: str | None
    excerpt: bytes


@dataclass(slots=True)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    idle_since: float = field(default_factory=time.monotonic)

    def usable(self, now: float) -> bool:
        return (
            not self.reader.at_eof()
            and not self.writer.transport.is_closing()
            and now - self.idle_since < idle_s_max
        )

    def close(self) -> None:
        self.writer.transport.abort()


class ConnectionPool:
    """Kept-alive connections per origin. Bounded by the caller's attempts in flight (each
    holds one connection at most) and, when idle, by `idle_connections_per_origin_max`."""

    def __init__(self, *, tls: ssl.SSLContext | None = None) -> None:
        self._tls = tls
        self._idle: dict[Origin, list[_Connection]] = {}

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()

    async def post(
        self,
        origin: Origin,
        *,
        host_header: str,
        path: str,
        headers: dict[str, str],
        body: bytes,
        excerpt_bytes_max: int,
    ) -> Answer:
        """POST `body`; the answer with at most `excerpt_bytes_max` bytes of its body.

        A kept connection the receiver closed meanwhile fails before any answer arrives:
        the request is then sent once more on a new connection (receivers de-duplicate by
        webhook-id; delivery is at least once anyway)."""
        request = _request_bytes(host_header, path, headers, body)
        connection = self._kept(origin)
        if connection is not None:
            try:
                return await self._exchange(origin, connection, request, excerpt_bytes_max)
            except _NOTHING_ANSWERED:
                pass
        connection = await self._open(origin)
        return await self._exchange(origin, connection, request, excerpt_bytes_max)

    async def _exchange(
        self, origin: Origin, connection: _Connection, request: bytes, excerpt_bytes_max: int
    ) -> Answer:
        reusable = False
        try:
            connection.writer.write(request)
            await connection.writer.drain()
            answer, reusable = await _read_answer(connection.reader, excerpt_bytes_max)
            return answer
        finally:
            if reusable:
                self._keep(origin, connection)
            else:
                connection.close()

    def _kept(self, origin: Origin) -> _Connection | None:
        connections = self._idle.get(origin)
        now = time.monotonic()
        while connections:
            connection = connections.pop()
            if connection.usable(now):
                return connection
            connection.close()
        return None

    def _keep(self, origin: Origin, connection: _Connection) -> None:
        connections = self._idle.setdefault(origin, [])
        if len(connections) >= idle_connections_per_origin_max:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        connections.append(connection)

    async def _open(self, origin: Origin) -> _Connection:
        secure = origin.scheme == "https"
        if secure and self._tls is None:
            self._tls = ssl.create_default_context()
        try:
            reader, writer = await asyncio.open_connection(
                origin.address,
                origin.port,
                ssl=self._tls if secure else None,
                server_hostname=origin.host if secure else None,
                limit=answer_head_bytes_max,
            )
        except OSError as error:
            raise ConnectFailed(str(error) or type(error).__name__) from error
        return _Connection(reader, writer)


class _NothingAnswered(ConnectionLost):
    """The connection closed before the first byte of an answer."""


_NOTHING_ANSWERED = (_NothingAnswered, ConnectionResetError, BrokenPipeError)


def _request_bytes(host_header: str, path: str, headers: dict[str, str], body: bytes) -> bytes:
    lines = [f"POST {_ascii_path(path)} HTTP/1.1", f"host: {host_header}"]
    lines.extend(f"{name}: {value}" for name, value in headers.items())
    lines.append(f"content-length: {len(body)}")
    head = "\r\n".join(lines) + "\r\n\r\n"
    return head.encode("ascii") + body


def _ascii_path(path: str) -> str:
    """The request target with non-ASCII characters percent-encoded as UTF-8 (URLs are
    checked for spaces and control characters when saved)."""
    if path.isascii():
        return path
    return "".join(
        character if character.isascii() else "".join(f"%{byte:02X}" for byte in character.encode())
        for character in path
    )


async def _read_answer(reader: asyncio.StreamReader, excerpt_bytes_max: int) -> tuple[Answer, bool]:
    """The answer and whether the connection may carry another request."""
    status, keep_alive, headers = await _read_final_head(reader)
    retry_after = headers.get("retry-after")
    if status in _NO_BODY_STATUSES:
        return Answer(status, retry_after, b""), keep_alive
    transfer_encoding = headers.get("transfer-encoding")
    if transfer_encoding is not None:
        if transfer_encoding.rsplit(",", 1)[-1].strip().lower() != "chunked":
            return Answer(
                status, retry_after, await _read_to_close(reader, excerpt_bytes_max)
            ), False
        excerpt, complete = await _read_chunked(reader, excerpt_bytes_max)
        return Answer(status, retry_after, excerpt), keep_alive and complete
    length = headers.get("content-length")
    if length is None:
        return Answer(status, retry_after, await _read_to_close(reader, excerpt_bytes_max)), False
    size = _content_length(length)
    if size > excerpt_bytes_max + drain_bytes_max:
        return Answer(status, retry_after, await _read_exactly(reader, excerpt_bytes_max)), False
    body = await _read_exactly(reader, size)
    return Answer(status, retry_after, body[:excerpt_bytes_max]), keep_alive


async def _read_final_head(reader: asyncio.StreamReader) -> tuple[int, bool, dict[str, str]]:
    """Skip interim (1xx) answers; the final status, keep-alive and headers (lower-case
    names; a repeated header's values joined with commas)."""
    first = True
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as error:
            if first and not error.partial:
                raise _NothingAnswered("the receiver closed the connection") from None
            raise ConnectionLost("the connection closed in the answer's headers") from None
        except asyncio.LimitOverrunError:
            raise ProtocolError("the answer's headers are too long") from None
        first = False
        version, status, headers = _parse_head(head)
        if not 100 <= status < 200:
            break
    tokens = {token.strip().lower() for token in headers.get("connection", "").split(",")}
    keep_alive = "keep-alive" in tokens if version == "HTTP/1.0" else "close" not in tokens
    return status, keep_alive, headers


def _parse_head(head: bytes) -> tuple[str, int, dict[str, str]]:
    lines = head[:-4].decode("latin-1").split("\r\n")
    if len(lines) > answer_header_lines_max:
        raise ProtocolError("the answer has too many header lines")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if version not in ("HTTP/1.1", "HTTP/1.0") or not (code.isdigit() and len(code) == 3):
        raise ProtocolError(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise ProtocolError(f"malformed header line: {line[:80]!r}")
        name = name.lower()
        value = value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return version, int(code), headers


def _content_length(value: str) -> int:
    # A repeated Content-Length with one value ("5, 5") is allowed; different values are not.
    values = {item.strip() for item in value.split(",")}
    if len(values) != 1 or not (size := values.pop()).isdigit():
        raise ProtocolError(f"invalid Content-Length: {value[:40]!r}")
    return int(size)


async def _read_exactly(reader: asyncio.StreamReader, size: int) -> bytes:
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise ConnectionLost("the connection closed in the answer's body") from None


async def _read_to_close(reader: asyncio.StreamReader, excerpt_bytes_max: int) -> bytes:
    """A body that ends with the connection: its start (the connection is closed after)."""
    collected = bytearray()
    while len(collected) < excerpt_bytes_max:
        chunk = await reader.read(excerpt_bytes_max - len(collected))
        if not chunk:
            break
        collected.extend(chunk)
    return bytes(collected)


async def _read_chunked(reader: asyncio.StreamReader, excerpt_bytes_max: int) -> tuple[bytes, bool]:
    """A chunked body's start, and whether it was read to its end (past the excerpt, at
    most `drain_bytes_max` more is read)."""
    excerpt = bytearray()
    total = 0
    try:
        while True:
            size_line = await reader.readuntil(b"\r\n")
            try:
                size = int(size_line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise ProtocolError("invalid chunk size") from None
            if size < 0:
                raise ProtocolError("invalid chunk size")
            if size == 0:
                await _skip_trailers(reader)
                return bytes(excerpt), True
            total += size
            if total > excerpt_bytes_max + drain_bytes_max:
                wanted = max(0, excerpt_bytes_max - len(excerpt))
                excerpt.extend(await reader.readexactly(min(size, wanted)))
                return bytes(excerpt), False
            chunk = await reader.readexactly(size + 2)
            if chunk[-2:] != b"\r\n":
                raise ProtocolError("a chunk does not end with CRLF")
            excerpt.extend(chunk[: max(0, min(size, excerpt_bytes_max - len(excerpt)))])
    except asyncio.IncompleteReadError:
        raise ConnectionLost("the connection closed in the answer's body") from None
    except asyncio.LimitOverrunError:
        raise ProtocolError("a chunk size line is too long") from None


async def _skip_trailers(reader: asyncio.StreamReader) -> None:
    for _ in range(answer_header_lines_max):
        if await reader.readuntil(b"\r\n") == b"\r\n":
            return
    raise ProtocolError("the answer has too many trailer lines")
