"""The commands' output: results on standard output, errors on standard error, progress
bars, tables and JSON."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

console = Console()
errors = Console(stderr=True)


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
