"""`corridor listen` against a live server that delivers webhooks: real signed deliveries
reach the listener's receiver on 127.0.0.1, which verifies and prints them, forwards
them, and removes (or keeps) its endpoint when stopped."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from standardwebhooks.webhooks import Webhook

from tests.live_server import LiveServer, live_corridor
from tests.webhooks.support import Receiver

# Generous bounds for a loaded machine: these are deadlines to fail, never timings asserted.
line_wait_s_max = 60
stop_wait_s_max = 30


@pytest.fixture(scope="module")
def delivering(tmp_path_factory) -> Iterator[LiveServer]:
    # The listener is a client of the API: one backend is enough here (delivery itself is
    # tested on every backend by tests/webhooks and tests/client).
    with live_corridor("sqlite", tmp_path_factory.mktemp("listen"), workers=True) as server:
        yield server


@dataclass
class Listening:
    process: subprocess.Popen[str]
    endpoint_id: str
    url: str
    stdout: queue.Queue[str] = field(default_factory=queue.Queue)
    stderr: list[str] = field(default_factory=list)

    def next_line(self, containing: str) -> str:
        deadline = time.monotonic() + line_wait_s_max
        while time.monotonic() < deadline:
            try:
                line = self.stdout.get(timeout=1)
            except queue.Empty:
                assert self.process.poll() is None, "".join(self.stderr)
                continue
            if containing in line:
                return line
        raise AssertionError(f"no line with {containing!r}; stderr: {''.join(self.stderr)}")

    def stop(self) -> str:
        """Ctrl+C, then what it said on standard error."""
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=stop_wait_s_max)
        time.sleep(0.1)  # the reader threads take the last lines
        return "".join(self.stderr)


def _pump(stream, sink) -> None:
    for line in stream:
        sink(line)


def start_listening(live: LiveServer, *arguments: str) -> Listening:
    environment = {**os.environ, "CORRIDOR_API_KEY": live.api_key}
    process = subprocess.Popen(
        [sys.executable, "-m", "corridor.cli", "listen", "--base-url", live.base_url, *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout: queue.Queue[str] = queue.Queue()
    stderr: list[str] = []
    ready = threading.Event()

    def on_stderr(line: str) -> None:
        stderr.append(line)
        if line.startswith("Ready:"):
            ready.set()

    threading.Thread(target=_pump, args=(process.stdout, stdout.put), daemon=True).start()
    threading.Thread(target=_pump, args=(process.stderr, on_stderr), daemon=True).start()
    if not ready.wait(timeout=line_wait_s_max):
        process.kill()
        raise AssertionError("".join(stderr))
    found = re.search(r"endpoint (ep_\w+) → (\S+)", "".join(stderr))
    assert found, stderr
    return Listening(process, found.group(1), found.group(2), stdout, stderr)


def _api(live: LiveServer) -> httpx.Client:
    return httpx.Client(
        base_url=live.base_url, headers={"Authorization": f"Bearer {live.api_key}"}, timeout=30
    )


def _new_business(live: LiveServer, name: str) -> dict:
    with _api(live) as api:
        response = api.post(
            "/v1/customers/business", json={"legalName": name, "email": "finance@acme.example"}
        )
    assert response.status_code == 201, response.text
    return response.json()


def test_listen_prints_verified_events_forwards_them_and_removes_its_endpoint(delivering):
    forward = Receiver()
    try:
        listening = start_listening(delivering, "--forward-to", forward.url)
        with _api(delivering) as api:
            endpoint = api.get(f"/v1/webhooks/endpoints/{listening.endpoint_id}").json()
            secret = api.get(f"/v1/webhooks/endpoints/{listening.endpoint_id}/secret").json()
        assert endpoint["url"] == listening.url
        assert listening.url.startswith("http://127.0.0.1:")

        customer = _new_business(delivering, "Acme Forwarding Inc")
        line = listening.next_line("customer.created")
        assert customer["id"] in line  # the message's tags
        assert "Acme Forwarding Inc" in line  # the short summary
        assert re.search(r"msg_\w+", line)
        assert f"→ {forward.url} 200" in line

        assert forward.wait_for(1, timeout_s=line_wait_s_max)
        forwarded = forward.received[0]
        event = Webhook(secret["key"]).verify(forwarded.body, forwarded.headers)
        assert event["type"] == "customer.created"
        assert event["data"]["id"] == customer["id"]

        said = listening.stop()
        assert listening.process.returncode == 0, said
        assert f"Removed endpoint {listening.endpoint_id}" in said
        with _api(delivering) as api:
            assert api.get(f"/v1/webhooks/endpoints/{listening.endpoint_id}").status_code == 404
    finally:
        forward.close()


def test_listen_json_prints_raw_bodies_and_keep_leaves_the_endpoint_for_reuse(delivering):
    listening = start_listening(delivering, "--json", "--keep", "-e", "customer.created")
    port = listening.url.split(":")[2].split("/")[0]
    customer = _new_business(delivering, "Acme Json Inc")
    body = json.loads(listening.next_line(customer["id"]))
    assert body["type"] == "customer.created"
    assert body["data"]["id"] == customer["id"]
    said = listening.stop()
    assert f"Kept endpoint {listening.endpoint_id}" in said
    with _api(delivering) as api:
        kept = api.get(f"/v1/webhooks/endpoints/{listening.endpoint_id}")
    assert kept.status_code == 200
    assert kept.json()["eventTypes"] == ["customer.created"]

    again = start_listening(delivering, "--port", port)
    assert again.endpoint_id == listening.endpoint_id
    assert "reusing endpoint" in "".join(again.stderr)
    assert f"Removed endpoint {again.endpoint_id}" in again.stop()


def test_listen_refuses_a_delivery_whose_signature_does_not_verify(delivering):
    listening = start_listening(delivering, "-e", "customer.created")
    try:
        forged = httpx.post(
            listening.url,
            content=b'{"type":"customer.created","data":{}}',
            headers={
                "webhook-id": "msg_forged",
                "webhook-timestamp": str(int(time.time())),
                "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
            },
        )
        assert forged.status_code == 400
        deadline = time.monotonic() + line_wait_s_max
        while "failed signature verification" not in "".join(listening.stderr):
            assert time.monotonic() < deadline, listening.stderr
            time.sleep(0.1)
    finally:
        listening.stop()


def test_listen_says_in_one_line_when_the_server_is_unreachable(tmp_path):
    failed = subprocess.run(
        [sys.executable, "-m", "corridor.cli", "listen", "--base-url", "http://127.0.0.1:9"],
        env={**os.environ, "CORRIDOR_API_KEY": "sk_sandbox_nothing"},
        capture_output=True,
        text=True,
        timeout=line_wait_s_max,
    )
    assert failed.returncode == 1
    assert "Traceback" not in failed.stderr
    assert failed.stderr.strip().startswith("Error: cannot reach http://127.0.0.1:9")


# Nothing listens there.
_LISTEN_NOWHERE = [
    sys.executable,
    "-m",
    "corridor.cli",
    "listen",
    "--base-url",
    "http://127.0.0.1:9",
]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--forward-to", "not-a-url"], "--forward-to 'not-a-url' is not an http:// or https://"),
        (["--forward-to", "ftp://example.com/x"], "is not an http:// or https:// URL"),
        (["--forward-to", "http://"], "is not an http:// or https:// URL with a host"),
        (["-e", "transfer..nope"], "--event 'transfer..nope' is not an event type"),
    ],
    ids=["no-scheme", "ftp", "no-host", "bad-event-type"],
)
def test_listen_refuses_bad_options_in_one_line_before_anything_starts(arguments, said):
    """A --forward-to that is no URL used to be accepted, then fail at every delivery.
    Nothing listens at the base URL: the options are refused before it is called."""
    failed = subprocess.run(
        [*_LISTEN_NOWHERE, *arguments],
        env={**os.environ, "CORRIDOR_API_KEY": "sk_sandbox_nothing"},
        capture_output=True,
        text=True,
        timeout=line_wait_s_max,
    )
    assert failed.returncode == 1
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
    assert failed.stderr.startswith("Error: ") and said in failed.stderr, failed.stderr
