"""Programs outside Python's packages that some tests need (Chromium, curl, wrk, …): one
rule for all of them (issue 31).

A test that needs one says so with `needs("chromium")` (a mark, for a test, a class or a
module's `pytestmark`), or calls `require("chromium")` where the need is found at run time;
`path_of("chromium")` gives the program to run. Where the program is missing the test is
skipped with a reason naming it, and the run ends with one line per missing program: how
many tests it skipped and the command that installs it (tests/conftest.py's terminal
summary). With CORRIDOR_TEST_REQUIRE_ALL=1 (set by .ci/run) a missing program fails the
test instead: CI runs the whole suite.

Each program is looked up on PATH, then in its usual places; a setting
(CORRIDOR_TEST_<NAME>, e.g. CORRIDOR_TEST_CHROMIUM=/opt/chromium/chrome) names it instead,
and a setting naming a path that does not exist makes it missing.
"""

from __future__ import annotations

import glob
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

REQUIRE_ALL_SETTING = "CORRIDOR_TEST_REQUIRE_ALL"
# Every skip for a missing program starts with this, so the summary can count them (on
# the controller of a pytest-xdist run, from the reports the workers send back).
SKIP_PREFIX = "missing program: "
EVM_NODE_MODULES = Path(__file__).parent / "evm" / "node_modules"


@dataclass(frozen=True)
class Program:
    name: str
    install: str
    # Where the program lives when it is not on PATH (glob patterns).
    places: tuple[str, ...] = ()

    @property
    def setting(self) -> str:
        return "CORRIDOR_TEST_" + self.name.upper().replace("-", "_")


PROGRAMS: dict[str, Program] = {
    program.name: program
    for program in (
        Program("chromium", "apt-get install -y chromium", ("/usr/bin/chromium",)),
        Program("curl", "apt-get install -y curl"),
        Program("wrk", "apt-get install -y wrk"),
        # The TypeScript SDK (clients/typescript): its build, its tests, `npm pack`.
        Program("node", "apt-get install -y nodejs"),
        Program("npm", "apt-get install -y npm"),
        # A streaming standby of the local PostgreSQL (tests/operations/standby.py).
        Program(
            "pg_basebackup",
            "apt-get install -y postgresql-15",
            ("/usr/lib/postgresql/*/bin/pg_basebackup",),
        ),
        Program(
            "pg_ctl", "apt-get install -y postgresql-15", ("/usr/lib/postgresql/*/bin/pg_ctl",)
        ),
        # A local EVM node for the chain rail's tests (tests/evm): Foundry's anvil, from the
        # npm package that tests/evm/package.json pins (.ci/run installs it there).
        Program(
            "anvil",
            "npm ci --prefix tests/evm",
            (str(EVM_NODE_MODULES / "@foundry-rs" / "anvil-linux-*" / "bin" / "anvil"),),
        ),
    )
}


def require_all() -> bool:
    return os.environ.get(REQUIRE_ALL_SETTING) == "1"


def _known(name: str) -> Program:
    if name not in PROGRAMS:
        raise KeyError(f"{name!r} is not in tests/programs.py's PROGRAMS; add it there")
    return PROGRAMS[name]


def _found(name: str, setting_value: str | None, path: str | None) -> str | None:
    program = _known(name)
    if setting_value is not None:
        return setting_value if os.access(setting_value, os.X_OK) else None
    on_path = shutil.which(name, path=path)
    if on_path is not None:
        return on_path
    for pattern in program.places:
        for candidate in sorted(glob.glob(pattern)):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


def path_of(name: str) -> str | None:
    """Where the program is, or None when it is missing."""
    program = _known(name)
    return _found(name, os.environ.get(program.setting), os.environ.get("PATH"))


def missing_reason(name: str) -> str:
    program = _known(name)
    named = os.environ.get(program.setting)
    where = f"{program.setting}={named} does not exist" if named else "not found on PATH"
    return f"{SKIP_PREFIX}{name} ({where}; install: {program.install})"


def require(*names: str) -> dict[str, str]:
    """The programs' paths; skips the calling test (fails it under
    CORRIDOR_TEST_REQUIRE_ALL=1) when one is missing."""
    paths: dict[str, str] = {}
    for name in names:
        path = path_of(name)
        if path is None:
            reason = missing_reason(name)
            if require_all():
                pytest.fail(f"{reason} [{REQUIRE_ALL_SETTING}=1]", pytrace=False)
            pytest.skip(reason)
        paths[name] = path
    return paths


def needs(*names: str) -> pytest.MarkDecorator:
    """Mark a test (class, module) as needing these programs."""
    for name in names:
        _known(name)
    return pytest.mark.needs_program(*names)


def check_marks(item: pytest.Item) -> None:
    """Called before each test runs (tests/conftest.py): skip or fail for its marks."""
    names = [name for mark in item.iter_markers("needs_program") for name in mark.args]
    if names:
        require(*names)


def summary_lines(skip_reasons: list[str]) -> list[str]:
    """One line per missing program, from the reasons of the tests skipped for it."""
    counts: dict[str, int] = {}
    for reason in skip_reasons:
        start = reason.find(SKIP_PREFIX)
        if start < 0:
            continue
        name = reason[start + len(SKIP_PREFIX) :].split(" ", 1)[0]
        counts[name] = counts.get(name, 0) + 1
    lines = []
    for name, count in sorted(counts.items()):
        install = PROGRAMS[name].install if name in PROGRAMS else "?"
        tests = "test" if count == 1 else "tests"
        lines.append(
            f"missing program {name}: {count} {tests} skipped (install: {install}; "
            f"{REQUIRE_ALL_SETTING}=1 makes this a failure)"
        )
    return lines
