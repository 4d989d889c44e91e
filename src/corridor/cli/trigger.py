"""`corridor trigger EVENT_TYPE`: a sandbox test event to the organization's webhook
endpoints, as Stripe's `stripe trigger` (webhooks/testing.py does it)."""

from __future__ import annotations

from typing import Annotated

import typer

from corridor.cli.base import app
from corridor.cli.context import Acting, act, organization_option
from corridor.cli.output import console, print_json, usage_error
from corridor.config import get_settings


@app.command()
def trigger(
    event_type: Annotated[
        str,
        typer.Argument(
            metavar="EVENT_TYPE",
            help="An event type of the catalog, such as transfer.completed.",
        ),
    ],
    endpoint: Annotated[
        str | None,
        typer.Option(
            metavar="ID",
            help="Only this endpoint (ep_…); default: every enabled endpoint subscribed to it.",
        ),
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the message id and endpoint ids (JSON).")
    ] = False,
) -> None:
    """Send a test event of EVENT_TYPE to the organization's webhook endpoints (sandbox
    only). Its data says it is a test; the workers deliver it, signed, like any other."""
    from corridor.app import install_secret_box
    from corridor.webhooks.catalog import EVENT_TYPES
    from corridor.webhooks.testing import send_test_event

    if event_type not in EVENT_TYPES:
        usage_error(
            f"unknown event type {event_type!r}; the event types are: " + ", ".join(EVENT_TYPES)
        )
    install_secret_box(get_settings())  # endpoints' signing secrets are encrypted at rest

    async def work(acting: Acting):
        sent = await send_test_event(
            acting.session,
            caller=acting.caller,
            event_type=event_type,
            endpoint_id=endpoint,
            sandbox=acting.settings.is_sandbox,
            now=acting.now,
        )
        return sent.message.id, sent.endpoint_ids

    message_id, endpoint_ids = act(organization, work, write=True)
    if as_json:
        print_json({"messageId": message_id, "type": event_type, "endpointIds": endpoint_ids})
        return
    if not endpoint_ids:
        console.print(
            f"Recorded test event {message_id} ({event_type}), but no enabled endpoint "
            "subscribes to it: nothing will be delivered. Add one with POST "
            "/v1/webhooks/endpoints or try `corridor listen`.",
            highlight=False,
            soft_wrap=True,
        )
        return
    count = len(endpoint_ids)
    console.print(
        f"Sent test event {message_id} ({event_type}) to {count} endpoint"
        f"{'' if count == 1 else 's'}: {', '.join(endpoint_ids)}; the workers deliver it.",
        highlight=False,
        soft_wrap=True,
    )
