"""The MCP endpoint as an OAuth protected resource (RFC 9728): its metadata document, and the
`WWW-Authenticate` challenges /mcp answers a missing, bad or too narrow token with, which
send a client to that document and from there to Corridor's authorization server."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from mcp.shared.auth import ProtectedResourceMetadata

from corridor.config import Settings
from corridor.oauth import rules
from corridor.tools.registry import TOOLS

router = APIRouter(include_in_schema=False)

METADATA_PATH = "/.well-known/oauth-protected-resource"
metadata_cache_s = 300


def base_url(settings: Settings, request: Request) -> str:
    return rules.base_url_of(settings.public_base_url, str(request.base_url))


def metadata_url(base: str) -> str:
    """RFC 9728 section 3.1: the well-known path with the resource's path after it."""
    return base + METADATA_PATH + rules.MCP_PATH


def scopes_supported(settings: Settings) -> list[str]:
    """The scopes MCP tools ask for (what a client should request): a grant can hold each."""
    scopes = {
        tool.scope.value
        for tool in TOOLS
        if not tool.unrestricted_only and (settings.is_sandbox or not tool.sandbox_only)
    }
    return sorted(scopes)


def resource_metadata(settings: Settings, base: str) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata.model_validate(
        {
            "resource": rules.mcp_resource(base),
            "authorization_servers": [base],
            "scopes_supported": scopes_supported(settings),
            "bearer_methods_supported": ["header"],
            "resource_name": "Corridor MCP server",
            "resource_documentation": base + "/docs",
        }
    )


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def challenge(
    base: str, *, error: str | None = None, description: str | None = None, scope: str | None = None
) -> str:
    """A Bearer challenge (RFC 6750 section 3) naming the metadata (RFC 9728 section 5.1)."""
    parts = [f"resource_metadata={_quoted(metadata_url(base))}"]
    if error is not None:
        parts.append(f"error={_quoted(error)}")
    if description is not None:
        parts.append(f"error_description={_quoted(description)}")
    if scope is not None:
        parts.append(f"scope={_quoted(scope)}")
    return "Bearer " + ", ".join(parts)


@router.get(METADATA_PATH)
@router.get(METADATA_PATH + rules.MCP_PATH)
async def protected_resource(request: Request) -> Response:
    """Where a client learns which authorization server issues tokens for /mcp, and the
    scopes its tools use."""
    settings: Settings = request.app.state.settings
    document = resource_metadata(settings, base_url(settings, request))
    return Response(
        document.model_dump_json(exclude_none=True),
        media_type="application/json",
        headers={"Cache-Control": f"public, max-age={metadata_cache_s}"},
    )
