"""Corridor's Python SDK: `Corridor` (sync) and `AsyncCorridor` (async) clients.

    from corridor_client import Corridor

    with Corridor(api_key="sk_sandbox_…", base_url="http://127.0.0.1:8000") as corridor:
        for transfer in corridor.transfers.list(status="PENDING"):
            print(transfer.id, transfer.amount.display_value)

Models (`corridor_client.models`) are generated from the server's OpenAPI document;
errors (`corridor_client.errors`) are typed; `corridor_client.webhooks.verify` checks a
delivery's signature.
"""

from corridor_client import errors, models, webhooks
from corridor_client._async._http import AsyncPager
from corridor_client._async.client import AsyncCorridor
from corridor_client._base import CorridorModel, ResponseInfo
from corridor_client._retries import RetryPolicy
from corridor_client._signing import key_id, public_jwk
from corridor_client._sync._http import Pager
from corridor_client._sync.client import Corridor
from corridor_client.errors import (
    AgentApprovalRequired,
    AgentLimitExceeded,
    APIConnectionError,
    AuthenticationError,
    ConflictError,
    CorridorError,
    InvalidStateError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RequestValidationError,
    ResponseValidationError,
    ValidationError,
)
from corridor_client.pages import MessagePage, Page

__all__ = [
    "APIConnectionError",
    "AgentApprovalRequired",
    "AgentLimitExceeded",
    "AsyncCorridor",
    "AsyncPager",
    "AuthenticationError",
    "ConflictError",
    "Corridor",
    "CorridorError",
    "CorridorModel",
    "InvalidStateError",
    "MessagePage",
    "NotFoundError",
    "Page",
    "Pager",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestValidationError",
    "ResponseInfo",
    "ResponseValidationError",
    "RetryPolicy",
    "ValidationError",
    "errors",
    "key_id",
    "models",
    "public_jwk",
    "webhooks",
]
