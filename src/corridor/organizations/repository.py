"""Queries for organizations and their trees (an organization and its descendants)."""

from __future__ import annotations

from sqlalchemy import CTE, Integer, Select, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from corridor.kit.db import get_kept, lock_rows
from corridor.models.organization import Organization

# Levels below a root organization; bounds every walk of a tree.
organization_depth_max = 8


async def count_organizations(session: AsyncSession) -> int:
    return (await session.execute(select(func.count()).select_from(Organization))).scalar_one()


async def only_organization_id(session: AsyncSession) -> str | None:
    """The organization's id when the database holds exactly one (CLI convenience)."""
    ids = list((await session.execute(select(Organization.id).limit(2))).scalars())
    return ids[0] if len(ids) == 1 else None


async def organizations_listed(session: AsyncSession, *, limit: int) -> list[Organization]:
    """Every organization of the database, oldest first (the CLI's `orgs list`)."""
    statement = select(Organization).order_by(Organization.created_at, Organization.id).limit(limit)
    return list((await session.execute(statement)).scalars())


async def organization_by_id(session: AsyncSession, organization_id: str) -> Organization | None:
    return await get_kept(session, Organization, organization_id)


async def lock_organization(session: AsyncSession, organization_id: str) -> Organization | None:
    """The organization, locked until the transaction ends (its configuration is read-modify-write)."""
    rows = await lock_rows(session, Organization, [organization_id])
    return rows[0] if rows else None


def _subtree(root_id: str) -> CTE:
    """Ids of the root and its descendants, each with its depth below the root."""
    tree = (
        select(Organization.id, literal(0, Integer).label("depth"))
        .where(Organization.id == root_id)
        .cte("subtree", recursive=True)
    )
    child = aliased(Organization)
    return tree.union_all(
        select(child.id, tree.c.depth + 1).where(
            child.parent_id == tree.c.id, tree.c.depth < organization_depth_max
        )
    )


def organizations_in_scope(root_id: str) -> Select[Organization]:
    """The organizations a caller of `root_id` may read: its own and its descendants."""
    return select(Organization).where(Organization.id.in_(select(_subtree(root_id).c.id)))


async def depth_of(session: AsyncSession, organization_id: str) -> int:
    """How many ancestors the organization has (0 for a root)."""
    line = (
        select(Organization.parent_id, literal(0, Integer).label("depth"))
        .where(Organization.id == organization_id)
        .cte("ancestors", recursive=True)
    )
    parent = aliased(Organization)
    line = line.union_all(
        select(parent.parent_id, line.c.depth + 1).where(
            parent.id == line.c.parent_id, line.c.depth <= organization_depth_max
        )
    )
    return (await session.execute(select(func.max(line.c.depth)))).scalar_one() or 0
