"""Create+submit over real HTTP against raw-SQL floors, on PostgreSQL (issue 12).

The API side: `corridor serve --no-workers`, as it serves by default (a process per core)
and, on a machine of several cores, in one process, loaded by `wrk` (a C load generator:
a Python client tops out near 550 requests/s on two cores and would hide the server's
limit) with `POST /v1/transfers` `confirm: true`, an ACH payout from a balance, 16
connections. Two floors, each pgbench with 16 clients against the same
PostgreSQL server in the same run:

- the issue's floor: the SQL one submit needs on small tables of its own (insert the
  transfer, the guarded balance update, two postings, the status update, the outbox event;
  one transaction, fsync on);
- the statements floor: exactly the statement the API sends for one create+submit (the
  express path's write, transfers/express/statements.py; its read is sent only the first
  time a key, customer and accounts come together) on Corridor's own tables, with its
  parameters written in. What PostgreSQL alone costs for this request; the API's ratio to
  it is the application's own share.

Both are run spread over 16 accounts and on one hot account, and the API after them as
each serving serves it; then again at half its peak rate, for the latency a user sees
when the server is not saturated.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.engine import make_url

from benchmarks.harness import Result

CONNECTIONS = 16
AMOUNT_MINOR = 100
FUNDING_MINOR = 10_000_000_000  # plenty for every transfer a run makes
SERVER_START_S = 120  # a loaded machine takes its time importing the app

US_ACCOUNT = {
    "currency": "USD",
    "country": "US",
    "accountHolderName": "Bench Mark",
    "accountNumber": "000123456789",
    "routingNumber": "021000021",
}


async def bootstrap(database_url: str) -> str:
    """A fresh organization in the benchmark database; its unrestricted key."""
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.organizations import service as organizations

    database = Database(database_url)
    try:
        async with database.session() as session, session.begin():
            made = await organizations.bootstrap_organization(
                session, name="Bench", key_environment="sandbox", now=SystemClock().now()
            )
        return made.secret
    finally:
        await database.dispose()


def tools_missing() -> list[str]:
    return [tool for tool in ("wrk", "pgbench") if shutil.which(tool) is None]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    base_url: str
    log: Path

    def cpu_seconds(self) -> float:
        """CPU time (user + system) of the server and every process under it so far."""
        return _tree_cpu_seconds(self.process.pid)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _tree_cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` and its descendants, from /proc (0 where there is none)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    total = (int(fields[11]) + int(fields[12])) / _TICKS
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            total += _tree_cpu_seconds(int(child))
    return total


def start_server(database_url: str, directory: Path, *, extra: list[str] | None = None) -> Server:
    port = _free_port()
    log = directory / f"serve-{port}.log"
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": database_url,
        "CORRIDOR_ENV": "sandbox",
        "CORRIDOR_LOG_LEVEL": "WARNING",
        # One key drives the whole load: keep the per-key limit (and its cost) above it.
        "CORRIDOR_RATE_LIMIT_REQUESTS_PER_KEY": "1000000",
    }
    corridor = Path(sys.executable).with_name("corridor")
    process = subprocess.Popen(
        [str(corridor), "serve", "--no-workers", "--port", str(port), *(extra or [])],
        env=environment,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        cwd=directory,
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"corridor serve exited: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{base_url}/v1/health", timeout=1).status_code == 200:
                return Server(process, base_url, log)
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"corridor serve did not answer: {log.read_text()[-2000:]}")


async def _payer(client: httpx.AsyncClient, index: int) -> dict:
    """An ACTIVE customer with a funded USD balance and an external account to pay."""

    async def ok(response: httpx.Response, status: int = 200) -> dict:
        assert response.status_code == status, response.text
        return response.json()

    tos = await ok(await client.post("/v1/terms-of-service/acceptances"), 201)
    await ok(await client.post(f"/v1/terms-of-service/acceptances/{tos['id']}/accept"))
    customer = await ok(
        await client.post(
            "/v1/customers/individual",
            json={
                "firstName": "Bench",
                "lastName": f"Payer {index}",
                "email": f"payer{index}@example.com",
                "tosAcceptanceId": tos["id"],
            },
        ),
        201,
    )
    await ok(
        await client.post(
            f"/v1/sandbox/customers/{customer['id']}/verification-status",
            json={"status": "ACTIVE"},
        )
    )
    accounts = await ok(await client.get(f"/v1/customers/{customer['id']}/accounts"))
    account = next(item for item in accounts["data"] if item["currency"] == "USD")
    await ok(
        await client.post(
            f"/v1/sandbox/accounts/{account['id']}/fund",
            json={"amount": {"currency": "USD", "value": str(FUNDING_MINOR)}},
        )
    )
    external = await ok(
        await client.post(
            "/v1/external-accounts", json={"customerId": customer["id"], **US_ACCOUNT}
        ),
        201,
    )
    return {
        "customerId": customer["id"],
        "source": {"accountId": account["id"]},
        "destination": {
            "externalAccountId": external["id"],
            "paymentRail": "ACH",
            "currency": "USD",
        },
        "amount": {"currency": "USD", "value": str(AMOUNT_MINOR)},
        "confirm": True,
    }


def _literal(value: Any) -> str:
    """A parameter written into SQL text (the values the express path sends)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, datetime):
        return "'" + value.isoformat() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def _written_in(statement: str, parameters: list[Any]) -> str:
    return re.sub(
        r"\$(\d+)", lambda found: f"({_literal(parameters[int(found.group(1)) - 1])})", statement
    )


async def express_statements(database_url: str, secret: str, body: dict) -> str:
    """A pgbench script of the statement the API sends for `body` once it has read the rows
    `body` names (it keeps them, transfers/express/known.py): the express write, its
    parameters written in, the new rows' ids made unique per transaction (pgbench's client
    id and a random serial). The read, sent the first time only, is left out."""
    from corridor.app import transfer_plugins
    from corridor.auth.secrets import hash_secret
    from corridor.auth.service import organization_key_caller
    from corridor.kit.clock import SystemClock
    from corridor.kit.db import Database
    from corridor.transfers.express import statements
    from corridor.transfers.express.submit import create_and_submit, wanted
    from corridor.transfers.schemas.requests import TransferCreate

    data = TransferCreate.model_validate(body)
    database = Database(database_url)
    try:
        async with database.pooled_connection() as connection:
            read = await statements.read(
                connection.driver_connection, secret_hash=hash_secret(secret), wanted=wanted(data)
            )
    finally:
        await database.dispose()
    assert read is not None
    key = read.key
    caller = organization_key_caller(
        key_id=key.key_id,
        organization_id=key.organization_id,
        organization_kind=key.organization_kind,
        scopes=key.scopes,
    )
    now = SystemClock().now()
    submitted = create_and_submit(
        caller=caller, data=data, found=read.found, plugins=transfer_plugins(), now=now
    )
    write_sql, write_parameters = statements.write_statement(
        submitted, read=read, kept_answer=None, now=now
    )
    write = _written_in(write_sql, write_parameters)
    new_ids = [submitted.transfer.id, *(leg.id for leg in submitted.legs)]
    new_ids += [event.id for event in submitted.events]
    for index, new_id in enumerate(new_ids):
        # Where an id is a value of its own (not inside an event's JSON, which may repeat).
        prefix = new_id.split("_", 1)[0]
        unique = f"('{prefix}_{index}_' || :client_id::text || '_' || :serial::text)"
        write = write.replace(f"('{new_id}')", unique)
    # pgbench's extended protocol reads `:name` as a variable, even inside a string: JSON's
    # `"key":null` gets a space, which jsonb ignores.
    write = re.sub(r'":(?=[a-z])', '": ', write)
    # One line a statement (pgbench reads a script line by line).
    return "\n".join(["\\set serial random(1, 1000000000000)", write.replace("\n", " ") + ";", ""])


async def transfer_bodies(base_url: str, secret: str, accounts: int) -> list[dict]:
    async with httpx.AsyncClient(
        base_url=base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=30
    ) as client:
        return [await _payer(client, index) for index in range(accounts)]


_WRK_SCRIPT = """
local bodies = {BODIES}
local counter = 0
local interval = {INTERVAL}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {SECRET}"
request = function()
  counter = counter + 1
  return wrk.format(nil, "/v1/transfers", nil, bodies[(counter % #bodies) + 1])
end
if interval > 0 then
  delay = function() return interval end
end
"""


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_wrk(
    base_url: str,
    secret: str,
    bodies: list[dict],
    *,
    name: str,
    seconds: int,
    interval_ms: float = 0,
    directory: Path,
    server: Server | None = None,
) -> Result:
    script = directory / "submit.lua"
    script.write_text(
        _WRK_SCRIPT.replace(
            "{BODIES}", "{" + ",".join(_lua_string(json.dumps(b)) for b in bodies) + "}"
        )
        .replace("{SECRET}", secret)
        .replace("{INTERVAL}", str(int(interval_ms)))
    )
    cpu_before = server.cpu_seconds() if server is not None else 0.0
    done = subprocess.run(
        [
            "wrk",
            "-t2",
            f"-c{CONNECTIONS}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            str(script),
            base_url,
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
    )
    result = parse_wrk(name, done.stdout)
    if server is None or not result.operations:
        return result
    # What one request costs the server, whatever else runs on the machine at the time.
    cpu_ms = (server.cpu_seconds() - cpu_before) * 1000 / result.operations
    return replace(result, name=f"{result.name}, server CPU {cpu_ms:.2f} ms/request")


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _ms(value: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s|m)", value).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS_MS[unit]


def parse_wrk(name: str, output: str) -> Result:
    requests = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    seconds = float(re.search(r"requests in ([0-9.]+)s", output).group(1))  # type: ignore[union-attr]
    failed = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: (.*)", output)
    percentiles = {
        int(match.group(1)): _ms(match.group(2))
        for match in re.finditer(r"^\s+(50|75|90|99)%\s+(\S+)$", output, re.MULTILINE)
    }
    note = ""
    if failed:
        note += f", {failed.group(1)} non-2xx"
    if errors:
        note += f", socket errors: {errors.group(1).strip()}"
    return Result(
        name=name + note,
        operations=requests,
        seconds=seconds,
        latencies_ms=[],
        percentiles_ms=percentiles,
    )


_FLOOR_SCHEMA = """
DROP TABLE IF EXISTS floor_events, floor_postings, floor_transfers, floor_accounts;
CREATE TABLE floor_accounts (id text PRIMARY KEY, posted bigint NOT NULL, pending bigint NOT NULL,
  updated_at timestamptz NOT NULL);
CREATE TABLE floor_transfers (id text PRIMARY KEY, account_id text NOT NULL REFERENCES floor_accounts,
  amount bigint NOT NULL, status text NOT NULL, request jsonb NOT NULL,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
CREATE TABLE floor_postings (id bigserial PRIMARY KEY, transfer_id text NOT NULL REFERENCES floor_transfers,
  account_id text NOT NULL, amount bigint NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX ON floor_postings (account_id, id);
CREATE TABLE floor_events (id bigserial PRIMARY KEY, type text NOT NULL, data jsonb NOT NULL,
  tags jsonb NOT NULL, created_at timestamptz NOT NULL, dispatched_at timestamptz);
CREATE INDEX ON floor_events (dispatched_at);
INSERT INTO floor_accounts SELECT 'acc_' || n, {FUNDING}, 0, now() FROM generate_series(1, 16) n;
INSERT INTO floor_accounts VALUES ('clearing', 0, 0, now());
"""

_FLOOR_SCRIPT = """
\\set account random(1, {ACCOUNTS})
\\set serial random(1, 1000000000000)
BEGIN;
INSERT INTO floor_transfers VALUES ('tfr_' || :client_id || '_' || :serial, 'acc_' || :account, 100, 'DRAFT', '{{"source": {{"accountId": "acc"}}, "amount": {{"value": "100"}}}}', now(), now());
UPDATE floor_accounts SET pending = pending + 100, updated_at = now() WHERE id = 'acc_' || :account AND posted - pending >= 100;
INSERT INTO floor_postings (transfer_id, account_id, amount, created_at) VALUES ('tfr_' || :client_id || '_' || :serial, 'acc_' || :account, -100, now()), ('tfr_' || :client_id || '_' || :serial, 'clearing', 100, now());
UPDATE floor_transfers SET status = 'PENDING', updated_at = now() WHERE id = 'tfr_' || :client_id || '_' || :serial;
INSERT INTO floor_events (type, data, tags, created_at) VALUES ('transfer.pending', '{{"id": "tfr"}}', '["tfr", "acc"]', now());
COMMIT;
"""


def _dsn(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def run_floor(database_url: str, *, accounts: int, seconds: int, directory: Path) -> Result:
    """pgbench, 16 clients, the issue's floor: the submit's SQL over `accounts` accounts."""
    dsn = _dsn(database_url)
    schema = directory / "floor-schema.sql"
    schema.write_text(_FLOOR_SCHEMA.replace("{FUNDING}", str(FUNDING_MINOR)))
    subprocess.run(
        ["psql", "-q", "-v", "ON_ERROR_STOP=1", "-f", str(schema), dsn],
        check=True,
        capture_output=True,
    )
    script = directory / f"floor-{accounts}.sql"
    script.write_text(
        _FLOOR_SCRIPT.replace("{ACCOUNTS}", str(accounts)).replace("{{", "{").replace("}}", "}")
    )
    return _pgbench(
        dsn,
        [script],
        name=f"pgbench floor, {accounts} account{'s' if accounts > 1 else ''}",
        seconds=seconds,
        directory=directory,
    )


async def run_statements_floor(
    database_url: str, secret: str, bodies: list[dict], *, seconds: int, directory: Path
) -> Result:
    """pgbench, 16 clients, the API's own statement for each body (equally often), prepared
    as the driver prepares it."""
    scripts = []
    for index, body in enumerate(bodies):
        script = directory / f"statements-{len(bodies)}-{index}.sql"
        script.write_text(await express_statements(database_url, secret, body))
        scripts.append(script)
    accounts = len(bodies)
    return _pgbench(
        _dsn(database_url),
        scripts,
        name=f"pgbench: the API's statement, {accounts} account{'s' if accounts > 1 else ''}",
        seconds=seconds,
        directory=directory,
        prepared=True,
    )


def _pgbench(
    dsn: str,
    scripts: list[Path],
    *,
    name: str,
    seconds: int,
    directory: Path,
    prepared: bool = False,
) -> Result:
    log_prefix = directory / f"pgbench-log-{uuid.uuid4().hex[:8]}"
    files = [argument for script in scripts for argument in ("-f", f"{script}@1")]
    done = subprocess.run(
        [
            "pgbench",
            "-n",
            f"-c{CONNECTIONS}",
            "-j2",
            f"-T{seconds}",
            *(["-M", "prepared"] if prepared else []),
            "-l",
            f"--log-prefix={log_prefix}",
            *files,
            dsn,
        ],
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        check=True,
        cwd=directory,
    )
    tps = float(re.search(r"tps = ([0-9.]+)", done.stdout).group(1))  # type: ignore[union-attr]
    latencies: list[float] = []
    for log in directory.glob(f"{log_prefix.name}*"):
        for line in log.read_text().splitlines():
            fields = line.split()
            if len(fields) >= 3:
                latencies.append(int(fields[2]) / 1000)
    return Result(
        name=name, operations=round(tps * seconds), seconds=float(seconds), latencies_ms=latencies
    )


def half_peak(
    server: Server, secret: str, bodies: list[dict], peak: float, seconds: int, directory: Path
) -> Result:
    """wrk offers load at half the peak rate: each connection waits between requests
    (wrk's `delay`), calibrated by a short run, since a request's own time adds to it."""
    target = peak / 2
    cycle_ms = CONNECTIONS * 1000 / target
    probe = run_wrk(
        server.base_url,
        secret,
        bodies,
        name="calibration",
        seconds=max(2, seconds // 4),
        interval_ms=cycle_ms,
        directory=directory,
    )
    request_ms = max(0.0, CONNECTIONS * 1000 / max(probe.throughput, 0.1) - cycle_ms)
    return run_wrk(
        server.base_url,
        secret,
        bodies,
        name=f"API at half peak ({target:,.0f}/s offered)",
        seconds=seconds,
        interval_ms=max(0.0, cycle_ms - request_ms),
        directory=directory,
        server=server,
    )


def servings() -> list[tuple[str, list[str]]]:
    """How the API is served for the load: `corridor serve`'s default (a process per core)
    and, on a machine of several cores, one process too. The benchmark's load generator
    and PostgreSQL share these cores with the API: there, fewer processes can answer more
    (each one's event loop gathers more requests per turn; fewer processes contend)."""
    cores = os.cpu_count() or 1
    default = (f"{cores} processes (the default)" if cores > 1 else "1 process", [])
    return [("1 process", ["--processes", "1"]), default] if cores > 1 else [default]


@dataclass(frozen=True, slots=True)
class Measured:
    """One load shape (16 accounts, or one hot account): the floors and the API."""

    label: str
    floor: Result
    statements_floor: Result
    # Every API run, in the table's order.
    api: list[Result]
    # Each serving's full-speed run: (how the API was served, its result).
    peaks: list[tuple[str, Result]]

    def ratios(self) -> list[str]:
        lines = []
        for served, result in self.peaks:
            api = result.throughput
            lines.append(
                f"{self.label}, {served}: API {api:,.0f}/s = "
                f"{api / self.floor.throughput:.2f}x the issue's floor "
                f"({self.floor.throughput:,.0f}/s), "
                f"{api / self.statements_floor.throughput:.2f}x its own statement in pgbench "
                f"({self.statements_floor.throughput:,.0f}/s)"
            )
        return lines


async def run(database_url: str, *, seconds: int) -> list[Measured]:
    """The floors, then the API as each serving serves it, spread and hot; and at half its
    spread peak."""
    secret = await bootstrap(database_url)
    measured: list[Measured] = []
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        servers: list[tuple[str, Server]] = []
        try:
            for served, extra in servings():
                servers.append((served, start_server(database_url, directory, extra=extra)))
            spread = await transfer_bodies(servers[0][1].base_url, secret, CONNECTIONS)
            hot = spread[:1]
            for label, bodies, accounts in (("16 accounts", spread, 16), ("1 hot account", hot, 1)):
                floor = run_floor(
                    database_url, accounts=accounts, seconds=seconds, directory=directory
                )
                statements_floor = await run_statements_floor(
                    database_url, secret, bodies, seconds=seconds, directory=directory
                )
                results: list[Result] = []
                peaks: list[tuple[str, Result]] = []
                for served, server in servers:
                    # Warm: every API process's connections prepare their statements, and
                    # the express path reads each body's rows once (then keeps them).
                    run_wrk(
                        server.base_url,
                        secret,
                        bodies,
                        name="warm-up",
                        seconds=2,
                        directory=directory,
                    )
                    api = run_wrk(
                        server.base_url,
                        secret,
                        bodies,
                        name=f"API create+submit, {label}, {served}",
                        seconds=seconds,
                        directory=directory,
                        server=server,
                    )
                    results.append(api)
                    peaks.append((served, api))
                    if accounts > 1 and api.throughput > 0:
                        at_half = half_peak(
                            server, secret, bodies, api.throughput, seconds, directory
                        )
                        results.append(replace(at_half, name=f"{at_half.name}, {served}"))
                measured.append(Measured(label, floor, statements_floor, results, peaks))
        finally:
            for _, server in servers:
                server.stop()
    return measured
