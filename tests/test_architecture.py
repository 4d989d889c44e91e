"""The shape of the house (docs/architecture.md): pure rules stay pure, and the services
work without the web app around them."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "corridor"

# Rule modules by name (every states.py and rules.py, and each module of a rules/ package),
# and the other pure modules of the domains.
NAMED_PURE = [
    "corridor.agents.spend",
    "corridor.auth.scopes",
    "corridor.customers.diligence",
    "corridor.customers.requirements",
    "corridor.kit.clock",
    "corridor.kit.ids",
    "corridor.kit.money",
    "corridor.organizations.configuration",
    "corridor.parties.addresses",
    "corridor.parties.bank_codes",
    "corridor.rails.calendars",
    "corridor.transfers.money.entries",
]
FORBIDDEN_PACKAGES = ("sqlalchemy", "fastapi", "starlette", "httpx", "asyncpg", "aiosqlite")
FORBIDDEN_LEAVES = ("service", "repository", "endpoints", "schemas", "context")


def _module_name(path: Path) -> str:
    return ".".join(("corridor", *path.relative_to(SOURCE).with_suffix("").parts))


def pure_modules() -> list[str]:
    found = {
        _module_name(path)
        for pattern in ("**/states.py", "**/rules.py", "**/rules/*.py")
        for path in SOURCE.glob(pattern)
        if path.name != "__init__.py"
    }
    return sorted(found | set(NAMED_PURE))


def test_every_domain_with_rules_is_covered():
    modules = pure_modules()
    for expected in (
        "corridor.transfers.rules.states",
        "corridor.transfers.rules.flows",
        "corridor.agents.rules",
        "corridor.quotes.rules",
        "corridor.fixedroutes.rules",
        "corridor.customers.states",
        "corridor.webhooks.rules",
        "corridor.ledger.rules",
    ):
        assert expected in modules


@pytest.mark.parametrize("module", pure_modules())
def test_a_pure_rules_module_loads_no_database_web_or_service_code(module):
    """Imported alone in a fresh interpreter, a rules module pulls in neither SQLAlchemy nor
    FastAPI nor any service, repository or endpoint module, so it stays testable in
    microseconds and readable as the spec."""
    script = textwrap.dedent(
        f"""
        import importlib, json, sys
        importlib.import_module({module!r})
        print(json.dumps(sorted(sys.modules)))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    offending = sorted(
        name
        for name in loaded
        if name.split(".")[0] in FORBIDDEN_PACKAGES
        or (name.startswith("corridor.") and name.rsplit(".", 1)[-1] in FORBIDDEN_LEAVES)
    )
    assert offending == [], f"{module} loads {offending[:10]}"


AGENT_KEY_WITHOUT_THE_APP = """
import asyncio, json, sys
from datetime import UTC, datetime

from corridor.accounts import service as accounts
from corridor.agents import service as agents
from corridor.agents.schemas import AgentCreate
from corridor.auth import service as auth
from corridor.auth.callers import Caller
from corridor.customers import service as customers
from corridor.customers.schemas.customer import IndividualCustomerCreate
from corridor.customers.states import CustomerStatus
from corridor.kit.db import Database
from corridor.kit.migrate import upgrade_to_head_async
from corridor.kit.pagination import PageRequest
from corridor.organizations import service as organizations


async def main(url):
    await upgrade_to_head_async(url)
    database = Database(url)
    now = datetime.now(UTC)
    async with database.session() as session, session.begin():
        made = await organizations.bootstrap_organization(
            session, name="No web", key_environment="sandbox", now=now
        )
        operator = Caller.operator(made.organization.id)
        customer = await customers.create_individual(
            session,
            caller=operator,
            data=IndividualCustomerCreate(firstName="Ada", lastName="Lovelace", email="ada@example.com"),
            now=now,
        )
        await customers.set_status_in_sandbox(
            session, caller=operator, customer_id=customer.id, target=CustomerStatus.ACTIVE,
            reason=None, sandbox=True, now=now,
        )
        accounts_page = await accounts.list_customer_accounts(
            session, caller=operator, customer_id=customer.id, page=PageRequest(limit=5, cursor=None)
        )
        account = accounts_page.items[0]
        agent = await agents.create_agent(
            session, caller=operator,
            data=AgentCreate(customerId=customer.id, sourceAccountId=account.id, name="Buyer"),
            now=now,
        )
        _, secret = await agents.create_agent_key(
            session, caller=operator, agent_id=agent.id, name=None, key_environment="sandbox", now=now
        )
    async with database.session(write=False) as session:
        caller = await auth.authenticate(session, credential=secret, key_environment="sandbox", now=now)
    await database.dispose()
    web = sorted(name for name in sys.modules if name == "corridor.app" or name.endswith("endpoints") or name.startswith("corridor.web"))
    print(json.dumps({"kind": caller.kind.value, "agent": caller.agent_id == agent.id,
                      "customer": caller.customer_id == customer.id,
                      "accounts": sorted(caller.account_ids or []) == [account.id], "web": web}))


asyncio.run(main(sys.argv[1]))
"""


def test_an_agent_key_authenticates_through_the_services_alone(tmp_path):
    """No import-time wiring: the services, built without the web app (no corridor.app, no
    endpoints, no web/ module loaded), make an agent and its key, and authentication
    resolves the key to its agent."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'corridor.db'}"
    done = subprocess.run(
        [sys.executable, "-c", AGENT_KEY_WITHOUT_THE_APP, url],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer == {
        "kind": "agent_key",
        "agent": True,
        "customer": True,
        "accounts": True,
        "web": [],
    }


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((SOURCE.parents[1] / "pyproject.toml").read_text())


def test_the_type_checker_covers_the_whole_package_and_only_grows():
    """The ratchet of `make lint`'s mypy run: the whole package stays in `files`, and no
    module is exempted. Narrowing the checked set means changing this test on purpose."""
    mypy = _pyproject()["tool"]["mypy"]
    assert "src/corridor" in mypy["files"]
    exempted = [
        override["module"]
        for override in mypy.get("overrides", [])
        if override.get("ignore_errors") or override.get("disable_error_code")
    ]
    assert exempted == []
    assert mypy.get("check_untyped_defs") is True


def test_the_layering_is_a_contract_of_make_lint():
    """docs/architecture.md's layers are import-linter contracts that `make lint` runs."""
    contracts = {
        contract["id"]: contract for contract in _pyproject()["tool"]["importlinter"]["contracts"]
    }
    assert contracts["layers"]["layers"][0].startswith("corridor.cli")
    assert contracts["layers"]["layers"][-1] == "corridor.kit"
    makefile = (SOURCE.parents[1] / "Makefile").read_text()
    assert "lint-imports" in makefile and "$(BIN)/mypy" in makefile


# --- the queries contract (lint/queries.py, run by `make lint` through import-linter) ------


def test_the_queries_contract_sees_what_builds_or_sends_a_query():
    from lint.queries import queries_in

    source = textwrap.dedent(
        """
        from sqlalchemy import Select
        from sqlalchemy.exc import IntegrityError
        from sqlalchemy.ext.asyncio import AsyncSession
        from sqlalchemy.orm import Mapped

        async def lookup(session: AsyncSession, key: str):
            from sqlalchemy import func, select
            import asyncpg
            customer = await session.get(Customer, key)
            organization = await get_kept(session, Organization, key)
            raw = connection.driver_connection
            return customer
        """
    )
    found = {(one.line, one.what.split(" (")[0]) for one in queries_in(source, "corridor.x")}
    assert found == {
        (8, "from sqlalchemy import func, select"),
        (9, "import asyncpg"),
        (10, "session.get(…)"),
        (11, "get_kept(…)"),
        (12, ".driver_connection"),
    }


def test_the_queries_contract_sees_a_statement_refined_or_sent_outside_a_repository():
    from lint.queries import queries_in

    source = textwrap.dedent(
        """
        async def listed(session: AsyncSession, context, status):
            statement = repository.visible_threads(caller)
            statement = statement.where(Thread.status == status).order_by(Thread.id)
            rows = (await session.execute(statement)).scalars()
            one = await context.session.scalar(statement)
            text = ", ".join(names)
            async with http.stream("GET", url) as answer:
                return rows, one, text, answer
        """
    )
    found = {(one.line, one.what.split(" (")[0]) for one in queries_in(source, "corridor.x")}
    assert found == {
        (4, ".where(…)"),
        (4, ".order_by(…)"),
        (5, "session.execute(…)"),
        (6, "context.session.scalar(…)"),
    }


def test_the_queries_contract_reads_module_expressions_as_import_linter_does():
    from lint.queries import matches

    assert matches("corridor.accounts.repository", "corridor.**.repository")
    assert matches("corridor.transfers.planning.repository", "corridor.**.repository")
    assert not matches("corridor.accounts.repository_helpers", "corridor.**.repository")
    # A package's modules are the package's.
    assert matches("corridor.transfers.express.statements", "corridor.transfers.express")
    assert not matches("corridor.transfers.express_endpoint", "corridor.transfers.express")
    assert matches("corridor.kit.db", "corridor.kit.db")
    assert not matches("corridor.kit.dbx", "corridor.kit.db")


def test_the_queries_contract_reads_every_module_even_in_a_folder_without_init():
    from lint.queries import modules_of

    modules = modules_of("corridor")
    assert modules["corridor.accounts.service"] == SOURCE / "accounts" / "service.py"
    assert "corridor.documents.service" in modules and "corridor.migrations.env" in modules
