"""The TypeScript SDK (clients/typescript) against a live `corridor serve` on a fresh SQLite
sandbox: its own tests under Node's test runner, and the package as a user gets it
(`npm pack`, installed in an empty project, the README's quick example compiled with tsc
and run)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client_ts.node import PACKAGE, build, npm, program
from tests.live_server import LiveServer, live_corridor
from tests.programs import needs

pytestmark = needs("node", "npm")

# A bound for a loaded machine; the tests take about 15 s.
node_tests_timeout_s = 600
# The SDK's tests (test/*.test.ts): a run that counts fewer has lost some.
node_tests_min = 30


@pytest.fixture(scope="module")
def built() -> None:
    build()


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[LiveServer]:
    """With its workers, so webhooks are delivered."""
    with live_corridor("sqlite", tmp_path_factory.mktemp("sdk-ts"), workers=True) as server:
        yield server


def _server_environment(live: LiveServer) -> dict[str, str]:
    return {**os.environ, "CORRIDOR_BASE_URL": live.base_url, "CORRIDOR_API_KEY": live.api_key}


def _counts(tap: str) -> dict[str, int]:
    """The closing counts of Node's test runner (`# pass 27`, `# fail 0`, …)."""
    return {name: int(count) for name, count in re.findall(r"^# (\w+) (\d+)$", tap, re.MULTILINE)}


def test_the_sdk_tests_pass_against_corridor_serve(built, live: LiveServer):
    tests = sorted(str(path) for path in (PACKAGE / "build" / "test").glob("*.test.js"))
    run = subprocess.run(
        [program("node"), "--test", *tests],
        cwd=PACKAGE,
        env=_server_environment(live),
        capture_output=True,
        text=True,
        timeout=node_tests_timeout_s,
    )
    counts = _counts(run.stdout)
    failures = "\n".join(
        line for line in run.stdout.splitlines() if line.lstrip().startswith("not ok")
    )
    assert run.returncode == 0 and counts.get("fail") == 0, (
        f"{failures}\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}\nserver log:\n{live.log_tail()}"
    )
    assert counts.get("skipped") == 0, run.stdout[-3000:]  # the server was there for all
    assert counts.get("pass", 0) >= node_tests_min, counts


def _quick_example() -> str:
    """The README's quick example: the ```ts block under "## Quick example"."""
    readme = (PACKAGE / "README.md").read_text()
    section = readme.split("## Quick example", 1)[1]
    match = re.search(r"```ts\n(.*?)```", section, re.DOTALL)
    assert match, "clients/typescript/README.md has no ```ts block under ## Quick example"
    return match.group(1)


def test_npm_pack_installs_and_the_readme_example_runs(built, live: LiveServer, tmp_path: Path):
    packed = json.loads(npm("pack", "--json", "--ignore-scripts", f"--pack-destination={tmp_path}"))
    tarball = tmp_path / packed[0]["filename"]
    shipped = {entry["path"] for entry in packed[0]["files"]}
    assert {"package.json", "README.md", "dist/index.js", "dist/index.d.ts"} <= shipped
    assert "dist/generated/openapi.d.ts" in shipped
    assert not any(
        path.startswith(("src/", "test/", "build/", "node_modules/")) for path in shipped
    )

    consumer = tmp_path / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text(
        json.dumps({"name": "consumer", "private": True, "type": "module"})
    )
    npm("install", "--no-audit", "--no-fund", "--prefer-offline", str(tarball), cwd=consumer)
    installed = consumer / "node_modules" / "corridor-client"
    assert (installed / "dist" / "index.js").exists()
    assert not (installed / "src").exists()

    (consumer / "example.ts").write_text(_quick_example())
    tsc = PACKAGE / "node_modules" / "typescript" / "bin" / "tsc"
    compiled = subprocess.run(
        [
            *(program("node"), str(tsc), "example.ts"),
            *("--strict", "--target", "es2022", "--module", "nodenext"),
            *("--moduleResolution", "nodenext", "--skipLibCheck"),
            *("--typeRoots", str(PACKAGE / "node_modules" / "@types"), "--types", "node"),
        ],
        cwd=consumer,
        capture_output=True,
        text=True,
        timeout=node_tests_timeout_s,
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr

    ran = subprocess.run(
        [program("node"), "example.js"],
        cwd=consumer,
        env=_server_environment(live),
        capture_output=True,
        text=True,
        timeout=node_tests_timeout_s,
    )
    assert ran.returncode == 0, ran.stderr
    created, replayed, customers, refused = ran.stdout.splitlines()
    assert re.fullmatch(r"created cus_\w+ \w+", created)
    assert replayed == "replayed true true"
    assert int(customers.split()[1]) >= 2
    assert re.fullmatch(r"refused 404 not_found req_\w+", refused)
