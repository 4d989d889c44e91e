"""The rule for tests that need a program outside Python (tests/programs.py): where the
program is missing they are skipped and the run ends with one line naming it, how many
tests it skipped and how to install it; with CORRIDOR_TEST_REQUIRE_ALL=1 the same run
fails. Checked by running the /docs browser tests in a pytest of their own with Chromium
hidden (a setting naming a path that does not exist)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import programs

ROOT = Path(__file__).resolve().parent.parent
# The two tests of the /docs file that drive Chromium.
BROWSER_TESTS = [
    "tests/web/test_docs.py::test_swagger_ui_renders_every_tag_offline_and_opens_one",
    "tests/web/test_docs.py::test_redoc_renders_every_operation_offline",
]


def _pytest(**environment: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in (programs.REQUIRE_ALL_SETTING, "PYTEST_XDIST_WORKER")
    }
    env.update(environment)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", *BROWSER_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_missing_program_skips_its_tests_and_the_summary_names_it():
    run = _pytest(CORRIDOR_TEST_CHROMIUM="/nonexistent/chromium")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 skipped" in run.stdout, run.stdout
    assert (
        "missing program chromium: 2 tests skipped (install: apt-get install -y chromium; "
        "CORRIDOR_TEST_REQUIRE_ALL=1 makes this a failure)"
    ) in run.stdout, run.stdout


def test_with_require_all_a_missing_program_fails_the_run():
    run = _pytest(CORRIDOR_TEST_CHROMIUM="/nonexistent/chromium", CORRIDOR_TEST_REQUIRE_ALL="1")
    assert run.returncode != 0, run.stdout
    assert "2 error" in run.stdout, run.stdout
    assert "CORRIDOR_TEST_CHROMIUM=/nonexistent/chromium does not exist" in run.stdout


def test_a_program_is_missing_when_no_path_entry_holds_it(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    assert programs._found("wrk", None, str(empty)) is None
    tool = empty / "wrk"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert programs._found("wrk", None, str(empty)) == str(tool)


def test_the_summary_counts_each_program_and_ignores_other_skips():
    reasons = [
        "Skipped: " + programs.missing_reason("chromium"),
        "Skipped: " + programs.missing_reason("chromium"),
        "Skipped: " + programs.missing_reason("wrk"),
        "Skipped: row locks are PostgreSQL's",
    ]
    lines = programs.summary_lines(reasons)
    assert len(lines) == 2
    assert lines[0].startswith("missing program chromium: 2 tests skipped (install: apt-get")
    assert lines[1].startswith("missing program wrk: 1 test skipped (install: apt-get")


def test_an_unknown_program_name_is_a_mistake_in_the_test():
    with pytest.raises(KeyError, match="PROGRAMS"):
        programs.needs("chromium-beta")
