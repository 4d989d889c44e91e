"""A local EVM node for the chain rail's tests: anvil (tests/programs.py), started on a
free port, with the test token (tests/evm/TestToken.sol) deployed on it."""

from __future__ import annotations

import contextlib
import secrets
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

from web3 import Web3

from tests.evm.token import ABI, BYTECODE

chain_id = 31337
start_timeout_s = 30


@dataclass
class Node:
    url: str
    w3: Web3
    token: object  # the web3 contract of the deployed test token
    deployer: str

    def fund(self, address: str, *, token_units: int = 0, wei: int = 10**20) -> None:
        """Give an address gas money and test tokens (anvil's cheat code, and `mint`)."""
        self.w3.provider.make_request("anvil_setBalance", [address, hex(wei)])
        if token_units:
            self.transact(self.token.functions.mint(address, token_units))  # type: ignore[attr-defined]

    def transact(self, call) -> dict:
        """Send a contract call from the deployer and wait for its receipt."""
        tx_hash = call.transact({"from": self.deployer})
        return self.w3.eth.wait_for_transaction_receipt(tx_hash)

    def balance(self, address: str) -> int:
        return self.token.functions.balanceOf(Web3.to_checksum_address(address)).call()  # type: ignore[attr-defined]

    def mine(self, blocks: int = 1) -> None:
        self.w3.provider.make_request("anvil_mine", [hex(blocks)])

    def automine(self, on: bool) -> None:
        """Off: sent transactions wait in the pool until `mine`."""
        self.w3.provider.make_request("evm_setAutomine", [on])

    def snapshot(self) -> str:
        return self.w3.provider.make_request("evm_snapshot", [])["result"]

    def revert(self, snapshot_id: str) -> None:
        assert self.w3.provider.make_request("evm_revert", [snapshot_id])["result"] is True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def running_node(anvil: str) -> Iterator[Node]:
    port = _free_port()
    process = subprocess.Popen(
        [anvil, "--host", "127.0.0.1", "--port", str(port), "--chain-id", str(chain_id)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        w3 = Web3(Web3.HTTPProvider(url, request_kwargs={"timeout": 30}))
        deadline = time.monotonic() + start_timeout_s
        while not _answers(w3):
            assert process.poll() is None, "anvil exited"
            assert time.monotonic() < deadline, "anvil did not answer"
            time.sleep(0.05)
        deployer = w3.eth.accounts[0]  # anvil's first unlocked account: 10,000 ETH
        # A contract's address follows from its deployer's nonce: a random one gives each
        # node's token an address of its own (the tests' database outlives the node).
        w3.provider.make_request("anvil_setNonce", [deployer, hex(secrets.randbelow(2**32))])
        contract = w3.eth.contract(abi=ABI, bytecode=BYTECODE)
        tx_hash = contract.constructor("Test USD Coin", "TUSDC", 6).transact({"from": deployer})
        receipt = w3.eth.wait_for_transaction_receipt(tx_hash)
        token = w3.eth.contract(address=receipt["contractAddress"], abi=ABI)
        yield Node(url=url, w3=w3, token=token, deployer=deployer)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _answers(w3: Web3) -> bool:
    try:
        return w3.eth.chain_id == chain_id
    except Exception:
        return False
