"""`corridor webhooks`: verify a saved delivery, replay an endpoint's failures."""

from __future__ import annotations

from typing import Annotated

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import (
    moment,
    open_database,
    organization_option,
    resolve_organization,
    run,
)
from corridor.cli.output import console, errors, progress_bar

app = typer_app("Debug webhook deliveries.")


@app.command("verify")
def webhooks_verify(
    file: Annotated[
        typer.FileBinaryRead,
        typer.Argument(
            metavar="FILE",
            help="A saved delivery: the request's headers, a blank line, then the raw body "
            "(or only the body, with --header). '-' reads standard input.",
        ),
    ],
    secret: Annotated[
        str,
        typer.Option(
            "--secret",
            envvar="CORRIDOR_WEBHOOK_SECRET",
            metavar="SECRET",
            help="The whsec_… secret.",
        ),
    ],
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            "-H",
            metavar="HEADER",
            help="'Name: value'; repeat for each. FILE is then the body only.",
        ),
    ] = None,
    ignore_age: Annotated[
        bool,
        typer.Option("--ignore-age", help="Check the signature only, not the timestamp's age."),
    ] = False,
) -> None:
    """Check a delivery's signature as a receiver would, and say which part fails.

    Exit status 0 when it verifies, 1 when a check fails, 2 when FILE cannot be read."""
    from datetime import UTC, datetime

    from corridor.webhooks import verification

    raw = file.read(verification.saved_delivery_bytes_max + 1)
    try:
        if len(raw) > verification.saved_delivery_bytes_max:
            raise verification.SavedDeliveryError("the file is larger than 1 MiB")
        if header:
            headers, body = verification.parse_header_lines(header), raw
        else:
            headers, body = verification.parse_saved_delivery(raw)
    except verification.SavedDeliveryError as error:
        errors.print(f"[red]Cannot read the delivery: {error}[/red]")
        raise typer.Exit(code=2) from None
    report = verification.verify_saved_delivery(
        secret=secret, headers=headers, body=body, now=datetime.now(UTC), check_age=not ignore_age
    )
    for check in report.checks:
        mark = "[green]✓[/green]" if check.passed else "[red]✗[/red]"
        console.print(f"{mark} {check.part}: {check.detail}", highlight=False)
    if not report.passed:
        raise typer.Exit(code=1)
    console.print("[green]The delivery verifies.[/green]")


# `webhooks replay` queues deliveries in batches of this many, one transaction each, so the


replay_batch_deliveries = 200


@app.command("replay")
def webhooks_replay(
    endpoint_id: Annotated[
        str, typer.Argument(metavar="ENDPOINT_ID", help="The endpoint's id (ep_…).")
    ],
    since: Annotated[
        str,
        typer.Option(
            metavar="WHEN",
            help="Messages created since: an ISO 8601 time (2026-11-20T00:00:00Z) or an age "
            "(90m, 24h, 7d).",
        ),
    ],
    until: Annotated[
        str | None,
        typer.Option(metavar="WHEN", help="…and before this time or age (default: now)."),
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Send an endpoint's failed and canceled deliveries again (the workers send them).

    Queues them in batches with a progress bar, as POST
    /v1/webhooks/endpoints/{id}/replay would, until none is left."""
    from corridor.app import install_secret_box
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError
    from corridor.webhooks import service

    database, settings, clock = open_database()
    install_secret_box(settings)  # endpoints' signing secrets are encrypted at rest
    now = clock.now()
    window = {"since": moment(since, now, "--since")}
    window["until"] = moment(until, now, "--until") if until else now

    async def replay_all() -> int:
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
                total = await service.count_replayable(
                    session,
                    caller=Caller.operator(organization_id),
                    endpoint_id=endpoint_id,
                    now=now,
                    **window,
                )
            queued = 0
            with progress_bar() as progress:
                task = progress.add_task("Queuing deliveries", total=total)
                while True:
                    async with database.session() as session, session.begin():
                        replay = await service.replay_failed(
                            session,
                            caller=Caller.operator(organization_id),
                            endpoint_id=endpoint_id,
                            now=now,
                            deliveries_max=replay_batch_deliveries,
                            **window,
                        )
                    queued += replay.queued
                    progress.advance(task, replay.queued)
                    if replay.complete or replay.queued == 0:
                        return queued
        finally:
            await database.dispose()

    try:
        queued = run(replay_all())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=1) from None
    console.print(
        f"Queued {queued} deliver{'y' if queued == 1 else 'ies'} to {endpoint_id} for a new "
        "attempt; the workers send them.",
        highlight=False,
    )
