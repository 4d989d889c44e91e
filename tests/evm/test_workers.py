"""200 payouts paid by two real `corridor worker` processes sharing one database and one
hot wallet: every nonce used exactly once, none skipped, every transfer settled on chain,
and the chain's balances equal the ledger's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from cryptography.fernet import Fernet
from eth_account import Account
from fastapi import FastAPI
from sqlalchemy import func, select

from corridor.config import Environment
from corridor.kit.db import Database
from corridor.models.transfer import Transfer
from tests.conftest import TEST_SECRET_KEY, built_app, migrated_database
from tests.evm.node import Node, chain_id
from tests.evm.support import HOT_WALLET_UNITS, transactions
from tests.programs import needs
from tests.transfers.conftest import amount, assert_books_balance, make_customer
from tests.workers import start_worker, stop_worker

pytestmark = needs("anvil")

PAYOUTS = 200
WORKERS = 2
# Bounds for waiting on other processes; a test that reaches one fails instead of hanging.
wait_s_max = 600
poll_s = 0.5


async def _statuses(database_url: str, organization_id: str) -> dict[str, int]:
    database = Database(database_url)
    try:
        async with database.session(write=False) as session:
            found = await session.execute(
                select(Transfer.status, func.count())
                .where(Transfer.organization_id == organization_id)
                .group_by(Transfer.status)
            )
            return {status: count for status, count in found.all()}
    finally:
        await database.dispose()


@pytest.fixture
async def own_app(backend, tmp_path) -> AsyncIterator[FastAPI]:
    """An app on a database of this test's own: the workers take every due transfer of
    their database, and other tests leave chain payouts due in the shared one."""
    async with (
        migrated_database(backend, tmp_path) as url,
        built_app(url, Environment.SANDBOX) as application,
    ):
        yield application


async def test_two_workers_pay_200_payouts_without_a_nonce_gap_or_reuse(
    own_app, make_tenant, node: Node, tmp_path
):
    app = own_app
    database_url = app.state.settings.database_url
    tenant = await make_tenant(app)
    customer = await make_customer(tenant.client)
    hot_wallet = Account.create()
    node.fund(hot_wallet.address, token_units=HOT_WALLET_UNITS)
    recipient = Account.create().address
    await customer.fund("USDC", PAYOUTS * 1_000_000)
    wallet = await customer.wallet(chain="ETHEREUM", address=recipient)
    values = [100_000 + index for index in range(PAYOUTS)]
    for value in values:
        response = await customer.client.post(
            "/v1/transfers",
            json={
                "customerId": customer.id,
                "source": {"accountId": customer.accounts["USDC"]},
                "destination": {
                    "externalAccountId": wallet,
                    "paymentRail": "ETHEREUM",
                    "currency": "USDC",
                },
                "amount": amount("USDC", value),
                "confirm": True,
            },
        )
        assert response.status_code == 201, response.text

    chains = {
        "ETHEREUM": {
            "rpc_url": node.url,
            "chain_id": chain_id,
            "confirmations": 1,
            "tokens": {"USDC": {"address": node.token.address, "decimals": 6}},  # type: ignore[attr-defined]
        }
    }
    settings = {
        "CORRIDOR_EVM_CHAINS": json.dumps(chains),
        # The hot wallet's key as the service keeps it: encrypted with the server key.
        "CORRIDOR_EVM_SIGNER_KEY": Fernet(TEST_SECRET_KEY.encode())
        .encrypt(hot_wallet.key.hex().encode())
        .decode(),
    }
    log = tmp_path / "workers.log"
    workers = [start_worker(database_url, log, settings) for _ in range(WORKERS)]
    try:
        for _ in range(int(wait_s_max / poll_s)):
            statuses = await _statuses(database_url, tenant.organization_id)
            if statuses.get("COMPLETED", 0) == PAYOUTS or statuses.get("FAILED"):
                break
            await asyncio.sleep(poll_s)
    finally:
        for worker in workers:
            stop_worker(worker)
    output = log.read_text()
    assert statuses == {"COMPLETED": PAYOUTS}, (statuses, output[-4000:])
    assert hot_wallet.key.hex() not in output  # the key is never logged

    sent = await transactions(app, tenant.organization_id)
    assert sorted(row.nonce for row in sent) == list(range(PAYOUTS))  # no gap, no reuse
    assert len({row.tx_hash for row in sent}) == PAYOUTS
    assert node.w3.eth.get_transaction_count(hot_wallet.address) == PAYOUTS
    for row in sent:
        assert node.w3.eth.get_transaction_receipt(row.tx_hash)["status"] == 1
    paid = sum(values)
    assert node.balance(recipient) == paid
    assert node.balance(hot_wallet.address) == HOT_WALLET_UNITS - paid
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == paid
