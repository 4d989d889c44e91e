"""OAuth 2.1's rules for MCP clients, pure: PKCE (S256 only), which redirect URIs a client may
register, the resource indicator (RFC 8707), scopes, and the states of requests and grants."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from enum import StrEnum
from urllib.parse import urlsplit

from corridor.auth.scopes import AGENT_KEY_SCOPES, scope_named
from corridor.auth.secrets import OAUTH_ACCESS_TOKEN_PREFIX

# What a token looks like, so /mcp knows an OAuth access token from an API key at a glance.
ACCESS_TOKEN_PREFIX = OAUTH_ACCESS_TOKEN_PREFIX
REFRESH_TOKEN_PREFIX = "mcp_rt_"
CODE_PREFIX = "mcp_ac_"
CLIENT_SECRET_PREFIX = "mcp_cs_"
# The path of the MCP server on this host: the resource its tokens are for is base URL + it.
MCP_PATH = "/mcp"
# Clients commonly ask for it (OpenID's name for "give me a refresh token"); every grant
# here gets a refresh token, so it is accepted and dropped.
OFFLINE_ACCESS = "offline_access"
PKCE_METHOD = "S256"

# RFC 7636 section 4.1: 43 to 128 characters of the unreserved set.
_CODE_VERIFIER = re.compile(r"^[A-Za-z0-9._~-]{43,128}$")
# base64url of a SHA-256 digest, without padding: 43 characters.
_CODE_CHALLENGE = re.compile(r"^[A-Za-z0-9_-]{43}$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*$")
# Schemes a browser would run or read locally instead of handing to an app.
_UNSAFE_SCHEMES = frozenset(
    {"javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "view-source"}
)
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})

redirect_uri_chars_max = 2000
redirect_uris_max = 10
state_chars_max = 500
client_name_chars_max = 200
# How long an owner has to give consent, and how long the code it gives is good for
# (RFC 6749 section 4.1.2 recommends at most 10 minutes).
consent_lifetime_s = 600
code_lifetime_s = 300
# A registered client no grant was ever made for is forgotten after a week.
unused_client_lifetime_s = 7 * 24 * 60 * 60
# Rows past their expiry deleted per request that writes (a bound on every clean-up).
expired_rows_deleted_max = 100


class AuthorizationStatus(StrEnum):
    PENDING = "PENDING"
    APPROVED = "APPROVED"
    DENIED = "DENIED"
    USED = "USED"


class TokenKind(StrEnum):
    ACCESS = "ACCESS"
    REFRESH = "REFRESH"


class RevokedReason(StrEnum):
    BY_OWNER = "revoked_by_owner"
    BY_CLIENT = "revoked_by_client"
    # A refresh token presented again after it was rotated: someone else holds a copy.
    REFRESH_TOKEN_REUSED = "refresh_token_reused"
    # An authorization code presented again (RFC 6749 section 4.1.2).
    CODE_REUSED = "code_reused"


class ClientAuthentication(StrEnum):
    """How a client proves itself at the token and revocation endpoints."""

    NONE = "none"  # a public client: PKCE alone
    SECRET_BASIC = "client_secret_basic"
    SECRET_POST = "client_secret_post"


GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})


def pkce_challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def is_code_challenge(challenge: str) -> bool:
    return bool(_CODE_CHALLENGE.fullmatch(challenge))


def is_code_verifier(verifier: str) -> bool:
    return bool(_CODE_VERIFIER.fullmatch(verifier))


def pkce_matches(verifier: str, challenge: str) -> bool:
    """RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge, compared in
    constant time; a verifier outside the RFC's alphabet or length never matches."""
    if not is_code_verifier(verifier):
        return False
    return hmac.compare_digest(pkce_challenge(verifier).encode(), challenge.encode())


def redirect_uri_problem(uri: str) -> str | None:
    """Why a client may not register this redirect URI (OAuth 2.1 section 2.3, RFC 8252):
    https anywhere, http only to the loopback interface, or an app's own scheme; never a
    fragment, user information, or a scheme a browser runs itself."""
    if len(uri) > redirect_uri_chars_max:
        return f"at most {redirect_uri_chars_max} characters"
    if any(character.isspace() or ord(character) < 0x20 for character in uri):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "is not a URI"
    scheme = parts.scheme.lower()
    if not scheme or not _SCHEME.fullmatch(scheme):
        return "must be an absolute URI"
    if parts.fragment or "#" in uri:
        return "must not have a fragment"
    if scheme in _UNSAFE_SCHEMES:
        return f"the {scheme}: scheme is not allowed"
    if scheme in ("http", "https"):
        try:
            host = parts.hostname
        except ValueError:
            return "is not a URI"
        if not host:
            return "must name a host"
        if parts.username is not None or parts.password is not None:
            return "must not carry user information"
        if scheme == "http" and host not in _LOOPBACK_HOSTS:
            return "http is allowed only to the loopback interface (127.0.0.1, [::1], localhost)"
    return None


def canonical_resource(uri: str) -> str | None:
    """The resource indicator in the form tokens are bound to (RFC 8707): absolute, no
    fragment, scheme and host in lower case, no trailing slash; None when it is not one."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or parts.fragment:
        return None
    if "#" in uri or any(character.isspace() for character in uri):
        return None
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{path}{query}"


def base_url_of(public_base_url: str | None, request_base_url: str) -> str:
    """This server's address as clients reach it: the configured public base URL, or the
    request's own (scheme, host and port) when none is set. Issuer and resource follow it."""
    return (public_base_url or request_base_url).rstrip("/")


def mcp_resource(base_url: str) -> str:
    """The resource this server's MCP endpoint is: `<base URL>/mcp`, canonical."""
    resource = canonical_resource(base_url.rstrip("/") + MCP_PATH)
    assert resource is not None, base_url
    return resource


def scope_words(scope: str | None) -> list[str]:
    """The scope parameter's words (space-separated, RFC 6749 section 3.3), without
    duplicates or offline_access, in the order sent."""
    words: list[str] = []
    for word in (scope or "").split(" "):
        if word and word != OFFLINE_ACCESS and word not in words:
            words.append(word)
    return words


def unknown_scopes(words: list[str]) -> list[str]:
    return [word for word in words if scope_named(word) is None]


def agent_may_hold(scopes: list[str]) -> list[str]:
    """Of these scopes, those an agent's grant cannot hold (spec 5.4: an agent's four)."""
    return [scope for scope in scopes if scope not in AGENT_KEY_SCOPES]


def scope_text(scopes: list[str]) -> str:
    return " ".join(scopes)


# --- Client ID metadata documents (MCP authorization 2025-11-25; draft-ietf-oauth-client-id-
# metadata-document) ------------------------------------------------------------------------

# A document bigger than this is refused (the draft suggests 5 KB); the fetch, DNS included,
# gets this long.
client_document_bytes_max = 5 * 1024
client_document_fetch_s = 5.0
# How long a fetched document is used before it is fetched again: the answer's max-age,
# held between these bounds (so a document is never fetched more than once a minute, nor
# trusted for more than a day), or the default when the answer says nothing.
client_document_cache_s_min = 60
client_document_cache_s_max = 24 * 60 * 60
client_document_cache_s_default = 60 * 60
# Members a client ID metadata document must not have: it is public, so it holds no secret.
CLIENT_DOCUMENT_FORBIDDEN = ("client_secret", "client_secret_expires_at")
_MAX_AGE = re.compile(r"(?:^|,)\s*(?:s-)?max-age\s*=\s*\"?(\d{1,10})\"?\s*(?:,|$)", re.IGNORECASE)
_NO_STORE = re.compile(r"(?:^|,)\s*(?:no-store|no-cache)\s*(?:,|$)", re.IGNORECASE)


def is_client_document_url(client_id: str) -> bool:
    """Whether a client_id names a client ID metadata document (a URL) rather than a client
    registered here (`ocl_…`)."""
    return client_id[:8].lower().startswith(("https://", "http://"))


def client_document_url_problem(url: str) -> str | None:
    """Why a client_id cannot be a client ID metadata document URL: it must be https, with a
    path (not the root), and no fragment, user information or dot segments."""
    if len(url) > redirect_uri_chars_max:
        return f"must be at most {redirect_uri_chars_max} characters"
    if any(character.isspace() or ord(character) < 0x20 for character in url):
        return "must not contain spaces or control characters"
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "is not a URL"
    if parts.scheme != "https":
        return "must be an https URL"
    if not host:
        return "must name a host"
    if parts.username is not None or parts.password is not None:
        return "must not carry user information"
    if parts.fragment or "#" in url:
        return "must not have a fragment"
    if parts.path in ("", "/"):
        return "must have a path (the document's), not the site's root"
    if any(segment in (".", "..") for segment in parts.path.split("/")):
        return "must not have . or .. path segments"
    return None


def client_document_cache_s(cache_control: str | None) -> int:
    """How long a fetched document is used (see the bounds above)."""
    if cache_control is not None:
        if _NO_STORE.search(cache_control):
            return client_document_cache_s_min
        found = _MAX_AGE.search(cache_control)
        if found is not None:
            return max(
                client_document_cache_s_min, min(int(found.group(1)), client_document_cache_s_max)
            )
    return client_document_cache_s_default


def client_document_problem(document: object, url: str) -> str | None:
    """Why a fetched document cannot describe the client `url` names (its other members are
    checked as a registration's are)."""
    if not isinstance(document, dict):
        return "is not a JSON object"
    if document.get("client_id") != url:
        return "has a client_id that is not the URL it was fetched from"
    forbidden = [name for name in CLIENT_DOCUMENT_FORBIDDEN if name in document]
    if forbidden:
        return f"must not have {', '.join(forbidden)} (a metadata document is public)"
    method = document.get("token_endpoint_auth_method")
    if method not in (None, ClientAuthentication.NONE.value):
        return (
            f"token_endpoint_auth_method {method!r} is not supported for a metadata document "
            "client: use none (a public client, PKCE alone)"
        )
    return None
