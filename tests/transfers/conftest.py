"""Fixtures and helpers of the transfer tests: a funded customer, parties to pay, the
engine run by hand, and the ledger checks every money test ends with."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.event import Event
from corridor.models.ledger import LedgerAccount, Posting
from corridor.rails import registry
from corridor.rails.base import RailName, RailStatus
from corridor.rails.registry import adapter_for
from corridor.transfers.engine.advance import advance_transfers
from tests.parties.helpers import EVM_ADDRESS, SEPA_ACCOUNT, create_account, create_wallet
from tests.support import active_customer

engine_passes_max = 50


@dataclass
class Customer:
    """An ACTIVE customer of a tenant, with its balance accounts."""

    id: str
    accounts: dict[str, str]  # currency → balance account id
    client: httpx.AsyncClient
    parties: dict[str, str] = field(default_factory=dict)

    async def fund(self, currency: str, value: int) -> None:
        response = await self.client.post(
            f"/v1/sandbox/accounts/{self.accounts[currency]}/fund",
            json={"amount": {"currency": currency, "value": str(value)}},
        )
        assert response.status_code == 200, response.text

    async def balance(self, currency: str) -> dict[str, int]:
        response = await self.client.get(f"/v1/accounts/{self.accounts[currency]}/balance")
        assert response.status_code == 200, response.text
        body = response.json()
        return {key: int(body[key]["value"]) for key in ("available", "pending", "total")}

    async def bank_account(self, **overrides: Any) -> str:
        return (await create_account(self.client, {"customerId": self.id}, **overrides))["id"]

    async def euro_account(self) -> str:
        return (await create_account(self.client, {"customerId": self.id}, **SEPA_ACCOUNT))["id"]

    async def wallet(self, chain: str = "ETHEREUM", address: str = EVM_ADDRESS) -> str:
        return (
            await create_wallet(self.client, {"customerId": self.id}, chain=chain, address=address)
        )["id"]


async def make_customer(
    client: httpx.AsyncClient, currencies: tuple[str, ...] = ("USD", "USDC", "EUR")
) -> Customer:
    """An ACTIVE customer with balance accounts in `currencies`."""
    configured = await client.patch(
        "/v1/organizations/current/configuration",
        json={"accountCurrencies": list(currencies)},
    )
    assert configured.status_code == 200, configured.text
    customer = await active_customer(client)
    listed = await client.get(f"/v1/customers/{customer['id']}/accounts")
    assert listed.status_code == 200, listed.text
    accounts = {account["currency"]: account["id"] for account in listed.json()["data"]}
    return Customer(id=customer["id"], accounts=accounts, client=client)


@pytest.fixture
async def customer(tenant) -> Customer:
    return await make_customer(tenant.client)


async def settle(app, organization_id: str) -> int:
    """Run the engine until the organization has nothing due; the number of steps taken."""
    steps = 0
    for _ in range(engine_passes_max):
        done = await advance_transfers(
            app.state.database, app.state.clock, organization_id=organization_id
        )
        if done == 0:
            return steps
        steps += done
    raise AssertionError("the engine never ran out of due work")


async def create(client: httpx.AsyncClient, body: dict, *, status: int = 201) -> dict:
    response = await client.post("/v1/transfers", json=body)
    assert response.status_code == status, response.text
    return response.json()


async def act(client: httpx.AsyncClient, transfer_id: str, action: str, body=None) -> dict:
    response = await client.post(f"/v1/transfers/{transfer_id}/{action}", json=body)
    assert response.status_code == 200, response.text
    return response.json()


async def fetch(client: httpx.AsyncClient, transfer_id: str) -> dict:
    response = await client.get(f"/v1/transfers/{transfer_id}")
    assert response.status_code == 200, response.text
    return response.json()


def amount(currency: str, value: int) -> dict[str, str]:
    return {"currency": currency, "value": str(value)}


async def assert_books_balance(app, organization_id: str) -> defaultdict[str, int]:
    """Every journal entry sums to zero per currency, every account's balance is the sum
    of its postings, no customer balance is negative; the system accounts' balances by
    `kind:currency` (for checks of where the money went; one never used reads as 0)."""
    async with app.state.database.session(write=False) as session:
        if not app.state.database.is_sqlite:
            # One snapshot for every read below, so a worker committing meanwhile cannot
            # make an account disagree with its postings (SQLite's read is one already).
            await session.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        sums = await session.execute(
            select(Posting.journal_entry_id, Posting.currency, func.sum(Posting.amount))
            .where(Posting.organization_id == organization_id)
            .group_by(Posting.journal_entry_id, Posting.currency)
        )
        unbalanced = [row for row in sums if row[2] != 0]
        assert unbalanced == [], unbalanced
        accounts = (
            await session.execute(
                select(LedgerAccount).where(LedgerAccount.organization_id == organization_id)
            )
        ).scalars()
        systems: defaultdict[str, int] = defaultdict(int)
        for account in accounts:
            posted = (
                await session.execute(
                    select(func.coalesce(func.sum(Posting.amount), 0)).where(
                        Posting.account_id == account.id
                    )
                )
            ).scalar_one()
            assert posted == account.posted_balance, account.id
            if account.kind == CUSTOMER_BALANCE:
                assert account.posted_balance - account.pending_debits >= 0, account.id
                assert account.pending_debits >= 0
            else:
                systems[f"{account.kind}:{account.currency}"] = account.posted_balance
        return systems


async def event_types(app, organization_id: str, transfer_id: str) -> list[str]:
    """The events tagged with a transfer, oldest first."""
    async with app.state.database.session(write=False) as session:
        events = (
            await session.execute(
                select(Event).where(Event.organization_id == organization_id).order_by(Event.id)
            )
        ).scalars()
        return [event.type for event in events if transfer_id in event.tags]


class ScriptedAdapter:
    """A rail whose status answers are scripted (or whose calls raise)."""

    def __init__(self, rail: RailName, answers: list[RailStatus], *, raises: bool = False):
        real = adapter_for(rail)
        self.name, self.currencies, self.real = rail, real.currencies, real
        self.answers, self.raises = list(answers), raises

    def schedule(self, *, at):
        return self.real.schedule(at=at)

    async def submit(self, instruction, *, now):
        if self.raises:
            raise ConnectionError("rail unreachable")
        return await self.real.submit(instruction, now=now)

    async def status(self, submission, *, now):
        return self.answers.pop(0) if self.answers else RailStatus.SETTLED


class RecordingAdapter(ScriptedAdapter):
    """The real sandbox rail, keeping every instruction it is sent."""

    def __init__(self, rail: RailName, sent: list):
        super().__init__(rail, [])
        self.sent = sent

    async def submit(self, instruction, *, now):
        self.sent.append(instruction)
        return await super().submit(instruction, now=now)


@pytest.fixture
def install_rail():
    replaced = []

    def install(adapter) -> None:
        replaced.append(registry.install(adapter))

    yield install
    for previous in reversed(replaced):
        registry.install(previous)
