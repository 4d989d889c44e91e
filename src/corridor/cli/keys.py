"""`corridor keys`: the organization's API keys."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, organization_option, resolve_organization, run
from corridor.cli.output import console, errors, wrapping_widths

app = typer_app("Manage the organization's API keys.")


@app.command("create")
def keys_create(
    name: Annotated[
        str, typer.Option(metavar="NAME", help="A name to recognise the key by.")
    ] = "CLI key",
    scope: Annotated[
        list[str] | None,
        typer.Option(
            "--scope",
            "-s",
            metavar="SCOPE",
            help="A scope; repeat for several. Default: * (unrestricted).",
        ),
    ] = None,
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Create an organization API key and print its secret once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.auth.scopes import UNRESTRICTED
    from corridor.kit.errors import CorridorError

    async def main():
        database, settings, clock = open_database()
        try:
            async with database.session() as session, session.begin():
                organization_id = await resolve_organization(session, organization)
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
        key, secret = run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=2) from None
    if as_json:
        typer.echo(json.dumps({"id": key.id, "secret": secret, "scopes": key.scopes}))
    else:
        console.print(f"Created {key.id} with scopes {', '.join(key.scopes)}")
        console.print(f"Secret (shown once): [bold]{secret}[/bold]")


@app.command("list")
def keys_list(
    organization: Annotated[str | None, organization_option()] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one key per line.")
    ] = False,
) -> None:
    """List the organization's API keys, newest first (never their secrets)."""
    from corridor.auth import repository

    async def main():
        database, _, _ = open_database()
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
                return await repository.organization_keys_newest_first(session, organization_id)
        finally:
            await database.dispose()

    keys = run(main())
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
    console.print(_keys_table(keys, width=console.width))


keys_table_wide_chars_min = 120


def _keys_table(keys, *, width: int) -> Table:
    """Ids and times whole on one line; names and scopes wrap. Narrow terminals get fewer
    columns."""
    wide = width >= keys_table_wide_chars_min
    moment = "%Y-%m-%d %H:%M" if wide else "%Y-%m-%d"
    rows = []
    for key in keys:
        cells = [key.id, key.name, *([key.prefix] if wide else []), " ".join(key.scopes)]
        cells += [
            f"{key.created_at:{moment}}",
            f"{key.revoked_at:{moment}}" if key.revoked_at else "",
        ]
        rows.append(cells)
    # Scopes wrap between scopes, not inside one (up to 20 characters).
    longest_scope = max((len(scope) for key in keys for scope in key.scopes), default=6)
    headers = ["id", "name", *(["prefix"] if wide else []), "scopes", "created", "revoked"]
    name_chars, scopes_chars = wrapping_widths(
        rows, headers, width=width, wrapping=(1, len(headers) - 3), minimum=min(longest_scope, 20)
    )
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    table.add_column("id", no_wrap=True)
    table.add_column("name", overflow="fold", ratio=1, width=name_chars)
    if wide:
        table.add_column("prefix", no_wrap=True)
    table.add_column("scopes", overflow="fold", ratio=1, width=scopes_chars)
    table.add_column("created", no_wrap=True)
    table.add_column("revoked", no_wrap=True)
    for cells in rows:
        table.add_row(*cells)
    return table


@app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID", help="The key's id (key_…).")],
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Revoke an API key at once."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError

    async def main():
        database, _, clock = open_database()
        try:
            async with database.session() as session, session.begin():
                organization_id = await resolve_organization(session, organization)
                await service.revoke_api_key(
                    session,
                    caller=Caller.operator(organization_id),
                    key_id=key_id,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        run(main())
    except CorridorError as error:
        errors.print(f"[red]{error.message}[/red]")
        raise typer.Exit(code=1) from None
    console.print(f"Revoked {key_id}")
