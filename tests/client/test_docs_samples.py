"""The guide's Python SDK examples (docs/quickstart/python-sdk.md; the README's until the
guide took them over) run as written, against a live server, twice."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.docs_samples import script
from tests.live_server import LiveServer

PAGE = "quickstart/python-sdk.md"
example_run_s_max = 120


def _sdk_examples() -> str:
    return script(PAGE, "python")


def test_the_guides_sdk_examples_run_as_written_any_number_of_times(live: LiveServer):
    environment = {
        **os.environ,
        "CORRIDOR_API_KEY": live.api_key,
        "CORRIDOR_BASE_URL": live.base_url,
    }
    for _ in range(2):
        ran = subprocess.run(
            [sys.executable, "-c", _sdk_examples()],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert ran.returncode == 0, ran.stderr
        assert "COMPLETED" in ran.stdout
        assert "per_transfer_limit_exceeded 20.00 30.00" in ran.stdout
