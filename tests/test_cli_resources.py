"""The CLI's resource commands (orgs, customers, transfers, agents, trigger, users
reset-password), run through the real entry point with a user's argv and environment (in
this process, tests/cli_runner.py; tests/test_cli.py runs it as a subprocess too) on the
suite's database (SQLite, and PostgreSQL when CORRIDOR_TEST_DATABASE_URL is set), the
organization prepared through the real API."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime

import pytest

from tests.cli_runner import run_corridor
from tests.conftest import TEST_SECRET_KEY
from tests.parties.helpers import create_account
from tests.support import active_customer


def corridor(
    database_url: str, *arguments: str, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "CORRIDOR_DATABASE_URL": database_url,
        "CORRIDOR_SECRET_KEY": TEST_SECRET_KEY,
        "COLUMNS": "100",
    }
    return run_corridor(arguments, environment=environment, input=input)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def refused(result: subprocess.CompletedProcess[str], status: int, text: str) -> None:
    """One line on stderr naming the problem, a non-zero status, no traceback."""
    assert result.returncode == status, (result.returncode, result.stderr)
    assert result.stderr.startswith("corridor: "), result.stderr
    assert text in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


async def _balance_and_bank_account(tenant) -> tuple[dict, str, str]:
    """An ACTIVE customer, its USD balance account funded, and a US bank account of its."""
    configured = await tenant.client.patch(
        "/v1/organizations/current/configuration", json={"accountCurrencies": ["USD"]}
    )
    assert configured.status_code == 200, configured.text
    customer = await active_customer(tenant.client)
    listed = await tenant.client.get(f"/v1/customers/{customer['id']}/accounts")
    balance = listed.json()["data"][0]["id"]
    funded = await tenant.client.post(
        f"/v1/sandbox/accounts/{balance}/fund",
        json={"amount": {"currency": "USD", "value": "100000"}},
    )
    assert funded.status_code == 200, funded.text
    bank = (await create_account(tenant.client, {"customerId": customer["id"]}))["id"]
    return customer, balance, bank


async def test_orgs_list_shows_every_organization_and_the_ambiguity_error_lists_them(
    database_url, tenant, make_tenant
):
    other = await make_tenant()
    listed = [
        json.loads(line)
        for line in ok(corridor(database_url, "orgs", "list", "--json")).splitlines()
    ]
    ids = {organization["id"] for organization in listed}
    assert {tenant.organization_id, other.organization_id} <= ids
    mine = next(item for item in listed if item["id"] == tenant.organization_id)
    assert mine["name"] == "Test organization" and mine["parentId"] is None
    assert mine["mode"] == "sandbox" and mine["createdAt"]
    table = ok(corridor(database_url, "orgs", "list"))
    assert tenant.organization_id in table and "Test organization" in table

    ambiguous = corridor(database_url, "customers", "list")
    assert ambiguous.returncode == 2
    assert "several organizations exist: pass --organization" in ambiguous.stderr
    assert f"{tenant.organization_id}  Test organization" in ambiguous.stderr
    assert "Traceback" not in ambiguous.stderr


async def test_orgs_list_shows_a_child_under_its_parent(database_url, tenant):
    made = await tenant.client.post("/v1/organizations", json={"name": "Child of the test"})
    assert made.status_code == 201, made.text
    child = made.json()["id"]
    listed = {
        item["id"]: item
        for item in map(
            json.loads, ok(corridor(database_url, "orgs", "list", "--json")).splitlines()
        )
    }
    assert listed[child]["parentId"] == tenant.organization_id
    table = ok(corridor(database_url, "orgs", "list")).splitlines()
    parent_row = next(index for index, line in enumerate(table) if tenant.organization_id in line)
    assert child in table[parent_row + 1] and "└ Child of the test" in table[parent_row + 1]


async def test_customers_create_list_and_get(database_url, tenant):
    org = ("-o", tenant.organization_id)
    created = json.loads(
        ok(
            corridor(
                database_url,
                *("customers", "create", "--email", "ada@example.com"),
                *("--first-name", "Ada", "--last-name", "Lovelace", "--json", *org),
            )
        )
    )
    assert created["id"].startswith("cus_") and created["status"] == "INCOMPLETE"
    assert created["email"] == "ada@example.com" and created["name"] == "Ada Lovelace"
    business = ok(
        corridor(
            database_url,
            *("customers", "create", "--email", "ops@acme.example", "--business", "Acme Ltd", *org),
        )
    )
    assert "BUSINESS" in business and "Acme Ltd" in business
    # The API sees what the CLI made, as the owner made it.
    over_api = await tenant.client.get(f"/v1/customers/{created['id']}")
    assert over_api.status_code == 200 and over_api.json()["email"] == "ada@example.com"

    listed = [
        json.loads(line)
        for line in ok(corridor(database_url, "customers", "list", "--json", *org)).splitlines()
    ]
    assert [item["name"] for item in listed][:2] == ["Acme Ltd", "Ada Lovelace"]
    table = ok(corridor(database_url, "customers", "list", "--search", "ada", *org))
    assert created["id"] in table and "Acme" not in table
    shown = ok(corridor(database_url, "customers", "get", created["id"], *org))
    assert created["id"] in shown and "INCOMPLETE" in shown
    assert (
        json.loads(ok(corridor(database_url, "customers", "get", created["id"], "--json", *org)))[
            "id"
        ]
        == created["id"]
    )


@pytest.mark.parametrize(
    ("arguments", "status", "error"),
    [
        (["get", "cus_01jd3x0p6x9e3k2v1m8q4r7s5t"], 1, "No customer with id"),
        (
            ["create", "--email", "not-an-email", "--first-name", "A", "--last-name", "B"],
            2,
            "email",
        ),
        (["create", "--email", "a@example.com", "--first-name", "A"], 2, "--last-name"),
        (["list", "--status", "HAPPY"], 2, "--status: 'HAPPY' is not a customer status"),
    ],
    ids=["unknown-id", "bad-email", "no-last-name", "bad-status"],
)
async def test_customers_refuse_bad_input_in_one_line(
    database_url, tenant, arguments, status, error
):
    refused(
        corridor(database_url, "customers", *arguments, "-o", tenant.organization_id), status, error
    )


async def test_transfers_create_get_list_and_cancel(database_url, tenant):
    customer, balance, bank = await _balance_and_bank_account(tenant)
    org = ("-o", tenant.organization_id)
    created = json.loads(
        ok(
            corridor(
                database_url,
                *("transfers", "create", "--amount", "25.50", "--currency", "usd"),
                *("--from", balance, "--to", bank, "--rail", "ach"),
                *("--customer", customer["id"], "--reference", "inv-42", "--json", *org),
            )
        )
    )
    assert created["status"] == "DRAFT"
    assert (created["sourceAmount"]["currency"], created["sourceAmount"]["value"]) == (
        "USD",
        "2550",
    )
    assert created["clientReferenceId"] == "inv-42"
    shown = ok(corridor(database_url, "transfers", "get", created["id"], *org))
    assert "25.50 USD" in shown and "DRAFT" in shown and bank in shown
    listed = ok(corridor(database_url, "transfers", "list", "--status", "draft", *org))
    assert created["id"] in listed and "25.50 USD" in listed
    cancelled = ok(
        corridor(database_url, "transfers", "cancel", created["id"], "--reason", "test", *org)
    )
    assert f"Cancelled {created['id']}: now CANCELLED" in cancelled
    over_api = await tenant.client.get(f"/v1/transfers/{created['id']}")
    assert over_api.json()["status"] == "CANCELLED"
    again = corridor(database_url, "transfers", "cancel", created["id"], *org)
    refused(again, 1, "can no longer be cancelled")

    submitted = json.loads(
        ok(
            corridor(
                database_url,
                *("transfers", "create", "--amount", "10", "--currency", "USD"),
                *("--from", balance, "--to", bank, "--rail", "ACH", "--submit", "--json", *org),
                *("--customer", customer["id"]),
            )
        )
    )
    assert submitted["status"] != "DRAFT" and submitted["sourceAmount"]["value"] == "1000"


@pytest.mark.parametrize(
    ("amount", "error"),
    [
        ("25,50", '--amount: must be a decimal number in major units such as "25.50"'),
        ("25.505", "more digits than USD allows"),
        ("1e3", "scientific notation"),
        ("-5", "must be greater than zero"),
        ("0", "must be greater than zero"),
    ],
)
async def test_transfers_create_names_the_amount_form_expected(database_url, tenant, amount, error):
    _, balance, bank = await _balance_and_bank_account(tenant)
    result = corridor(
        database_url,
        *("transfers", "create", "--amount", amount, "--currency", "USD"),
        *("--from", balance, "--to", bank, "--rail", "ACH", "-o", tenant.organization_id),
    )
    refused(result, 2, error)
    listed = await tenant.client.get("/v1/transfers")
    assert listed.json()["data"] == []  # nothing was created


@pytest.mark.parametrize(
    ("arguments", "status", "error"),
    [
        (["get", "tr_01jd3x0p6x9e3k2v1m8q4r7s5t"], 1, "No transfer with id"),
        (["cancel", "tr_01jd3x0p6x9e3k2v1m8q4r7s5t"], 1, "No transfer with id"),
        (
            ["create", "--amount", "5", "--currency", "XYZ", "--from", "acc_x", "--to", "ext_x"],
            2,
            "--currency",
        ),
        (
            ["create", "--amount", "5", "--currency", "USD", "--from", "cus_x", "--to", "ext_x"],
            2,
            "--from: 'cus_x' is neither a balance account",
        ),
        (
            [
                "create",
                "--amount",
                "5",
                "--currency",
                "USD",
                "--from",
                "acc_nope",
                "--to",
                "ext_nope",
                "--customer",
                "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
            ],
            1,
            "No customer with id",
        ),
        (["list", "--status", "DONE"], 2, "--status: 'DONE' is not a transfer status"),
        (
            ["create", "--amount", "5", "--currency", "USD", "--from", "acc_x", "--to", "ext_x"],
            2,
            "--customer: required",
        ),
    ],
    ids=[
        "unknown-get",
        "unknown-cancel",
        "bad-currency",
        "bad-source",
        "unknown-customer",
        "bad-status",
        "no-customer",
    ],
)
async def test_transfers_refuse_bad_input_in_one_line(
    database_url, tenant, arguments, status, error
):
    result = corridor(database_url, "transfers", *arguments, "-o", tenant.organization_id)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    refused(result, status, error)


async def test_agents_create_list_and_get(database_url, tenant):
    customer, balance, _ = await _balance_and_bank_account(tenant)
    org = ("-o", tenant.organization_id)
    created = json.loads(
        ok(
            corridor(
                database_url,
                *("agents", "create", "--name", "Invoice bot", "--customer", customer["id"]),
                *("--account", balance, "--per-transfer", "500", "--daily", "1000.50"),
                *("--over-limit", "request-approval", "--daily-payments", "4"),
                *("--new-payee", "request-approval", "--json", *org),
            )
        )
    )
    assert created["limits"] == {
        "currency": "USD",
        "perTransfer": "50000",
        "daily": "100050",
        "monthly": None,
        "dailyPaymentCount": 4,
    }
    assert created["newPayeeAction"] == "REQUEST_APPROVAL"
    assert created["overLimitAction"] == "REQUEST_APPROVAL" and created["status"] == "ACTIVE"
    listed = ok(corridor(database_url, "agents", "list", *org))
    assert created["id"] in listed and "per transfer 500.00 USD" in listed
    shown = ok(corridor(database_url, "agents", "get", created["id"], *org))
    assert "Invoice bot" in shown and "daily 1000.50 USD" in shown
    assert "4 payments a day" in shown
    refused(
        corridor(database_url, "agents", "get", "agt_01jd3x0p6x9e3k2v1m8q4r7s5t", *org),
        1,
        "No agent",
    )
    refused(
        corridor(
            database_url,
            *("agents", "create", "--name", "x", "--customer", customer["id"]),
            *("--account", balance, "--daily", "ten", *org),
        ),
        2,
        "--daily: must be a decimal number",
    )


async def test_trigger_sends_a_test_event_to_the_subscribed_endpoints(database_url, tenant):
    org = ("-o", tenant.organization_id)
    made = await tenant.client.post(
        "/v1/webhooks/endpoints",
        json={"url": "https://example.com/hooks", "eventTypes": ["transfer.completed"]},
    )
    assert made.status_code == 201, made.text
    endpoint = made.json()["id"]
    sent = json.loads(ok(corridor(database_url, "trigger", "transfer.completed", "--json", *org)))
    assert sent["endpointIds"] == [endpoint] and sent["type"] == "transfer.completed"
    messages = await tenant.client.get("/v1/webhooks/messages")
    assert messages.status_code == 200, messages.text
    message = next(item for item in messages.json()["data"] if item["id"] == sent["messageId"])
    assert message["eventType"] == "transfer.completed"
    nobody = ok(corridor(database_url, "trigger", "customer.created", *org))
    assert "no enabled endpoint subscribes" in nobody

    unknown = corridor(database_url, "trigger", "transfer.teleported", *org)
    refused(unknown, 2, "unknown event type 'transfer.teleported'; the event types are: ")
    assert "transfer.completed" in unknown.stderr and "customer.created" in unknown.stderr


async def test_users_reset_password_sets_it_and_ends_the_old_sessions(database_url, tenant, app):
    from corridor.auth import service
    from corridor.kit.errors import Unauthorized

    database = app.state.database
    async with database.session() as session, session.begin():
        signed_in = await service.sign_in(
            session,
            email=tenant.console_email,
            password=tenant.console_password,
            now=datetime.now(UTC),
            lifetime_s=3600,
        )
    before = await tenant.client.get(
        "/v1/organizations/current", headers={"Authorization": f"Bearer {signed_in.token}"}
    )
    assert before.status_code == 200, before.text

    reset = corridor(
        database_url,
        *("users", "reset-password", tenant.console_email, "--password-stdin"),
        input="a brand new passphrase\n",
    )
    assert "ended 1 console session" in ok(reset)
    assert "a brand new passphrase" not in reset.stdout + reset.stderr
    after = await tenant.client.get(
        "/v1/organizations/current", headers={"Authorization": f"Bearer {signed_in.token}"}
    )
    assert after.status_code == 401
    async with database.session() as session, session.begin():
        with pytest.raises(Unauthorized):
            await service.sign_in(
                session,
                email=tenant.console_email,
                password=tenant.console_password,
                now=datetime.now(UTC),
                lifetime_s=60,
            )
        await service.sign_in(
            session,
            email=tenant.console_email,
            password="a brand new passphrase",
            now=datetime.now(UTC),
            lifetime_s=60,
        )

    refused(
        corridor(
            database_url,
            *("users", "reset-password", tenant.console_email, "--password-stdin"),
            input="short\n",
        ),
        2,
        "password: at least 12 characters",
    )
    refused(
        corridor(
            database_url,
            *("users", "reset-password", "nobody@example.com", "--password-stdin"),
            input="a brand new passphrase\n",
        ),
        1,
        "No console user with the email nobody@example.com",
    )
