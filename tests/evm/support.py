"""Helpers of the EVM rail tests: the rail installed over the test node, payouts made
through the API, and the engine run while the chain moves on."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from eth_account import Account
from eth_account.signers.local import LocalAccount
from sqlalchemy import select

from corridor.models.evm import EvmTransaction
from corridor.rails.base import RailName
from corridor.rails.chains import EthereumAdapter
from corridor.rails.evm import EvmChain, EvmRailAdapter, EvmToken, HdDepositWallets
from corridor.transfers.engine.advance import rail_poll_interval_s
from tests.evm.node import Node, chain_id
from tests.transfers.conftest import Customer, amount, create, settle

# The hot wallet starts with this many token units (a million test dollars).
HOT_WALLET_UNITS = 10**12


@dataclass
class Rail:
    node: Node
    hot_wallet: LocalAccount
    adapter: EvmRailAdapter


# anvil's own test phrase: the deposit addresses the tests derive from it.
TEST_MNEMONIC = "test test test test test test test test test test test junk"


def evm_rail(node: Node, *, confirmations: int = 3, mnemonic: str | None = None) -> Rail:
    hot_wallet = Account.create()
    node.fund(hot_wallet.address, token_units=HOT_WALLET_UNITS)
    chain = EvmChain(
        rail=RailName.ETHEREUM,
        rpc_url=node.url,
        chain_id=chain_id,
        confirmations=confirmations,
        tokens={"USDC": EvmToken(address=node.token.address, decimals=6)},  # type: ignore[attr-defined]
    )
    deposits = HdDepositWallets(mnemonic) if mnemonic else None
    return Rail(node, hot_wallet, EvmRailAdapter(EthereumAdapter(), chain, hot_wallet, deposits))


async def pay_out(customer: Customer, recipient: str, value: int) -> dict:
    wallet = await customer.wallet(chain="ETHEREUM", address=recipient)
    return await create(
        customer.client,
        {
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


async def poll_later(app, clock, organization_id: str) -> None:
    """Time passes to the engine's next poll of a chain leg, and the engine runs."""
    clock.set(clock.now() + timedelta(seconds=rail_poll_interval_s + 1))
    await settle(app, organization_id)


async def transactions(app, organization_id: str) -> list[EvmTransaction]:
    async with app.state.database.session(write=False) as session:
        found = await session.execute(
            select(EvmTransaction)
            .where(EvmTransaction.organization_id == organization_id)
            .order_by(EvmTransaction.id)
        )
        return list(found.scalars())
