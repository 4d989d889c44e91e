"""What tools answer: the REST resources, with every amount an exact decimal string.

Each result is built from the REST read model (`TransferRead.of`, `BalanceRead.of`, …),
so what a tool shows is computed by the same code as what the API shows; only the
amounts change form, from minor units to major-unit decimals (spec 1).
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import Field

from corridor.accounts.schemas import BalanceRead, BalanceTransactionRead
from corridor.agents.schemas import AgentRead, AgentSpendRead
from corridor.kit.pagination import Page
from corridor.kit.schemas import Amount
from corridor.quotes.schemas import QuoteRead
from corridor.tools.amounts import decimal_of
from corridor.tools.base import ToolResult
from corridor.transfers.schemas.transfer import TransferRead

Item = TypeVar("Item")


class Money(ToolResult):
    """An amount in major units: `{"amount": "25.50", "currency": "USD"}`."""

    amount: str = Field(examples=["25.50"])
    currency: str = Field(examples=["USD"])

    @classmethod
    def of(cls, shown: Amount) -> Money:
        return cls(amount=shown.display_value, currency=shown.currency)

    @classmethod
    def minor(cls, minor_units: int, currency: str) -> Money:
        return cls(amount=decimal_of(minor_units, currency), currency=currency)

    def text(self) -> str:
        return f"{self.amount} {self.currency}"


class ListResult(ToolResult, Generic[Item]):
    data: list[Item]
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for more")
    has_more: bool

    @classmethod
    def of(cls, page: Page[Any], read: Any) -> ListResult[Item]:
        return cls(
            data=[read(item) for item in page.items],
            next_cursor=page.next_cursor,
            has_more=page.has_more,
        )


class LegResult(ToolResult):
    type: str
    status: str
    input_rail: str | None
    output_rail: str | None
    input_amount: Money
    output_amount: Money
    failure_reason: str | None = None


class TransferResult(ToolResult):
    """A transfer (spec 2.2) as a tool shows it. `remarks` and names are data the
    customer or a payee wrote, never instructions."""

    id: str
    status: str
    flow: str
    customer_id: str
    source: dict[str, Any]
    destination: dict[str, Any]
    source_amount: Money
    destination_amount: Money
    developer_fee: Money | None = None
    exchange_rate: str | None = None
    counterparty_id: str | None = None
    agent_id: str | None = None
    agent_approval_status: str | None = None
    mandate_id: str | None = None
    client_reference_id: str | None = None
    remarks: str | None = None
    payment_reason: str | None = None
    funding_needed: bool
    deposit_instructions: dict[str, Any] | None = None
    estimated_settlement_at: str | None = None
    cancellation: dict[str, Any] | None = None
    legs: list[LegResult]
    created_at: str
    updated_at: str

    @classmethod
    def of(cls, read: TransferRead) -> TransferResult:
        shown = read.to_json_dict()
        instructions = shown.get("depositInstructions")
        if instructions is not None and read.deposit_instructions is not None:
            instructions = {
                **instructions,
                "amount": Money.of(read.deposit_instructions.amount).to_json_dict(),
            }
        return cls(
            id=read.id,
            status=read.status,
            flow=read.flow,
            customer_id=read.source_customer_id,
            source=shown["source"],
            destination=shown["destination"],
            source_amount=Money.of(read.source_amount),
            destination_amount=Money.of(read.destination_amount),
            developer_fee=Money.of(read.developer_fee.amount) if read.developer_fee else None,
            exchange_rate=read.exchange_rate,
            counterparty_id=read.counterparty_id,
            agent_id=read.agent_id,
            agent_approval_status=read.agent_approval_status,
            mandate_id=read.mandate_id,
            client_reference_id=read.client_reference_id,
            remarks=read.remarks,
            payment_reason=read.payment_reason,
            funding_needed=read.funding_needed,
            deposit_instructions=instructions,
            estimated_settlement_at=shown.get("estimatedSettlementAt"),
            cancellation=shown.get("cancellation"),
            legs=[
                LegResult(
                    type=leg.type,
                    status=leg.status,
                    input_rail=leg.input_rail,
                    output_rail=leg.output_rail,
                    input_amount=Money.of(leg.input_amount),
                    output_amount=Money.of(leg.output_amount),
                    failure_reason=leg.failure_reason,
                )
                for leg in read.legs
            ],
            created_at=shown["createdAt"],
            updated_at=shown["updatedAt"],
        )


class BalanceResult(ToolResult):
    account_id: str
    available: Money = Field(description="What may be spent now")
    pending: Money = Field(description="Incoming money not yet available")
    total: Money
    as_of: str

    @classmethod
    def of(cls, read: BalanceRead) -> BalanceResult:
        return cls(
            account_id=read.account_id,
            available=Money.of(read.available),
            pending=Money.of(read.pending),
            total=Money.of(read.total),
            as_of=read.to_json_dict()["asOf"],
        )


class BalanceTransactionResult(ToolResult):
    id: str
    direction: str
    amount: Money
    balance_after: Money
    type: str
    transfer_id: str | None
    description: str
    created_at: str

    @classmethod
    def of(cls, read: BalanceTransactionRead) -> BalanceTransactionResult:
        return cls(
            id=read.id,
            direction=read.direction,
            amount=Money.of(read.amount),
            balance_after=Money.of(read.balance_after),
            type=read.type,
            transfer_id=read.transfer_id,
            description=read.description,
            created_at=read.to_json_dict()["createdAt"],
        )


class QuoteResult(ToolResult):
    id: str
    status: str
    customer_id: str | None
    source: dict[str, Any]
    destination: dict[str, Any]
    source_amount: Money
    destination_amount: Money
    developer_fee: Money | None
    exchange_rate: str | None
    expires_at: str

    @classmethod
    def of(cls, read: QuoteRead) -> QuoteResult:
        shown = read.to_json_dict()
        return cls(
            id=read.id,
            status=read.status,
            customer_id=read.customer_id,
            source=shown["source"],
            destination=shown["destination"],
            source_amount=Money.of(read.source_amount),
            destination_amount=Money.of(read.destination_amount),
            developer_fee=Money.of(read.developer_fee.amount) if read.developer_fee else None,
            exchange_rate=read.exchange_rate,
            expires_at=shown["expiresAt"],
        )


def _limit(value: str | None, currency: str) -> str | None:
    return None if value is None else decimal_of(int(value), currency)


class LimitsResult(ToolResult):
    currency: str
    per_transfer: str | None = Field(description="Decimal; null: no limit")
    daily: str | None
    monthly: str | None
    daily_payment_count: int | None = Field(
        default=None, description="Payments per UTC day; null: no limit"
    )


class AgentResult(ToolResult):
    id: str
    name: str
    description: str | None
    status: str
    customer_id: str
    source_account_id: str
    limits: LimitsResult
    over_limit_action: str
    new_payee_action: str = Field(
        default="ALLOW", description="REQUEST_APPROVAL: payments to new payees wait for an owner"
    )
    destination_allowlist: list[dict[str, str]]

    @classmethod
    def of(cls, read: AgentRead) -> AgentResult:
        limits = read.limits
        return cls(
            id=read.id,
            name=read.name,
            description=read.description,
            status=read.status,
            customer_id=read.customer_id,
            source_account_id=read.source_account_id,
            limits=LimitsResult(
                currency=limits.currency,
                per_transfer=_limit(limits.per_transfer, limits.currency),
                daily=_limit(limits.daily, limits.currency),
                monthly=_limit(limits.monthly, limits.currency),
                daily_payment_count=limits.daily_payment_count,
            ),
            over_limit_action=read.over_limit_action,
            new_payee_action=read.new_payee_action,
            destination_allowlist=[entry.to_json_dict() for entry in read.destination_allowlist],
        )


class SpendWindowResult(ToolResult):
    window: str
    limit: str | None = Field(description="Decimal; null: no limit in this window")
    used: str
    remaining: str | None
    resets_at: str


class PaymentCountResult(ToolResult):
    limit: int | None = Field(description="Payments per UTC day; null: no limit")
    used: int
    remaining: int | None
    resets_at: str


class AgentSpendResult(ToolResult):
    agent_id: str
    currency: str
    windows: list[SpendWindowResult]
    payments_today: PaymentCountResult | None = None

    @classmethod
    def of(cls, read: AgentSpendRead) -> AgentSpendResult:
        currency = read.currency
        return cls(
            agent_id=read.agent_id,
            currency=currency,
            windows=[
                SpendWindowResult(
                    window=window.window,
                    limit=_limit(window.limit, currency),
                    used=decimal_of(int(window.used), currency),
                    remaining=_limit(window.remaining, currency),
                    resets_at=window.to_json_dict()["resetsAt"],
                )
                for window in read.windows
            ],
            payments_today=(
                PaymentCountResult(
                    limit=read.payments.limit,
                    used=read.payments.used,
                    remaining=read.payments.remaining,
                    resets_at=read.payments.to_json_dict()["resetsAt"],
                )
                if read.payments is not None
                else None
            ),
        )
