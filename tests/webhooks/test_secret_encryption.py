"""Webhook signing secrets are encrypted at rest under the server key (issue 10): the
database holds Fernet tokens only, `GET …/secret` still answers the secret, a copy of the
database without the key reveals nothing, the embedded default makes its key on first
run, and the key can be rotated (retired keys decrypt; `corridor reencrypt-secrets`)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime

import httpx
import pytest
import sqlalchemy as sa
from alembic import command
from cryptography.fernet import Fernet
from sqlalchemy.ext.asyncio import create_async_engine

from corridor.kit import secretbox
from corridor.kit.migrate import alembic_config
from corridor.webhooks.signing import new_secret
from tests.conftest import BACKENDS, POSTGRES_URL, _create_postgres_database
from tests.live_server import live_corridor
from tests.webhooks.support import create_endpoint, secret_of


async def _raw_secrets(app, endpoint_id: str) -> tuple[str, str]:
    """The stored `secret` and `previous_secrets` columns as the database holds them."""
    async with app.state.database.engine.connect() as connection:
        row = (
            await connection.execute(
                sa.text(
                    "SELECT secret, CAST(previous_secrets AS TEXT) FROM webhook_endpoints "
                    "WHERE id = :id"
                ),
                {"id": endpoint_id},
            )
        ).one()
    return row[0], row[1]


async def test_the_database_holds_tokens_and_the_api_still_answers_the_secret(tenant, app):
    chosen = new_secret()
    created = await create_endpoint(tenant.client, "https://example.com/hooks", secret=chosen)
    stored, previous = await _raw_secrets(app, created["id"])
    assert "whsec_" not in stored and chosen not in stored
    assert stored.startswith("gAAAAA")  # a Fernet token
    assert secretbox.current().decrypt(stored) == chosen
    assert await secret_of(tenant.client, created["id"]) == chosen

    rotated = await tenant.client.post(f"/v1/webhooks/endpoints/{created['id']}/secret/rotate")
    new = rotated.json()["key"]
    stored, previous = await _raw_secrets(app, created["id"])
    assert "whsec_" not in stored + previous
    assert new not in stored and chosen not in previous
    assert secretbox.current().decrypt(stored) == new
    assert await secret_of(tenant.client, created["id"]) == new


async def test_a_copy_of_the_database_without_the_key_reveals_no_secret(tenant, app):
    created = await create_endpoint(tenant.client, "https://example.com/hooks")
    stored, _ = await _raw_secrets(app, created["id"])
    stranger = secretbox.SecretBox(Fernet.generate_key().decode())
    with pytest.raises(secretbox.SecretBoxError, match="CORRIDOR_SECRET_KEYS_RETIRED"):
        stranger.decrypt(stored)


def test_retired_keys_decrypt_and_reencryption_moves_to_the_new_key():
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    token = secretbox.SecretBox(old).encrypt("whsec_x")
    rotated = secretbox.SecretBox(new, [old])
    assert rotated.decrypt(token) == "whsec_x"
    assert not rotated.is_current(token)
    again = rotated.reencrypt(token)
    assert secretbox.SecretBox(new).decrypt(again) == "whsec_x"
    with pytest.raises(secretbox.SecretBoxError):
        secretbox.SecretBox(old).decrypt(again)


@pytest.mark.parametrize("key", ["", "short", "not base64 at all!" * 3])
def test_a_key_that_is_not_a_fernet_key_is_refused_with_a_clear_error(key):
    with pytest.raises(secretbox.SecretBoxError, match="Fernet key"):
        secretbox.SecretBox(key)


def _corridor(environment: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corridor.cli", *arguments],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_embedded_default_makes_its_key_on_first_run_and_the_key_can_be_rotated(tmp_path):
    """`corridor serve` on SQLite with no CORRIDOR_SECRET_KEY: the key is generated into the
    data folder (beside the database, readable by its owner only) and kept across restarts;
    rotating it with a retired key and `corridor reencrypt-secrets` keeps every secret."""
    chosen = new_secret()
    assert "CORRIDOR_SECRET_KEY" not in os.environ
    with live_corridor("sqlite", tmp_path) as live:
        key_file = tmp_path / "secret.key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        first_key = key_file.read_text().strip()
        headers = {"Authorization": f"Bearer {live.api_key}"}
        created = httpx.post(
            f"{live.base_url}/v1/webhooks/endpoints",
            json={"url": "http://127.0.0.1:9/hooks", "secret": chosen},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        secret_path = f"{live.base_url}/v1/webhooks/endpoints/{created.json()['id']}/secret"
    database = (tmp_path / "corridor.db").read_bytes()
    assert chosen.encode() not in database and b"whsec_" not in database

    with live_corridor("sqlite", tmp_path) as restarted:  # the same database, restarted
        assert key_file.read_text().strip() == first_key
        answer = httpx.get(secret_path.replace(live.base_url, restarted.base_url), headers=headers)
        assert answer.json() == {"key": chosen}, answer.text

    second_key = Fernet.generate_key().decode()
    rotating = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'corridor.db'}",
        "CORRIDOR_SECRET_KEY": second_key,
        "CORRIDOR_SECRET_KEYS_RETIRED": first_key,
    }
    done = _corridor(rotating, "reencrypt-secrets")
    assert done.returncode == 0, done.stderr
    assert "1 webhook endpoint" in done.stdout
    only_new = {"CORRIDOR_SECRET_KEY": second_key}
    with live_corridor("sqlite", tmp_path, settings=only_new) as rotated:
        answer = httpx.get(secret_path.replace(live.base_url, rotated.base_url), headers=headers)
        assert answer.json() == {"key": chosen}, answer.text
    key_file.unlink()  # the old key is gone for good: the secret still decrypts
    with live_corridor("sqlite", tmp_path, settings=only_new) as again:
        answer = httpx.get(secret_path.replace(live.base_url, again.base_url), headers=headers)
        assert answer.json() == {"key": chosen}
    assert not key_file.exists()  # with CORRIDOR_SECRET_KEY set, no key file is made


async def _upgraded_with_a_plaintext_secret(url: str, secret: str, previous: str) -> None:
    """The schema at 0005 with an endpoint stored the old way, then upgraded to head."""
    await asyncio.to_thread(command.upgrade, alembic_config(url), "0005")
    engine = create_async_engine(url)
    now = datetime(2026, 11, 1, tzinfo=UTC)
    document = json.dumps([{"key": previous, "expiresAt": "2099-01-01T00:00:00.000Z"}])
    try:
        async with engine.begin() as connection:
            await connection.execute(
                sa.text(
                    "INSERT INTO organizations (id, name, kind, configuration, created_at, "
                    "updated_at) VALUES ('org_old', 'Old', 'STANDARD', '{}', :now, :now)"
                ),
                {"now": now},
            )
            previous_value = (
                sa.text(":previous")
                if url.startswith("sqlite")
                else sa.text("CAST(:previous AS JSONB)")
            )
            await connection.execute(
                sa.text(
                    "INSERT INTO webhook_endpoints (id, organization_id, url, event_types, "
                    "disabled, secret, previous_secrets, created_at, updated_at) VALUES "
                    "('ep_old', 'org_old', 'https://example.com/', '[]', false, :secret, "
                    f"{previous_value.text}, :now, :now)"
                ),
                {"secret": secret, "previous": document, "now": now},
            )
    finally:
        await engine.dispose()
    await asyncio.to_thread(command.upgrade, alembic_config(url), "head")


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_migration_encrypts_secrets_stored_before_it(backend, tmp_path, monkeypatch):
    key = Fernet.generate_key().decode()
    monkeypatch.setenv("CORRIDOR_SECRET_KEY", key)
    secret, previous = new_secret(), new_secret()
    if backend == "sqlite":
        url, drop = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}", None
    else:
        assert POSTGRES_URL is not None
        url, drop = await _create_postgres_database(POSTGRES_URL)
    try:
        await _upgraded_with_a_plaintext_secret(url, secret, previous)
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                row = (
                    await connection.execute(
                        sa.text(
                            "SELECT secret, CAST(previous_secrets AS TEXT) FROM "
                            "webhook_endpoints WHERE id = 'ep_old'"
                        )
                    )
                ).one()
        finally:
            await engine.dispose()
        assert "whsec_" not in row[0] + row[1]
        box = secretbox.SecretBox(key)
        assert box.decrypt(row[0]) == secret
        assert box.decrypt(json.loads(row[1])[0]["key"]) == previous
    finally:
        if drop is not None:
            await drop()


async def test_reencryption_goes_over_every_endpoint_in_batches(app, tenant):
    """`corridor reencrypt-secrets` asks for batches until one comes back empty: each
    endpoint once, in id order, and every secret still reads the same."""
    from corridor.webhooks import repository

    made = [
        await create_endpoint(tenant.client, f"https://example.com/hooks/{n}") for n in range(3)
    ]
    before = {endpoint["id"]: await secret_of(tenant.client, endpoint["id"]) for endpoint in made}
    database = app.state.database
    async with database.session(write=False) as session:
        total = await repository.count_all_endpoints(session)
    batches: list[list[str]] = []
    while True:
        after_id = batches[-1][-1] if batches else None
        async with database.session() as session, session.begin():
            ids = await repository.reencrypt_secrets(session, after_id=after_id, endpoints_max=2)
        if not ids:
            break
        batches.append(ids)
    rewritten = [endpoint_id for batch in batches for endpoint_id in batch]
    assert all(len(batch) <= 2 for batch in batches)
    assert rewritten == sorted(set(rewritten)) and len(rewritten) == total >= 3
    assert set(before) <= set(rewritten)
    for endpoint_id, secret in before.items():
        assert await secret_of(tenant.client, endpoint_id) == secret
