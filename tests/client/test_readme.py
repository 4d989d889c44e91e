"""The README's Python SDK examples run as written, against a live server, twice."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live_server import LiveServer

README = Path(__file__).resolve().parents[2] / "README.md"
example_run_s_max = 120


def _sdk_examples() -> str:
    text = README.read_text()
    section = text[text.index("## Python SDK") :]
    section = section[: section.index("\n## ", 1)]
    return "\n".join(re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL))


def test_the_readme_sdk_examples_run_as_written_any_number_of_times(live: LiveServer):
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
