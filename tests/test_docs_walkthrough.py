"""The guide's walkthrough (every shell block of the quickstart pages in
tests/docs_samples.WALKTHROUGH, from the curl set-up to MCP; the README ran them until the
guide took them over) runs top to bottom in one bash, twice in a row, against a live
server with its workers: every command must succeed (`set -euo pipefail`), and nothing may
be written into the checkout."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import httpx
import pytest

from corridor.webhooks import catalog
from tests.docs_samples import CHECKOUT, walkthrough_blocks
from tests.live_server import LiveServer, live_corridor
from tests.programs import needs

walkthrough_run_s_max = 900


def _checkout_state() -> set[str]:
    listed = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line for line in listed.splitlines() if "__pycache__" not in line}


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[LiveServer]:
    with live_corridor("sqlite", tmp_path_factory.mktemp("readme"), workers=True) as server:
        yield server


def test_the_walkthrough_has_every_section():
    blocks = walkthrough_blocks()
    assert len(blocks) >= 9
    assert any("corridor listen" in block for block in blocks)
    assert not any(
        "> " in line and ".json" in line for block in blocks for line in block.splitlines()
    )


@needs("curl")
def test_the_walkthrough_runs_twice_in_one_shell_and_writes_nothing_into_the_checkout(
    live, tmp_path
):
    script = "\n".join(walkthrough_blocks())
    whole = (
        "set -euo pipefail\n"
        "trap 'echo \"FAILED (exit $?) at line $LINENO: $BASH_COMMAND\" >&2' ERR\n"
        f"{script}\necho 'first run done'\n{script}\necho 'second run done'\n"
    )
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("CORRIDOR_")
    }
    environment |= {
        "CORRIDOR_API_KEY": live.api_key,
        "CORRIDOR_BASE_URL": live.base_url,
        "CORRIDOR_CONSOLE_EMAIL": live.console_email,
        "CORRIDOR_CONSOLE_PASSWORD": live.console_password,
        "TMPDIR": str(tmp_path),
    }
    before = _checkout_state()
    ran = subprocess.run(
        ["bash", "-c", whole],
        cwd=CHECKOUT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=walkthrough_run_s_max,
    )
    assert ran.returncode == 0, (
        f"{ran.stderr[-4000:]}\n---\n{ran.stdout[-4000:]}\n---\n{live.log_tail()}"
    )
    assert "second run done" in ran.stdout
    assert ran.stdout.count(" COMPLETED") >= 6  # payout, deposit, fixed route, on both runs
    assert ran.stdout.count("account.funded") >= 2
    assert ran.stdout.count("Removed endpoint") == 2
    assert _checkout_state() == before
    # Every event type the walkthrough made is in the guide's event catalog.
    made = _message_types(live)
    assert {"customer.created", "account.funded", "transfer.created", "transfer.completed"} <= made
    assert made <= catalog.EVENTS.keys(), made - catalog.EVENTS.keys()


def _message_types(live: LiveServer) -> set[str]:
    types: set[str] = set()
    query: dict[str, str | int] = {"limit": 250}
    headers = {"Authorization": f"Bearer {live.api_key}"}
    while True:
        page = httpx.get(
            f"{live.base_url}/v1/webhooks/messages", params=query, headers=headers, timeout=60
        ).json()
        types |= {message["eventType"] for message in page["data"]}
        if page["done"]:
            return types
        query["iterator"] = page["iterator"]
