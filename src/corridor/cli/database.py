"""`corridor migrate` and `corridor init`: the schema and the first organization."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from corridor.cli.base import app
from corridor.cli.context import run, safe_url
from corridor.cli.output import console, progress_bar
from corridor.config import get_settings


@app.command()
def migrate() -> None:
    """Bring the database schema up to date (Alembic migrations) and say what was applied."""
    from corridor.kit.migrate import pending_migrations, upgrade_to_head

    settings = get_settings()
    where = safe_url(settings.database_url)
    pending = pending_migrations(settings.database_url)
    if not pending:
        console.print(f"Database already up to date ({where}).", highlight=False, soft_wrap=True)
        return
    with progress_bar() as progress:
        task = progress.add_task("Migrating", total=len(pending))
        applied = upgrade_to_head(
            settings.database_url, on_applied=lambda _: progress.advance(task)
        )
    for migration in applied:
        console.print(
            f"Applied {migration.revision}: {first_line(migration.description)}",
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"[green]Applied {len(applied)} migration{'s' if len(applied) != 1 else ''}[/green]; "
        f"the database is at {applied[-1].revision if applied else 'head'} ({where}).",
        highlight=False,
        soft_wrap=True,
    )


def first_line(description: str) -> str:
    """A migration's docstring may run to a paragraph: its first line, "…" when more follows."""
    lines = [line.strip() for line in description.strip().splitlines()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 and lines[1] else "")


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
    name: Annotated[
        str, typer.Option(metavar="NAME", help="Name of the organization.")
    ] = "Sandbox organization",
    email: Annotated[
        str | None,
        typer.Option(metavar="EMAIL", help="Console login email (generated when omitted)."),
    ] = None,
) -> None:
    """Create an organization with a console user and an unrestricted key, and print them once."""
    from corridor.kit.migrate import upgrade_to_head

    settings = get_settings()
    upgrade_to_head(settings.database_url)
    created = run(_bootstrap(name=name, email=email, if_empty=if_empty))
    if created is None:
        if not as_json:
            console.print(
                "An organization already exists; its credentials were printed when it was made. "
                f"Make a new key with [bold]{run(_new_key_command())}[/bold].",
                soft_wrap=True,
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


async def _new_key_command() -> str:
    """The command that makes a key for the organization `init` made: with --organization
    once child organizations (or other roots) exist, which `keys create` needs then."""
    from corridor.cli.context import open_database
    from corridor.organizations import service

    database, _, _ = open_database()
    try:
        async with database.session(write=False) as session:
            found = await service.all_organizations(session, limit=1000)
    finally:
        await database.dispose()
    if len(found) <= 1:
        return "corridor keys create"
    roots = [organization for organization in found if organization.parent_id is None]
    if len(roots) == 1:
        return f"corridor keys create --organization {roots[0].id}"
    return "corridor keys create --organization ID (corridor orgs list shows the ids)"


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
