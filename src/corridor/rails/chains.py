"""Stablecoin payouts on Ethereum, Base, Polygon, Solana and Tron (sandbox).

Chains run all the time: no cutoff, no business days. A payout settles once the chain has
built enough blocks on top of it that it will not be reorganised away, so the estimate is
confirmations × block time (approximate public figures):

| chain    | block time | confirmations | settles after | why that many |
|----------|------------|---------------|---------------|---------------|
| Ethereum | 12 s       | 64            | 12 min 48 s   | two epochs: the block is finalized |
| Base     | 2 s        | 300           | 10 min        | the sequencer's batch is posted to Ethereum |
| Polygon  | 2 s        | 128           | 4 min 16 s    | the depth exchanges wait for on Polygon PoS |
| Solana   | 0.4 s      | 32            | 12.8 s        | "finalized" commitment: 31 confirmed slots on top |
| Tron     | 3 s        | 19            | 57 s          | solidified: confirmed by 19 of 27 super representatives |

References: `txHash` in the chain's own form (EVM chains: "0x" and 64 hex digits;
Solana: a base58 transaction signature of 64 bytes; Tron: 64 hex digits without "0x"),
derived from the leg id. A payout that also pays a developer fee (`developerFee` in the
instruction's references, minor units) sends the fee as a second transfer with its own
`feeTxHash`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

import base58

from corridor.rails.base import PaymentInstruction, RailName, Schedule, developer_fee_reference
from corridor.rails.sandbox import InstantRailAdapter, leg_digest

evm_hash_bytes = 32
tron_hash_bytes = 32
solana_signature_bytes = 64


@dataclass(frozen=True)
class ChainTiming:
    block_time_ms: int
    confirmations: int

    @property
    def settlement_ms(self) -> int:
        return self.block_time_ms * self.confirmations


ethereum_timing = ChainTiming(block_time_ms=12_000, confirmations=64)
base_timing = ChainTiming(block_time_ms=2_000, confirmations=300)
polygon_timing = ChainTiming(block_time_ms=2_000, confirmations=128)
solana_timing = ChainTiming(block_time_ms=400, confirmations=32)
tron_timing = ChainTiming(block_time_ms=3_000, confirmations=19)


def evm_transaction_hash(leg_id: str, purpose: str) -> str:
    return "0x" + leg_digest(leg_id, purpose, size_bytes=evm_hash_bytes).hex()


def solana_signature(leg_id: str, purpose: str) -> str:
    digest = leg_digest(leg_id, purpose, size_bytes=solana_signature_bytes)
    return base58.b58encode(digest).decode()


def tron_transaction_id(leg_id: str, purpose: str) -> str:
    return leg_digest(leg_id, purpose, size_bytes=tron_hash_bytes).hex()


def _fee_minor(instruction: PaymentInstruction) -> int:
    fee_minor = instruction.references.get(developer_fee_reference) or 0
    assert isinstance(fee_minor, int) and fee_minor >= 0, fee_minor
    return fee_minor


class ChainAdapter(InstantRailAdapter):
    timing: ClassVar[ChainTiming]

    @property
    def settlement_ms(self) -> int:  # type: ignore[override]
        return self.timing.settlement_ms

    def transaction_hash(self, leg_id: str, purpose: str) -> str:
        return evm_transaction_hash(leg_id, purpose)

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        # The rail is part of the purpose: the same leg id never yields one hash on two chains.
        tx_hash = self.transaction_hash(instruction.leg_id, f"{self.name}:payout")
        references = {"txHash": tx_hash}
        if _fee_minor(instruction) > 0:
            references["feeTxHash"] = self.transaction_hash(instruction.leg_id, f"{self.name}:fee")
        return tx_hash, references


class EthereumAdapter(ChainAdapter):
    name = RailName.ETHEREUM
    timing = ethereum_timing


class BaseAdapter(ChainAdapter):
    name = RailName.BASE
    timing = base_timing


class PolygonAdapter(ChainAdapter):
    name = RailName.POLYGON
    timing = polygon_timing


class SolanaAdapter(ChainAdapter):
    name = RailName.SOLANA
    timing = solana_timing

    def transaction_hash(self, leg_id: str, purpose: str) -> str:
        return solana_signature(leg_id, purpose)


class TronAdapter(ChainAdapter):
    name = RailName.TRON
    timing = tron_timing

    def transaction_hash(self, leg_id: str, purpose: str) -> str:
        return tron_transaction_id(leg_id, purpose)
