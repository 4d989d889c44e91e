"""`corridor users`: the people who sign in to the console."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, organization_option, resolve_organization, run
from corridor.cli.output import console, fail, usage_error

app = typer_app("Manage the people who sign in to the console.")


@app.command("add")
def users_add(
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The person's email (login).")],
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin",
            help="Read the password from standard input (12 characters or more) instead of "
            "generating one.",
        ),
    ] = False,
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Add a console user to the organization and print the password once (generated unless
    --password-stdin). A second user is who authorizes what the first submitted."""
    from corridor.auth import service
    from corridor.auth.callers import Caller
    from corridor.auth.secrets import random_token
    from corridor.kit.errors import CorridorError

    password = sys.stdin.readline().rstrip("\r\n") if password_stdin else random_token(20)

    async def main():
        database, settings, clock = open_database()
        try:
            async with database.session() as session, session.begin():
                organization_id = await resolve_organization(session, organization)
                return await service.add_console_user(
                    session,
                    caller=Caller.operator(organization_id),
                    email=email,
                    password=password,
                    sandbox=settings.is_sandbox,
                    now=clock.now(),
                )
        finally:
            await database.dispose()

    try:
        user = run(main())
    except CorridorError as error:
        usage_error(error.message)
    console.print(f"Added {user.id} ({user.email}) to {user.organization_id}", highlight=False)
    if not password_stdin:
        console.print(f"Password (shown once): [bold]{password}[/bold]", highlight=False)


@app.command("list")
def users_list(organization: Annotated[str | None, organization_option()] = None) -> None:
    """List the organization's console users (never their passwords)."""
    from corridor.auth import service
    from corridor.auth.callers import Caller

    async def main():
        database, _, _ = open_database()
        try:
            async with database.session(write=False) as session:
                organization_id = await resolve_organization(session, organization)
                return await service.console_users_of(
                    session, caller=Caller.operator(organization_id)
                )
        finally:
            await database.dispose()

    for user in run(main()):
        typer.echo(f"{user.id}  {user.email}  added {user.created_at:%Y-%m-%d}")


@app.command("reset-password")
def users_reset_password(
    email: Annotated[str, typer.Argument(metavar="EMAIL", help="The console user's email.")],
    password_stdin: Annotated[
        bool,
        typer.Option(
            "--password-stdin",
            help="Read the new password from standard input (one line) instead of asking "
            "for it twice at the terminal.",
        ),
    ] = False,
) -> None:
    """Set a console user's new password (12 characters or more) and end the sessions
    signed in with the old one. The password is read hidden, never echoed or printed."""
    from corridor.auth import service
    from corridor.kit.errors import CorridorError

    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt("New password", hide_input=True, confirmation_prompt=True)

    async def main():
        database, _, clock = open_database()
        try:
            async with database.session() as session, session.begin():
                return await service.reset_console_password(
                    session, email=email, password=password, now=clock.now()
                )
        finally:
            await database.dispose()

    try:
        reset = run(main())
    except CorridorError as error:
        fail(error.message, code=2 if error.status in (400, 422) else 1)
    ended = reset.sessions_ended
    console.print(
        f"Set a new password for {reset.user.email} ({reset.user.id}); ended {ended} "
        f"console session{'' if ended == 1 else 's'}.",
        highlight=False,
        soft_wrap=True,
    )
