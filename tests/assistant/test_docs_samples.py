"""The guide's assistant and MCP quickstarts (docs/quickstart/assistant.md, and the "MCP"
section of docs/quickstart/mcp.md; the README's until the guide took them over) run as
written against a fresh server with its workers (after the curl set-up page they continue),
printing what they promise."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.docs_samples import script
from tests.live_server import live_corridor
from tests.programs import needs

example_run_s_max = 120


@needs("curl")
def test_the_guides_assistant_and_mcp_examples_run_as_written(tmp_path) -> None:
    with live_corridor("sqlite", tmp_path, workers=True) as live:
        environment = {
            **os.environ,
            "CORRIDOR_API_KEY": live.api_key,
            "CORRIDOR_BASE_URL": live.base_url,
        }
        whole = "\n".join(
            [
                "set -euo pipefail",
                script("quickstart/curl.md", "sh"),
                "echo",
                script("quickstart/assistant.md", "sh"),
                "echo",
                script("quickstart/mcp.md", "sh", "MCP"),
            ]
        )
        ran = subprocess.run(
            ["bash", "-c", whole],
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
            [sys.executable, "-c", script("quickstart/mcp.md", "python", "MCP")],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert python.returncode == 0, python.stderr
        assert "'create_transfer'" in python.stdout
        assert "'hasMore': False" in python.stdout
