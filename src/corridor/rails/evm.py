"""Stablecoin payouts on a real EVM node (issue 27): ERC-20 `transfer` calls over JSON-RPC.

Chosen per chain in settings (`CORRIDOR_EVM_CHAINS`, docs/rails.md); every chain not named
there keeps the sandbox adapter of rails/chains.py, which `make serve` uses.

- **Submit** (inside the transfer step's transaction, kit.db.unit_of_work): estimate the
  gas of `transfer(to, units)` from the hot wallet, take the next nonce of (chain, address)
  from `evm_nonces` by an atomic increment (a row lock on PostgreSQL, SQLite's single
  writer: two workers never get one nonce), sign, and record the signed transaction
  (`evm_transactions`, status SIGNED) with the leg. Nothing is sent yet: if the step rolls
  back, the nonce goes back with it and nothing left the building (a nonce taken by a
  transaction that was sent but never recorded would be reused, or a gap left). The nonce
  increment and the row sit in one savepoint, so a failure between them leaves neither.
- **Status** (each poll of the leg): a transaction with no receipt is sent (again: the
  same signed bytes, so the same `txHash`; a node that already has it says so). With a
  receipt, the leg waits until its block is `confirmations` deep and still the chain's
  block at that height; then it settles (status 1) or fails with the revert reason the
  node gives when the call is replayed (status 0). A receipt that disappears or moves (a
  reorg) sends the transaction back to BROADCAST: it is sent again and counted from its
  new block, and the leg, which never left PROCESSING, settles once.

The hot wallet's private key is kept encrypted at rest (`CORRIDOR_EVM_SIGNER_KEY` holds a
token of the server key's box, kit/secretbox.py) and is decrypted only into the adapter's
memory; it is never logged nor stored in a row.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount
from eth_typing import HexStr
from sqlalchemy.ext.asyncio import AsyncSession
from web3 import AsyncHTTPProvider, AsyncWeb3
from web3.exceptions import ContractLogicError, TransactionNotFound

from corridor.config import EvmChainSetting, Settings
from corridor.kit import secretbox
from corridor.kit.db import current_unit_of_work
from corridor.kit.logging import get_logger
from corridor.kit.money import currency as currency_of
from corridor.models.evm import EvmDepositAddress, EvmTransaction
from corridor.rails import registry
from corridor.rails import repository as queries
from corridor.rails.base import PaymentInstruction, RailName, RailStatus, Schedule, Submission
from corridor.rails.chains import ChainAdapter
from corridor.rails.registry import SANDBOX_ADAPTERS

logger = get_logger(__name__)

EVM_RAILS = frozenset({RailName.ETHEREUM, RailName.BASE, RailName.POLYGON})
# The gas limit is the node's estimate with this margin (a transfer's cost can move a
# little between the estimate and the block, e.g. a first transfer to a fresh holder).
gas_margin_percent = 20
rpc_timeout_s = 30
# Only what the rail calls: ERC-20 transfer (and balanceOf, for operators' checks).
ERC20_ABI: list[dict[str, Any]] = [
    {
        "type": "function",
        "name": "transfer",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "value", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
    },
    {
        "type": "function",
        "name": "balanceOf",
        "stateMutability": "view",
        "inputs": [{"name": "owner", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    },
]


ALREADY_SENT = ("already known", "already imported", "known transaction")


class TxStatus:
    SIGNED = "SIGNED"
    BROADCAST = "BROADCAST"
    MINED = "MINED"
    CONFIRMED = "CONFIRMED"
    FAILED = "FAILED"


class EvmRailError(RuntimeError):
    """The rail cannot pay this instruction (no token configured, a bad address, a node
    that refuses): the engine retries, then fails the leg with this text."""


@dataclass(frozen=True)
class EvmToken:
    address: str  # the ERC-20 contract
    decimals: int


@dataclass(frozen=True)
class EvmChain:
    rail: RailName
    rpc_url: str
    chain_id: int
    confirmations: int
    tokens: Mapping[str, EvmToken] = field(default_factory=dict)  # currency → contract
    # The first block the deposit scan reads (a chain's history before Corridor used it
    # holds no deposit to it).
    deposit_start_block: int = 0
    # A transaction sent this long ago and still in no block is replaced with higher fees.
    replace_after_s: int = 180


def _bumped(value: int) -> int:
    """A fee raised enough for a node to take a replacement (geth and anvil: +10%)."""
    return value * 9 // 8 + 1


def token_units(amount_minor: int, currency: str, decimals: int) -> int:
    """The token's base units for an amount in the currency's minor units (USDC: 6 and 6)."""
    exponent = currency_of(currency).exponent
    if decimals >= exponent:
        return amount_minor * 10 ** (decimals - exponent)
    scale = 10 ** (exponent - decimals)
    if amount_minor % scale:
        raise EvmRailError(
            f"{amount_minor} minor units of {currency} is not a whole number of the token's "
            f"units ({decimals} decimals)"
        )
    return amount_minor // scale


def _hex(value: Any) -> str:
    return value.to_0x_hex() if hasattr(value, "to_0x_hex") else str(value)


# BIP-44 for Ethereum (coin type 60): account 0, external chain, one index per address.
deposit_path_prefix = "m/44'/60'/0'/0/"
# Blocks one deposit scan asks a node's logs for at most (public nodes cap eth_getLogs).
scan_blocks_max = 2_000
TRANSFER_TOPIC = "0x" + AsyncWeb3.keccak(
    text="Transfer(address,address,uint256)"
).hex().removeprefix("0x")


class HdDepositWallets:
    """Deposit addresses derived from one seed phrase (BIP-39 words, BIP-32/44 paths):
    every EVM chain shares them, as one key controls an address on every EVM chain."""

    def __init__(self, mnemonic: str) -> None:
        Account.enable_unaudited_hdwallet_features()
        self._mnemonic = mnemonic
        self.address_at(0)  # a bad phrase fails at start, not at the first deposit

    def __repr__(self) -> str:  # never the phrase
        return "HdDepositWallets()"

    def address_at(self, index: int) -> str:
        account = Account.from_mnemonic(
            self._mnemonic, account_path=f"{deposit_path_prefix}{index}"
        )
        return str(account.address)

    async def new_address(
        self, session: AsyncSession, *, virtual_account_id: str, organization_id: str, now: datetime
    ) -> str:
        """The next index's address, kept for the deposit wallet (one per wallet)."""
        row = EvmDepositAddress(
            virtual_account_id=virtual_account_id, organization_id=organization_id, created_at=now
        )
        session.add(row)
        await session.flush()  # its number is the index
        row.address = self.address_at(row.hd_index)
        await session.flush()
        return row.address


@dataclass(frozen=True)
class TokenTransfer:
    """A token Transfer log, read from a block deep enough to count."""

    tx_hash: str
    log_index: int
    block_number: int
    block_hash: str
    token_address: str
    from_address: str
    to_address: str
    units: int


class EvmRailAdapter:
    """A chain rail paid on a real node, over the sandbox chain adapter's timing."""

    def __init__(
        self,
        inner: ChainAdapter,
        chain: EvmChain,
        signer: LocalAccount,
        deposits: HdDepositWallets | None = None,
    ) -> None:
        assert inner.name == chain.rail and chain.rail in EVM_RAILS, (inner.name, chain.rail)
        self.inner, self.chain, self._signer = inner, chain, signer
        self.deposits = deposits
        self.name: RailName = inner.name
        self.currencies = inner.currencies

    def __repr__(self) -> str:  # never the key
        return f"EvmRailAdapter({self.name}, from={self.address})"

    @property
    def address(self) -> str:
        return str(self._signer.address)

    def schedule(self, *, at: datetime) -> Schedule:
        assert at.tzinfo is not None, "rails need an aware datetime"
        wait = timedelta(milliseconds=self.inner.timing.block_time_ms * self.chain.confirmations)
        return Schedule(
            estimated_settlement_at=at.astimezone(UTC) + wait,
            next_cutoff_at=None,
            cutoff_timezone=None,
        )

    @contextlib.asynccontextmanager
    async def client(self) -> AsyncIterator[AsyncWeb3]:
        provider = AsyncHTTPProvider(self.chain.rpc_url, request_kwargs={"timeout": rpc_timeout_s})
        w3 = AsyncWeb3(provider)
        try:
            yield w3
        finally:
            await provider.disconnect()

    # --- submit ---------------------------------------------------------------------------

    async def submit(self, instruction: PaymentInstruction, *, now: datetime) -> Submission:
        assert instruction.rail == self.name, (instruction.rail, self.name)
        if instruction.direction != "CREDIT":
            raise EvmRailError("a chain rail only pays out")
        session = current_unit_of_work()
        row = await queries.evm_transaction_of_leg(session, instruction.leg_id)
        if row is None:  # a step retried after a crash finds the transaction it signed
            row = await self._sign(session, instruction, now=now)
        return self._submission(row)

    async def _sign(
        self, session: AsyncSession, instruction: PaymentInstruction, *, now: datetime
    ) -> EvmTransaction:
        token = self.chain.tokens.get(instruction.currency)
        if token is None:
            raise EvmRailError(f"no {instruction.currency} token is configured on {self.name}")
        recipient = str(instruction.beneficiary.get("address") or "")
        if not AsyncWeb3.is_address(recipient):
            raise EvmRailError(f"{recipient!r} is not an address on {self.name}")
        to = AsyncWeb3.to_checksum_address(recipient)
        contract_address = AsyncWeb3.to_checksum_address(token.address)
        units = token_units(instruction.amount_minor, instruction.currency, token.decimals)
        transfer = await queries.transfer(session, instruction.transfer_id)
        assert transfer is not None, instruction.transfer_id
        if transfer.flow == "FEE_CRYPTO":
            # The developer fee's wallet is a made-up sandbox address (transfers/engine):
            # on a real chain the money would be lost. Refused until a fee wallet is set.
            raise EvmRailError("a developer fee has no wallet of its own on a real chain")
        chain = self.name.value
        async with self.client() as w3:
            contract = w3.eth.contract(address=contract_address, abi=ERC20_ABI)
            data = contract.encode_abi("transfer", args=[to, units])
            call = {"from": self.address, "to": contract_address, "data": data}
            try:
                estimate = await w3.eth.estimate_gas(call)  # type: ignore[arg-type]
            except ContractLogicError as error:
                raise EvmRailError(f"the transfer would revert: {error}") from None
            latest = await w3.eth.get_block("latest")
            base_fee = int(latest.get("baseFeePerGas") or 0)
            tip = int(await w3.eth.max_priority_fee)
            first = 0
            if not await queries.nonce_known(session, chain=chain, address=self.address):
                first = await w3.eth.get_transaction_count(self._signer.address, "pending")
        gas_limit = estimate * (100 + gas_margin_percent) // 100
        max_fee = 2 * base_fee + tip
        async with session.begin_nested():  # the nonce and its transaction, or neither
            nonce = await queries.allocate_nonce(
                session, chain=chain, address=self.address, first=first, now=now
            )
            signed = self._signer.sign_transaction(
                {
                    "type": 2,
                    "chainId": self.chain.chain_id,
                    "nonce": nonce,
                    "to": contract_address,
                    "value": 0,
                    "data": data,
                    "gas": gas_limit,
                    "maxFeePerGas": max_fee,
                    "maxPriorityFeePerGas": tip,
                }
            )
            row = EvmTransaction(
                chain=chain,
                chain_id=self.chain.chain_id,
                organization_id=transfer.organization_id,
                transfer_id=transfer.id,
                leg_id=instruction.leg_id,
                currency=instruction.currency,
                amount=instruction.amount_minor,
                token_address=contract_address,
                token_units=str(units),
                from_address=self.address,
                to_address=to,
                nonce=nonce,
                gas_limit=gas_limit,
                max_fee_per_gas=str(max_fee),
                max_priority_fee_per_gas=str(tip),
                tx_hash=_hex(signed.hash),
                raw_transaction=_hex(signed.raw_transaction),
                status=TxStatus.SIGNED,
                confirmations_required=self.chain.confirmations,
                broadcasts=0,
                replacements=0,
                reorgs=0,
                created_at=now,
                updated_at=now,
            )
            session.add(row)
            await session.flush()
        logger.info("evm_transaction_signed", chain=chain, leg_id=row.leg_id, nonce=nonce)
        return row

    def _submission(self, row: EvmTransaction) -> Submission:
        schedule = self.schedule(at=row.created_at)
        references = {"txHash": row.tx_hash, "evmTransactionId": row.id}
        return Submission(rail_reference=row.tx_hash, references=references, schedule=schedule)

    # --- status ---------------------------------------------------------------------------

    async def _row(self, submission: Submission) -> EvmTransaction:
        session = current_unit_of_work()
        row = await queries.evm_transaction(session, int(submission.references["evmTransactionId"]))
        assert row is not None, submission.rail_reference
        return row

    async def status(self, submission: Submission, *, now: datetime) -> RailStatus:
        row = await self._row(submission)
        if row.status == TxStatus.CONFIRMED:
            return RailStatus.SETTLED
        if row.status == TxStatus.FAILED:
            return RailStatus.FAILED
        try:
            async with self.client() as w3:
                return await self._follow(w3, row, now=now)
        except Exception as error:
            # Once signed, the transaction holds its nonce: the leg must not fail for a
            # node that is down or refuses to relay it (every later nonce would wait
            # behind the gap). It waits, said in the log, until the node takes it.
            logger.warning(
                "evm_transaction_waiting",
                chain=row.chain,
                leg_id=row.leg_id,
                nonce=row.nonce,
                error=str(error)[:300],
            )
            return RailStatus.PENDING

    async def _receipt(self, w3: AsyncWeb3, row: EvmTransaction) -> Any:
        """The receipt of the transaction or of one it replaced (one nonce: one of them at
        most is mined); the row follows whichever was mined."""
        for tx_hash in [row.tx_hash, *(row.replaced_hashes or [])]:
            try:
                receipt = await w3.eth.get_transaction_receipt(HexStr(tx_hash))
            except TransactionNotFound:
                continue
            if tx_hash != row.tx_hash:  # an earlier one was mined after all
                await self._show(row, tx_hash)
            return receipt
        return None

    async def _show(self, row: EvmTransaction, tx_hash: str) -> None:
        replaced = [h for h in [row.tx_hash, *(row.replaced_hashes or [])] if h != tx_hash]
        row.tx_hash, row.replaced_hashes = tx_hash, replaced
        await queries.show_tx_hash(current_unit_of_work(), leg_id=row.leg_id, tx_hash=tx_hash)

    async def _follow(self, w3: AsyncWeb3, row: EvmTransaction, *, now: datetime) -> RailStatus:
        row.updated_at = now
        receipt = await self._receipt(w3, row)
        if receipt is None:
            if row.block_hash is not None:
                self._reorged(row, why="its receipt is gone")
            elif self._stuck(row, now=now):
                await self._replace(w3, row, now=now)
            await self._broadcast(w3, row, now=now)
            return RailStatus.PENDING
        block_hash = _hex(receipt["blockHash"])
        block_number = int(receipt["blockNumber"])
        if row.block_hash is not None and row.block_hash != block_hash:
            self._reorged(row, why="it moved to another block")
        row.block_number, row.block_hash = block_number, block_hash
        row.status = TxStatus.MINED
        head = await w3.eth.block_number
        if head - block_number + 1 < row.confirmations_required:
            return RailStatus.PENDING
        canonical = await w3.eth.get_block(block_number)
        if _hex(canonical["hash"]) != block_hash:  # the node answered from a dropped fork
            self._reorged(row, why="its block is no longer the chain's")
            return RailStatus.PENDING
        if int(receipt["status"]) == 1:
            row.status = TxStatus.CONFIRMED
            logger.info("evm_transaction_confirmed", chain=row.chain, leg_id=row.leg_id)
            return RailStatus.SETTLED
        row.status = TxStatus.FAILED
        row.failure_reason = (await self._revert_reason(w3, row, block_number))[:500]
        logger.info("evm_transaction_reverted", chain=row.chain, leg_id=row.leg_id)
        return RailStatus.FAILED

    def _reorged(self, row: EvmTransaction, *, why: str) -> None:
        logger.warning(
            "evm_transaction_reorged",
            chain=row.chain,
            leg_id=row.leg_id,
            tx_hash=row.tx_hash,
            why=why,
        )
        row.reorgs += 1
        row.block_number = row.block_hash = None
        row.last_sent_at = None
        row.status = TxStatus.BROADCAST

    def _stuck(self, row: EvmTransaction, *, now: datetime) -> bool:
        sent_at = row.last_sent_at
        return (
            row.status == TxStatus.BROADCAST
            and sent_at is not None
            and (now - sent_at).total_seconds() >= self.chain.replace_after_s
        )

    async def _replace(self, w3: AsyncWeb3, row: EvmTransaction, *, now: datetime) -> None:
        """Sent long ago and still in no block: the same transfer on the same nonce again,
        with fees raised past the node's replacement rule (+12.5%) and today's market, so
        it takes the stuck one's place (only one of them can ever be mined)."""
        latest = await w3.eth.get_block("latest")
        base_fee = int(latest.get("baseFeePerGas") or 0)
        market_tip = int(await w3.eth.max_priority_fee)
        tip = max(_bumped(int(row.max_priority_fee_per_gas)), market_tip)
        max_fee = max(_bumped(int(row.max_fee_per_gas)), 2 * base_fee + tip)
        token_address = AsyncWeb3.to_checksum_address(row.token_address)
        contract = w3.eth.contract(address=token_address, abi=ERC20_ABI)
        data = contract.encode_abi("transfer", args=[row.to_address, int(row.token_units)])
        signed = self._signer.sign_transaction(
            {
                "type": 2,
                "chainId": row.chain_id,
                "nonce": row.nonce,
                "to": token_address,
                "value": 0,
                "data": data,
                "gas": row.gas_limit,
                "maxFeePerGas": max_fee,
                "maxPriorityFeePerGas": tip,
            }
        )
        logger.warning(
            "evm_transaction_replaced", chain=row.chain, leg_id=row.leg_id, nonce=row.nonce
        )
        row.raw_transaction = _hex(signed.raw_transaction)
        row.max_fee_per_gas, row.max_priority_fee_per_gas = str(max_fee), str(tip)
        row.replacements += 1
        row.last_sent_at = None
        # The new hash is the one to follow (and the one the transfer shows) from now on.
        row.replaced_hashes = [*(row.replaced_hashes or []), row.tx_hash]
        row.tx_hash = _hex(signed.hash)
        await queries.show_tx_hash(current_unit_of_work(), leg_id=row.leg_id, tx_hash=row.tx_hash)

    async def _broadcast(self, w3: AsyncWeb3, row: EvmTransaction, *, now: datetime) -> None:
        try:
            await w3.eth.send_raw_transaction(HexStr(row.raw_transaction))
        except Exception as error:
            # The node has these bytes already (geth: "already known", anvil: "already
            # imported", older nodes: "known transaction"): sending again is harmless.
            text = str(error).lower()
            if not any(said in text for said in ALREADY_SENT):
                raise EvmRailError(f"the node refused the transaction: {error}") from None
        if row.last_sent_at is None:  # the first send (or the first after a reorg or a replacement)
            row.last_sent_at = now
        row.broadcasts += 1
        row.status = TxStatus.BROADCAST

    async def _revert_reason(self, w3: AsyncWeb3, row: EvmTransaction, block_number: int) -> str:
        """The node's words for the revert: the call replayed on the block's state."""
        token_address = AsyncWeb3.to_checksum_address(row.token_address)
        contract = w3.eth.contract(address=token_address, abi=ERC20_ABI)
        data = contract.encode_abi("transfer", args=[row.to_address, int(row.token_units)])
        call = {"from": row.from_address, "to": row.token_address, "data": data}
        for block in (block_number - 1, block_number):
            try:
                await w3.eth.call(call, block_identifier=block)  # type: ignore[arg-type]
            except ContractLogicError as error:
                return f"the transaction reverted: {error.message or error}"
            except Exception:  # a node that keeps no old state: say what is known
                break
        return "the transaction reverted (receipt status 0)"

    # --- deposits --------------------------------------------------------------------------

    async def confirmed_transfers(
        self, *, token: EvmToken, from_block: int
    ) -> tuple[list[TokenTransfer], int]:
        """The token's Transfer logs from `from_block` up to the newest block that has its
        confirmations (at most `scan_blocks_max` blocks), and the next block to read."""
        async with self.client() as w3:
            head = await w3.eth.block_number
            last = min(head - self.chain.confirmations + 1, from_block + scan_blocks_max - 1)
            if last < from_block:
                return [], from_block
            logs = await w3.eth.get_logs(
                {
                    "address": AsyncWeb3.to_checksum_address(token.address),
                    "topics": [TRANSFER_TOPIC],
                    "fromBlock": from_block,
                    "toBlock": last,
                }
            )
        found = []
        for log in logs:
            topics = log["topics"]
            if len(topics) != 3:  # not an ERC-20 Transfer (an ERC-721 one has 4)
                continue
            found.append(
                TokenTransfer(
                    tx_hash=_hex(log["transactionHash"]),
                    log_index=int(log["logIndex"]),
                    block_number=int(log["blockNumber"]),
                    block_hash=_hex(log["blockHash"]),
                    token_address=AsyncWeb3.to_checksum_address(log["address"]),
                    from_address=AsyncWeb3.to_checksum_address(bytes(topics[1])[-20:]),
                    to_address=AsyncWeb3.to_checksum_address(bytes(topics[2])[-20:]),
                    units=int.from_bytes(bytes(log["data"]), "big"),
                )
            )
        return found, last + 1

    async def failure_reason(self, submission: Submission) -> str | None:
        """Why a FAILED leg failed (the engine puts it on the leg and the transfer)."""
        return (await self._row(submission)).failure_reason


def signer_from(token: str, decrypt: Any) -> LocalAccount:
    """The hot wallet from its encrypted private key (`decrypt`: the secret box's)."""
    key = decrypt(token).strip()
    try:
        return Account.from_key(key)
    except Exception:
        raise EvmRailError("CORRIDOR_EVM_SIGNER_KEY does not hold a private key") from None


def minor_units(units: int, currency: str, decimals: int) -> int:
    """A token amount in the currency's minor units (rounded down below a minor unit)."""
    exponent = currency_of(currency).exponent
    if decimals >= exponent:
        return units // 10 ** (decimals - exponent)
    return units * 10 ** (exponent - decimals)


def installed_evm_adapters() -> list[EvmRailAdapter]:
    adapters = [registry.adapter_for(rail) for rail in sorted(EVM_RAILS)]
    return [adapter for adapter in adapters if isinstance(adapter, EvmRailAdapter)]


def chain_of(rail: RailName, setting: EvmChainSetting) -> EvmChain:
    inner = _sandbox_chain(rail)
    return EvmChain(
        rail=rail,
        rpc_url=setting.rpc_url,
        chain_id=setting.chain_id,
        confirmations=setting.confirmations or inner.timing.confirmations,
        deposit_start_block=setting.deposit_start_block,
        replace_after_s=setting.replace_after_s,
        tokens={
            currency.upper(): EvmToken(address=token.address, decimals=token.decimals)
            for currency, token in setting.tokens.items()
        },
    )


def _sandbox_chain(rail: RailName) -> ChainAdapter:
    inner = next(adapter for adapter in SANDBOX_ADAPTERS if adapter.name == rail)
    assert isinstance(inner, ChainAdapter), rail
    return inner


def install_evm_rails(settings: Settings) -> list[RailName]:
    """Serve the chains named by `evm_chains` on their nodes (the process's registry)."""
    if not settings.evm_chains:
        return []
    if settings.evm_signer_key is None:
        raise EvmRailError("CORRIDOR_EVM_CHAINS needs CORRIDOR_EVM_SIGNER_KEY (the hot wallet)")
    signer = signer_from(settings.evm_signer_key.get_secret_value(), secretbox.current().decrypt)
    deposits = None
    if settings.evm_deposit_mnemonic is not None:
        phrase = secretbox.current().decrypt(settings.evm_deposit_mnemonic.get_secret_value())
        deposits = HdDepositWallets(phrase.strip())
    installed = []
    for name, setting in sorted(settings.evm_chains.items()):
        rail = RailName(name)
        chain = chain_of(rail, setting)
        registry.install(EvmRailAdapter(_sandbox_chain(rail), chain, signer, deposits))
        installed.append(rail)
    return installed
