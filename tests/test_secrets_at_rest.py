"""No secret is kept in clear (issue 10, API.md section 4): a real server on a fresh
database makes every kind of secret the API hands out (API keys, agent keys, console
passwords and session tokens, verification-session tokens, webhook signing secrets), some
of them through
idempotent requests and their replays, and then neither the database files (SQLite with its
-wal, or a PostgreSQL dump) nor the server's log holds any of them."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy.engine import make_url

from corridor.webhooks.signing import new_secret
from tests.conftest import BACKENDS
from tests.live_server import LiveServer, live_corridor
from tests.support import active_customer

KEY = "Idempotency-Key"


def _database_bytes(live: LiveServer, directory: Path) -> bytes:
    """Everything the database holds: the SQLite files (main, -wal, -shm) or a pg_dump."""
    if live.database_url.startswith("sqlite"):
        files = sorted(directory.glob("corridor.db*"))
        assert any(path.name.endswith("-wal") for path in files), files
        return b"".join(path.read_bytes() for path in files)
    url = make_url(live.database_url)
    dump = subprocess.run(
        [
            "pg_dump",
            "--host",
            url.host or "127.0.0.1",
            "--port",
            str(url.port or 5432),
            "--username",
            url.username or "postgres",
            "--no-owner",
            url.database or "",
        ],
        check=True,
        capture_output=True,
    ).stdout
    assert b"COPY public.idempotency_records" in dump
    return dump


async def _make_secrets(live: LiveServer) -> dict[str, str]:
    """Every kind of secret, each made through the API as a client would; name → secret."""
    secrets = {"initial API key": live.api_key, "console password": live.console_password}
    headers = {"Authorization": f"Bearer {live.api_key}"}
    async with httpx.AsyncClient(base_url=live.base_url, headers=headers, timeout=30) as client:
        signed_in = await client.post(
            "/v1/console/sessions",
            json={"email": live.console_email, "password": live.console_password},
        )
        assert signed_in.status_code == 201, signed_in.text
        secrets["console session token"] = signed_in.json()["token"]

        body = {"name": "deploy", "scopes": ["*"]}
        created = await client.post("/v1/api-keys", json=body, headers={KEY: "key-1"})
        replayed = await client.post("/v1/api-keys", json=body, headers={KEY: "key-1"})
        assert created.status_code == replayed.status_code == 201, created.text
        assert replayed.headers["idempotent-replayed"] == "true"
        assert replayed.json()["secret"] is None
        secrets["API key (idempotent create)"] = created.json()["secret"]
        plain = await client.post("/v1/api-keys", json={"name": "plain", "scopes": ["*"]})
        secrets["API key"] = plain.json()["secret"]

        customer = await active_customer(client)
        accounts = await client.get(f"/v1/customers/{customer['id']}/accounts")
        usd = next(item for item in accounts.json()["data"] if item["currency"] == "USD")
        agent = await client.post(
            "/v1/agents",
            json={"customerId": customer["id"], "sourceAccountId": usd["id"], "name": "Bot"},
        )
        assert agent.status_code == 201, agent.text
        keys_path = f"/v1/agents/{agent.json()['id']}/keys"
        agent_key = await client.post(keys_path, json={}, headers={KEY: "agent-key-1"})
        again = await client.post(keys_path, json={}, headers={KEY: "agent-key-1"})
        assert agent_key.status_code == again.status_code == 201, agent_key.text
        assert again.json()["secret"] is None
        secrets["agent key"] = agent_key.json()["secret"]
        # A key that authenticates leaves no trace of itself either.
        used = await client.get(
            "/v1/transfers", headers={"Authorization": f"Bearer {secrets['agent key']}"}
        )
        assert used.status_code == 200, used.text

        started = await client.post(
            f"/v1/customers/{customer['id']}/verification-sessions", headers={KEY: "vs-1"}
        )
        assert started.status_code == 201, started.text
        token = parse_qs(urlsplit(started.json()["url"]).query)["token"][0]
        secrets["verification session token"] = token

        # Webhook signing secrets: brought, generated, and rotated (idempotently).
        brought = new_secret()
        endpoint = await client.post(
            "/v1/webhooks/endpoints", json={"url": "http://127.0.0.1:9/hooks", "secret": brought}
        )
        assert endpoint.status_code == 201, endpoint.text
        secrets["webhook secret (brought)"] = brought
        generated = await client.post(
            "/v1/webhooks/endpoints", json={"url": "http://127.0.0.1:9/other"}
        )
        secret_path = f"/v1/webhooks/endpoints/{generated.json()['id']}/secret"
        secrets["webhook secret (generated)"] = (await client.get(secret_path)).json()["key"]
        rotated = await client.post(f"{secret_path}/rotate", headers={KEY: "rotate-1"})
        replayed = await client.post(f"{secret_path}/rotate", headers={KEY: "rotate-1"})
        assert rotated.status_code == replayed.status_code == 200, rotated.text
        assert replayed.json()["key"] is None
        secrets["webhook secret (rotated)"] = rotated.json()["key"]
        assert (await client.get(secret_path)).json()["key"] == rotated.json()["key"]
    secrets["receipt signing key (private part)"] = await _receipt_private_key(live)
    return secrets


async def _receipt_private_key(live: LiveServer) -> str:
    """An agent pays, so the server makes its receipt signing key (receipts/); the private
    part (`d` of the JWK), read back with the server's own key (the key file it shares with
    this process, as neither sets CORRIDOR_SECRET_KEY)."""
    import json

    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    from corridor.kit import secretbox
    from corridor_client import Corridor
    from tests.client.support import ach_payout, funded_payer

    with Corridor(api_key=live.api_key, base_url=live.base_url) as corridor:
        payer = funded_payer(corridor)
        agent = corridor.agents.create(
            customer_id=payer.customer.id,
            source_account_id=payer.account.id,
            name="Receipts bot",
            destination_allowlist=[{"type": "external_account", "id": payer.bank_account.id}],
        )
        secret = corridor.agents.keys.create(agent.id, name="bot").secret
    body = ach_payout(payer, "1500", confirm=True)
    del body["customer_id"]
    with Corridor(api_key=secret, base_url=live.base_url) as bot:
        paid = bot.transfers.create(body)
        assert [receipt.kind for receipt in bot.transfers.receipts(paid.id).data] == ["AUTHORIZED"]
    engine = create_async_engine(live.database_url)
    try:
        async with engine.connect() as connection:
            stored = (
                await connection.execute(text("SELECT private_jwk FROM receipt_signing_keys"))
            ).scalar_one()
    finally:
        await engine.dispose()
    return json.loads(secretbox.from_environment(live.database_url).decrypt(stored))["d"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_secret_is_kept_in_clear_in_the_database_or_the_log(backend, tmp_path):
    with live_corridor(backend, tmp_path, settings={"CORRIDOR_LOG_LEVEL": "DEBUG"}) as live:
        secrets = asyncio.run(_make_secrets(live))
        held = _database_bytes(live, tmp_path)
        log = live.log.read_bytes()
    assert len(held) > 10_000 and b"request" in log  # the scans read something real
    for name, secret in secrets.items():
        assert len(secret) >= 20, name
        assert secret.encode() not in held, f"the database holds the {name} in clear"
        assert secret.encode() not in log, f"the server log holds the {name}"
    if backend == "sqlite":  # after the server stops, its last writes are in the main file
        stopped = _database_bytes_after_stop(tmp_path)
        for name, secret in secrets.items():
            assert secret.encode() not in stopped, f"the database holds the {name} in clear"


def _database_bytes_after_stop(directory: Path) -> bytes:
    return b"".join(path.read_bytes() for path in sorted(directory.glob("corridor.db*")))
