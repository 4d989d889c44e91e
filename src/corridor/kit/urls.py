"""Outbound URLs: the SSRF guard for every request Corridor sends to an address someone else
chose (webhook endpoints, API.md section 7; OAuth client ID metadata documents, docs/mcp.md).

Production takes https only, and refuses every address that is not public: private,
loopback, link-local (cloud metadata), shared/CGNAT, unique-local, multicast, reserved,
unspecified, and IPv6 forms that embed one of those (IPv4-mapped, NAT64, 6to4, Teredo).
A host is read the way resolvers read it: one whose last label is a number is an IPv4
address in any of inet_aton's forms (`2130706433`, `0x7f000001`, `017700000001`,
`0177.0.0.1`, `127.1`, `0`), judged as that address, and refused when it is not a valid
one. The sandbox also
takes http and loopback so a receiver on the developer's machine works. The check runs
when an endpoint is saved and again at every attempt, after DNS resolution, and the
request then goes to the address that was checked (no second lookup to rebind).
Everything here is pure except `resolve`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

url_chars_max = 2048
# Addresses tried per attempt when a name resolves to several.
addresses_tried_max = 3

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]

_SHARED_ADDRESS_SPACE = ipaddress.ip_network("100.64.0.0/10")  # RFC 6598, carrier-grade NAT
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_LOCAL_NAMES = ("localhost", "localhost.localdomain")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class UrlRefused(ValueError):
    """The URL may not be requested (a webhook sent to it, a document fetched from it); the
    message says why, for the API client."""


class HostNotResolved(OSError):
    """The host name has no address right now (an attempt fails and is retried)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL, split into what the request needs."""

    scheme: str
    host: str  # lower case, IDNA-encoded; an IPv6 literal without brackets
    port: int
    path_and_query: str
    address: IPAddress | None  # set when the URL names an IP address itself

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"

    def url_for(self, address: IPAddress) -> str:
        """The URL that reaches this target at one checked address."""
        host = f"[{address}]" if address.version == 6 else str(address)
        return f"{self.scheme}://{host}:{self.port}{self.path_and_query}"


def parse(url: str, *, sandbox: bool) -> Target:
    """Check a URL's shape and any address it names; raise UrlRefused with the reason."""
    if len(url) > url_chars_max:
        raise UrlRefused(f"must be at most {url_chars_max} characters")
    if any(character.isspace() or ord(character) < 32 for character in url):
        raise UrlRefused("must not contain spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise UrlRefused(f"is not a valid URL ({error})") from None
    allowed = ("http", "https") if sandbox else ("https",)
    if parts.scheme not in allowed:
        raise UrlRefused("must be an https URL" if not sandbox else "must be an http(s) URL")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("must not carry credentials; deliveries are signed instead")
    if parts.fragment or url.endswith("#"):
        raise UrlRefused("must not have a #fragment")
    host = _normalised_host(parts.hostname or "")
    address = _literal_address(host)
    if address is not None:
        _refuse_address(address, sandbox=sandbox)
    elif not sandbox and (host in _LOCAL_NAMES or host.endswith(".localhost")):
        raise UrlRefused(f"must not point at {host}")
    return Target(
        scheme=parts.scheme,
        host=host,
        port=port or _DEFAULT_PORTS[parts.scheme],
        path_and_query=(parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
        address=address,
    )


def _normalised_host(host: str) -> str:
    """The host as a resolver sees it: an IPv6 literal, an IPv4 address in dotted-quad form
    (whatever form it was written in), or an IDNA-encoded lower-case name."""
    if not host:
        raise UrlRefused("must name a host")
    host = host.rstrip(".").lower()
    if _literal_address(host) is not None and ":" in host:
        return host
    try:
        encoded = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise UrlRefused("has a host name that is not valid") from None
    labels = encoded.split(".")
    if _ends_in_a_number(labels):
        return str(_ipv4_of_numeric_host(labels))
    if not all(0 < len(label) <= 63 for label in labels) or len(encoded) > 253:
        raise UrlRefused("has a host name that is not valid")
    if not all(all(c.isalnum() or c in "-_" for c in label) for label in labels):
        raise UrlRefused("has a host name that is not valid")
    return encoded


def _ends_in_a_number(labels: list[str]) -> bool:
    """Whether resolvers read this host as an IPv4 address (WHATWG URL "ends in a number"):
    its last label is a decimal, 0x-hex or 0-octal number. `2130706433`, `127.1`,
    `0x7f000001`, `0177.0.0.1` and `0` all are; `1e100.net` is a name."""
    last = labels[-1]
    return bool(last) and (last.isdigit() or _ipv4_number(last) is not None)


def _ipv4_number(label: str) -> int | None:
    """A label as inet_aton reads it: 0x… hexadecimal, 0… octal, else decimal."""
    if label[:2] in ("0x", "0X"):
        digits, base = label[2:], 16
        if not digits:
            return 0
    elif len(label) > 1 and label.startswith("0"):
        digits, base = label[1:], 8
    else:
        digits, base = label, 10
    if not digits or not all(c in "0123456789abcdef"[:base] for c in digits.lower()):
        return None
    return int(digits, base)


def _ipv4_of_numeric_host(labels: list[str]) -> ipaddress.IPv4Address:
    """The address of a host written in any of inet_aton's forms: one to four numbers, the
    last one filling the remaining bytes (`127.1` is 127.0.0.1, `2130706433` too)."""
    numbers = [_ipv4_number(label) for label in labels] if len(labels) <= 4 else [None]
    if any(number is None for number in numbers):
        raise UrlRefused("has a host that looks like an IPv4 address but is not a valid one")
    values = [number for number in numbers if number is not None]
    *leading, last = values
    if any(value > 255 for value in leading) or last >= 256 ** (5 - len(values)):
        raise UrlRefused("has a host that looks like an IPv4 address but is not a valid one")
    packed = last
    for position, value in enumerate(leading):
        packed += value << (8 * (3 - position))
    return ipaddress.IPv4Address(packed)


def _literal_address(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def address_problem(address: IPAddress, *, sandbox: bool) -> str | None:
    """Why an address may not be requested, or None when it may."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address_problem(address.ipv4_mapped, sandbox=sandbox)
    if isinstance(address, ipaddress.IPv6Address) and address in _NAT64:
        # DNS64 networks reach every IPv4 host this way: judge the host, never as loopback.
        return address_problem(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF), sandbox=False)
    for tunnelled in _tunnelled_ipv4(address):
        # Reached through a relay or gateway: never the sandbox's own loopback.
        problem = address_problem(tunnelled, sandbox=False)
        if problem is not None:
            return problem
    if address.is_loopback:
        return None if sandbox else "loopback"
    if address.is_link_local:
        return "link-local"
    if address.version == 4 and address in _SHARED_ADDRESS_SPACE:
        return "shared (carrier-grade NAT)"
    if address.is_multicast:
        return "multicast"
    if address.is_unspecified:
        return "unspecified"
    if address.is_private:
        return "private"
    if address.is_reserved or not address.is_global:
        return "reserved"
    return None


def _tunnelled_ipv4(address: IPAddress) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address reaches through 6to4 or Teredo, if any."""
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    embedded = [address.sixtofour]
    if address.teredo is not None:
        embedded.extend(address.teredo)
    return [item for item in embedded if item is not None]


def _refuse_address(address: IPAddress, *, sandbox: bool, host: str | None = None) -> None:
    problem = address_problem(address, sandbox=sandbox)
    if problem is not None:
        named = f"{host} resolves to {address}" if host else f"{address}"
        article = "an" if problem[0] in "aeiou" else "a"
        raise UrlRefused(f"must not point at {article} {problem} address ({named})")


async def resolve(host: str, port: int) -> list[IPAddress]:
    """The addresses a host name resolves to, in the resolver's order, without repeats."""
    found = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    addresses: list[IPAddress] = []
    for _family, _type, _proto, _name, socket_address in found:
        # An IPv6 scope ("fe80::1%eth0") is dropped; such addresses are refused anyway.
        address = ipaddress.ip_address(str(socket_address[0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


async def checked_addresses(
    target: Target, *, sandbox: bool, resolver: Resolver = resolve
) -> Sequence[IPAddress]:
    """The addresses to send to, every one allowed; UrlRefused if any is not (a name that
    also resolves to a private address is refused whole, never half-used)."""
    if target.address is not None:
        _refuse_address(target.address, sandbox=sandbox)
        return [target.address]
    try:
        addresses = await resolver(target.host, target.port)
    except OSError as error:
        raise HostNotResolved(f"host {target.host} does not resolve ({error})") from None
    if not addresses:
        raise HostNotResolved(f"host {target.host} does not resolve")
    for address in addresses:
        _refuse_address(address, sandbox=sandbox, host=target.host)
    return addresses[:addresses_tried_max]
