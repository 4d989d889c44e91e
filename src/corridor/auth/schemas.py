"""Wire shapes of API keys and console sessions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StrictStr

from corridor.kit.schemas import RequestModel, ResponseModel, Timestamp


class ApiKeyCreate(RequestModel):
    name: Annotated[StrictStr, Field(min_length=1, max_length=200, examples=["Payouts backend"])]
    scopes: Annotated[
        list[Annotated[StrictStr, Field(max_length=40)]],
        Field(max_length=32, examples=[["*"], ["transfers:read", "transfers:write"]]),
    ]


class ApiKeyRead(ResponseModel):
    id: str = Field(examples=["key_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    name: str
    scopes: list[str]
    prefix: str = Field(
        examples=["sk_sandbox_Ab3dE9"], description="The visible start of the secret"
    )
    created_at: Timestamp
    revoked_at: Timestamp | None = None


class ApiKeyCreated(ApiKeyRead):
    secret: str = Field(description="The whole secret. Shown only in this response: store it now.")


class ConsoleSessionCreate(RequestModel):
    email: Annotated[StrictStr, Field(min_length=3, max_length=320, examples=["owner@example.com"])]
    password: Annotated[StrictStr, Field(min_length=1, max_length=200)]


class ConsoleUserRead(ResponseModel):
    id: str
    email: str


class ConsoleSessionCreated(ResponseModel):
    token: str = Field(description="Bearer token (cs_…), valid for 12 hours")
    expires_at: Timestamp
    user: ConsoleUserRead
