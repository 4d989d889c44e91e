"""Check a webhook delivery's signature (Standard Webhooks) and read the event in it.

    event = corridor_client.webhooks.verify(raw_body, request.headers, secret)

Verify the raw body exactly as received, before any JSON parsing; de-duplicate by
`event.id` (the `webhook-id` header: the same on every retry of one message).
"""

from __future__ import annotations

import binascii
import builtins
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticValidationError
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as _StandardVerificationError

Model = TypeVar("Model", bound=BaseModel)


class WebhookVerificationError(_StandardVerificationError):
    """The delivery is not signed by this secret, is too old or too new, or is malformed.
    Answer it with a 4xx and do not act on it."""


class WebhookEvent(BaseModel):
    """An event as Corridor sends it: `type`, `timestamp` and the resource in `data`."""

    model_config = ConfigDict(frozen=True)

    id: str  # the message id (`msg_…`), from the webhook-id header
    type: str  # transfer.completed, customer.created, …
    timestamp: datetime
    data: dict[str, Any]

    def data_as(self, model: builtins.type[Model]) -> Model:
        """`data` as a model, e.g. `event.data_as(models.TransferRead)` for `transfer.*`."""
        return model.model_validate(self.data)


def verify(payload: bytes | str, headers: Mapping[str, str], secret: str | bytes) -> WebhookEvent:
    """The event of a delivery whose signature and timestamp check out with `secret`
    (`whsec_…`, from `client.webhooks.endpoints.secret(...)`); WebhookVerificationError
    otherwise. During the 24 hours after a rotation either secret verifies."""
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        parsed = Webhook(secret).verify(payload, lowered)
    except _StandardVerificationError as error:
        raise WebhookVerificationError(str(error)) from error
    except (ValueError, binascii.Error, UnicodeDecodeError) as error:
        # A secret or signature that is not valid base64, a signature without "v1,", a
        # body that is not UTF-8 or not JSON: the library lets these through as is.
        raise WebhookVerificationError(f"malformed delivery or secret: {error}") from error
    try:
        return WebhookEvent.model_validate({**_as_object(parsed), "id": lowered["webhook-id"]})
    except PydanticValidationError as error:
        raise WebhookVerificationError(f"signed, but not a Corridor event: {error}") from error


def _as_object(parsed: Any) -> dict[str, Any]:
    if not isinstance(parsed, dict):
        raise WebhookVerificationError(
            f"signed, but not a Corridor event: {json.dumps(parsed)[:80]}"
        )
    return parsed
