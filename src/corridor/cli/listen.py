"""`corridor listen`: receive the server's webhooks here (corridor/listen.py does it)."""

from __future__ import annotations

from typing import Annotated

import typer

from corridor.cli.base import app
from corridor.cli.output import errors
from corridor.config import get_settings


@app.command()
def listen(
    api_key: Annotated[
        str,
        typer.Option(
            envvar="CORRIDOR_API_KEY",
            metavar="KEY",
            help="An API key allowed webhooks:manage.",
        ),
    ],
    base_url: Annotated[
        str | None,
        typer.Option(
            envvar="CORRIDOR_BASE_URL",
            metavar="URL",
            help="The Corridor server (default: http://CORRIDOR_HOST:CORRIDOR_PORT, "
            "that is http://127.0.0.1:8000).",
        ),
    ] = None,
    event: Annotated[
        list[str] | None,
        typer.Option(
            "--event", "-e", metavar="TYPE", help="An event type; repeat for several. Default: all."
        ),
    ] = None,
    forward_to: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Also POST each verified delivery, signature headers included, to this URL; "
            "the server is answered with its status.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print each delivery's raw JSON body, one a line.")
    ] = False,
    keep: Annotated[
        bool, typer.Option("--keep", help="Keep the webhook endpoint when stopping.")
    ] = False,
    port: Annotated[
        int,
        typer.Option(
            metavar="PORT",
            show_default=False,
            help="Port of the receiver on 127.0.0.1 (default: a free one). With the same port "
            "a kept endpoint is reused.",
        ),
    ] = 0,
) -> None:
    """Receive the server's webhooks here: print each event as it arrives.

    Starts a receiver on 127.0.0.1, makes a webhook endpoint pointing at it (or reuses one
    that does), verifies every delivery's signature, prints its type, message id, tags and
    a short summary, and removes the endpoint when stopped (Ctrl+C) unless --keep."""
    from corridor.listen import ListenError, Options
    from corridor.listen import listen as run_listener

    settings = get_settings()
    options = Options(
        api_url=base_url or f"http://{settings.host}:{settings.port}",
        api_key=api_key,
        event_types=event or [],
        forward_to=forward_to,
        as_json=as_json,
        keep=keep,
        port=port,
    )
    try:
        run_listener(
            options,
            say=lambda line: errors.print(line, highlight=False, markup=False, soft_wrap=True),
            write=lambda line: print(line, flush=True),
        )
    except ListenError as error:
        errors.print(f"Error: {error}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
