"""Deposits on a real EVM node (anvil): a deposit wallet's address is derived from the HD
seed (BIP-44), a token transfer to it is credited once its block has the chain's
confirmations, and only once; money the transfer does not wait for is an unmatched deposit,
as any other."""

from __future__ import annotations

import pytest
from eth_account import Account
from sqlalchemy import select

from corridor.fixedroutes.routing import FixedRouteDeposits
from corridor.models.evm import EvmDepositAddress, EvmDepositLog
from corridor.models.transfer import Deposit
from corridor.transfers.deposits.chain import scan_chain_deposits
from tests.evm.node import Node
from tests.evm.support import TEST_MNEMONIC, evm_rail, poll_later
from tests.programs import needs
from tests.transfers.conftest import act, amount, assert_books_balance, create, fetch, settle

pytestmark = needs("anvil")


@pytest.fixture
def rail(node: Node, install_rail):
    installed = evm_rail(node, mnemonic=TEST_MNEMONIC)
    install_rail(installed.adapter)
    return installed


async def scan(app) -> int:
    return await scan_chain_deposits(
        app.state.database, app.state.clock, router=FixedRouteDeposits()
    )


async def _rows(app, model, **where) -> list:
    async with app.state.database.session(write=False) as session:
        statement = select(model).filter_by(**where)
        return list((await session.execute(statement)).scalars())


async def test_a_deposit_to_a_derived_address_is_credited_once_after_confirmations(
    app, tenant, customer, rail, clock
):
    recipient = Account.create().address
    wallet = await customer.wallet(chain="ETHEREUM", address=recipient)
    draft = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
            "amount": amount("USDC", 2_000_000),
        },
    )
    submitted = await act(tenant.client, draft["id"], "submit")
    instructions = submitted["depositInstructions"]
    [derived] = await _rows(app, EvmDepositAddress, virtual_account_id=instructions["accountId"])
    path = f"m/44'/60'/0'/0/{derived.hd_index}"
    expected = Account.from_mnemonic(TEST_MNEMONIC, account_path=path).address
    assert instructions["toAddress"] == derived.address == expected

    token = rail.node.token.functions  # type: ignore[attr-defined]
    rail.node.transact(token.mint(instructions["toAddress"], 2_000_000))
    assert await scan(app) == 0  # one block of three: not yet
    rail.node.mine(2)
    assert await scan(app) == 1
    assert await scan(app) == 0  # read once
    [deposit] = await _rows(app, Deposit, transfer_id=draft["id"])
    assert deposit.status == "MATCHED" and deposit.amount == 2_000_000
    [log] = await _rows(app, EvmDepositLog, deposit_id=deposit.id)
    assert log.to_address == instructions["toAddress"]
    funded = await fetch(tenant.client, draft["id"])
    assert funded["fundingNeeded"] is False

    # More money to the same address: no transfer waits for it, so it is unmatched.
    rail.node.transact(token.mint(instructions["toAddress"], 500_000))
    rail.node.mine(3)
    assert await scan(app) == 1
    [extra] = await _rows(
        app, Deposit, virtual_account_id=instructions["accountId"], status="UNMATCHED"
    )
    assert extra.amount == 500_000

    # The transfer goes on: its payout leaves the hot wallet on chain.
    await settle(app, tenant.organization_id)
    rail.node.mine(3)
    await poll_later(app, clock, tenant.organization_id)
    done = await fetch(tenant.client, draft["id"])
    assert done["status"] == "COMPLETED"
    assert rail.node.balance(recipient) == 2_000_000
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["SUSPENSE:USDC"] == 500_000
    # What arrived on chain at the deposit address is what the ledger took in.
    assert rail.node.balance(instructions["toAddress"]) == 2_000_000 + 500_000


async def test_a_fixed_route_wallet_gets_a_derived_address_and_its_deposit_makes_the_transfer(
    app, tenant, customer, rail
):
    recipient = Account.create().address
    wallet = await customer.wallet(chain="ETHEREUM", address=recipient)
    response = await tenant.client.post(
        "/v1/fixed-routes/virtual-wallet",
        json={
            "customerId": customer.id,
            "source": {"currency": "USDC", "paymentRail": "ETHEREUM"},
            "destination": {"externalAccountId": wallet, "currency": "USDC"},
        },
    )
    assert response.status_code == 201, response.text
    instructions = response.json()["depositInstructions"]
    [derived] = await _rows(app, EvmDepositAddress, virtual_account_id=instructions["accountId"])
    assert instructions["toAddress"] == derived.address

    token = rail.node.token.functions  # type: ignore[attr-defined]
    rail.node.transact(token.mint(instructions["toAddress"], 750_000))
    rail.node.mine(2)
    assert await scan(app) == 1
    assert await scan(app) == 0
    [deposit] = await _rows(app, Deposit, virtual_account_id=instructions["accountId"])
    assert deposit.status == "MATCHED" and deposit.transfer_id is not None
    made = await fetch(tenant.client, deposit.transfer_id)
    assert made["fixedRouteId"] == response.json()["id"] and made["fundingNeeded"] is False
