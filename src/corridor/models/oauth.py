"""OAuth 2.1 for MCP clients (issue 26): registered clients, authorization requests and their
codes, grants (the connected apps an owner sees and revokes) and their tokens. Every secret
(client secrets, codes, access and refresh tokens) is kept as its SHA-256 only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class OAuthClient(Base):
    """A desktop MCP client: registered by dynamic client registration (RFC 7591), its `id`
    being the `client_id` it was given; or known by its client ID metadata document, its
    client_id being that document's URL (`metadata_url`) and this row the document as last
    fetched."""

    __tablename__ = "oauth_clients"
    id_prefix, resource_name = "ocl", "OAuth client"
    __table_args__ = (
        Index("ix_oauth_clients_created_at", "created_at"),
        Index("ux_oauth_clients_metadata_url", "metadata_url", unique=True),
    )

    id: Mapped[str] = id_column()  # ocl_…, the client_id
    name: Mapped[str | None] = mapped_column(String(200))
    redirect_uris: Mapped[list[Any]]
    grant_types: Mapped[list[Any]]
    # none (a public client: PKCE alone), client_secret_basic or client_secret_post.
    token_endpoint_auth_method: Mapped[str] = mapped_column(String(30))
    # The scopes it registered for (space-separated), or None: any of the catalog.
    scope: Mapped[str | None] = mapped_column(String(1000))
    # The rest of what it registered (client_uri, software_id, …), echoed back as sent.
    details: Mapped[dict[str, Any]]
    secret_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    # A metadata document client: the document's URL (its client_id), and until when the
    # document as fetched is used before it is fetched again.
    metadata_url: Mapped[str | None] = mapped_column(String(2000))
    metadata_expires_at: Mapped[datetime | None]


class OAuthAuthorization(Base):
    """One authorization request (GET /oauth/authorize) waiting for an owner's consent, then
    the owner's decision and the one-time code it gave."""

    __tablename__ = "oauth_authorizations"
    id_prefix, resource_name = "oar", "authorization request"
    __table_args__ = (Index("ix_oauth_authorizations_expires_at", "expires_at"),)

    id: Mapped[str] = id_column()  # oar_…
    client_id: Mapped[str] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"))
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    # Whether the request named its redirect_uri (then the token request must name it too).
    redirect_uri_explicit: Mapped[bool]
    requested_scopes: Mapped[list[Any]]
    state: Mapped[str | None] = mapped_column(String(500))
    code_challenge: Mapped[str] = mapped_column(String(64))
    resource: Mapped[str] = mapped_column(String(2000))
    # PENDING (waiting for consent), APPROVED (a code was given), DENIED, USED (exchanged).
    status: Mapped[str] = mapped_column(String(20))
    # The owner's decision: their organization, the agent the client acts as (or none: the
    # organization), the scopes ticked and the write-tool confirmation policy.
    organization_id: Mapped[str | None] = mapped_column(ForeignKey("organizations.id"))
    agent_id: Mapped[str | None] = mapped_column(ForeignKey("agents.id"))
    granted_scopes: Mapped[list[Any] | None]
    tool_confirmation: Mapped[str | None] = mapped_column(String(20))
    decided_by: Mapped[str | None] = mapped_column(String(40))
    decided_at: Mapped[datetime | None]
    code_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    code_expires_at: Mapped[datetime | None]
    # The grant its code became (set when the code is exchanged).
    grant_id: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]
    # The consent must be given by then; the row is deleted some time after.
    expires_at: Mapped[datetime]


class OAuthGrant(Base):
    """A connected app: what an owner allowed one client to do, as their organization or as
    one agent. Revoking it ends every token made under it."""

    __tablename__ = "oauth_grants"
    id_prefix, resource_name = "oag", "OAuth grant"

    id: Mapped[str] = id_column()  # oag_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    client_id: Mapped[str] = mapped_column(ForeignKey("oauth_clients.id"), index=True)
    agent_id: Mapped[str | None] = mapped_column(ForeignKey("agents.id"))
    scopes: Mapped[list[Any]]
    tool_confirmation: Mapped[str] = mapped_column(String(20))
    # The MCP server its tokens are for (RFC 8707): `<base URL>/mcp`.
    resource: Mapped[str] = mapped_column(String(2000))
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    last_token_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    # revoked_by_owner, revoked_by_client, refresh_token_reused, code_reused.
    revoked_reason: Mapped[str | None] = mapped_column(String(40))


class OAuthToken(Base):
    """An access or refresh token of a grant, by its hash. A refresh token is used once:
    `used_at` is set when it is rotated, and presenting it again revokes the grant."""

    __tablename__ = "oauth_tokens"
    id_prefix, resource_name = "otk", "OAuth token"
    __table_args__ = (Index("ix_oauth_tokens_expires_at", "expires_at"),)

    id: Mapped[str] = id_column()  # otk_…
    grant_id: Mapped[str] = mapped_column(
        ForeignKey("oauth_grants.id", ondelete="CASCADE"), index=True
    )
    # ACCESS or REFRESH.
    kind: Mapped[str] = mapped_column(String(10))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[Any]]
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
