"""OAuth's errors. The protocol endpoints (/oauth/…) answer in both shapes at once: RFC 6749's
`error` and `error_description`, which OAuth clients read, and API.md's `code`, `message` and
`requestId` (docs/decisions.md, "OAuth 2.1 for MCP clients")."""

from __future__ import annotations

from corridor.kit.errors import CorridorError


class OAuthError(CorridorError):
    """An error of the OAuth protocol (RFC 6749 section 5.2, RFC 7591 section 3.2.2)."""

    status = 400

    def __init__(self, description: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(
            description,
            extra={"error": self.code, "error_description": description},
            headers={"Cache-Control": "no-store", "Pragma": "no-cache", **(headers or {})},
        )


class InvalidRequest(OAuthError):
    code = "invalid_request"


class InvalidClient(OAuthError):
    """The client is unknown or failed to authenticate (401; RFC 6749 section 5.2)."""

    status, code = 401, "invalid_client"

    def __init__(self, description: str, *, basic: bool = False) -> None:
        # A client that tried HTTP Basic is told which scheme the endpoint takes.
        challenge = {"WWW-Authenticate": 'Basic realm="corridor"'} if basic else None
        super().__init__(description, headers=challenge)


class InvalidGrant(OAuthError):
    code = "invalid_grant"


class UnauthorizedClient(OAuthError):
    code = "unauthorized_client"


class UnsupportedGrantType(OAuthError):
    code = "unsupported_grant_type"


class InvalidScope(OAuthError):
    code = "invalid_scope"


class InvalidTarget(OAuthError):
    """RFC 8707 section 2: the resource is not this server's MCP endpoint."""

    code = "invalid_target"


class InvalidClientMetadata(OAuthError):
    code = "invalid_client_metadata"


class InvalidRedirectUri(OAuthError):
    code = "invalid_redirect_uri"


class AuthorizationRefused(OAuthError):
    """An authorization request refused after its client and redirect URI were found good:
    the answer goes back to the client's redirect URI (RFC 6749 section 4.1.2.1)."""

    def __init__(
        self,
        code: str,
        description: str,
        *,
        redirect_uri: str,
        state: str | None,
        issuer: str,
    ) -> None:
        self.code = code
        super().__init__(description)
        self.redirect_uri = redirect_uri
        self.state = state
        self.issuer = issuer


class AuthorizationClosed(CorridorError):
    """The consent page of a request that was answered already, or waited too long."""

    status, code = 409, "authorization_request_closed"

    def __init__(self) -> None:
        super().__init__(
            "This authorization request was already answered or has expired: start "
            "connecting again from your app"
        )


class InvalidToken(CorridorError):
    """/mcp with an OAuth access token that is unknown, expired, revoked or for another
    resource: 401, and WWW-Authenticate says `invalid_token` (RFC 6750 section 3.1)."""

    status, code = 401, "unauthorized"

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


class InsufficientScope(CorridorError):
    """/mcp: the tool needs a scope the grant does not hold; the client may ask its owner
    for it (step-up, RFC 6750 section 3.1)."""

    status, code = 403, "insufficient_scope"

    def __init__(self, scope: str, tool: str) -> None:
        super().__init__(
            f"The tool {tool!r} needs the scope {scope!r}, which this grant does not hold",
            extra={"scope": scope},
        )
        self.scope = scope
