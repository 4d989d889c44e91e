"""One line that says what went wrong, for a command-line user who did not ask for a
traceback."""

from __future__ import annotations

import re
from typing import Any


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _without_password(text: str) -> str:
    return re.sub(r"(://[^:/@\s]+):[^@\s]+@", r"\1@", text)


# The database URLs Corridor runs on; any other fails inside SQLAlchemy on a missing module.
SUPPORTED_DATABASE_SCHEMES = ("postgresql+asyncpg", "sqlite+aiosqlite")
# What SQLite and PostgreSQL say of a database `corridor migrate` has not made (yet).
_UNMIGRATED = re.compile(
    r"no such table|unable to open database file|relation \"[^\"]+\" does not exist"
)


def _unmigrated(reason: str) -> bool:
    return _UNMIGRATED.search(reason) is not None


def _unsupported_driver(error: BaseException, database: str) -> bool:
    """A URL of another driver (postgresql://, mysql://, sqlite://) fails on loading it: a
    module not installed, or a driver that is not asynchronous."""
    from sqlalchemy.exc import ArgumentError, InvalidRequestError, NoSuchModuleError

    scheme = database.split("://", 1)[0] if "://" in database else None
    if scheme is None or scheme in SUPPORTED_DATABASE_SCHEMES:
        return False
    return isinstance(error, ImportError | NoSuchModuleError | ArgumentError) or (
        isinstance(error, InvalidRequestError) and "async driver" in str(error)
    )


def _setting_problem(problem: Any) -> str:
    """`CORRIDOR_NAME: what is wrong`; a rule across settings (no location) names them in its
    message by field name (webhook_claim_lease_s), shown as the variables to set."""
    if problem["loc"]:
        return (
            f"CORRIDOR_{'_'.join(str(part) for part in problem['loc']).upper()}: {problem['msg']}"
        )
    message = str(problem["msg"]).removeprefix("Value error, ")
    return re.sub(
        r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", lambda name: f"CORRIDOR_{name[0].upper()}", message
    )


def describe_failure(error: BaseException, *, database: str = "the database") -> str:
    """`database` names the database in use (without its password) for connection errors."""
    from pydantic import ValidationError
    from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError

    from corridor.kit.errors import CorridorError

    if isinstance(error, CorridorError):
        return error.message
    if _unsupported_driver(error, database):
        return (
            f"cannot use {database}: Corridor has no driver for it; "
            "use postgresql+asyncpg:// or sqlite+aiosqlite://"
        )
    if isinstance(error, ValidationError) and error.title == "Settings":
        return "invalid setting " + "; ".join(
            _setting_problem(problem) for problem in error.errors()
        )
    if isinstance(error, IntegrityError):
        return f"the database refused the change: {_first_line(str(error.orig))}"
    if isinstance(error, DBAPIError):
        reason = _first_line(str(error.orig))
        hint = "; run `corridor migrate` first" if _unmigrated(reason) else ""
        return f"cannot use {database}: {reason}{hint}"
    if isinstance(error, SQLAlchemyError):
        return f"database error: {_without_password(_first_line(str(error)))}"
    if isinstance(error, ConnectionError | TimeoutError):
        return f"cannot connect to {database}: {_first_line(str(error))}"
    if isinstance(error, OSError) and error.strerror:
        target = f" ({error.filename})" if error.filename else ""
        return f"{error.strerror}{target}"
    detail = _without_password(_first_line(str(error)))
    return f"{type(error).__name__}: {detail}" if detail else type(error).__name__
