"""The README's Assistant and MCP sections run as written against a fresh server with its
workers (after the curl quickstart they continue), printing what they promise."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live_server import live_corridor
from tests.programs import needs

README = Path(__file__).resolve().parents[2] / "README.md"
example_run_s_max = 120


def _section(title: str) -> str:
    text = README.read_text()
    section = text[text.index(f"## {title}\n") :]
    return section[: section.index("\n## ", 1)]


def _blocks(title: str, language: str) -> str:
    return "\n".join(re.findall(rf"```{language}\n(.*?)```", _section(title), flags=re.DOTALL))


@needs("curl")
def test_the_readme_assistant_and_mcp_examples_run_as_written(tmp_path) -> None:
    with live_corridor("sqlite", tmp_path, workers=True) as live:
        environment = {
            **os.environ,
            "CORRIDOR_API_KEY": live.api_key,
            "CORRIDOR_BASE_URL": live.base_url,
        }
        script = "\n".join(
            [
                "set -euo pipefail",
                _blocks("Try it with curl", "sh"),
                "echo",
                _blocks("Assistant", "sh"),
                "echo",
                _blocks("MCP", "sh"),
            ]
        )
        ran = subprocess.run(
            ["bash", "-c", script],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert ran.returncode == 0, ran.stderr + ran.stdout[-3000:] + live.log_tail()
        assert "available (0.00 USD pending)" in ran.stdout
        assert "Send 25.00 USD from acc_" in ran.stderr and "Bob Builder" in ran.stderr
        assert '"ok":true' in ran.stdout
        # The confirmed transfer is listed; the workers may already have moved it on.
        listed = re.search(r'\{"data":\[\{"id":"tfr_\w+",[^{]*"status":"([A-Z_]+)"', ran.stdout)
        assert listed, ran.stdout[-3000:]
        assert listed.group(1) in {"PENDING", "PROCESSING", "COMPLETED"}
        assert "event: run.status" in ran.stdout
        assert '"serverInfo"' in ran.stdout

        python = subprocess.run(
            [sys.executable, "-c", _blocks("MCP", "python")],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert python.returncode == 0, python.stderr
        assert "'create_transfer'" in python.stdout
        assert "'hasMore': False" in python.stdout
