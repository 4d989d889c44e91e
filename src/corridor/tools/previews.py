"""What a person reads before confirming a write: a summary and the outcome of its dry run
(the assistant's cards and the MCP server's confirmations show the same)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from corridor.auth.callers import Caller
from corridor.tools.base import Tool, ToolError
from corridor.tools.registry import ToolEnvironment, dry_run
from corridor.tools.results import BalanceResult, QuoteResult, TransferResult


@dataclass(frozen=True, slots=True)
class Preview:
    summary: str
    effect: str
    # The dry run's refusal, when it would be refused (its code says why).
    refusal: ToolError | None


async def preview(
    environment: ToolEnvironment, caller: Caller, tool: Tool, parsed: BaseModel
) -> Preview:
    """A summary and what would happen, computed by the real services in a transaction
    that is rolled back."""
    try:
        result: BaseModel | None = await dry_run(environment, caller, tool, parsed)
        refusal = None
    except ToolError as error:
        result, refusal = None, error
    summary = tool.summarize(parsed, result) if tool.summarize else tool.title
    return Preview(summary, preview_text(result, refusal), refusal)


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
