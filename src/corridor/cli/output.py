"""The commands' output: results on standard output, errors on standard error, progress
bars, tables and JSON."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Any, NoReturn, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

console = Console()
errors = Console(stderr=True)


E = TypeVar("E", bound=StrEnum)


def progress_bar() -> Progress:
    """A progress bar on standard error (standard output stays for results), shown only on
    a terminal (elsewhere it would leave a blank line); lines printed through its console
    appear above it."""
    stderr = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,
    )


def usage_error(message: str) -> NoReturn:
    """One line on stderr, `corridor: …`, and exit status 2 (the command was asked wrongly)."""
    errors.print(f"corridor: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code=2)


def status_option(kind: type[E], text: str | None, *, noun: str) -> E | None:
    """`--status` read as one of `kind`'s values (any case), or a usage error naming them."""
    if text is None:
        return None
    try:
        return kind(text.upper())
    except ValueError:
        usage_error(
            f"--status: {text!r} is not a {noun} status; use one of "
            + ", ".join(member.value for member in kind)
        )


def wrapping_widths(
    rows: list[list[str]],
    headers: list[str],
    *,
    width: int,
    wrapping: tuple[int, int],
    minimum: int,
) -> tuple[int | None, int | None]:
    """Widths of the two wrapping columns at `wrapping` when the table would not fit
    `width` otherwise (None, None when it fits): the other columns keep their whole
    width (Rich would cut them), the second wrapping column at least `minimum`."""
    natural = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    gaps_chars = 2 * (len(headers) - 1)
    first, second = wrapping
    budget = (
        width
        - gaps_chars
        - sum(chars for index, chars in enumerate(natural) if index not in wrapping)
    )
    if natural[first] + natural[second] <= budget or budget < minimum + 4:
        return None, None  # it fits, or nothing can: Rich shares the width out
    second_chars = min(natural[second], max(minimum, budget // 2))
    return max(budget - second_chars, 4), second_chars


def fail(message: str, *, code: int = 1) -> NoReturn:
    """One line on stderr, `corridor: …`, and a non-zero exit: 1 when the service refused
    (no such id, a state that forbids it), 2 when the command was asked wrongly."""
    errors.print(f"corridor: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code=code)


def print_json(value: Any) -> None:
    """One JSON document on one line: a resource as the API shows it."""
    typer.echo(json.dumps(value, ensure_ascii=False, default=str))


def print_listing(
    bodies: Sequence[Any],
    *,
    as_json: bool,
    headers: Sequence[str],
    row: Callable[[Any], Sequence[str | None]],
    optional: Sequence[str] = (),
) -> None:
    """A list command's answer: JSON lines (each resource as the API shows it), or a table
    of each one's `row`."""
    if as_json:
        for body in bodies:
            print_json(body)
        return
    print_table(headers, (row(body) for body in bodies), optional=optional)


def print_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str | None]],
    *,
    optional: Sequence[str] = (),
) -> None:
    """A plain table: ids, times and statuses whole on one line, the other columns wrap.
    On a terminal too narrow for every column, the `optional` ones are left out (JSON
    output has them all); an empty list says so rather than printing headers alone."""
    cells = [["" if cell is None else str(cell) for cell in row] for row in rows]
    if not cells:
        console.print("Nothing yet.", highlight=False)
        return
    kept = list(range(len(headers)))
    for name in optional:
        if _natural_width(headers, cells, kept) <= console.width:
            break
        kept.remove(list(headers).index(name))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True)
    for index in kept:
        whole = headers[index] in _WHOLE_COLUMNS
        table.add_column(
            headers[index], no_wrap=whole, overflow="fold", min_width=None if whole else 8
        )
    for row in cells:
        table.add_row(*(row[index] for index in kept))
    console.print(table, highlight=False)


def _natural_width(headers: Sequence[str], rows: list[list[str]], kept: list[int]) -> int:
    widths = [max(len(headers[index]), *(len(row[index]) for row in rows)) for index in kept]
    return sum(widths) + 2 * (len(kept) - 1)


# Columns never wrapped or cut: ids, amounts, statuses, times.
_WHOLE_COLUMNS = frozenset(
    {"id", "parent", "customer", "account", "amount", "status", "created", "type", "kind", "mode"}
)


def print_fields(fields: Sequence[tuple[str, str | None]]) -> None:
    """One resource: a field a line, name and value."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(no_wrap=True, style="bold")
    table.add_column(overflow="fold")
    for name, value in fields:
        table.add_row(name, "" if value is None else str(value))
    console.print(table, highlight=False)


def moment_shown(value: Any, *, date_only: bool = False) -> str:
    """A datetime as `2026-11-27 23:05` (UTC; the date alone for list tables), from a
    datetime or an API field's ISO 8601 text."""
    if value is None:
        return ""
    text = f"{value:%Y-%m-%d %H:%M}" if hasattr(value, "strftime") else str(value)
    return text[:10] if date_only else text[:16].replace("T", " ")
