"""Statements' pure rules: the month a statement covers, and its lines with a running
balance, where opening + movements = closing always holds."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

_PERIOD = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
# What parse_period accepts, as a JSON Schema pattern (years 2000 to 9999).
period_pattern = r"^[2-9][0-9]{3}-(0[1-9]|1[0-2])$"
# A statement lists every balance transaction of its month; beyond this it is refused
# (the paginated balance-transactions list has them all).
statement_lines_max = 20_000


# What a statement is sent as (`format=`, or the Accept header). No docstring: it would
# become the OpenAPI component's description.
class StatementFormat(StrEnum):
    JSON = "json"
    CSV = "csv"
    PDF = "pdf"


@dataclass(frozen=True, slots=True)
class Period:
    """A UTC calendar month: [start, end)."""

    year: int
    month: int

    @property
    def label(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    @property
    def start(self) -> datetime:
        return datetime(self.year, self.month, 1, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        if self.month == 12:
            return datetime(self.year + 1, 1, 1, tzinfo=UTC)
        return datetime(self.year, self.month + 1, 1, tzinfo=UTC)

    @classmethod
    def containing(cls, moment: datetime) -> Period:
        moment = moment.astimezone(UTC)
        return cls(moment.year, moment.month)


def parse_period(text: str) -> Period | None:
    """`YYYY-MM` (months 01 to 12, years from 2000), or None."""
    matched = _PERIOD.match(text)
    if matched is None or int(matched.group(1)) < 2000:
        return None
    return Period(int(matched.group(1)), int(matched.group(2)))


def period_problem(period: Period, *, opened_at: datetime, now: datetime) -> str | None:
    """Why no statement exists for this month, or None: not in the future, not before the
    account was opened."""
    if period.start > now:
        return f"{period.label} is in the future (it is {Period.containing(now).label} in UTC)"
    opened = Period.containing(opened_at)
    if period.start < opened.start:
        return f"{period.label} is before the account was opened ({opened.label})"
    return None


@dataclass(frozen=True, slots=True)
class Movement:
    """One balance transaction: a signed amount (credit positive) in minor units."""

    id: str
    at: datetime
    amount: int
    kind: str
    transfer_id: str | None
    description: str


@dataclass(frozen=True, slots=True)
class Line:
    movement: Movement
    balance_after: int


@dataclass(frozen=True, slots=True)
class StatementFigures:
    opening: int
    lines: list[Line]
    total_in: int
    total_out: int
    closing: int


def figures(opening: int, movements: Sequence[Movement]) -> StatementFigures:
    """Lines in order with their running balance; totals in and out (both positive)."""
    balance = opening
    lines = []
    total_in = total_out = 0
    for movement in movements:
        balance += movement.amount
        if movement.amount >= 0:
            total_in += movement.amount
        else:
            total_out -= movement.amount
        lines.append(Line(movement, balance))
    assert opening + total_in - total_out == balance, "a statement must add up"
    return StatementFigures(opening, lines, total_in, total_out, balance)
