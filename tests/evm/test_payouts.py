"""Stablecoin payouts on a real EVM node (anvil): the leg settles after its confirmations
with the chain's txHash, a reverted transfer fails the leg with the revert reason, a reorg
before confirmation sends it back to waiting and it settles once; the chain's balances
equal the ledger's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from eth_account import Account
from sqlalchemy import select
from web3 import Web3

from corridor.models.transfer import Transfer
from corridor.rails.chains import EthereumAdapter
from corridor.rails.evm import EvmChain, EvmRailAdapter
from corridor.transfers.engine.advance import rail_attempts_max, rail_retry_s
from tests.evm.node import Node
from tests.evm.support import HOT_WALLET_UNITS, evm_rail, pay_out, poll_later, transactions
from tests.programs import needs
from tests.transfers.conftest import (
    amount,
    assert_books_balance,
    create,
    event_types,
    fetch,
    settle,
)

pytestmark = needs("anvil")


@pytest.fixture
def rail(node: Node, install_rail):
    installed = evm_rail(node)
    install_rail(installed.adapter)
    return installed


@pytest.fixture
def started(clock):
    clock.set(datetime.now(UTC))
    return clock


async def test_a_payout_settles_after_its_confirmations_with_the_chains_hash(
    app, tenant, customer, rail, started
):
    await customer.fund("USDC", 5_000_000)
    recipient = Account.create().address
    transfer = await pay_out(customer, recipient, 1_250_000)
    await settle(app, tenant.organization_id)  # signed, then sent on the first poll
    [sent] = await transactions(app, tenant.organization_id)
    assert sent.status == "BROADCAST" and sent.nonce == 0
    shown = await fetch(tenant.client, transfer["id"])
    assert shown["status"] == "PROCESSING" and shown["txHash"] == sent.tx_hash
    receipt = rail.node.w3.eth.get_transaction_receipt(sent.tx_hash)
    assert receipt["status"] == 1 and receipt["to"] == rail.node.token.address  # type: ignore[attr-defined]
    assert rail.node.balance(recipient) == 1_250_000  # on chain, not yet deep enough

    await poll_later(app, started, tenant.organization_id)  # 1 of 3 confirmations
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "PROCESSING"
    rail.node.mine(2)
    await poll_later(app, started, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "COMPLETED" and done["txHash"] == sent.tx_hash
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == rail.node.balance(recipient) == 1_250_000
    assert rail.node.balance(rail.hot_wallet.address) == HOT_WALLET_UNITS - 1_250_000
    assert (await customer.balance("USDC"))["total"] == 5_000_000 - 1_250_000


async def test_a_reverted_transfer_fails_the_leg_with_the_reason(
    app, tenant, customer, rail, started
):
    await customer.fund("USDC", 5_000_000)
    recipient = Account.create().address
    transfer = await pay_out(customer, recipient, 2_000_000)
    rail.node.automine(False)
    await settle(app, tenant.organization_id)  # signed (the gas estimate passed) and sent
    # Another transaction, paying a higher tip, freezes the hot wallet in the same block,
    # ahead of the payout: the payout reverts on chain.
    freeze = rail.node.token.functions.freeze(rail.hot_wallet.address, True)  # type: ignore[attr-defined]
    freeze.transact({"from": rail.node.deployer, "maxPriorityFeePerGas": 10**11})
    rail.node.mine(1)
    rail.node.automine(True)
    rail.node.mine(2)
    await poll_later(app, started, tenant.organization_id)
    failed = await fetch(tenant.client, transfer["id"])
    assert failed["status"] == "FAILED"
    [leg] = [leg for leg in failed["legs"] if leg["type"] == "WITHDRAW_CRYPTO"]
    assert leg["status"] == "FAILED" and "TestToken: sender frozen" in leg["failureReason"]
    assert "TestToken: sender frozen" in failed["systemRemark"]
    [sent] = await transactions(app, tenant.organization_id)
    assert sent.status == "FAILED" and "TestToken: sender frozen" in (sent.failure_reason or "")
    assert rail.node.w3.eth.get_transaction_receipt(sent.tx_hash)["status"] == 0
    assert rail.node.balance(recipient) == 0
    await assert_books_balance(app, tenant.organization_id)
    assert (await customer.balance("USDC"))["available"] == 5_000_000  # the money is back


async def test_a_reorg_before_confirmation_sends_the_leg_back_and_it_settles_once(
    app, tenant, customer, rail, started
):
    await customer.fund("USDC", 5_000_000)
    recipient = Account.create().address
    before_the_block = rail.node.snapshot()
    transfer = await pay_out(customer, recipient, 3_000_000)
    await settle(app, tenant.organization_id)
    [sent] = await transactions(app, tenant.organization_id)
    assert rail.node.balance(recipient) == 3_000_000
    await poll_later(app, started, tenant.organization_id)  # mined: 1 of 3 confirmations
    [mined] = await transactions(app, tenant.organization_id)
    assert mined.status == "MINED" and mined.block_number is not None

    rail.node.revert(before_the_block)  # the block carrying it is gone
    assert rail.node.balance(recipient) == 0
    rail.node.mine(5)  # a longer chain without it: it must not count as confirmed
    await poll_later(app, started, tenant.organization_id)
    [waiting] = await transactions(app, tenant.organization_id)
    assert waiting.reorgs == 1 and waiting.tx_hash == sent.tx_hash
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "PROCESSING"

    rail.node.mine(3)
    await poll_later(app, started, tenant.organization_id)
    await poll_later(app, started, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "COMPLETED" and done["txHash"] == sent.tx_hash
    assert rail.node.balance(recipient) == 3_000_000  # paid once
    kinds = await event_types(app, tenant.organization_id, transfer["id"])
    assert kinds.count("transfer.completed") == 1
    systems = await assert_books_balance(app, tenant.organization_id)
    assert systems["RAIL_SETTLEMENT:USDC"] == 3_000_000
    assert Web3.to_checksum_address(waiting.to_address) == recipient


async def test_a_stuck_transaction_is_replaced_on_its_nonce_and_paid_once(
    app, tenant, customer, rail, started
):
    await customer.fund("USDC", 5_000_000)
    recipient = Account.create().address
    rail.node.automine(False)  # nothing is mined: the payout waits in the node's pool
    transfer = await pay_out(customer, recipient, 1_500_000)
    await settle(app, tenant.organization_id)
    [stuck] = await transactions(app, tenant.organization_id)
    assert stuck.status == "BROADCAST" and stuck.replacements == 0

    await poll_later(app, started, tenant.organization_id)  # 31 s: not yet stuck
    [waiting] = await transactions(app, tenant.organization_id)
    assert waiting.tx_hash == stuck.tx_hash
    started.set(started.now() + timedelta(seconds=rail.adapter.chain.replace_after_s))
    await settle(app, tenant.organization_id)  # stuck: replaced with higher fees
    [replaced] = await transactions(app, tenant.organization_id)
    assert replaced.replacements == 1 and replaced.nonce == stuck.nonce
    assert replaced.tx_hash != stuck.tx_hash and replaced.replaced_hashes == [stuck.tx_hash]
    assert int(replaced.max_fee_per_gas) > int(stuck.max_fee_per_gas)
    assert (await fetch(tenant.client, transfer["id"]))["txHash"] == replaced.tx_hash

    rail.node.automine(True)
    rail.node.mine(3)
    await poll_later(app, started, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "COMPLETED" and done["txHash"] == replaced.tx_hash
    assert rail.node.w3.eth.get_transaction_receipt(replaced.tx_hash)["status"] == 1
    assert rail.node.balance(recipient) == 1_500_000  # once: the stuck one never mined
    assert rail.node.w3.eth.get_transaction_count(rail.hot_wallet.address) == 1


async def test_a_developer_fee_is_not_sent_to_the_sandbox_fee_address_on_a_real_chain(
    app, tenant, customer, rail, started
):
    await customer.fund("USDC", 10_000_000)
    recipient = Account.create().address
    wallet = await customer.wallet(chain="ETHEREUM", address=recipient)
    transfer = await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USDC"]},
            "destination": {
                "externalAccountId": wallet,
                "paymentRail": "ETHEREUM",
                "currency": "USDC",
            },
            "amount": amount("USDC", 5_000_000),
            "developerFee": {"fixed": "0", "percent": 0.01},
            "confirm": True,
        },
    )
    await settle(app, tenant.organization_id)
    rail.node.mine(3)
    for _ in range(rail_attempts_max + 2):  # the payout settles; the fee's retries run out
        started.set(started.now() + timedelta(seconds=rail_retry_s + 1))
        await settle(app, tenant.organization_id)
    done = await fetch(tenant.client, transfer["id"])
    assert done["status"] == "COMPLETED"
    assert rail.node.balance(recipient) == int(done["destinationAmount"]["value"])
    async with app.state.database.session(write=False) as session:
        found = await session.execute(
            select(Transfer).where(
                Transfer.organization_id == tenant.organization_id, Transfer.flow == "FEE_CRYPTO"
            )
        )
        [fee] = found.scalars()
    assert fee.status == "FAILED" and "no wallet of its own" in (fee.system_remark or "")
    assert len(await transactions(app, tenant.organization_id)) == 1  # only the payout
    await assert_books_balance(app, tenant.organization_id)


async def test_a_node_that_does_not_answer_never_fails_a_signed_payout(
    app, tenant, customer, rail, started, install_rail
):
    await customer.fund("USDC", 5_000_000)
    recipient = Account.create().address
    transfer = await pay_out(customer, recipient, 1_000_000)
    await settle(app, tenant.organization_id)  # signed and sent: its nonce is taken
    unreachable = EvmChain(
        **{**vars(rail.adapter.chain), "rpc_url": "http://127.0.0.1:9"}  # nothing listens
    )
    install_rail(EvmRailAdapter(EthereumAdapter(), unreachable, rail.hot_wallet))
    for _ in range(rail_attempts_max + 1):
        await poll_later(app, started, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "PROCESSING"

    install_rail(rail.adapter)  # the node answers again
    rail.node.mine(3)
    await poll_later(app, started, tenant.organization_id)
    assert (await fetch(tenant.client, transfer["id"]))["status"] == "COMPLETED"
    assert rail.node.balance(recipient) == 1_000_000
