"""What the commands share below their output: the database, the organization acted for,
times given on the command line."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import typer
from pydantic import ValidationError

from corridor.cli.output import fail, usage_error
from corridor.config import get_settings

T = TypeVar("T")


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
        usage_error(await several_organizations(session))
    return only


# The several-organizations error lists this many; `corridor orgs list` shows them all.
organizations_listed_max = 20


async def several_organizations(session) -> str:
    """The error when no --organization was given and the database holds several: each
    one's id and name, so the next command can be typed from it."""
    from corridor.organizations import service

    found = await service.all_organizations(session, limit=organizations_listed_max + 1)
    lines = [
        f"  {organization.id}  {organization.name}"
        + (f"  (child of {organization.parent_id})" if organization.parent_id else "")
        for organization in found[:organizations_listed_max]
    ]
    if len(found) > organizations_listed_max:
        lines.append("  … and more: `corridor orgs list` shows them all")
    return "several organizations exist: pass --organization ID, one of:\n" + "\n".join(lines)


def act(
    organization: str | None,
    work: Callable[[Acting], Awaitable[T]],
    *,
    write: bool,
    options: dict[str, str] | None = None,
) -> T:
    """Run `work` as the organization's owner would act in the console (Caller.operator:
    the service layer's own rules, never raw SQL), in one transaction when it writes. A
    service's refusal is one line on stderr: exit 2 for bad input, 1 otherwise; a field
    of the API named in it is named by its option (`options`: customerId → --customer)."""
    from corridor.auth.callers import Caller
    from corridor.kit.errors import CorridorError
    from corridor.models import clock as sandbox_clocks

    async def main() -> T:
        database, settings, clock = open_database()
        try:
            async with database.session(write=write) as session:
                transaction = session.begin() if write else contextlib.nullcontext()
                async with transaction:
                    organization_id = await resolve_organization(session, organization)
                    now = (
                        await sandbox_clocks.moments(
                            session, clock, organization_id=organization_id
                        )
                    ).of(organization_id)
                    return await work(
                        Acting(session, Caller.operator(organization_id), settings, now)
                    )
        finally:
            await database.dispose()

    try:
        return run(main())
    except CorridorError as error:
        fail(_as_options(error.message, options), code=2 if error.status in (400, 422) else 1)
    except ValidationError as error:
        fail(_as_options(validation_message(error), options), code=2)


def _as_options(message: str, options: dict[str, str] | None) -> str:
    field, colon, rest = message.partition(": ")
    if colon and options and field in options:
        return f"{options[field]}: {rest}"
    return message


@dataclass(frozen=True, slots=True)
class Acting:
    """What a resource command works with: the session, the caller (the organization's
    owner), the settings and the organization's now (its sandbox clock)."""

    session: Any
    caller: Any
    settings: Any
    now: datetime


def validation_message(error: ValidationError) -> str:
    """A request model's first problem as the API words it: `field: message`."""
    problems = error.errors()
    if not problems:
        return "invalid input"
    first = problems[0]
    field = ".".join(str(part) for part in first.get("loc", ())) or "input"
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    if first.get("type") == "extra_forbidden":
        message = "unknown field"
    return f"{field}: {message}"


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
