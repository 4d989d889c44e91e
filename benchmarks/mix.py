"""The request mix of issue 24: every transfer shape over real HTTP, beside a bare app.

`corridor serve` as shipped (its default processes: one per core on PostgreSQL, one with
the workers inside on SQLite), the per-key request limit raised as an operator would
(CORRIDOR_RATE_LIMIT_REQUESTS_PER_KEY), loaded by wrk (16 connections, 2 threads; a Lua
script gives each request its body, its key and, where the shape has one, a unique
Idempotency-Key) shape after shape. Beside it, on PostgreSQL, `benchmarks/bare_app.py`:
Starlette + asyncpg running the same SQL for create+submit and the same reads, served the
same way, in the same database, measured in the same run.

For every shape: requests per second at full load, p50 and p99, the server's CPU per
request (user + system time of its processes, from /proc, over the run), the ratio to
the bare app's figure the issue sets the goal against, and p99 again at half the peak
rate (wrk's per-connection delay, calibrated by a short run first).

`--corridor PATH` runs the same mix against another checkout too (its own .venv when it
has one), each shape on each checkout one after the other, so before and after come from
the same minutes of the same machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.table import Table

from benchmarks.harness import console
from benchmarks.http_submit import US_ACCOUNT, Server, _free_port, _payer

CONNECTIONS = 16
WRK_THREADS = 2
PAYERS = 16
SERVER_START_S = 180  # a loaded machine takes its time importing the app
PROBE_TIMEOUT_S = 60
WARM_UP_S = 2
MCP_PROTOCOL = "2026-07-28"
GET_IDS = 250
# An MCP answer is a 200 either way: a tool's refusal, or JSON-RPC's own error.
MCP_FAILURES = ('"isError":true', '"error":{"code"')
REPOSITORY = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Shape:
    key: str
    label: str
    # The figure the goal is set against: the bare app's create+submit over 16 accounts
    # ("bare"), its hot account ("bare-hot"), or Corridor's own REST create+submit ("rest").
    reference: str
    goal: float
    # The bare app's shape answering the same request, measured beside it.
    bare: str | None = None
    idempotent: bool = False


SHAPES: dict[str, Shape] = {
    shape.key: shape
    for shape in (
        Shape("org", "org-key create+submit, own bank account", "bare", 0.5, bare="org"),
        Shape("org-idempotent", "  the same with an Idempotency-Key", "bare", 0.5, idempotent=True),
        Shape("agent", "agent-key create+submit within its limits", "bare", 0.5),
        Shape("third-party", "third-party payout (counterparty's bank)", "bare", 0.5),
        Shape("draft", "draft create (confirm false)", "bare", 0.5),
        Shape("patch", "PATCH of a draft", "bare", 0.5),
        Shape("submit", "submit of a draft", "bare", 0.5),
        Shape("get", "GET one transfer", "bare", 1.0, bare="get"),
        Shape("list", "list 20 transfers", "bare", 0.5, bare="list"),
        Shape("hot", "create+submit, one hot account", "bare-hot", 0.5, bare="hot"),
        Shape("mcp", "MCP create_transfer (submit), raw JSON-RPC", "rest", 0.5),
    )
}
BARE_LABELS = {
    "org": "bare app: create+submit, 16 accounts",
    "hot": "bare app: create+submit, one hot account",
    "get": "bare app: GET one transfer",
    "list": "bare app: list 20 transfers",
}


def parse_shapes(text: str) -> list[str]:
    """`--shapes`: comma-separated keys of SHAPES, or "all"."""
    if text.strip() in ("", "all"):
        return list(SHAPES)
    keys = [key.strip() for key in text.split(",") if key.strip()]
    unknown = [key for key in keys if key not in SHAPES]
    if unknown:
        raise ValueError(
            f"unknown shape {', '.join(unknown)}; choose from {', '.join(SHAPES)} or all"
        )
    return [key for key in SHAPES if key in keys]


# --- one HTTP request, and wrk driving a list of them ------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    method: str
    path: str
    headers: dict[str, str]
    body: str | None = None


def _json_call(method: str, path: str, secret: str, body: Any = None, **headers: str) -> Call:
    return Call(
        method,
        path,
        {"Authorization": f"Bearer {secret}", "Content-Type": "application/json", **headers},
        None if body is None else json.dumps(body, separators=(",", ":")),
    )


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _lua_call(call: Call) -> str:
    headers = ",".join(f"[{_lua_string(k)}]={_lua_string(v)}" for k, v in call.headers.items())
    body = "nil" if call.body is None else _lua_string(call.body)
    return f"{{{_lua_string(call.method)},{_lua_string(call.path)},{body},{{{headers}}}}}"


# Request n of thread t (of T) is calls[n*T + t]: every request of a run is a different
# call until the list wraps, so a shape that uses each call up (a draft submitted) never
# sends one twice. `refused` counts answers containing any of the given texts (an MCP error
# is a 200).
WRK_SCRIPT = """
local calls = {CALLS}
local idempotent = {IDEMPOTENT}
local run = "{RUN}"
local interval = {INTERVAL}
local refuse = {REFUSE}
local threads = {}
local counter = 0
failed = 0
id = 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function request()
  local index = counter * {THREADS} + id
  counter = counter + 1
  local call = calls[(index % #calls) + 1]
  local headers = call[4]
  if idempotent then
    headers["Idempotency-Key"] = run .. "-" .. id .. "-" .. counter
  end
  return wrk.format(call[1], call[2], headers, call[3])
end

if #refuse > 0 then
  response = function(status, headers, body)
    if body then
      for _, text in ipairs(refuse) do
        if string.find(body, text, 1, true) then
          failed = failed + 1
          return
        end
      end
    end
  end
end

if interval > 0 then
  delay = function() return interval end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("failed")
  end
  io.write("refused answers: " .. total .. "\\n")
end
"""


@dataclass(frozen=True, slots=True)
class Run:
    """One wrk run."""

    requests: int
    seconds: float
    p50_ms: float | None
    p99_ms: float | None
    non_2xx: int = 0
    refused: int = 0
    socket_errors: str = ""
    cpu_ms: float | None = None

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def failures(self) -> str:
        notes = []
        if self.non_2xx:
            notes.append(f"{self.non_2xx} non-2xx")
        if self.refused:
            notes.append(f"{self.refused} MCP errors")
        if self.socket_errors:
            notes.append(f"socket errors: {self.socket_errors}")
        return ", ".join(notes)


def wrk_script(
    calls: Sequence[Call],
    *,
    idempotent: bool = False,
    interval_ms: float = 0,
    refuse: Sequence[str] = (),
) -> str:
    replacements = {
        "{CALLS}": "{" + ",\n".join(_lua_call(call) for call in calls) + "}",
        "{IDEMPOTENT}": "true" if idempotent else "false",
        "{RUN}": uuid.uuid4().hex[:12],
        "{INTERVAL}": str(max(0, round(interval_ms))),
        "{REFUSE}": "{" + ",".join(_lua_string(text) for text in refuse) + "}",
        "{THREADS}": str(WRK_THREADS),
    }
    script = WRK_SCRIPT
    for placeholder, value in replacements.items():
        script = script.replace(placeholder, value)
    return script


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


def _ms_of(text: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s|m|h)", text).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS_MS[unit]


def parse_run(output: str, *, cpu_ms: float | None = None) -> Run:
    """wrk's summary (with --latency) and the script's count of refused answers."""
    total = re.search(r"(\d+) requests in ([0-9.]+(?:us|ms|s|m|h))", output)
    if total is None:
        raise ValueError(f"not wrk's output: {output[-500:]}")
    percentiles = {
        int(found.group(1)): _ms_of(found.group(2))
        for found in re.finditer(r"^\s+(50|99)(?:\.0+)?%\s+(\S+)$", output, re.MULTILINE)
    }
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    refused = re.search(r"refused answers: (\d+)", output)
    errors = re.search(r"Socket errors: (.*)", output)
    return Run(
        requests=int(total.group(1)),
        seconds=_ms_of(total.group(2)) / 1000,
        p50_ms=percentiles.get(50),
        p99_ms=percentiles.get(99),
        non_2xx=int(non_2xx.group(1)) if non_2xx else 0,
        refused=int(refused.group(1)) if refused else 0,
        socket_errors=errors.group(1).strip() if errors else "",
        cpu_ms=cpu_ms,
    )


def run_wrk(
    server: Server,
    calls: Sequence[Call],
    *,
    seconds: float,
    directory: Path,
    idempotent: bool = False,
    interval_ms: float = 0,
    refuse: Sequence[str] = (),
) -> Run:
    script = directory / f"mix-{uuid.uuid4().hex[:8]}.lua"
    script.write_text(
        wrk_script(calls, idempotent=idempotent, interval_ms=interval_ms, refuse=refuse)
    )
    cpu_before = server.cpu_seconds()
    done = subprocess.run(
        [
            "wrk",
            f"-t{WRK_THREADS}",
            f"-c{CONNECTIONS}",
            f"-d{max(1, round(seconds))}s",
            "--latency",
            # A slow answer is a slow answer, not a socket error (wrk's default is 2 s).
            "--timeout",
            "30s",
            "-s",
            str(script),
            server.base_url,
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 120,
        check=True,
    )
    script.unlink()
    run = parse_run(done.stdout)
    if not run.requests:
        raise NoAnswers()
    cpu_ms = (server.cpu_seconds() - cpu_before) * 1000 / run.requests
    return Run(**{**_fields(run), "cpu_ms": cpu_ms})


class NoAnswers(Exception):
    """wrk got no answer at all in its run (the server stalled, or every request timed out)."""


def _fields(run: Run) -> dict[str, Any]:
    return {name: getattr(run, name) for name in Run.__slots__}


def half_peak_interval(peak_rate: float, probe_rate: float, interval_ms: float) -> float:
    """The per-connection delay that offers half the peak: the probe ran with `interval_ms`
    between a connection's requests and reached `probe_rate`; the rest of each cycle was
    the request's own time, which the final delay leaves room for."""
    cycle_ms = CONNECTIONS * 1000 / (peak_rate / 2)
    request_ms = max(0.0, CONNECTIONS * 1000 / max(probe_rate, 0.1) - interval_ms)
    return max(0.0, cycle_ms - request_ms)


# --- what is measured ---------------------------------------------------------------------


@dataclass(slots=True)
class Measured:
    peak: Run | None = None
    half: Run | None = None
    offered: float | None = None
    error: str = ""


def measure(
    server: Server,
    calls: Callable[[int], Sequence[Call]],
    *,
    seconds: int,
    directory: Path,
    idempotent: bool = False,
    refuse: Sequence[str] = (),
    half_peak: bool = True,
) -> Measured:
    """Warm up, run at full load, then at half the peak rate. `calls(skip)` gives the calls
    of the next run after `skip` requests already sent (a shape that uses calls up)."""
    sent = 0

    def wrk(run_seconds: float, interval_ms: float = 0) -> Run:
        nonlocal sent
        run = run_wrk(
            server,
            calls(sent),
            seconds=run_seconds,
            directory=directory,
            idempotent=idempotent,
            interval_ms=interval_ms,
            refuse=refuse,
        )
        # Requests in flight when wrk stops are not counted but may have been served.
        sent += run.requests + CONNECTIONS * 2
        return run

    measured = Measured()
    try:
        # A cold server may answer nothing in the warm-up (every request still in flight).
        with contextlib.suppress(NoAnswers):
            wrk(min(WARM_UP_S, seconds))
        measured.peak = wrk(seconds)
        if half_peak:
            target = measured.peak.rate / 2
            probe_interval = CONNECTIONS * 1000 / target
            probe = wrk(max(2, seconds // 4), probe_interval)
            interval = half_peak_interval(measured.peak.rate, probe.rate, probe_interval)
            measured.offered = target
            measured.half = wrk(seconds, interval)
    except (subprocess.SubprocessError, OSError) as error:
        measured.error = f"wrk failed: {error}"
    except NoAnswers:
        measured.error = "a run got no answer at all (every request still in flight)"
    return measured


# --- a Corridor to measure: a checkout, a database, a server, its data -------------------


@dataclass(frozen=True, slots=True)
class Checkout:
    """A Corridor checkout: this one, or another named by --corridor."""

    name: str
    command: list[str]
    environment: dict[str, str]

    @classmethod
    def this(cls) -> Checkout:
        return cls("this checkout", [str(Path(sys.executable).with_name("corridor"))], {})

    @classmethod
    def at(cls, path: str) -> Checkout:
        root = Path(path).expanduser().resolve()
        if not (root / "src" / "corridor").is_dir():
            raise ValueError(f"--corridor {path}: no src/corridor there")
        own = root / ".venv" / "bin" / "corridor"
        if own.exists():
            return cls(str(root), [str(own)], {})
        # Its code with this checkout's packages (PYTHONPATH comes before the editable path).
        return cls(
            str(root),
            [sys.executable, "-m", "corridor"],
            {"PYTHONPATH": str(root / "src")},
        )


def _environment(checkout: Checkout, database_url: str) -> dict[str, str]:
    return {
        **os.environ,
        **checkout.environment,
        "CORRIDOR_DATABASE_URL": database_url,
        "CORRIDOR_ENV": "sandbox",
        "CORRIDOR_LOG_LEVEL": "WARNING",
        # The operator's setting: one key drives the whole load.
        "CORRIDOR_RATE_LIMIT_REQUESTS_PER_KEY": "1000000",
        "CORRIDOR_RATE_LIMIT_REQUESTS_PER_KEY_MAX": "1000000",
    }


def corridor_command(
    checkout: Checkout, database_url: str, arguments: list[str], directory: Path
) -> str:
    done = subprocess.run(
        [*checkout.command, *arguments],
        env=_environment(checkout, database_url),
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"corridor {' '.join(arguments)}: {done.stdout}{done.stderr}"[-2000:])
    return done.stdout


def init_organization(checkout: Checkout, database_url: str, directory: Path) -> str:
    """A new organization (`corridor init --json`); its unrestricted key."""
    output = corridor_command(checkout, database_url, ["init", "--json"], directory)
    return json.loads(output.strip().splitlines()[-1])["apiKey"]


def _wait_for(process: subprocess.Popen, base_url: str, log: Path, what: str) -> None:
    until = time.monotonic() + SERVER_START_S
    while time.monotonic() < until:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base_url}/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"{what} did not answer: {log.read_text()[-2000:]}")


def start_corridor(checkout: Checkout, database_url: str, directory: Path) -> Server:
    """`corridor serve` with its defaults, on a free port."""
    port = _free_port()
    log = directory / f"serve-{port}.log"
    process = subprocess.Popen(
        [*checkout.command, "serve", "--port", str(port)],
        env=_environment(checkout, database_url),
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        cwd=directory,
    )
    server = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        _wait_for(process, server.base_url, log, "corridor serve")
    except BaseException:
        server.stop()
        raise
    return server


def start_bare_app(dsn: str, directory: Path) -> Server:
    """benchmarks/bare_app.py, as many processes as `corridor serve` runs on PostgreSQL."""
    port = _free_port()
    log = directory / f"bare-{port}.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bare_app", "--port", str(port)],
        env={**os.environ, "BARE_APP_DSN": dsn, "PYTHONPATH": str(REPOSITORY)},
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        cwd=REPOSITORY,
    )
    server = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        _wait_for(process, server.base_url, log, "the bare app")
    except BaseException:
        server.stop()
        raise
    return server


@dataclass(slots=True)
class Payer:
    """A funded ACTIVE customer: a create+submit to its own bank account, one to its
    counterparty's, and its agent's key (the agent may pay the customer's bank account)."""

    own: dict
    third_party: dict | None = None
    agent_secret: str | None = None


@dataclass(slots=True)
class Prepared:
    """A server and the rows the shapes use."""

    name: str
    server: Server
    secret: str
    payers: list[Payer]
    drafts: list[str] = field(default_factory=list)
    transfers: list[str] = field(default_factory=list)
    # Full-load rates measured so far (to know how many drafts a submit run uses).
    rates: dict[str, float] = field(default_factory=dict)


async def _ok(response: httpx.Response, status: int = 200) -> dict:
    if response.status_code != status:
        raise RuntimeError(
            f"{response.request.method} {response.request.url.path}: "
            f"{response.status_code} {response.text[:300]}"
        )
    return response.json()


async def _full_payer(client: httpx.AsyncClient, index: int, *, full: bool) -> Payer:
    own = await _payer(client, index)
    if not full:
        return Payer(own)
    counterparty = await _ok(
        await client.post(
            "/v1/counterparties",
            json={
                "customerId": own["customerId"],
                "name": f"Supplier {index}",
                "beneficiaryType": "BUSINESS",
                "address": {
                    "addressLine1": "1 Main Street",
                    "city": "Springfield",
                    "state": "IL",
                    "postalCode": "62701",
                    "country": "US",
                },
            },
        ),
        201,
    )
    payee = await _ok(
        await client.post(
            "/v1/external-accounts", json={"counterpartyId": counterparty["id"], **US_ACCOUNT}
        ),
        201,
    )
    third_party = {
        **own,
        "destination": {**own["destination"], "externalAccountId": payee["id"]},
    }
    agent = await _ok(
        await client.post(
            "/v1/agents",
            json={
                "customerId": own["customerId"],
                "sourceAccountId": own["source"]["accountId"],
                "name": f"Bench agent {index}",
                "limits": {
                    "currency": "USD",
                    "perTransfer": "100000",
                    "daily": "1000000000",
                    "monthly": "10000000000",
                },
                "destinationAllowlist": [
                    {"type": "external_account", "id": own["destination"]["externalAccountId"]}
                ],
            },
        ),
        201,
    )
    key = await _ok(
        await client.post(f"/v1/agents/{agent['id']}/keys", json={"name": "bench"}), 201
    )
    return Payer(own, third_party, key["secret"])


async def prepare(name: str, server: Server, secret: str, *, full: bool = True) -> Prepared:
    """16 payers (4 at a time), and the key's write tools allowed without a person (its
    owner's choice; the MCP shape measures the tool path, not a confirmation)."""
    async with httpx.AsyncClient(
        base_url=server.base_url,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=PROBE_TIMEOUT_S,
    ) as client:
        payers: list[Payer] = []
        for start in range(0, PAYERS, 4):
            payers += await asyncio.gather(
                *(_full_payer(client, index, full=full) for index in range(start, start + 4))
            )
        if full:
            for key in (await _ok(await client.get("/v1/api-keys")))["data"]:
                await _ok(
                    await client.patch(
                        f"/v1/api-keys/{key['id']}", json={"toolConfirmation": "never"}
                    )
                )
    return Prepared(name, server, secret, payers)


async def transfer_ids(prepared: Prepared, *, status: str | None = None, most: int) -> list[str]:
    """Ids of the organization's transfers (newest first), through the API."""
    ids: list[str] = []
    cursor: str | None = None
    async with httpx.AsyncClient(
        base_url=prepared.server.base_url,
        headers={"Authorization": f"Bearer {prepared.secret}"},
        timeout=PROBE_TIMEOUT_S,
    ) as client:
        while len(ids) < most:
            parameters: dict[str, Any] = {"limit": min(250, most - len(ids))}
            if status:
                parameters["status"] = status
            if cursor:
                parameters["cursor"] = cursor
            page = await _ok(await client.get("/v1/transfers", params=parameters))
            ids += [item["id"] for item in page["data"]]
            cursor = page.get("nextCursor")
            if not page.get("hasMore") or not cursor:
                break
    return ids


def _tool_arguments(body: dict) -> dict:
    arguments = {key: value for key, value in body.items() if key not in {"amount", "confirm"}}
    minor = int(body["amount"]["value"])
    arguments["amount"] = f"{minor // 100}.{minor % 100:02d}"
    arguments["currency"] = body["amount"]["currency"]
    arguments["submit"] = True
    return arguments


def mcp_call(secret: str, body: dict, number: int) -> Call:
    """tools/call create_transfer as the 2026-07-28 protocol sends it: sessionless, the
    envelope in `_meta`, the method and tool name in headers too."""
    message = {
        "jsonrpc": "2.0",
        "id": number,
        "method": "tools/call",
        "params": {
            "name": "create_transfer",
            "arguments": _tool_arguments(body),
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MCP_PROTOCOL,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    return _json_call(
        "POST",
        "/mcp",
        secret,
        message,
        **{
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MCP_PROTOCOL,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "create_transfer",
        },
    )


def calls_of(shape: str, prepared: Prepared) -> Callable[[int], Sequence[Call]]:
    """The requests of one shape (for a run after `skip` requests sent)."""
    secret = prepared.secret
    payers = prepared.payers

    def fixed(calls: list[Call]) -> Callable[[int], Sequence[Call]]:
        return lambda skip: calls

    if shape in ("org", "org-idempotent"):
        return fixed([_json_call("POST", "/v1/transfers", secret, p.own) for p in payers])
    if shape == "hot":
        return fixed([_json_call("POST", "/v1/transfers", secret, payers[0].own)])
    if shape == "agent":
        return fixed(
            [_json_call("POST", "/v1/transfers", p.agent_secret or "", p.own) for p in payers]
        )
    if shape == "third-party":
        return fixed([_json_call("POST", "/v1/transfers", secret, p.third_party) for p in payers])
    if shape == "draft":
        return fixed(
            [
                _json_call("POST", "/v1/transfers", secret, {**p.own, "confirm": False})
                for p in payers
            ]
        )
    if shape == "patch":
        # Many drafts, so 16 connections rarely wait for one draft's lock; the amount
        # alternates so each PATCH changes the draft.
        drafts = prepared.drafts[:256]
        return fixed(
            [
                _json_call(
                    "PATCH",
                    f"/v1/transfers/{draft}",
                    secret,
                    {"amount": {"currency": "USD", "value": str(100 + value)}},
                )
                for value in (1, 2)
                for draft in drafts
            ]
        )
    if shape == "submit":
        return lambda skip: (
            [
                _json_call("POST", f"/v1/transfers/{draft}/submit", secret)
                for draft in prepared.drafts[skip:]
            ]
            or [_json_call("POST", "/v1/transfers/none/submit", secret)]
        )
    if shape == "get":
        return fixed(
            [_json_call("GET", f"/v1/transfers/{tid}", secret) for tid in prepared.transfers]
        )
    if shape == "list":
        return fixed([_json_call("GET", "/v1/transfers?limit=20", secret)])
    if shape == "mcp":
        return fixed([mcp_call(secret, p.own, index) for index, p in enumerate(payers)])
    raise ValueError(shape)


def probe(server: Server, call: Call) -> str:
    """One request of the shape before the load: "" when it succeeds, else why not."""
    try:
        response = httpx.request(
            call.method,
            server.base_url + call.path,
            headers=call.headers,
            content=call.body,
            timeout=PROBE_TIMEOUT_S,
        )
    except httpx.HTTPError as error:
        return f"probe failed: {error}"
    if not 200 <= response.status_code < 300:
        return f"probe answered {response.status_code}: {response.text[:160]}"
    if any(failure in response.text.replace(" ", "") for failure in MCP_FAILURES):
        return f"the tool answered an error: {response.text[:160]}"
    return ""


# --- the run -------------------------------------------------------------------------------


@dataclass(slots=True)
class Mixed:
    """What one database's mix measured: per shape, per server (bare app first)."""

    backend: str
    seconds: int
    names: list[str]
    rows: dict[str, dict[str, Measured]] = field(default_factory=dict)
    bare: dict[str, Measured] = field(default_factory=dict)
    # The machine's 1-minute load average when the mix began and ended.
    load_before: float = 0.0
    load_after: float = 0.0


async def _top_up_drafts(prepared: Prepared, seconds: int, directory: Path) -> None:
    """Enough drafts for the submit shape: its warm-up, full load, probe and half-peak
    runs at the fastest write rate seen so far, with room to spare."""
    fastest = max(prepared.rates.values(), default=200.0)
    needed = math.ceil(fastest * (WARM_UP_S + 2.5 * seconds + 2) * 1.3) + 200
    prepared.drafts = await transfer_ids(prepared, status="DRAFT", most=needed)
    missing = needed - len(prepared.drafts)
    if missing <= 0:
        return
    rate = max(prepared.rates.get("draft", 100.0), 20.0)
    with contextlib.suppress(NoAnswers):
        run_wrk(
            prepared.server,
            calls_of("draft", prepared)(0),
            seconds=min(120, missing / rate * 1.2 + 1),
            directory=directory,
        )
    prepared.drafts = await transfer_ids(prepared, status="DRAFT", most=needed)


async def run_shape(
    shape: Shape, prepared: Prepared, *, seconds: int, directory: Path, half_peak: bool
) -> Measured:
    if shape.key == "submit":
        await _top_up_drafts(prepared, seconds, directory)
        if len(prepared.drafts) < 2:
            return Measured(error="no drafts to submit")
    if shape.key == "patch":
        prepared.drafts = await transfer_ids(prepared, status="DRAFT", most=256)
        if not prepared.drafts:
            return Measured(error="no drafts to PATCH (run the draft shape too)")
    if shape.key == "get":
        prepared.transfers = await transfer_ids(prepared, most=GET_IDS)
        if not prepared.transfers:
            return Measured(error="no transfers to read")
    calls = calls_of(shape.key, prepared)
    first = calls(0)[0]
    failure = await asyncio.to_thread(probe, prepared.server, first)
    if failure:
        return Measured(error=failure)
    skip = 1 if shape.key == "submit" else 0
    measured = await asyncio.to_thread(
        measure,
        prepared.server,
        lambda sent: calls(sent + skip),
        seconds=seconds,
        directory=directory,
        idempotent=shape.idempotent,
        refuse=MCP_FAILURES if shape.key == "mcp" else (),
        half_peak=half_peak,
    )
    if measured.peak is not None:
        prepared.rates[shape.key] = measured.peak.rate
    return measured


async def run_bare_shape(
    key: str, prepared: Prepared, *, seconds: int, directory: Path, half_peak: bool
) -> Measured:
    if key == "get":
        prepared.transfers = await transfer_ids(prepared, most=GET_IDS)
        if not prepared.transfers:
            return Measured(error="no transfers to read")
    calls = calls_of(key, prepared)
    failure = await asyncio.to_thread(probe, prepared.server, calls(0)[0])
    if failure:
        return Measured(error=failure)
    return await asyncio.to_thread(
        measure,
        prepared.server,
        calls,
        seconds=seconds,
        directory=directory,
        half_peak=half_peak,
    )


async def run_mix(
    *,
    backend: str,
    database_urls: Callable[[], Any],
    checkouts: list[Checkout],
    shapes: list[str],
    seconds: int,
    half_peak: bool,
) -> Mixed:
    """One database kind: each checkout on a database of its own (and the bare app in the
    first one's, under an organization of its own).

    On PostgreSQL every server is up at once (`corridor serve` runs no workers there, so
    one waiting costs nothing) and each shape runs on each in turn, before and after
    minutes apart at most. On SQLite `corridor serve` runs the workers inside (they
    advance the transfers the mix makes): one checkout at a time, so one's workers never
    run during another's measurement."""
    table = Mixed(backend, seconds, [checkout.name for checkout in checkouts])
    table.load_before = os.getloadavg()[0]
    groups = [checkouts] if backend == "PostgreSQL" else [[checkout] for checkout in checkouts]
    try:
        for index, group in enumerate(groups):
            await _run_group(
                table,
                group,
                database_urls=database_urls,
                shapes=shapes,
                seconds=seconds,
                half_peak=half_peak,
                with_bare=index == 0 and backend == "PostgreSQL",
            )
    finally:
        table.load_after = os.getloadavg()[0]
    return table


async def _run_group(
    table: Mixed,
    checkouts: list[Checkout],
    *,
    database_urls: Callable[[], Any],
    shapes: list[str],
    seconds: int,
    half_peak: bool,
    with_bare: bool,
) -> None:
    backend = table.backend
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        servers: list[Server] = []
        drops: list[Callable[[], Any]] = []
        try:
            prepared: list[Prepared] = []
            first_url = ""
            for checkout in checkouts:
                url, drop = await database_urls()
                drops.append(drop)
                first_url = first_url or url
                console.print(f"[dim]{backend}, {checkout.name}: migrating, serving, preparing[/]")
                await asyncio.to_thread(corridor_command, checkout, url, ["migrate"], directory)
                secret = await asyncio.to_thread(init_organization, checkout, url, directory)
                server = await asyncio.to_thread(start_corridor, checkout, url, directory)
                servers.append(server)
                prepared.append(await prepare(checkout.name, server, secret))
            bare: Prepared | None = None
            if with_bare and any(SHAPES[key].bare for key in shapes):
                # Its organization and payers are made through the first checkout's API.
                secret = await asyncio.to_thread(
                    init_organization, checkouts[0], first_url, directory
                )
                made = await prepare("bare", servers[0], secret, full=False)
                bare_server = await asyncio.to_thread(
                    start_bare_app, _plain_dsn(first_url), directory
                )
                servers.append(bare_server)
                bare = Prepared("bare app", bare_server, secret, made.payers)
            for key in shapes:
                shape = SHAPES[key]
                if bare is not None and shape.bare:
                    console.print(f"[dim]{backend}: {BARE_LABELS[shape.bare]}[/]")
                    table.bare[shape.bare] = await run_bare_shape(
                        shape.bare, bare, seconds=seconds, directory=directory, half_peak=half_peak
                    )
                for one in prepared:
                    console.print(f"[dim]{backend}, {one.name}: {shape.label.strip()}[/]")
                    table.rows.setdefault(key, {})[one.name] = await run_shape(
                        shape, one, seconds=seconds, directory=directory, half_peak=half_peak
                    )
        finally:
            for server in servers:
                server.stop()
            for drop in drops:
                await drop()


def _plain_dsn(database_url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


# --- printing -------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def reference_rate(table: Mixed, shape: Shape, name: str) -> float | None:
    """The figure a shape's goal is set against."""
    if shape.reference == "rest":
        rest = table.rows.get("org", {}).get(name)
        return rest.peak.rate if rest and rest.peak else None
    bare = table.bare.get("hot" if shape.reference == "bare-hot" else "org")
    return bare.peak.rate if bare and bare.peak else None


def _row(label: str, measured: Measured, reference: float | None, goal: str) -> list[str]:
    if measured.peak is None:
        return [label, "–", "–", "–", "–", "–", "–", goal, measured.error or "not run"]
    peak = measured.peak
    ratio = f"{peak.rate / reference:.2f}×" if reference else "–"
    half = measured.half
    half_text = "–"
    if half is not None and measured.offered:
        half_text = f"{_ms(half.p99_ms)} @ {half.rate:,.0f}/s"
    notes = "; ".join(
        note
        for note in (
            peak.failures,
            f"½ peak: {half.failures}" if half and half.failures else "",
            measured.error,
        )
        if note
    )
    return [
        label,
        f"{peak.rate:,.0f}",
        _ms(peak.p50_ms),
        _ms(peak.p99_ms),
        half_text,
        _ms(peak.cpu_ms),
        ratio,
        goal,
        notes,
    ]


def report(table: Mixed) -> None:
    for name in table.names:
        title = (
            f"Request mix on {table.backend}, {name}: corridor serve as shipped, wrk "
            f"{CONNECTIONS} connections, {table.seconds} s a shape; load average "
            f"{table.load_before:.1f} before, {table.load_after:.1f} after "
            f"({os.cpu_count()} cores)"
        )
        out = Table(title=title, title_justify="left")
        for column in (
            "shape",
            "/s",
            "p50 ms",
            "p99 ms",
            "p99 ms at ½ peak",
            "CPU ms/req",
            "× ref",
            "goal",
            "notes",
        ):
            out.add_column(column, justify="left" if column in ("shape", "notes") else "right")
        base = table.bare.get("org")
        base_rate = base.peak.rate if base and base.peak else None
        for bare_key, measured in table.bare.items():
            out.add_row(*_row(BARE_LABELS[bare_key], measured, base_rate, ""))
        for key, per_server in table.rows.items():
            shape = SHAPES[key]
            reference = reference_rate(table, shape, name)
            against = {"bare": "bare", "bare-hot": "bare hot", "rest": "REST"}[shape.reference]
            goal = f"≥ {shape.goal:.1f}× {against}" if table.backend == "PostgreSQL" else ""
            if shape.reference == "rest":
                goal = f"≥ {shape.goal:.1f}× REST"
            out.add_row(*_row(shape.label, per_server[name], reference, goal))
        console.print(out)
        console.print(
            "× ref: to the bare app's create+submit over 16 accounts (the hot shape: its hot "
            "account; MCP: Corridor's REST create+submit). CPU: the server's processes, "
            "from /proc, per request."
            if table.backend == "PostgreSQL"
            else "× ref: MCP to REST only (the bare app runs on PostgreSQL)."
        )
    if len(table.names) > 1:
        compare = Table(
            title=f"Before/after on {table.backend} (/s, p99 ms; same run)", title_justify="left"
        )
        compare.add_column("shape")
        for name in table.names:
            compare.add_column(f"{name} /s", justify="right")
            compare.add_column("p99", justify="right")
        compare.add_column(f"{table.names[-1]} ÷ {table.names[0]}", justify="right")
        for key, per_server in table.rows.items():
            cells = [SHAPES[key].label]
            rates = []
            for name in table.names:
                peak = per_server[name].peak
                cells += [f"{peak.rate:,.0f}", _ms(peak.p99_ms)] if peak else ["–", "–"]
                rates.append(peak.rate if peak else None)
            first, last = rates[0], rates[-1]
            cells.append(f"{last / first:.2f}×" if first and last is not None else "–")
            compare.add_row(*cells)
        console.print(compare)


def wrk_missing() -> bool:
    from shutil import which

    return which("wrk") is None
