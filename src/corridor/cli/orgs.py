"""`corridor orgs`: the organizations the database holds."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from corridor.cli.base import typer_app
from corridor.cli.context import open_database, run
from corridor.cli.output import moment_shown, print_json, print_table

app = typer_app("The organizations this server holds (roots and their child organizations).")


@app.command("list")
def orgs_list(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON lines, one organization per line.")
    ] = False,
    limit: Annotated[
        int, typer.Option(metavar="N", min=1, max=10000, help="At most N organizations.")
    ] = 500,
) -> None:
    """List every organization, oldest first: id, name, parent (for a child
    organization), kind, mode (sandbox or live, the server's) and when it was made. The ids
    are what --organization takes."""
    from corridor.organizations import service

    async def main():
        database, settings, _ = open_database()
        try:
            async with database.session(write=False) as session:
                return await service.all_organizations(session, limit=limit), settings
        finally:
            await database.dispose()

    organizations, settings = run(main())
    mode = settings.key_environment
    if as_json:
        for organization in organizations:
            print_json(
                {
                    "id": organization.id,
                    "name": organization.name,
                    "parentId": organization.parent_id,
                    "kind": organization.kind,
                    "mode": mode,
                    "createdAt": organization.created_at.isoformat(),
                }
            )
        return
    print_table(
        ["id", "name", "parent", "kind", "mode", "created"],
        (
            [
                organization.id,
                ("  " * depth + "└ " if depth else "") + organization.name,
                organization.parent_id or "",
                organization.kind,
                mode,
                moment_shown(organization.created_at),
            ]
            for organization, depth in _as_tree(organizations)
        ),
        optional=["parent", "kind"],
    )


def _as_tree(organizations: list) -> list[tuple[Any, int]]:
    """Each organization after its parent, indented by its depth (oldest first among
    siblings), so the table shows the tree even without its parent column."""
    children: dict[str | None, list] = {}
    known = {organization.id for organization in organizations}
    for organization in organizations:
        parent = organization.parent_id if organization.parent_id in known else None
        children.setdefault(parent, []).append(organization)
    ordered: list[tuple[Any, int]] = []

    def visit(parent: str | None, depth: int) -> None:
        for organization in children.get(parent, []):
            ordered.append((organization, depth))
            visit(organization.id, depth + 1)

    visit(None, 0)
    return ordered
