"""The guide's curl sections of issue 13 ("Documents", "Statements", "Operators and child
organizations", on the quickstart page docs/quickstart/platforms.md; the README's until
the guide took them over) run as written against `corridor serve`, after the curl set-up
page they build on (docs/quickstart/curl.md), and again."""

from __future__ import annotations

import os
import re
import subprocess
from decimal import Decimal

import pytest

from tests.conftest import BACKENDS
from tests.docs_samples import script
from tests.live_server import live_corridor
from tests.programs import needs

PAGE = "quickstart/platforms.md"
SECTIONS = ("Documents", "Statements", "Operators and child organizations")
script_run_s_max = 120


def _script() -> str:
    """The curl set-up once (it is not meant to be repeated: its customer is created under a
    fixed Idempotency-Key), then the sections' commands twice."""
    setup = script("quickstart/curl.md", "sh")
    # The server and key come from the environment instead of the placeholders.
    setup = "\n".join(
        line
        for line in setup.splitlines()
        if not line.startswith(("export CORRIDOR=", "export CORRIDOR_KEY="))
    )
    sections = "\n".join(script(PAGE, "sh", title) for title in SECTIONS)
    sections = "\n".join(
        line for line in sections.splitlines() if not line.startswith("export CORRIDOR_CONSOLE_")
    )
    return "\n".join(["set -euo pipefail", setup, sections, "echo '--- again ---'", sections])


@pytest.mark.parametrize("backend", BACKENDS)
@needs("curl")
def test_the_guides_curl_sections_run_any_number_of_times(backend, tmp_path):
    with live_corridor(
        backend, tmp_path, settings={"CORRIDOR_DOCUMENTS_DIRECTORY": str(tmp_path / "files")}
    ) as live:
        environment = {
            **os.environ,
            "CORRIDOR_API_KEY": live.api_key,
            "CORRIDOR_BASE_URL": live.base_url,
            "CORRIDOR_CONSOLE_EMAIL": live.console_email,
            "CORRIDOR_CONSOLE_PASSWORD": live.console_password,
        }
        ran = subprocess.run(
            ["bash", "-c", _script()],
            env=environment,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=script_run_s_max,
        )
        assert ran.returncode == 0, ran.stderr
        runs = ran.stdout.split("--- again ---")
        assert len(runs) == 2, ran.stdout
        seen = set()
        for output in runs:
            assert "upload: 204" in output, output
            assert '"code":"upload_url_used"' in output, output
            confirmed = re.search(r"confirmed: UPLOADED ([0-9a-f]{64})", output)
            assert confirmed is not None, output
            assert f"local sha256: {confirmed.group(1)}" in output
            document = re.search(r"attached: (doc_[0-9a-z]+)", output)
            assert document is not None, output
            seen.add(document.group(1))
            assert "archived: ARCHIVED" in output, output
            statement = re.search(
                r"statement: \d{4}-\d{2} 0\.00 \+ ([0-9.]+) - ([0-9.]+) = ([0-9.]+) (\d+) lines",
                output,
            )
            assert statement is not None, output
            money_in, money_out, closing = (Decimal(statement.group(n)) for n in (1, 2, 3))
            assert money_in - money_out == closing > 0
            assert "date,transaction_id,type,description" in output
            assert "OPENING_BALANCE" in output and "%PDF-" in output
            assert re.search(r'"transfers": ?\[\]', output), output
            assert "is in the future" in output
            inside = re.search(r"inside: (org_[0-9a-z]+) PLATFORM", output)
            assert inside is not None, output
            reviewed = re.search(r"reviewed: (tfr_[0-9a-z]+) PENDING", output)
            assert reviewed is not None, output
            queue = re.search(r"queue: (\[.*\])", output)
            assert queue is not None, output
            assert f"('{reviewed.group(1)}', '{inside.group(1)}')" in queue.group(1)
        assert len(seen) == 2, "each run uploads a document of its own"
