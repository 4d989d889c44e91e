"""What a person reads before confirming a write: the outcome of its dry run."""

from __future__ import annotations

from pydantic import BaseModel

from corridor.tools.base import ToolError
from corridor.tools.results import BalanceResult, QuoteResult, TransferResult


def preview_text(result: BaseModel | None, refusal: ToolError | None) -> str:
    if refusal is not None:
        return f"Would be refused: {refusal.message} ({refusal.code})"
    if isinstance(result, TransferResult):
        return _transfer(result)
    if isinstance(result, QuoteResult):
        return (
            f"Quote: pay {result.source_amount.text()}, receive "
            f"{result.destination_amount.text()} at {result.exchange_rate}"
        )
    if isinstance(result, BalanceResult):
        return f"Balance after: {result.available.text()} available"
    return "No money moves."


def _transfer(result: TransferResult) -> str:
    lines = [f"Status after: {result.status}", f"Debited: {result.source_amount.text()}"]
    fee = (
        result.developer_fee.text()
        if result.developer_fee
        else f"0 {result.source_amount.currency}"
    )
    lines.append(f"Fees: {fee}")
    lines.append(f"Recipient gets: {result.destination_amount.text()}")
    if result.exchange_rate:
        lines.append(f"Exchange rate: {result.exchange_rate}")
    if result.estimated_settlement_at:
        lines.append(f"Estimated arrival: {result.estimated_settlement_at}")
    if result.funding_needed and result.deposit_instructions:
        lines.append("Waits for a deposit before it moves")
    return "; ".join(lines)
