"""Wire shapes of OAuth: the client registration request (RFC 7591, snake_case as the RFC
writes it) and the grants an owner reads and revokes (`/v1/oauth-grants`, camelCase)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr

from corridor.auth.callers import ToolConfirmation
from corridor.auth.schemas import TOOL_CONFIRMATION_DESCRIPTION
from corridor.auth.scopes import Scope
from corridor.kit.schemas import (
    RequestModel,
    ResponseModel,
    Timestamp,
    refuse_line_breaks_and_hidden_characters,
)
from corridor.oauth import rules

OneLine = Annotated[StrictStr, AfterValidator(refuse_line_breaks_and_hidden_characters)]
Uri = Annotated[OneLine, Field(max_length=rules.redirect_uri_chars_max)]


class ClientRegistrationRequest(BaseModel):
    """RFC 7591 section 2. Members this server does not know are ignored, as the RFC
    requires (section 2: "MUST ignore any client metadata sent by the client that it does
    not understand")."""

    model_config = ConfigDict(extra="ignore")

    redirect_uris: list[Uri] = Field(min_length=1, max_length=rules.redirect_uris_max)
    token_endpoint_auth_method: OneLine | None = Field(default=None, max_length=40)
    grant_types: list[Annotated[OneLine, Field(max_length=100)]] | None = Field(
        default=None, max_length=10
    )
    response_types: list[Annotated[OneLine, Field(max_length=100)]] | None = Field(
        default=None, max_length=10
    )
    client_name: OneLine | None = Field(default=None, max_length=rules.client_name_chars_max)
    scope: OneLine | None = Field(default=None, max_length=1000)
    client_uri: Uri | None = None
    logo_uri: Uri | None = None
    tos_uri: Uri | None = None
    policy_uri: Uri | None = None
    contacts: list[Annotated[OneLine, Field(max_length=320)]] | None = Field(
        default=None, max_length=10
    )
    software_id: OneLine | None = Field(default=None, max_length=200)
    software_version: OneLine | None = Field(default=None, max_length=200)
    application_type: OneLine | None = Field(default=None, max_length=20)

    def details(self) -> dict[str, Any]:
        """What is kept and echoed besides the fields the server acts on."""
        kept = self.model_dump(
            include={
                "client_uri",
                "logo_uri",
                "tos_uri",
                "policy_uri",
                "contacts",
                "software_id",
                "software_version",
                "application_type",
            },
            exclude_none=True,
        )
        return kept


GRANT_EXAMPLE = "oag_01jd3x0p6x9e3k2v1m8q4r7s5t"


class OAuthClientRead(ResponseModel):
    id: str = Field(
        description="The client_id it registered with, or, for a client known by its client "
        "ID metadata document, the id Corridor keeps it under (its client_id is "
        "`metadataUrl`)",
        examples=["ocl_01jd3x0p6x9e3k2v1m8q4r7s5t"],
    )
    name: str | None = Field(
        description="The name it gave itself (client_name): unverified", examples=["Claude"]
    )
    redirect_uris: list[str] = Field(examples=[["http://127.0.0.1:33418/callback"]])
    metadata_url: str | None = Field(
        default=None,
        description="The https URL of its client ID metadata document, which is its "
        "client_id (docs/mcp.md); null for a client registered dynamically",
        examples=[None],
    )
    created_at: Timestamp


class OAuthGrantRead(ResponseModel):
    id: str = Field(examples=[GRANT_EXAMPLE])
    client: OAuthClientRead
    agent_id: str | None = Field(
        description="The agent the client acts as (its limits and mandates apply), or null: "
        "the organization, with the scopes listed",
        examples=[None],
    )
    scopes: list[str] = Field(examples=[[Scope.TRANSFERS_READ.value, Scope.ACCOUNTS_READ.value]])
    tool_confirmation: ToolConfirmation = Field(description=TOOL_CONFIRMATION_DESCRIPTION)
    resource: str = Field(
        description="The MCP server its tokens are for (RFC 8707)",
        examples=["https://corridor.example.com/mcp"],
    )
    created_by: str = Field(description="The console user who consented (usr_…)")
    created_at: Timestamp
    last_token_at: Timestamp = Field(description="When the client last got an access token")
    revoked_at: Timestamp | None = None
    revoked_reason: str | None = Field(
        default=None,
        description="revoked_by_owner, revoked_by_client, refresh_token_reused (a refresh "
        "token was presented again after it was rotated) or code_reused",
    )


class OAuthGrantUpdate(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"toolConfirmation": "always"}]})

    tool_confirmation: ToolConfirmation = Field(description=TOOL_CONFIRMATION_DESCRIPTION)
