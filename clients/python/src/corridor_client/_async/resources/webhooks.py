"""Webhook endpoints and the history of messages sent to them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource, AsyncTransport
from corridor_client.models import (
    AttemptRead,
    DeliveryStatus,
    EndpointCreate,
    EndpointRead,
    EndpointTestAccepted,
    EndpointTestRequest,
    EndpointUpdate,
    MessageDetail,
    MessageRead,
    ReplayAccepted,
    ReplayRequest,
    ResendAccepted,
    ResendRequest,
    SecretRead,
    SecretRotate,
    SecretRotated,
)
from corridor_client.pages import MessagePage


class AsyncWebhookEndpoints(AsyncResource):
    async def create(
        self,
        params: EndpointCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> EndpointRead:
        """`url`, and `event_types` (none means every type)."""
        body = _calls.body(EndpointCreate, params, fields)
        return await self._send(
            _calls.create("/v1/webhooks/endpoints", body, idempotency_key), EndpointRead
        )

    def list(self, *, limit: int | None = None) -> AsyncPager[EndpointRead]:
        return self._list("/v1/webhooks/endpoints", EndpointRead, limit=limit)

    async def retrieve(self, endpoint_id: str) -> EndpointRead:
        path = _calls.path("/v1/webhooks/endpoints/{}", endpoint_id)
        return await self._send(_calls.read(path), EndpointRead)

    async def update(
        self,
        endpoint_id: str,
        params: EndpointUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> EndpointRead:
        path = _calls.path("/v1/webhooks/endpoints/{}", endpoint_id)
        body = _calls.body(EndpointUpdate, params, fields)
        return await self._send(_calls.update(path, body), EndpointRead)

    async def delete(self, endpoint_id: str) -> None:
        path = _calls.path("/v1/webhooks/endpoints/{}", endpoint_id)
        await self._send_for_nothing(_calls.delete(path))

    async def secret(self, endpoint_id: str) -> SecretRead:
        """The `whsec_…` signing secret to verify deliveries with."""
        path = _calls.path("/v1/webhooks/endpoints/{}/secret", endpoint_id)
        return await self._send(_calls.read(path), SecretRead)

    async def rotate_secret(
        self,
        endpoint_id: str,
        params: SecretRotate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> SecretRotated:
        """A new secret; the old one keeps signing beside it for 24 hours. Sent without an
        Idempotency-Key: the server never keeps a secret, so a replay could not show it."""
        path = _calls.path("/v1/webhooks/endpoints/{}/secret/rotate", endpoint_id)
        body = _calls.optional_body(SecretRotate, params, fields)
        return await self._send(_calls.action(path, body), SecretRotated)

    async def replay(
        self,
        endpoint_id: str,
        params: ReplayRequest | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ReplayAccepted:
        """Send again the endpoint's failed deliveries `since` a time."""
        path = _calls.path("/v1/webhooks/endpoints/{}/replay", endpoint_id)
        body = _calls.body(ReplayRequest, params, fields)
        return await self._send(_calls.action(path, body, idempotency_key), ReplayAccepted)

    async def send_test_event(
        self,
        endpoint_id: str,
        params: EndpointTestRequest | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> EndpointTestAccepted:
        """Sandbox only: a test event of `type` (a type of the event catalog the endpoint
        subscribes to) sent to this endpoint alone, as Svix's "Send example"."""
        path = _calls.path("/v1/webhooks/endpoints/{}/test", endpoint_id)
        body = _calls.body(EndpointTestRequest, params, fields)
        return await self._send(_calls.action(path, body, idempotency_key), EndpointTestAccepted)


class AsyncWebhookMessages(AsyncResource):
    def list(
        self,
        *,
        endpoint_id: str | None = None,
        event_types: Sequence[str] | None = None,
        status: DeliveryStatus | str | None = None,
        after: datetime | None = None,
        before: datetime | None = None,
        tag: str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[MessageRead]:
        """Newest first; `status` needs `endpoint_id`. Pages follow `iterator` until `done`."""
        return self._list(
            "/v1/webhooks/messages",
            MessageRead,
            MessagePage,
            endpointId=endpoint_id,
            eventTypes=event_types,
            status=status,
            after=after,
            before=before,
            tag=tag,
            limit=limit,
        )

    async def retrieve(self, message_id: str) -> MessageDetail:
        path = _calls.path("/v1/webhooks/messages/{}", message_id)
        return await self._send(_calls.read(path), MessageDetail)

    def list_attempts(
        self, message_id: str, *, endpoint_id: str | None = None, limit: int | None = None
    ) -> AsyncPager[AttemptRead]:
        path = _calls.path("/v1/webhooks/messages/{}/attempts", message_id)
        return self._list(path, AttemptRead, endpointId=endpoint_id, limit=limit)

    async def resend(
        self,
        message_id: str,
        params: ResendRequest | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ResendAccepted:
        """Deliver the message again (to one `endpoint_id`, or to every endpoint it had)."""
        path = _calls.path("/v1/webhooks/messages/{}/resend", message_id)
        body = _calls.optional_body(ResendRequest, params, fields)
        return await self._send(_calls.action(path, body, idempotency_key), ResendAccepted)


class AsyncWebhooks:
    """`client.webhooks.endpoints` and `client.webhooks.messages`. To check a delivery's
    signature use `corridor_client.webhooks.verify`."""

    def __init__(self, transport: AsyncTransport) -> None:
        self.endpoints = AsyncWebhookEndpoints(transport)
        self.messages = AsyncWebhookMessages(transport)
