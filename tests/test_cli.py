"""The corridor command, run as a user runs it: a subprocess reading CORRIDOR_* variables."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def environment(tmp_path) -> dict[str, str]:
    return {**os.environ, "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"}


def corridor(
    environment: dict[str, str], *arguments: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corridor.cli", *arguments],
        env=environment,
        capture_output=True,
        text=True,
        check=check,
    )


def test_init_json_prints_exactly_the_credentials_and_makes_a_new_organization_each_time(
    environment, tmp_path
):
    first = json.loads(corridor(environment, "init", "--json").stdout)
    assert set(first) == {"organizationId", "apiKey", "consoleEmail", "consolePassword"}
    assert first["organizationId"].startswith("org_")
    assert first["apiKey"].startswith("sk_sandbox_")
    second = json.loads(corridor(environment, "init", "--json").stdout)
    assert second["organizationId"] != first["organizationId"]
    assert (tmp_path / "cli.db").exists()


def test_init_if_empty_does_nothing_when_an_organization_exists(environment):
    corridor(environment, "init", "--json")
    assert corridor(environment, "init", "--if-empty", "--json").stdout == ""


def test_init_in_production_prints_a_live_key(environment):
    credentials = json.loads(
        corridor({**environment, "CORRIDOR_ENV": "production"}, "init", "--json").stdout
    )
    assert credentials["apiKey"].startswith("sk_live_")


def test_keys_create_list_and_revoke(environment):
    corridor(environment, "init", "--json")
    created = json.loads(
        corridor(
            environment, "keys", "create", "--name", "ci", "--scope", "customers:read", "--json"
        ).stdout
    )
    assert created["scopes"] == ["customers:read"]
    assert created["secret"].startswith("sk_sandbox_")
    assert (
        created["id"] in corridor(environment, "keys", "list").stdout
    )  # the table never cuts an id
    corridor(environment, "keys", "revoke", created["id"])
    listed = [
        json.loads(line)
        for line in corridor(environment, "keys", "list", "--json").stdout.splitlines()
    ]
    assert listed[0]["id"] == created["id"]
    assert listed[0]["revokedAt"] is not None
    assert listed[1]["revokedAt"] is None
    unknown = corridor(environment, "keys", "revoke", "key_01jd3x0p6x9e3k2v1m8q4r7s5t", check=False)
    assert unknown.returncode != 0


def test_keys_create_refuses_unknown_scopes(environment):
    corridor(environment, "init", "--json")
    refused = corridor(environment, "keys", "create", "--scope", "money:print", check=False)
    assert refused.returncode == 2
    assert "unknown scopes" in refused.stderr


def test_keys_need_an_organization_when_several_exist(environment):
    corridor(environment, "init", "--json")
    corridor(environment, "init", "--json")
    ambiguous = corridor(environment, "keys", "list", check=False)
    assert ambiguous.returncode == 2
    assert "--organization" in ambiguous.stderr


def test_migrate_is_idempotent(environment):
    corridor(environment, "migrate")
    assert "up to date" in corridor(environment, "migrate").stdout


def test_help_explains_every_command(environment):
    text = corridor(environment, "--help").stdout
    for command in ("init", "serve", "worker", "migrate", "keys"):
        assert command in text
