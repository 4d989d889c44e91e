"""What the commands share below their output: the database, the organization acted for,
times given on the command line."""

from __future__ import annotations

import asyncio

import typer

from corridor.cli.output import usage_error
from corridor.config import get_settings


def run(coroutine):
    return asyncio.run(coroutine)


def organization_option() -> typer.models.OptionInfo:
    return typer.Option(
        "--organization",
        "-o",
        metavar="ID",
        help="Organization id (may be omitted when the database holds one).",
    )


async def resolve_organization(session, organization_id: str | None) -> str:
    from corridor.organizations import repository

    if organization_id:
        # Checked here: a key or a replay for an organization that does not exist would
        # otherwise reach the database and fail on its foreign key.
        if await repository.organization_by_id(session, organization_id) is None:
            usage_error(f"no such organization: {organization_id}")
        return organization_id
    only = await repository.only_organization_id(session)
    if only is None:
        if await repository.count_organizations(session) == 0:
            usage_error("no organization yet: run `corridor init` first")
        usage_error("several organizations exist: pass --organization org_…")
    return only


def moment(text: str, now, option: str):
    """An ISO 8601 time, or an age before `now` such as 90m, 24h or 7d."""
    import re
    from datetime import UTC, datetime, timedelta

    age = re.fullmatch(r"\s*(\d{1,6})\s*([mhd])\s*", text)
    if age:
        unit = {"m": "minutes", "h": "hours", "d": "days"}[age.group(2)]
        return now - timedelta(**{unit: int(age.group(1))})
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise typer.BadParameter(
            f"{text!r} is neither an ISO 8601 time nor an age like 24h", param_hint=option
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def open_database():
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database

    settings = get_settings()
    return Database(settings.database_url), settings, SystemClock()


def database_shown() -> str:
    try:
        return safe_url(get_settings().database_url)
    except Exception:  # the settings themselves are what failed
        return "the configured database"


def safe_url(url: str) -> str:
    """The database URL without its password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return url
