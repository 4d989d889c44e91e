"""The `corridor` command run in the test process: the real entry point
(`corridor.cli.main`, the one `python -m corridor.cli` calls) with the argv, environment
and standard input a subprocess would get, its standard output and error captured, and
its exit status turned into `returncode`. A subprocess pays the package's imports on every
command (a second or more); the CLI tests run hundreds of commands.

What a fresh process would start from is reset for each command: the environment is the
one given (and restored after), the settings cache is cleared (before and after), the
`--debug` flag is read again from CORRIDOR_DEBUG, the output consoles are made again (Rich
fixes their width from COLUMNS when made), and the logging configuration and the
threading excepthook the command installs are put back.

The command runs in a thread of its own: it calls `asyncio.run`, which refuses to run
inside the test's event loop. The caller waits for it, as it waited for a subprocess.

tests/test_cli.py keeps a few tests that run a real subprocess, so that running it as a
user does is still proven."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Mapping, Sequence

from click.testing import CliRunner

Completed = subprocess.CompletedProcess


def _text(data: bytes) -> str:
    # As `subprocess.run(text=True)` reads a pipe: universal newlines.
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def _exit_status(code: object) -> tuple[int, str]:
    """What Python does with `SystemExit(code)`: the status, and what it prints."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, f"{code}\n"


def _invoke(arguments: Sequence[str], environment: Mapping[str, str], input: str | None):
    import corridor.cli
    from corridor.cli import base, output
    from corridor.config import get_settings

    changes: dict[str, str | None] = {
        key: value for key, value in environment.items() if os.environ.get(key) != value
    }
    changes.update({key: None for key in os.environ if key not in environment})
    root = logging.getLogger()
    logging_before = (list(root.handlers), root.level, logging.root.manager.disable)
    excepthook = threading.excepthook
    argv = sys.argv
    returncode = 0
    threads_before = {thread.ident for thread in threading.enumerate()}
    with CliRunner().isolation(input=input or "", env=changes) as (stdout, stderr, _):
        try:
            get_settings.cache_clear()
            base._debug["enabled"] = os.environ.get("CORRIDOR_DEBUG", "") not in ("", "0")
            output.console.__init__()  # type: ignore[misc]
            output.errors.__init__(stderr=True)  # type: ignore[misc]
            sys.argv = ["corridor", *arguments]
            try:
                corridor.cli.main()
            except SystemExit as exited:
                returncode, printed = _exit_status(exited.code)
                sys.stderr.write(printed)
            except BaseException as error:  # what the interpreter prints for an uncaught one
                traceback.print_exception(error, file=sys.stderr)
                returncode = 1
            # Threads the command started (the database driver's) end before the result is
            # read, as a process ends after them: what they print is the command's stderr.
            for thread in threading.enumerate():
                if thread.ident not in threads_before:
                    thread.join(timeout=30)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            sys.argv = argv
            threading.excepthook = excepthook
            root.handlers[:], root.level = logging_before[0], logging_before[1]
            logging.disable(logging_before[2])
            get_settings.cache_clear()
            base._debug["enabled"] = os.environ.get("CORRIDOR_DEBUG", "") not in ("", "0")
    # The environment is back: the consoles are made again as an import would make them.
    output.console.__init__()  # type: ignore[misc]
    output.errors.__init__(stderr=True)  # type: ignore[misc]
    return Completed(
        ["corridor", *arguments], returncode, _text(stdout.getvalue()), _text(stderr.getvalue())
    )


_one_at_a_time = threading.Lock()  # the process's streams and environment are shared


def run_corridor(
    arguments: Sequence[str], *, environment: Mapping[str, str], input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`corridor *arguments` with `environment` as its whole environment and `input` on
    its standard input, as `subprocess.run(..., capture_output=True, text=True)` would
    report it."""
    result: list[subprocess.CompletedProcess[str]] = []
    failure: list[BaseException] = []

    def command() -> None:
        try:
            result.append(_invoke(arguments, environment, input))
        except BaseException as error:  # the helper's own failure, raised in the test
            failure.append(error)

    with _one_at_a_time:
        worker = threading.Thread(target=command, name="corridor-cli")
        worker.start()
        worker.join()
    if failure:
        raise failure[0]
    return result[0]
