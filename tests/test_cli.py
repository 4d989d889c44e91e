"""The corridor command reading CORRIDOR_* variables: run in this process through its real
entry point (tests/cli_runner.py), and as a subprocess in the tests marked so below."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runner import run_corridor


@pytest.fixture
def environment(tmp_path) -> dict[str, str]:
    return {**os.environ, "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}"}


def corridor(
    environment: dict[str, str], *arguments: str, check: bool = True, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The command run in this process (tests/cli_runner.py): the same entry point, argv,
    environment and stdin, reported as `subprocess.run` reports it."""
    completed = run_corridor(arguments, environment=environment, input=input)
    if check:
        completed.check_returncode()
    return completed


def corridor_process(
    environment: dict[str, str], *arguments: str, check: bool = True, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, a subprocess: kept for the few tests that prove the
    installed entry point works end to end."""
    return subprocess.run(
        [sys.executable, "-m", "corridor.cli", *arguments],
        env=environment,
        capture_output=True,
        text=True,
        check=check,
        input=input,
    )


def test_init_json_prints_exactly_the_credentials_and_makes_a_new_organization_each_time(
    environment, tmp_path
):
    # As a user runs it: a subprocess (as in the three other tests that call corridor_process).
    first = json.loads(corridor_process(environment, "init", "--json").stdout)
    assert set(first) == {"organizationId", "apiKey", "consoleEmail", "consolePassword"}
    assert first["organizationId"].startswith("org_")
    assert first["apiKey"].startswith("sk_sandbox_")
    second = json.loads(corridor_process(environment, "init", "--json").stdout)
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
    refused = corridor_process(environment, "keys", "create", "--scope", "money:print", check=False)
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
    text = corridor_process(environment, "--help").stdout
    for command in ("init", "serve", "worker", "migrate", "keys"):
        assert command in text


def _migrations_count() -> int:
    """The migrations the package ships (each applied once on a new database)."""
    import corridor.migrations.versions as versions

    return len(list(Path(versions.__file__).parent.glob("2*_*.py")))


def test_migrate_says_what_it_applied_and_only_then_already_up_to_date(environment):
    migrated = corridor(environment, "migrate")
    first = migrated.stdout
    # One line per migration, its docstring's first line (they used to print whole
    # paragraphs), and nothing on stderr off a terminal (the progress bar left a blank line).
    assert len(first.splitlines()) == _migrations_count() + 1, first
    assert migrated.stderr == ""
    assert "Applied 0001: foundation" in first
    assert f"Applied {_migrations_count()} migrations" in first
    assert "up to date" not in first
    second = corridor(environment, "migrate").stdout
    assert "already up to date" in second
    assert "Applied" not in second


def test_migrate_shows_a_progress_bar_on_a_terminal(environment):
    # TTY_COMPATIBLE makes Rich draw as it would on a terminal.
    migrated = corridor({**environment, "TTY_COMPATIBLE": "1"}, "migrate")
    assert "Migrating" in migrated.stderr
    count = _migrations_count()
    assert f"{count}/{count}" in migrated.stderr


def test_reencrypt_secrets_shows_a_progress_bar_on_a_terminal_only(environment):
    corridor(environment, "init", "--json")
    on_terminal = corridor({**environment, "TTY_COMPATIBLE": "1"}, "reencrypt-secrets")
    assert "Encrypting secrets" in on_terminal.stderr and "0/0" in on_terminal.stderr
    elsewhere = corridor(environment, "reencrypt-secrets")
    assert elsewhere.stderr == ""
    assert "0 webhook endpoint" in elsewhere.stdout


def test_version_and_short_help(environment):
    from corridor import __version__

    assert corridor(environment, "--version").stdout.strip() == f"corridor {__version__}"
    for command in ([], ["keys"], ["keys", "create"], ["serve"]):
        assert (
            corridor(environment, *command, "-h").stdout
            == corridor(environment, *command, "--help").stdout
        )


HELP_PAGES = [
    [],
    ["migrate"],
    ["init"],
    ["serve"],
    ["worker"],
    ["keys"],
    ["keys", "create"],
    ["keys", "list"],
    ["keys", "revoke"],
    ["webhooks"],
    ["webhooks", "verify"],
    ["webhooks", "replay"],
    ["listen"],
    ["users"],
    ["users", "add"],
    ["users", "list"],
    ["bank-files"],
    ["bank-files", "list"],
    ["bank-files", "write"],
    ["bank-files", "upload"],
    ["bank-files", "import"],
    ["encrypt-secret"],
]


@pytest.mark.parametrize("command", HELP_PAGES, ids=lambda command: " ".join(command) or "corridor")
def test_help_has_no_type_tags_and_fits_80_columns(environment, command):
    text = corridor({**environment, "COLUMNS": "80"}, *command, "--help").stdout
    assert "Usage: corridor" in text
    assert re.search(r"<[a-z_\[\]|, ]+>", text) is None, text
    assert max(len(line) for line in text.splitlines()) <= 80, text


def test_serve_help_names_the_port_and_host_settings(environment):
    text = corridor(environment, "serve", "--help").stdout
    assert "--port PORT" in text
    assert "CORRIDOR_PORT" in text
    assert "CORRIDOR_HOST" in text


def test_serve_on_a_port_in_use_is_one_line_before_anything_starts(environment):
    """It used to print "serving on", start the workers, then fail in uvicorn (exit 3)."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        failed = corridor(environment, "serve", "--port", str(port), check=False)
    assert failed.stdout == ""
    assert _one_line_error(failed) == (
        f"Error: 127.0.0.1:{port} is in use; choose --port or CORRIDOR_PORT"
    )


def _one_line_error(failed: subprocess.CompletedProcess[str]) -> str:
    assert failed.returncode == 1, failed
    assert "Traceback" not in failed.stderr
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1, failed.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_an_unreachable_database_is_one_line_and_debug_shows_the_traceback(environment):
    unreachable = {
        **environment,
        "CORRIDOR_DATABASE_URL": "postgresql+asyncpg://corridor:hunter2@127.0.0.1:1/corridor",
    }
    line = _one_line_error(corridor(unreachable, "keys", "list", check=False))
    assert "postgresql+asyncpg://corridor@127.0.0.1:1/corridor" in line
    assert "hunter2" not in line
    debugged = corridor(unreachable, "--debug", "keys", "list", check=False)
    assert debugged.returncode != 0
    assert "Traceback" in debugged.stderr
    assert (
        "Traceback"
        in corridor({**unreachable, "CORRIDOR_DEBUG": "1"}, "keys", "list", check=False).stderr
    )


def test_a_database_that_cannot_be_opened_is_one_line_every_time(environment, tmp_path):
    unopenable = {
        **environment,
        "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'x.db'}",
    }
    # A subprocess: the traceback came from the driver's thread after the command's loop
    # closed, which only a whole process shows.
    for _ in range(4):  # the database driver's thread used to add a traceback, sometimes
        line = _one_line_error(corridor_process(unopenable, "keys", "list", check=False))
        assert "unable to open database file" in line


@pytest.mark.parametrize(
    "url",
    ["postgresql://u@h/x", "mysql://u@h/x", "sqlite:///x.db", "postgresql+psycopg2://u@h/x"],
)
def test_a_database_url_of_another_driver_names_the_two_that_work(environment, url):
    """It used to print `ModuleNotFoundError: No module named 'psycopg'`."""
    for command in (["keys", "list"], ["serve", "--port", "1"]):  # serve checks it first
        line = _one_line_error(
            corridor({**environment, "CORRIDOR_DATABASE_URL": url}, *command, check=False)
        )
        assert url in line
        assert "use postgresql+asyncpg:// or sqlite+aiosqlite://" in line


def test_a_database_never_migrated_says_to_run_migrate(environment, tmp_path):
    """A missing file (`keys create` first thing in a new checkout, where .corridor/ is not
    made yet) and a file without the tables."""
    fresh = {
        **environment,
        "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / '.corridor' / 'corridor.db'}",
    }
    line = _one_line_error(corridor(fresh, "keys", "create", check=False))
    assert "unable to open database file" in line and "run `corridor migrate` first" in line
    corridor(fresh, "migrate")
    no_organization = corridor(fresh, "keys", "create", check=False)
    assert no_organization.returncode == 2
    assert no_organization.stderr == "corridor: no organization yet: run `corridor init` first\n"
    (tmp_path / "empty.db").touch()
    empty = {**environment, "CORRIDOR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"}
    line = _one_line_error(corridor(empty, "keys", "list", check=False))
    assert "no such table" in line and "run `corridor migrate` first" in line


def test_a_bad_setting_is_named_in_one_line(environment):
    line = _one_line_error(
        corridor({**environment, "CORRIDOR_PORT": "eighty"}, "keys", "list", check=False)
    )
    assert "CORRIDOR_PORT" in line


def test_a_rule_across_settings_names_the_settings_involved(environment):
    """It used to say `invalid setting CORRIDOR_: Value error, webhook_claim_lease_s …`."""
    line = _one_line_error(
        corridor({**environment, "CORRIDOR_WEBHOOK_TIMEOUT_S": "100"}, "migrate", check=False)
    )
    assert "CORRIDOR_WEBHOOK_CLAIM_LEASE_S must be longer than CORRIDOR_WEBHOOK_TIMEOUT_S" in line
    assert "CORRIDOR_:" not in line and "Value error" not in line


@pytest.mark.parametrize(
    "command",
    [
        ("keys", "create"),
        ("keys", "list"),
        ("keys", "revoke", "key_01jd3x0p6x9e3k2v1m8q4r7s5t"),
        ("webhooks", "replay", "ep_01jd3x0p6x9e3k2v1m8q4r7s5t", "--since", "1h"),
    ],
)
@pytest.mark.parametrize("debug", [False, True])
def test_an_unknown_organization_is_one_line_with_status_2(environment, command, debug):
    """It used to reach the database: keys create failed on the foreign key (its traceback
    carried the INSERT); keys list printed an empty table."""
    corridor(environment, "init", "--json")
    failed = corridor(
        environment, *(["--debug"] if debug else []), *command, "-o", "org_nope", check=False
    )
    assert failed.returncode == 2, failed
    assert failed.stderr == "corridor: no such organization: org_nope\n"
    assert failed.stdout == ""


async def test_a_database_error_never_carries_the_statement_values(environment, tmp_path):
    """Every engine the CLI opens hides parameters, so a traceback (--debug) or the one-line
    error shows the statement but never the values, a key's secret hash among them."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    from corridor.kit.db import Database
    from corridor.kit.failures import describe_failure

    corridor(environment, "init", "--json")
    database = Database(environment["CORRIDOR_DATABASE_URL"])
    secret_hash = "f" * 64
    try:
        with pytest.raises(IntegrityError) as raised:
            async with database.session() as session, session.begin():
                await session.execute(
                    text(
                        "INSERT INTO api_keys (id, organization_id, kind, name, scopes,"
                        " environment, prefix, secret_hash, created_at) VALUES ('key_x',"
                        " :organization, 'ORGANIZATION', 'k', '[]', 'sandbox', 'p', :hash,"
                        " CURRENT_TIMESTAMP)"
                    ),
                    {"organization": "org_nope", "hash": secret_hash},
                )
    finally:
        await database.dispose()
    assert secret_hash not in str(raised.value)
    assert "hidden" in str(raised.value)
    assert secret_hash not in describe_failure(raised.value)


def test_keys_list_fits_80_columns_and_keeps_whole_ids(environment):
    corridor(environment, "init", "--json")
    created = json.loads(
        corridor(
            environment,
            "keys",
            "create",
            "--name",
            "Nightly reconciliation job for the treasury team's ledger exports",
            *("-s", "customers:read", "-s", "transfers:read", "-s", "transfers:write"),
            "--json",
        ).stdout
    )
    corridor(environment, "keys", "revoke", created["id"])
    listed = [
        json.loads(line)
        for line in corridor(environment, "keys", "list", "--json").stdout.splitlines()
    ]
    table = corridor({**environment, "COLUMNS": "80"}, "keys", "list").stdout
    assert max(len(line) for line in table.splitlines()) <= 80, table
    for key in listed:
        assert key["id"] in table
    assert "transfers:write" in table  # scopes wrap between scopes, not inside one
    # The times stay whole, the revoked key's among them (its column used to be cut).
    assert re.search(r"\bcreated\s+revoked$", table.splitlines()[0].rstrip()), table
    revoked_row = next(line for line in table.splitlines() if created["id"] in line)
    assert revoked_row.split()[-2:] == [listed[0]["createdAt"][:10], listed[0]["revokedAt"][:10]]
    wide = corridor({**environment, "COLUMNS": "160"}, "keys", "list").stdout
    assert all(key["prefix"] in wide for key in listed)


async def test_users_add_makes_a_second_console_user_who_can_sign_in(environment):
    """The console's second person (who authorizes what the first submitted) is added from
    the command line; the password is printed once and is the one that signs in."""
    from datetime import UTC, datetime

    from corridor.auth import service
    from corridor.kit.db import Database

    first = json.loads(corridor(environment, "init", "--json").stdout)
    added = corridor(environment, "users", "add", "Grace.Hopper@example.com")
    password = re.search(r"Password \(shown once\): (\S+)", added.stdout).group(1)
    assert "grace.hopper@example.com" in added.stdout
    chosen = corridor(
        {**environment},
        "users",
        "add",
        "ada@example.com",
        "--password-stdin",
        check=False,
        input="a long enough passphrase\n",
    )
    assert chosen.returncode == 0, chosen.stderr
    assert "shown once" not in chosen.stdout

    database = Database(environment["CORRIDOR_DATABASE_URL"])
    try:
        async with database.session() as session, session.begin():
            now = datetime.now(UTC)
            signed_in = await service.sign_in(
                session,
                email="grace.hopper@example.com",
                password=password,
                now=now,
                lifetime_s=60,
            )
            chosen_in = await service.sign_in(
                session,
                email="ada@example.com",
                password="a long enough passphrase",
                now=now,
                lifetime_s=60,
            )
    finally:
        await database.dispose()
    assert signed_in.user.organization_id == first["organizationId"]
    assert chosen_in.user.organization_id == first["organizationId"]
    listed = corridor(environment, "users", "list").stdout
    assert "grace.hopper@example.com" in listed and "ada@example.com" in listed
    assert password not in listed


@pytest.mark.parametrize(
    ("arguments", "stdin", "error"),
    [
        (["taken"], None, "already exists"),
        (["not-an-email"], None, "email: not a valid email address"),
        (["short@example.com", "--password-stdin"], "too short\n", "password: at least 12"),
        (["x@example.com", "-o", "org_nope"], None, "no such organization: org_nope"),
    ],
    ids=["duplicate", "bad-email", "short-password", "unknown-organization"],
)
def test_users_add_refuses_in_one_line_and_adds_nobody(environment, arguments, stdin, error):
    credentials = json.loads(corridor(environment, "init", "--json").stdout)
    email = credentials["consoleEmail"] if arguments == ["taken"] else None
    failed = corridor(
        environment, "users", "add", *([email] if email else arguments), check=False, input=stdin
    )
    assert failed.returncode == 2, failed
    assert failed.stderr.startswith("corridor: ") and error in failed.stderr, failed.stderr
    assert len(failed.stderr.splitlines()) == 1
    assert len(corridor(environment, "users", "list").stdout.splitlines()) == 1
