"""The `corridor` command itself: the root Typer app, its global options (--version,
--debug) and the entry point that turns a failure into one line."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from corridor import __version__
from corridor.cli.context import database_shown
from corridor.cli.output import errors

# Plain help (no Rich panels), -h beside --help, and lines that fit 80 columns. Every option
# that takes a value names it with a metavar (ID, PORT, …): Typer would print type tags.
HELP_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 80}


def typer_app(help: str, **options) -> typer.Typer:
    return typer.Typer(
        help=help,
        no_args_is_help=True,
        add_completion=False,
        rich_markup_mode=None,
        pretty_exceptions_enable=False,
        context_settings=HELP_SETTINGS,
        **options,
    )


def _plain_arguments() -> None:
    """Typer prints an argument as `KEY_ID <str>` in help and `{KEY_ID}` in usage; show the
    metavar alone, as for options (`KEY_ID`, `[FILE]` when optional)."""
    from typer.core import TyperArgument

    type_shown = TyperArgument.display_type_rich
    usage_shown = TyperArgument._usage_display_name

    def display_type(self, ctx):
        return None if self.metavar else type_shown(self, ctx)

    def usage_name(self):
        if not self.metavar or self.nargs != 1:
            return usage_shown(self)
        return self.metavar if self.required else f"[{self.metavar}]"

    TyperArgument.display_type_rich = display_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign]


_plain_arguments()
app = typer_app(
    "Corridor: an open payments service. Every command reads CORRIDOR_* settings "
    "(CORRIDOR_DATABASE_URL, CORRIDOR_ENV, …) from the environment or a .env file."
)


_debug = {"enabled": os.environ.get("CORRIDOR_DEBUG", "") not in ("", "0")}


def _print_version(wanted: bool) -> None:
    if wanted:
        typer.echo(f"corridor {__version__}")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", help="When a command fails, show the traceback (also CORRIDOR_DEBUG=1)."
        ),
    ] = False,
) -> None:
    if debug:
        _debug["enabled"] = True


def _quiet_closed_loop_threads() -> None:
    """aiosqlite's worker thread may report a failed connection after `asyncio.run` closed
    its loop; that second traceback says nothing the one-line error does not (--debug
    still shows it)."""
    import threading

    report = threading.excepthook

    def hook(failure: threading.ExceptHookArgs) -> None:
        noise = isinstance(failure.exc_value, RuntimeError) and "Event loop is closed" in str(
            failure.exc_value
        )
        if _debug["enabled"] or not noise:
            report(failure)

    threading.excepthook = hook


def main() -> None:
    """The `corridor` entry point: a failure prints one line and exits 1, unless --debug."""
    from corridor.kit.failures import describe_failure

    _quiet_closed_loop_threads()
    try:
        app(prog_name="corridor")
    except KeyboardInterrupt:
        errors.print("Interrupted.")
        sys.exit(130)
    except Exception as error:
        if _debug["enabled"]:
            raise
        errors.print(
            f"Error: {describe_failure(error, database=database_shown())} "
            "(--debug shows the traceback)",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(1)
