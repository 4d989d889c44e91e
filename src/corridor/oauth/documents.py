"""Fetching a client ID metadata document: the one request Corridor's authorization server
sends to an address a stranger chose (the client_id), so it goes through the outbound URL
guard (kit/urls.py) the way a webhook does: https only, every address the name resolves to
checked (loopback only in the sandbox), the request sent to the checked address with the
URL's host for TLS and Host, no proxy, no redirect followed, one timeout for the whole of it
(DNS included) and a bound on the size of the answer."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import httpx

from corridor import __version__
from corridor.kit import urls
from corridor.oauth import rules

USER_AGENT = f"Corridor-OAuth/{__version__}"
JSON_TYPES = ("application/json",)


class DocumentUnavailable(Exception):
    """The document could not be fetched, or not used; the message says why."""


@dataclass(frozen=True, slots=True)
class FetchedDocument:
    body: bytes
    cache_control: str | None


Fetch = Callable[[str], Awaitable[FetchedDocument]]


def fetcher(
    *,
    sandbox: bool,
    resolver: urls.Resolver = urls.resolve,
    timeout_s: float = rules.client_document_fetch_s,
    bytes_max: int = rules.client_document_bytes_max,
) -> Fetch:
    async def fetch(url: str) -> FetchedDocument:
        return await fetch_document(
            url, sandbox=sandbox, resolver=resolver, timeout_s=timeout_s, bytes_max=bytes_max
        )

    return fetch


async def fetch_document(
    url: str,
    *,
    sandbox: bool,
    resolver: urls.Resolver = urls.resolve,
    timeout_s: float = rules.client_document_fetch_s,
    bytes_max: int = rules.client_document_bytes_max,
) -> FetchedDocument:
    """GET the document; DocumentUnavailable with the reason when that fails or is refused."""
    problem = rules.client_document_url_problem(url)
    if problem is not None:
        raise DocumentUnavailable(f"the client_id {problem}")
    try:
        target = urls.parse(url, sandbox=sandbox)
        async with asyncio.timeout(timeout_s):
            addresses = await urls.checked_addresses(target, sandbox=sandbox, resolver=resolver)
            return await _get(target, addresses, timeout_s=timeout_s, bytes_max=bytes_max)
    except urls.UrlRefused as refused:
        raise DocumentUnavailable(f"the client_id URL {refused}") from None
    except urls.HostNotResolved as error:
        raise DocumentUnavailable(str(error)) from None
    except TimeoutError:
        raise DocumentUnavailable(f"no answer within {timeout_s:g} s") from None
    except httpx.HTTPError as error:
        raise DocumentUnavailable(f"could not fetch it ({type(error).__name__})") from None


async def _get(
    target: urls.Target,
    addresses: Sequence[urls.IPAddress],
    *,
    timeout_s: float,
    bytes_max: int,
) -> FetchedDocument:
    # The system's trust store (SSL_CERT_FILE where set), as webhook deliveries use.
    tls = ssl.create_default_context()
    headers = {
        "Host": target.host_header,
        "Accept": "application/json",
        # Read as sent: a compressed answer could grow past the bound once inflated.
        "Accept-Encoding": "identity",
        "User-Agent": USER_AGENT,
    }
    last_error: httpx.HTTPError | None = None
    async with httpx.AsyncClient(
        verify=tls, trust_env=False, follow_redirects=False, timeout=timeout_s
    ) as http:
        for address in addresses:
            try:
                async with http.stream(
                    "GET",
                    target.url_for(address),
                    headers=headers,
                    extensions={"sni_hostname": target.host},
                ) as answer:
                    return await _read(answer, bytes_max)
            except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                last_error = error
                continue
    assert last_error is not None
    raise last_error


async def _read(answer: httpx.Response, bytes_max: int) -> FetchedDocument:
    if answer.status_code != 200:
        raise DocumentUnavailable(f"its URL answered HTTP {answer.status_code}, not 200")
    media_type = answer.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type not in JSON_TYPES:
        raise DocumentUnavailable(f"its URL answered {media_type or 'no'} content type, not JSON")
    declared = answer.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > bytes_max:
        raise DocumentUnavailable(f"it is larger than {bytes_max} bytes")
    body = bytearray()
    async for chunk in answer.aiter_raw():
        body.extend(chunk)
        if len(body) > bytes_max:
            raise DocumentUnavailable(f"it is larger than {bytes_max} bytes")
    return FetchedDocument(bytes(body), answer.headers.get("cache-control"))
