"""Use cases of webhook endpoints: create, read, change, delete, secrets, and replay."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit import urls
from corridor.kit.clock import as_utc
from corridor.kit.db import get_visible
from corridor.kit.errors import ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.webhook import WebhookEndpoint
from corridor.webhooks import repository, signing
from corridor.webhooks.errors import EndpointDisabled, EndpointLimitReached, OrganizationWide
from corridor.webhooks.rules import DisabledReason

SCOPE = Scope.WEBHOOKS_MANAGE
endpoints_per_organization_max = 100
# A replay queues at most this many deliveries; `complete: false` says to call again.
replay_deliveries_max = 10_000


def checked_url(url: str, *, sandbox: bool) -> str:
    try:
        urls.parse(url, sandbox=sandbox)
    except urls.UrlRefused as error:
        raise ValidationFailed("url", str(error)) from None
    return url


def utc(moment: datetime, *, field: str) -> datetime:
    """A client's time in UTC (naive times are taken as UTC); 422 when it cannot be one."""
    try:
        return as_utc(moment)
    except OverflowError:
        raise ValidationFailed(field, "is outside the range of UTC times") from None


def organization_of(caller: Caller) -> str:
    """Webhooks are the organization's: any caller with webhooks:manage that is not bound
    to one customer (agent keys, platform sessions and on-behalf-of calls are)."""
    caller.require_scope(SCOPE)
    if caller.customer_id is not None:
        raise OrganizationWide()
    return caller.organization_id


async def endpoint_of(
    session: AsyncSession, organization_id: str, endpoint_id: str, *, locked: bool = False
) -> WebhookEndpoint:
    """A live endpoint of the organization (locked when asked: its secrets are
    read-modify-write), or 404."""
    visible = repository.endpoints_of(organization_id)
    return await get_visible(session, visible, endpoint_id, locked=locked)


def checked_secret(secret: str, *, field: str) -> str:
    try:
        signing.secret_key_bytes(secret)
    except signing.SecretError as error:
        raise ValidationFailed(field, str(error)) from None
    return secret


async def create_endpoint(
    session: AsyncSession,
    *,
    caller: Caller,
    url: str,
    description: str | None,
    event_types: list[str],
    disabled: bool,
    secret: str | None,
    sandbox: bool,
    now: datetime,
) -> WebhookEndpoint:
    organization_id = organization_of(caller)
    checked_url(url, sandbox=sandbox)
    key = checked_secret(secret, field="secret") if secret is not None else signing.new_secret()
    # Locked, so concurrent creates cannot together pass the limit.
    await repository.lock_organization(session, organization_id)
    if await repository.count_endpoints(session, organization_id) >= endpoints_per_organization_max:
        raise EndpointLimitReached(endpoints_per_organization_max)
    endpoint = WebhookEndpoint(
        id=new_id("ep"),
        organization_id=organization_id,
        url=url,
        description=description,
        event_types=event_types,
        disabled=disabled,
        disabled_reason=DisabledReason.MANUAL.value if disabled else None,
        secret=key,
        previous_secrets=[],
        failing_since=None,
        created_at=now,
        updated_at=now,
        deleted_at=None,
    )
    session.add(endpoint)
    await session.flush()
    return endpoint


async def list_endpoints(
    session: AsyncSession, *, caller: Caller, page: PageRequest
) -> Page[WebhookEndpoint]:
    statement = repository.endpoints_of(organization_of(caller))
    return await fetch_page(session, statement, WebhookEndpoint.id, page)


async def endpoint_secret(session: AsyncSession, *, caller: Caller, endpoint_id: str) -> str:
    """The secret that signs the endpoint's deliveries now."""
    endpoint = await endpoint_of(session, organization_of(caller), endpoint_id)
    return endpoint.secret


async def get_endpoint(
    session: AsyncSession, *, caller: Caller, endpoint_id: str
) -> WebhookEndpoint:
    return await endpoint_of(session, organization_of(caller), endpoint_id)


async def update_endpoint(
    session: AsyncSession,
    *,
    caller: Caller,
    endpoint_id: str,
    changes: dict[str, Any],
    sandbox: bool,
    now: datetime,
) -> WebhookEndpoint:
    """Apply the fields sent: url, description, event_types, disabled."""
    endpoint = await endpoint_of(session, organization_of(caller), endpoint_id, locked=True)
    if "url" in changes:
        endpoint.url = checked_url(changes["url"], sandbox=sandbox)
    if "description" in changes:
        endpoint.description = changes["description"]
    if "event_types" in changes:
        endpoint.event_types = list(changes["event_types"])
    if "disabled" in changes and changes["disabled"] != endpoint.disabled:
        await _set_disabled(session, endpoint, disabled=changes["disabled"], now=now)
    if changes:
        endpoint.updated_at = now
    await session.flush()
    return endpoint


async def _set_disabled(
    session: AsyncSession, endpoint: WebhookEndpoint, *, disabled: bool, now: datetime
) -> None:
    endpoint.disabled = disabled
    # Enabling starts afresh: the 5-day failure clock restarts with the next failure.
    endpoint.disabled_reason = DisabledReason.MANUAL.value if disabled else None
    endpoint.failing_since = None
    if disabled:
        await session.flush()
        await repository.cancel_pending_deliveries(session, endpoint.id, now)


async def delete_endpoint(
    session: AsyncSession, *, caller: Caller, endpoint_id: str, now: datetime
) -> None:
    """The endpoint disappears from the API; its waiting deliveries are CANCELED."""
    endpoint = await endpoint_of(session, organization_of(caller), endpoint_id, locked=True)
    endpoint.deleted_at = now
    endpoint.updated_at = now
    await session.flush()
    await repository.cancel_pending_deliveries(session, endpoint.id, now)


async def rotate_secret(
    session: AsyncSession,
    *,
    caller: Caller,
    endpoint_id: str,
    key: str | None,
    now: datetime,
) -> str:
    """Replace the signing secret. The replaced one keeps signing deliveries (beside the new
    one) for 24 hours; at most 5 replaced secrets are kept."""
    organization_id = organization_of(caller)
    new_key = checked_secret(key, field="key") if key is not None else signing.new_secret()
    endpoint = await endpoint_of(session, organization_id, endpoint_id, locked=True)
    if new_key == endpoint.secret:
        raise ValidationFailed("key", "must differ from the current secret")
    previous = [signing.PreviousSecret.from_document(item) for item in endpoint.previous_secrets]
    endpoint.previous_secrets = [
        item.to_document() for item in signing.rotated(endpoint.secret, previous, now=now)
    ]
    endpoint.secret = new_key
    endpoint.updated_at = now
    await session.flush()
    return new_key


@dataclass(frozen=True, slots=True)
class Replay:
    endpoint_id: str
    since: datetime
    until: datetime
    queued: int
    complete: bool


async def replay_failed(
    session: AsyncSession,
    *,
    caller: Caller,
    endpoint_id: str,
    since: datetime,
    until: datetime | None,
    now: datetime,
    deliveries_max: int = replay_deliveries_max,
) -> Replay:
    """Queue the endpoint's FAIL and CANCELED deliveries of messages created in [since, until)
    for a new round of attempts, at most `deliveries_max` of them (`complete` says whether
    that was all); the workers send them in the background."""
    deliveries_max = max(1, min(deliveries_max, replay_deliveries_max))
    organization_id = organization_of(caller)
    since = utc(since, field="since")
    until = min(utc(until, field="until"), now) if until is not None else now
    if since >= until:
        raise ValidationFailed("since", "must be before `until` and before now")
    endpoint = await endpoint_of(session, organization_id, endpoint_id, locked=True)
    if endpoint.disabled:
        raise EndpointDisabled("replay to it")
    ids = await repository.replayable_delivery_ids(
        session, endpoint.id, since=since, until=until, limit=deliveries_max + 1
    )
    queued = await repository.requeue_deliveries(session, ids[:deliveries_max], now)
    return Replay(
        endpoint_id=endpoint.id,
        since=since,
        until=until,
        queued=queued,
        complete=len(ids) <= deliveries_max,
    )


async def count_replayable(
    session: AsyncSession,
    *,
    caller: Caller,
    endpoint_id: str,
    since: datetime,
    until: datetime | None,
    now: datetime,
) -> int:
    """How many deliveries `replay_failed` would queue (at most `replay_deliveries_max`)."""
    organization_id = organization_of(caller)
    since = utc(since, field="since")
    until = min(utc(until, field="until"), now) if until is not None else now
    endpoint = await endpoint_of(session, organization_id, endpoint_id, locked=False)
    ids = await repository.replayable_delivery_ids(
        session, endpoint.id, since=since, until=until, limit=replay_deliveries_max
    )
    return len(ids)
