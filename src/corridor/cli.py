"""The `corridor` command: init, serve, worker, migrate, keys, webhooks."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from corridor.config import get_settings

app = typer.Typer(
    help="Corridor: an open payments service. Every command reads CORRIDOR_* settings "
    "(CORRIDOR_DATABASE_URL, CORRIDOR_ENV, …).",
    no_args_is_help=True,
    add_completion=False,
)
keys_app = typer.Typer(help="Manage the organization's API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
webhooks_app = typer.Typer(help="Debug webhook deliveries.", no_args_is_help=True)
app.add_typer(webhooks_app, name="webhooks")
console = Console()
errors = Console(stderr=True)


def _run(coroutine):
    return asyncio.run(coroutine)


@app.command()
def migrate() -> None:
    """Bring the database schema up to date (Alembic migrations)."""
    from corridor.kit.migrate import upgrade_to_head

    settings = get_settings()
    with console.status("Migrating the database…"):
        upgrade_to_head(settings.database_url)
    console.print(f"[green]Database is up to date[/green] ({_safe_url(settings.database_url)})")


@app.command()
def init(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only the JSON object of credentials.")
    ] = False,
    if_empty: Annotated[
        bool,
        typer.Option(
            "--if-empty", help="Do nothing when the database already has an organization."
        ),
    ] = False,
    name: Annotated[str, typer.Option(help="Name of the organization.")] = "Sandbox organization",
    email: Annotated[
        str | None, typer.Option(help="Console login email (generated when omitted).")
    ] = None,
) -> None:
    """Create an organization with a console user and an unrestricted key, and print them once."""
    from corridor.kit.migrate import upgrade_to_head

    settings = get_settings()
    upgrade_to_head(settings.database_url)
    created = _run(_bootstrap(name=name, email=email, if_empty=if_empty))
    if created is None:
        if not as_json:
            console.print(
                "An organization already exists; its credentials were printed when it was made. "
                "Make a new key with [bold]corridor keys create[/bold]."
            )
        return
    credentials = {
        "organizationId": created.organization.id,
        "apiKey": created.secret,
        "consoleEmail": created.user.email,
        "consolePassword": created.console_password,
    }
    if as_json:
        typer.echo(json.dumps(credentials))
        return
    table = Table(
        title="Your Corridor sandbox organization", show_header=False, title_justify="left"
    )
    table.add_row("Organization", credentials["organizationId"])
    table.add_row("API key", f"[bold]{credentials['apiKey']}[/bold]")
    table.add_row("Console email", credentials["consoleEmail"])
    table.add_row("Console password", credentials["consolePassword"])
    console.print(table)
    console.print("[yellow]Store the key and password now: they are shown only once.[/yellow]")


async def _bootstrap(*, name: str, email: str | None, if_empty: bool):
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.organizations import service

    settings = get_settings()
    database = Database(settings.database_url)
    try:
        async with database.session() as session, session.begin():
            if if_empty and await service.any_organization_exists(session):
                return None
            return await service.bootstrap_organization(
                session,
                name=name,
                email=email,
                key_environment=settings.key_environment,
                now=SystemClock().now(),
            )
    finally:
        await database.dispose()


@app.command()
def serve(
    host: Annotated[
        str | None, typer.Option(help="Interface to listen on (default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on (default 8000).")] = None,
    workers: Annotated[
        bool | None,
        typer.Option(
            "--workers/--no-workers",
            help="Run the background workers in this process "
            "(default: yes on SQLite, no on PostgreSQL where `corridor worker` runs them).",
        ),
    ] = None,
) -> None:
    """Serve the API (OpenAPI at /openapi.json, docs at /docs)."""
    import uvicorn

    from corridor.app import create_app
    from corridor.web.middleware import request_head_bytes_max

    settings = get_settings()
    application = create_app(settings, run_workers_in_process=workers)
    address = f"http://{host or settings.host}:{port or settings.port}"
    workers_note = (
        "with workers in this process"
        if (settings.workers_in_process if workers is None else workers)
        else "without workers"
    )
    console.print(
        f"Corridor {settings.env.value} serving on [bold]{address}[/bold] ({workers_note}); "
        f"docs at {address}/docs. Ctrl+C stops."
    )
    uvicorn.run(
        application,
        host=host or settings.host,
        port=port or settings.port,
        log_level="warning",
        access_log=False,
        # Over-long URLs reach the app, which answers 414 in the error shape.
        h11_max_incomplete_event_size=request_head_bytes_max,
    )


@app.command()
def worker() -> None:
    """Run the background workers alone (any number may share one PostgreSQL database)."""
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.kit.logging import configure_logging
    from corridor.workers.runner import run_workers

    settings = get_settings()
    configure_logging(log_format=settings.log_format, level=settings.log_level)

    async def main() -> None:
        database = Database(settings.database_url)
        stop = asyncio.Event()
        try:
            await run_workers(database, SystemClock(), stop)
        finally:
            await database.dispose()

    try:
        _run(main())
    except KeyboardInterrupt:
        console.print("Workers stopped.")


def _organization_option() -> typer.models.OptionInfo:
    return typer.Option(
        "--organization", "-o", help="Organization id (may be omitted when the database holds one)."
    )


async def _resolve_organization(session, organization_id: str | None) -> str:
    from corridor.organizations import repository

    if organization_id:
        return organization_id
    only = await repository.only_organization_id(session)
    if only is None:
        errors.print("[red]Several organizations (or none) exist: pass --organization org_…[/red]")
        raise typer.Exit(code=2)
    return only


@keys_app.command("create")
def keys_create(
    name: Annotated[str, typer.Option(help="A name to recognise the key by.")] = "CLI key",
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope", "-s", help="A scope; repeat for several. Default: * (unrestricted)."
        ),
    ] = None,
    organization: Annotated[str | None, _organization_option()] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create an organization API key and print its secret once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.auth.scopes import UNRESTRICTED
    from corridor.kit.errors import CorridorError

    async def main():
        database, settings, clock = _open()
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                return await service.create_api_key(
                    session,
                    caller=Caller.operator(organization_id),
                    name=name,
                    scopes=scope or [UNRESTRICTED],
                    key_environment=settings.key_environment,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        key, secret = _run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps({"id": key.id, "secret": secret, "scopes": key.scopes}))
    else:
        console.print(f"Created {key.id} with scopes {', '.join(key.scopes)}")
        console.print(f"Secret (shown once): [bold]{secret}[/bold]")


@keys_app.command("list")
def keys_list(
    organization: Annotated[str | None, _organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one key per line.")
    ] = False,
) -> None:
    """List the organization's API keys, newest first (never their secrets)."""
    from corridor.auth import repository
    from corridor.models.access import ApiKey

    async def main():
        database, _, _ = _open()
        try:
            async with database.session(write=False) as session:
                organization_id = await _resolve_organization(session, organization)
                statement = repository.organization_keys(organization_id).order_by(ApiKey.id.desc())
                return list((await session.execute(statement)).scalars())
        finally:
            await database.dispose()

    keys = _run(main())
    if as_json:
        for key in keys:
            typer.echo(
                json.dumps(
                    {
                        "id": key.id,
                        "name": key.name,
                        "prefix": key.prefix,
                        "scopes": key.scopes,
                        "createdAt": key.created_at.isoformat(),
                        "revokedAt": key.revoked_at.isoformat() if key.revoked_at else None,
                    }
                )
            )
        return
    table = Table("id", "name", "prefix", "scopes", "created", "revoked")
    table.columns[0].no_wrap = True
    table.columns[2].no_wrap = True
    for key in keys:
        table.add_row(
            key.id,
            key.name,
            key.prefix,
            " ".join(key.scopes),
            f"{key.created_at:%Y-%m-%d %H:%M}",
            f"{key.revoked_at:%Y-%m-%d %H:%M}" if key.revoked_at else "",
        )
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id (key_…).")],
    organization: Annotated[str | None, _organization_option()] = None,
) -> None:
    """Revoke an API key at once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError

    async def main():
        database, _, clock = _open()
        try:
            async with database.session() as session, session.begin():
                organization_id = await _resolve_organization(session, organization)
                await service.revoke_api_key(
                    session,
                    caller=Caller.operator(organization_id),
                    key_id=key_id,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        _run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=1) from None
    console.print(f"Revoked {key_id}")


@webhooks_app.command("verify")
def webhooks_verify(
    file: Annotated[
        typer.FileBinaryRead,
        typer.Argument(
            help="A saved delivery: the request's headers, a blank line, then the raw body "
            "(or only the body, with --header). '-' reads standard input."
        ),
    ],
    secret: Annotated[
        str, typer.Option("--secret", envvar="CORRIDOR_WEBHOOK_SECRET", help="The whsec_… secret.")
    ],
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header", "-H", help="'Name: value'; repeat for each. FILE is then the body only."
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


def _open():
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database

    settings = get_settings()
    return Database(settings.database_url), settings, SystemClock()


def _safe_url(url: str) -> str:
    """The database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url


if __name__ == "__main__":
    app()
