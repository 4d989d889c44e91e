"""The EVM rail chosen per chain in settings: the sandbox stays the default, a named chain
is served by the node adapter with the hot wallet decrypted from its encrypted key."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet
from eth_account import Account
from pydantic import ValidationError

from corridor.config import Settings
from corridor.kit import secretbox
from corridor.rails import registry
from corridor.rails.base import RailName
from corridor.rails.chains import BaseAdapter, EthereumAdapter
from corridor.rails.evm import EvmRailAdapter, EvmRailError, install_evm_rails
from tests.evm.support import TEST_MNEMONIC

TOKEN = "0x" + "ab" * 20
CHAINS = {
    "ETHEREUM": {
        "rpc_url": "http://127.0.0.1:8545",
        "chain_id": 1,
        "tokens": {"USDC": {"address": TOKEN}},
    }
}


@pytest.fixture
def box():
    with secretbox.installed(secretbox.SecretBox(Fernet.generate_key().decode())) as installed:
        yield installed


@pytest.fixture
def restore_registry():
    before = {rail: registry.adapter_for(rail) for rail in RailName}
    yield
    for adapter in before.values():
        registry.install(adapter)


def test_the_sandbox_serves_every_chain_unless_one_is_named():
    assert install_evm_rails(Settings(_env_file=None)) == []
    assert isinstance(registry.adapter_for(RailName.ETHEREUM), EthereumAdapter)


def test_a_named_chain_is_paid_on_its_node_with_the_decrypted_hot_wallet(box, restore_registry):
    hot_wallet = Account.create()
    settings = Settings(
        _env_file=None,
        evm_chains=CHAINS,
        evm_signer_key=box.encrypt(hot_wallet.key.hex()),
        evm_deposit_mnemonic=box.encrypt(TEST_MNEMONIC),
    )
    assert install_evm_rails(settings) == [RailName.ETHEREUM]
    adapter = registry.adapter_for(RailName.ETHEREUM)
    assert isinstance(adapter, EvmRailAdapter) and adapter.address == hot_wallet.address
    assert adapter.chain.confirmations == 64  # Ethereum's figure (rails/chains.py)
    assert adapter.deposits is not None
    assert hot_wallet.key.hex().removeprefix("0x") not in repr(adapter) + repr(adapter.deposits)
    assert isinstance(registry.adapter_for(RailName.BASE), BaseAdapter)  # not named: sandbox


def test_settings_refuse_what_the_rail_cannot_use(box):
    with pytest.raises(ValidationError, match="not EVM chains: SOLANA"):
        Settings(_env_file=None, evm_chains={"SOLANA": CHAINS["ETHEREUM"]})
    with pytest.raises(EvmRailError, match="needs CORRIDOR_EVM_SIGNER_KEY"):
        install_evm_rails(Settings(_env_file=None, evm_chains=CHAINS))
    with pytest.raises(EvmRailError, match="does not hold a private key"):
        install_evm_rails(
            Settings(_env_file=None, evm_chains=CHAINS, evm_signer_key=box.encrypt("not a key"))
        )
