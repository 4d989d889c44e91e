"""`make bench`'s request mix (benchmarks/mix.py): its options parse, and the Lua script it
gives wrk sends what each shape needs (no timing: wrk drives a recording server here)."""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from benchmarks import mix
from benchmarks.__main__ import parser

from tests.programs import needs, path_of


def test_the_mix_options_parse():
    arguments = parser().parse_args(
        [
            "--only",
            "mix",
            "--seconds",
            "2",
            "--shapes",
            "get, org,mcp",
            "--corridor",
            "/tmp/before",
            "--corridor",
            "/tmp/other",
            "--databases",
            "sqlite",
            "--no-half-peak",
        ]
    )
    assert arguments.only == "mix" and arguments.seconds == 2
    # In the mix's own order, whatever order they were named in.
    assert arguments.shapes == ["org", "get", "mcp"]
    assert arguments.corridor == ["/tmp/before", "/tmp/other"]
    assert arguments.databases == ["sqlite"]
    assert arguments.half_peak is False


def test_the_mix_runs_every_shape_on_both_databases_by_default():
    arguments = parser().parse_args(["--only", "mix"])
    assert arguments.shapes == list(mix.SHAPES)
    assert set(mix.SHAPES) >= {
        "org",
        "org-idempotent",
        "agent",
        "third-party",
        "draft",
        "patch",
        "submit",
        "get",
        "list",
        "hot",
        "mcp",
    }
    assert arguments.databases == ["postgresql", "sqlite"]
    assert arguments.corridor == [] and arguments.half_peak is True


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--shapes", "org,teleport"], "unknown shape teleport; choose from org,"),
        (["--databases", "oracle"], "postgresql, sqlite or both"),
        (["--only", "nothing"], "invalid choice: 'nothing'"),
    ],
)
def test_a_wrong_option_is_refused_with_the_choices(option, said, capsys):
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["--only", "mix", *option])
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_another_checkout_must_be_a_corridor_checkout(tmp_path):
    with pytest.raises(ValueError, match="no src/corridor"):
        mix.Checkout.at(str(tmp_path))
    (tmp_path / "src" / "corridor").mkdir(parents=True)
    other = mix.Checkout.at(str(tmp_path))
    # Without a .venv of its own: its code, with this checkout's packages.
    assert other.environment == {"PYTHONPATH": str(tmp_path.resolve() / "src")}


def test_half_peak_leaves_room_for_the_request_itself():
    # 16 connections at a 1,000/s peak: half is 500/s, a 32 ms cycle per connection. A
    # probe waiting 32 ms reached 400/s (a 40 ms cycle): the request took 8 ms of it.
    assert mix.half_peak_interval(1000, 400, 32) == pytest.approx(24)
    # A server slower than the probe's delay gets no delay at all.
    assert mix.half_peak_interval(1000, 10, 32) == 0


class _Recorder(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
    seen: list[dict] = []
    lock = threading.Lock()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else None
        with self.lock:
            self.seen.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "body": body,
                    "key": self.headers.get("Idempotency-Key"),
                    "authorization": self.headers.get("Authorization"),
                }
            )
        answer = b'{"isError":true}' if self.path == "/mcp" else b"{}"
        status = 404 if self.path.endswith("/missing") else 200
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # wrk stopped with this request in flight

    do_GET = do_POST = do_PATCH = _answer

    def log_message(self, *arguments) -> None:
        pass


@pytest.fixture
def recorder():
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _wrk(server, calls, tmp_path: Path, **options) -> mix.Run:
    script = tmp_path / "mix.lua"
    script.write_text(mix.wrk_script(calls, **options))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    done = subprocess.run(
        [str(path_of("wrk")), "-t2", "-c4", "-d1s", "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return mix.parse_run(done.stdout)


@needs("wrk")
def test_each_request_gets_a_call_of_its_own_and_a_unique_idempotency_key(recorder, tmp_path):
    calls = [
        mix._json_call("POST", f"/v1/transfers/tfr_{n}/submit", "sk_one", {"n": n})
        for n in range(20_000)
    ]
    run = _wrk(recorder, calls, tmp_path, idempotent=True)
    seen = list(_Recorder.seen)
    assert run.requests > 0 and run.non_2xx == 0 and run.p50_ms is not None
    # Every request wrk sent (it counts only those answered before it stopped).
    assert len(seen) >= run.requests
    paths = [request["path"] for request in seen]
    assert len(set(paths)) == len(paths), "a draft would be submitted twice"
    assert all(request["authorization"] == "Bearer sk_one" for request in seen)
    assert {json.loads(request["body"])["n"] for request in seen} == {
        int(path.split("_")[1].split("/")[0]) for path in paths
    }
    keys = [request["key"] for request in seen]
    assert None not in keys and len(set(keys)) == len(keys)


@needs("wrk")
def test_failures_are_counted(recorder, tmp_path):
    calls = [
        mix.Call("GET", "/v1/transfers/missing", {"Authorization": "Bearer sk"}),
        mix.mcp_call("sk", {"amount": {"value": "100", "currency": "USD"}, "x": 1}, 1),
    ]
    run = _wrk(recorder, calls, tmp_path, refuse=mix.MCP_FAILURES)
    mcp = [request for request in _Recorder.seen if request["path"] == "/mcp"]
    assert run.non_2xx > 0 and run.refused > 0 and mcp
    assert "non-2xx" in run.failures and "MCP errors" in run.failures
    message = json.loads(mcp[0]["body"])
    assert message["method"] == "tools/call"
    assert message["params"]["arguments"] == {
        "x": 1,
        "amount": "1.00",
        "currency": "USD",
        "submit": True,
    }
    assert not [request for request in _Recorder.seen if request["key"] is not None]
