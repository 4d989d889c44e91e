"""`corridor audit`: the tamper-evident audit chain (API.md 9)."""

from __future__ import annotations

from typing import Annotated

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, organization_option, resolve_organization, run

app = typer_app("The audit chain: every agent decision, linked by hashes.")


@app.command("verify")
def audit_verify(
    organization: Annotated[str | None, organization_option()] = None,
) -> None:
    """Recompute every hash and link of the organization's audit chain (every
    organization's when none is given and the database holds several). Exits 0 printing
    how many records hold; exits 1 naming the first bad sequence and why."""
    from corridor.audit import service

    async def main() -> list[tuple[str, service.rules.Verification]]:
        database, _, _ = open_database()
        try:
            if organization is None:
                async with database.session(write=False) as session:
                    pending = await service.organizations_with_unlinked(session)
                for organization_id in pending:
                    await service.link_pending(database, organization_id)
            async with database.session(write=False) as session:
                if organization is not None:
                    organizations = [await resolve_organization(session, organization)]
                    await session.commit()
                    await service.link_pending(database, organizations[0])
                else:
                    organizations = await service.organizations_with_chains(session)
                return [
                    (organization_id, await service.verify_chain(session, organization_id))
                    for organization_id in organizations
                ]
        finally:
            await database.dispose()

    results = run(main())
    broken = False
    for organization_id, result in results:
        if result.holds:
            typer.echo(f"{organization_id}: the chain holds: {result.count} records verified")
        else:
            broken = True
            typer.echo(
                f"{organization_id}: the chain is broken at sequence {result.bad_sequence}: "
                f"{result.reason} ({result.count} records verified before it)",
                err=True,
            )
    if not results:
        typer.echo("No audit records yet: nothing to verify")
    if broken:
        raise typer.Exit(1)
