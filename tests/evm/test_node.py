"""The test node itself: anvil answers, the token is deployed, transfers and snapshots work."""

from __future__ import annotations

from eth_account import Account

from tests.evm.node import Node
from tests.programs import needs

pytestmark = needs("anvil")


def test_the_token_mints_and_a_revert_undoes_a_block(node: Node) -> None:
    holder = Account.create().address
    assert node.token.functions.decimals().call() == 6  # type: ignore[attr-defined]
    snapshot = node.snapshot()
    node.fund(holder, token_units=1_000_000)
    assert node.balance(holder) == 1_000_000
    node.revert(snapshot)
    assert node.balance(holder) == 0
