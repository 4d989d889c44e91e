"""Transfers and their legs, quotes, deposits, virtual accounts and fixed routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column, partial_index

# Transfer columns most rows leave NULL (migration 20261127_0012).
SPARSE_COLUMNS = (
    "destination_account_id",
    "counterparty_id",
    "client_reference_id",
    "deposit_reference",
    "agent_id",
    "agent_approval_status",
    "parent_transfer_id",
    "fixed_route_id",
)


class Transfer(Base):
    """The unit of work: a DRAFT until submitted, then carried out leg by leg.

    `source_request`/`destination_request` keep what the client sent (PATCH merges into
    them); `source`/`destination` are the resolved objects the API shows (spec 2.3, 2.4).
    Amounts are integer minor units of their currency.
    """

    __tablename__ = "transfers"
    id_prefix, resource_name = "tfr", "transfer"
    __table_args__ = (
        Index("ix_transfers_organization_id_id", "organization_id", "id"),
        Index("ix_transfers_organization_id_customer_id", "organization_id", "customer_id"),
        # The console's volume chart: one organization's transfers of the last 30 days.
        Index("ix_transfers_organization_id_created_at", "organization_id", "created_at"),
        # Columns most transfers leave empty are found by value only: their indexes hold
        # the rows that have one, so a transfer without costs no entry in them.
        *(partial_index("transfers", column) for column in SPARSE_COLUMNS),
        # Whether an agent paid a payee before (agents/enforcement.py, newPayeeAction).
        partial_index("transfers", "agent_payee_id", leading=("agent_id",)),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"))
    flow: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(30), index=True)
    source_request: Mapped[dict[str, Any]]
    destination_request: Mapped[dict[str, Any]]
    source: Mapped[dict[str, Any]]
    destination: Mapped[dict[str, Any]]
    # The balance accounts the transfer debits or credits (for an account's transfer list).
    source_account_id: Mapped[str | None] = mapped_column(String(40), index=True)
    destination_account_id: Mapped[str | None] = mapped_column(String(40))
    source_currency: Mapped[str] = mapped_column(String(10))
    source_amount: Mapped[int] = mapped_column(BigInteger)
    destination_currency: Mapped[str] = mapped_column(String(10))
    destination_amount: Mapped[int] = mapped_column(BigInteger)
    counterparty_id: Mapped[str | None] = mapped_column(ForeignKey("counterparties.id"))
    is_third_party: Mapped[bool] = mapped_column(Boolean, default=False)
    quote_id: Mapped[str | None] = mapped_column(String(40))
    client_reference_id: Mapped[str | None] = mapped_column(String(256))
    remarks: Mapped[str | None] = mapped_column(String(1000))
    internal_remarks: Mapped[str | None] = mapped_column(String(1000))
    payment_reason: Mapped[str | None] = mapped_column(String(60))
    document_ids: Mapped[list[Any]] = mapped_column(default=list)
    # What the client asked for: None when it named no fee (the organization default applies).
    developer_fee_request: Mapped[dict[str, Any] | None]
    developer_fee_fixed: Mapped[int | None] = mapped_column(BigInteger)
    # An exact decimal string, e.g. "0.005".
    developer_fee_percent: Mapped[str | None] = mapped_column(String(40))
    developer_fee_amount: Mapped[int | None] = mapped_column(BigInteger)
    developer_fee_tx_hash: Mapped[str | None] = mapped_column(String(128))
    exchange_rate: Mapped[str | None] = mapped_column(String(64))
    reference_rate: Mapped[str | None] = mapped_column(String(64))
    reference_rate_as_of: Mapped[datetime | None]
    reference_provider: Mapped[str | None] = mapped_column(String(60))
    funding_needed: Mapped[bool] = mapped_column(Boolean, default=False)
    funds_received_at: Mapped[datetime | None]
    deposit_instructions: Mapped[dict[str, Any] | None]
    deposit_reference: Mapped[str | None] = mapped_column(String(40))
    # The hold placed on the source balance at submit; cleared when captured or released.
    hold_account_id: Mapped[str | None] = mapped_column(String(40))
    hold_amount: Mapped[int | None] = mapped_column(BigInteger)
    current_leg_index: Mapped[int | None] = mapped_column(Integer)
    refund: Mapped[dict[str, Any] | None]
    returned_to_account_id: Mapped[str | None] = mapped_column(String(40))
    returned_at: Mapped[datetime | None]
    uetr: Mapped[str | None] = mapped_column(String(36))
    imad: Mapped[str | None] = mapped_column(String(64))
    omad: Mapped[str | None] = mapped_column(String(64))
    ach_trace_number: Mapped[str | None] = mapped_column(String(32))
    tx_hash: Mapped[str | None] = mapped_column(String(128))
    originating_account: Mapped[dict[str, Any] | None]
    system_remark: Mapped[str | None] = mapped_column(String(500))
    metadata_: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    estimated_settlement_at: Mapped[datetime | None]
    next_cutoff_at: Mapped[datetime | None]
    cutoff_timezone: Mapped[str | None] = mapped_column(String(64))
    agent_id: Mapped[str | None] = mapped_column(String(40))
    agent_approval_status: Mapped[str | None] = mapped_column(String(20))
    # The agent mandate the payment consumed (or, parked for approval, would consume).
    mandate_id: Mapped[str | None] = mapped_column(String(40))
    # An agent's transfer: the payee it pays (the external account or wallet it names, else
    # its counterparty), set when it is submitted or parked (newPayeeAction).
    agent_payee_id: Mapped[str | None] = mapped_column(String(40))
    cancellation: Mapped[dict[str, Any] | None]
    review: Mapped[dict[str, Any] | None]
    authorization: Mapped[dict[str, Any] | None]
    created_by: Mapped[str] = mapped_column(String(40))
    submitted_by: Mapped[str | None] = mapped_column(String(40))
    submitted_at: Mapped[datetime | None]
    # A system-made transfer (FEE_CRYPTO) points at the transfer it belongs to.
    parent_transfer_id: Mapped[str | None] = mapped_column(String(40))
    # The fixed route whose deposit created this transfer.
    fixed_route_id: Mapped[str | None] = mapped_column(String(40))
    # When the engine should look at this transfer next; None while it waits on nobody's
    # work but a person's or a depositor's.
    next_step_at: Mapped[datetime | None] = mapped_column(index=True)
    created_at: Mapped[datetime] = mapped_column(index=True)
    updated_at: Mapped[datetime]


class TransferLeg(Base):
    """One step of a transfer (API.md section 6), run strictly in `sequence` order."""

    __tablename__ = "transfer_legs"
    id_prefix, resource_name = "tleg", "leg"
    # Its index serves lookups by transfer_id too: no index of that column alone.
    __table_args__ = (UniqueConstraint("transfer_id", "sequence"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    transfer_id: Mapped[str] = mapped_column(ForeignKey("transfers.id"))
    sequence: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(30))
    status: Mapped[str] = mapped_column(String(20))
    input_currency: Mapped[str] = mapped_column(String(10))
    output_currency: Mapped[str] = mapped_column(String(10))
    input_rail: Mapped[str | None] = mapped_column(String(20))
    output_rail: Mapped[str | None] = mapped_column(String(20))
    input_amount: Mapped[int] = mapped_column(BigInteger)
    output_amount: Mapped[int] = mapped_column(BigInteger)
    developer_fee_amount: Mapped[int | None] = mapped_column(BigInteger)
    started_at: Mapped[datetime | None]
    completed_at: Mapped[datetime | None]
    uetr: Mapped[str | None] = mapped_column(String(36))
    imad: Mapped[str | None] = mapped_column(String(64))
    omad: Mapped[str | None] = mapped_column(String(64))
    ach_trace_number: Mapped[str | None] = mapped_column(String(32))
    tx_hash: Mapped[str | None] = mapped_column(String(128))
    fee_tx_hash: Mapped[str | None] = mapped_column(String(128))
    rail_reference: Mapped[str | None] = mapped_column(String(128))
    # The rail's Submission (references and schedule), kept to poll its status.
    submission: Mapped[dict[str, Any] | None]
    failure_reason: Mapped[str | None] = mapped_column(String(500))
    rail_attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class VirtualAccount(Base):
    """Where a customer sends money in: a virtual bank account (`vba_`, one per customer and
    currency, deposits told apart by reference) or a deposit wallet (`vwa_`, one address
    per transfer)."""

    __tablename__ = "virtual_accounts"
    __table_args__ = (Index("ix_virtual_accounts_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    # The customer's balance account in this currency, when it has one.
    balance_account_id: Mapped[str | None] = mapped_column(
        ForeignKey("ledger_accounts.id"), index=True
    )
    transfer_id: Mapped[str | None] = mapped_column(ForeignKey("transfers.id"), index=True)
    type: Mapped[str] = mapped_column(String(20))  # VIRTUAL_BANK, VIRTUAL_WALLET
    status: Mapped[str] = mapped_column(String(20))  # ACTIVE, CLOSED
    currency: Mapped[str] = mapped_column(String(10))
    payment_rail: Mapped[str | None] = mapped_column(String(20))
    bank_name: Mapped[str | None] = mapped_column(String(200))
    account_holder_name: Mapped[str | None] = mapped_column(String(200))
    account_number: Mapped[str | None] = mapped_column(String(34), unique=True)
    routing_number: Mapped[str | None] = mapped_column(String(9))
    iban: Mapped[str | None] = mapped_column(String(34), unique=True)
    bic: Mapped[str | None] = mapped_column(String(11))
    address: Mapped[str | None] = mapped_column(String(128), unique=True)
    blockchain_memo: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class Deposit(Base):
    """Money that arrived from outside (`inw_`): matched to a transfer, or unmatched."""

    __tablename__ = "deposits"
    __table_args__ = (
        Index("ix_deposits_organization_id_id", "organization_id", "id"),
        Index("ix_deposits_reference", "organization_id", "reference"),  # reconciliation
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    virtual_account_id: Mapped[str | None] = mapped_column(
        ForeignKey("virtual_accounts.id"), index=True
    )
    transfer_id: Mapped[str | None] = mapped_column(ForeignKey("transfers.id"), index=True)
    status: Mapped[str] = mapped_column(String(20), index=True)  # MATCHED, UNMATCHED
    payment_rail: Mapped[str] = mapped_column(String(20))
    currency: Mapped[str] = mapped_column(String(10))
    amount: Mapped[int] = mapped_column(BigInteger)
    to_address: Mapped[str | None] = mapped_column(String(128))
    from_address: Mapped[str | None] = mapped_column(String(128))
    reference: Mapped[str | None] = mapped_column(String(140))
    unmatched_reason: Mapped[str | None] = mapped_column(String(200))
    received_at: Mapped[datetime]
    created_at: Mapped[datetime]


class Quote(Base):
    """A price for a conversion (`quo_`), locked until `expires_at`.

    Made by `POST /v1/quotes` (just currencies and an amount) or by quoting an intent
    (`POST /v1/transfers/intents/quote`, which also makes a DRAFT transfer and sets
    `transfer_id`). `exchange_rate` is all-in on minor units, as on a transfer;
    `locked_rate` is the exact destination-minor-units-per-source-minor-unit rate of the
    conversion (a fraction "n/d"), which a confirmed transfer converts at.
    Status: ACTIVE → USED (confirmed by a transfer) | EXPIRED (seen after `expires_at`).
    """

    __tablename__ = "quotes"
    id_prefix, resource_name = "quo", "quote"
    __table_args__ = (Index("ix_quotes_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))
    source_currency: Mapped[str] = mapped_column(String(10))
    destination_currency: Mapped[str] = mapped_column(String(10))
    source_amount: Mapped[int] = mapped_column(BigInteger)
    destination_amount: Mapped[int] = mapped_column(BigInteger)
    fee_amount: Mapped[int] = mapped_column(BigInteger, default=0)
    exchange_rate: Mapped[str | None] = mapped_column(String(64))
    locked_rate: Mapped[str | None] = mapped_column(String(200))
    reference_rate: Mapped[str | None] = mapped_column(String(64))
    reference_rate_as_of: Mapped[datetime | None]
    reference_provider: Mapped[str | None] = mapped_column(String(60))
    # What was priced: the source/destination/fee requests of the intent, when any.
    request: Mapped[dict[str, Any]] = mapped_column(default=dict)
    transfer_id: Mapped[str | None] = mapped_column(ForeignKey("transfers.id"), index=True)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class FixedRoute(Base):
    """A standing instruction (`frt_`): money arriving at `virtual_account_id` is converted
    and paid out to a fixed destination, each deposit creating a transfer
    (`transfers.fixed_route_id`).

    type: VIRTUAL_BANK_ACCOUNT | VIRTUAL_WALLET; status: ACTIVE | PAUSED | CLOSED.
    `destination_request` is what the client sent (the same shape as a transfer's
    destination), `destination` the resolved form the API shows.
    """

    __tablename__ = "fixed_routes"
    id_prefix, resource_name = "frt", "fixed route"
    __table_args__ = (Index("ix_fixed_routes_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    type: Mapped[str] = mapped_column(String(30))
    status: Mapped[str] = mapped_column(String(20))
    virtual_account_id: Mapped[str] = mapped_column(ForeignKey("virtual_accounts.id"), unique=True)
    source_currency: Mapped[str] = mapped_column(String(10))
    source_payment_rail: Mapped[str] = mapped_column(String(20))
    destination_request: Mapped[dict[str, Any]]
    destination: Mapped[dict[str, Any]]
    counterparty_id: Mapped[str | None] = mapped_column(ForeignKey("counterparties.id"))
    developer_fee_request: Mapped[dict[str, Any] | None]
    client_reference_id: Mapped[str | None] = mapped_column(String(256))
    remarks: Mapped[str | None] = mapped_column(String(1000))
    internal_remarks: Mapped[str | None] = mapped_column(String(1000))
    payment_reason: Mapped[str | None] = mapped_column(String(60))
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class Agent(Base):
    """A spending identity (`agt_`) bound to an ACTIVE customer and one funding account.

    Limits are minor units of `currency` (each nullable: no limit). `destination_allowlist`
    is a list of `{"type": counterparty|external_account|external_wallet, "id": …}`.
    status: ACTIVE | PAUSED | REVOKED (irreversible). What it spent is kept in its
    `AgentSpendWindow` counters, which its submits add to guarded by its limits.
    """

    __tablename__ = "agents"
    id_prefix, resource_name = "agt", "agent"
    __table_args__ = (Index("ix_agents_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    source_account_id: Mapped[str] = mapped_column(ForeignKey("ledger_accounts.id"))
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str | None] = mapped_column(String(1000))
    currency: Mapped[str] = mapped_column(String(10))
    per_transfer_limit: Mapped[int | None] = mapped_column(BigInteger)
    daily_limit: Mapped[int | None] = mapped_column(BigInteger)
    monthly_limit: Mapped[int | None] = mapped_column(BigInteger)
    # At most this many of its payments submitted per UTC day (None: no limit).
    daily_payment_count: Mapped[int | None] = mapped_column(Integer)
    destination_allowlist: Mapped[list[Any]] = mapped_column(default=list)
    over_limit_action: Mapped[str] = mapped_column(String(30))
    # Its payments must each be admitted by one of its mandates (agent_mandates).
    require_mandate: Mapped[bool] = mapped_column(Boolean, default=False)
    # ALLOW | REQUEST_APPROVAL: a payment to a payee it never paid waits for an owner.
    new_payee_action: Mapped[str] = mapped_column(String(30), default="ALLOW")
    status: Mapped[str] = mapped_column(String(20), index=True)
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class AgentSpendWindow(Base):
    """What an agent has spent in one UTC calendar day or month, in one currency: the
    counter a submit of the agent's transfer adds to in its own write (guarded by the
    agent's limit when the agent itself submits), and a transfer that stops counting
    (cancelled, failed, reversed) takes back off (transfers/spending.py). Reading what an
    agent spent is two rows by id, never a sum over its transfers.

    The id names the window: `<agent id> <currency> <DAY|MONTH> <YYYY-MM-DD>` (the first
    day of a month window), so a submit finds or makes its rows without a lookup.
    """

    __tablename__ = "agent_spend_windows"

    id: Mapped[str] = mapped_column(String(80), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id"), index=True)
    currency: Mapped[str] = mapped_column(String(10))
    period: Mapped[str] = mapped_column(String(5))  # DAY | MONTH
    starts_at: Mapped[datetime]
    spent: Mapped[int] = mapped_column(BigInteger)
    # How many payments counted in the window (the agent's dailyPaymentCount).
    payments: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime]
