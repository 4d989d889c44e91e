"""Deposits: the instructions a customer follows to send money in, the virtual accounts
and deposit wallets they point at, and matching what arrives to the transfer awaiting it.

A fiat deposit goes to the customer's virtual bank account in that currency (`vba_`, one
per customer and currency) quoting the transfer's reference; a crypto deposit goes to a
deposit wallet made for the transfer (`vwa_`, one address per transfer). A deposit
matches when it arrives where the instructions said, by the rail they named, in the
currency and for exactly the amount; anything else is an unmatched deposit of the
customer (booked RAIL_SETTLEMENT → SUSPENSE until someone routes it). A deposit to a fixed
route's own account makes the route's transfer instead (fixedroutes/routing.py).
"""

from __future__ import annotations

import base64
import hashlib
from datetime import datetime
from typing import Any

import base58
from schwifty import IBAN
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller
from corridor.customers import service as customers
from corridor.fixedroutes import routing
from corridor.kit.errors import NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.money import amount_object
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.customer import Customer
from corridor.models.transfer import Deposit, Transfer, TransferLeg, VirtualAccount
from corridor.rails.base import RailName
from corridor.transfers import events, lifecycle, postings, repository
from corridor.transfers.entries import RAIL_SETTLEMENT, SUSPENSE, Movement, Ref
from corridor.transfers.flows import is_chain
from corridor.transfers.states import ACCEPTING_FUNDS, LegStatus, TransferStatus

VIRTUAL_BANK, VIRTUAL_WALLET = "VIRTUAL_BANK", "VIRTUAL_WALLET"
MATCHED, UNMATCHED = "MATCHED", "UNMATCHED"
# Corridor's own sandbox bank, where virtual accounts live and payouts leave from (the
# same test identifiers the sandbox rails use: a "0" in a BIC's location marks a test BIC,
# 123456780 is the classic test routing number).
SANDBOX_BANK_NAME = "Corridor Sandbox Bank, New York"
SANDBOX_ROUTING_NUMBER = "123456780"
SANDBOX_BIC = "CRDRUS30"
sandbox_iban_bank_code = "10010010"
sandbox_euro_bic = "CRDRDEFF"
account_number_digits = 12
ENTRY_UNMATCHED = "DEPOSIT_UNMATCHED"
reference_chars = 12


def _digest(seed: str, purpose: str, size_bytes: int) -> bytes:
    return hashlib.blake2b(f"{purpose}\x00{seed}".encode(), digest_size=size_bytes).digest()


def sandbox_address(seed: str, chain: str) -> str:
    """A well-formed address on `chain`, derived from a seed (sandbox deposit wallets)."""
    if chain == RailName.SOLANA:
        return base58.b58encode(_digest(seed, "solana", 32)).decode()
    if chain == RailName.TRON:
        return base58.b58encode_check(b"\x41" + _digest(seed, "tron", 20)).decode()
    return "0x" + _digest(seed, "evm", 20).hex()


def deposit_reference(transfer_id: str) -> str:
    """The reference a fiat payer quotes so the deposit finds its transfer."""
    text = base64.b32encode(_digest(transfer_id, "reference", 10)).decode()
    return "CRD" + text[: reference_chars - 3]


def _account_number(seed: str) -> str:
    number = int.from_bytes(_digest(seed, "account", 8), "big") % 10**account_number_digits
    return str(number).zfill(account_number_digits)


# --- Instructions -------------------------------------------------------------------------


def instructions_of(account: VirtualAccount, payment_rail: str) -> dict[str, Any]:
    """Where to send money to `account` (spec 2.7, camelCase): the crypto variant for a
    deposit wallet, the fiat variant for a virtual bank account. A transfer's instructions
    add the amount (and the reference to quote); a fixed route's take any amount."""
    if account.type == VIRTUAL_WALLET:
        fields = {
            "type": "crypto",
            "paymentRail": payment_rail,
            "toAddress": account.address,
            "blockchainMemo": account.blockchain_memo,
        }
    else:
        fields = {
            "type": "fiat",
            "paymentRail": payment_rail,
            "bankName": account.bank_name,
            "accountNumber": account.account_number,
            "routingNumber": account.routing_number,
            "iban": account.iban,
            "bic": account.bic,
            "accountHolderName": account.account_holder_name,
        }
    return {**fields, "accountId": account.id}


async def prepare_instructions(
    session: AsyncSession, *, transfer: Transfer, customer: Customer, now: datetime
) -> None:
    """At submit of a deposit flow: where to send the money; the transfer awaits it."""
    rail = transfer.source["paymentRail"]
    balance = await repository.customer_balance_account(
        session,
        organization_id=transfer.organization_id,
        customer_id=customer.id,
        currency=transfer.source_currency,
    )
    amount = amount_object(transfer.source_amount, transfer.source_currency)
    if is_chain(rail):
        wallet = _deposit_wallet(transfer, customer, balance.id if balance else None, now)
        session.add(wallet)
        instructions = {**instructions_of(wallet, rail), "amount": amount}
    else:
        bank = await _virtual_bank_account(session, customer, transfer, balance, now)
        transfer.deposit_reference = deposit_reference(transfer.id)
        instructions = {
            **instructions_of(bank, rail),
            "reference": transfer.deposit_reference,
            "amount": amount,
        }
    transfer.deposit_instructions = {k: v for k, v in instructions.items() if v is not None}
    transfer.source = {
        **transfer.source,
        "accountId": instructions["accountId"],
        "accountType": VIRTUAL_WALLET if is_chain(rail) else VIRTUAL_BANK,
    }
    transfer.funding_needed = True
    await session.flush()


def _deposit_wallet(
    transfer: Transfer, customer: Customer, balance_account_id: str | None, now: datetime
) -> VirtualAccount:
    wallet_id = new_id("vwa")
    rail = transfer.source["paymentRail"]
    return VirtualAccount(
        id=wallet_id,
        organization_id=transfer.organization_id,
        customer_id=customer.id,
        balance_account_id=balance_account_id,
        transfer_id=transfer.id,
        type=VIRTUAL_WALLET,
        status="ACTIVE",
        currency=transfer.source_currency,
        payment_rail=rail,
        address=sandbox_address(wallet_id, rail),
        created_at=now,
        updated_at=now,
    )


async def _virtual_bank_account(
    session: AsyncSession, customer: Customer, transfer: Transfer, balance, now: datetime
) -> VirtualAccount:
    existing = await repository.customer_virtual_bank_account(
        session,
        organization_id=customer.organization_id,
        customer_id=customer.id,
        currency=transfer.source_currency,
    )
    if existing is not None:
        return existing
    account = new_virtual_bank_account(
        customer,
        currency=transfer.source_currency,
        balance_account_id=balance.id if balance is not None else None,
        now=now,
    )
    session.add(account)
    await session.flush()
    return account


def new_virtual_bank_account(
    customer: Customer,
    *,
    currency: str,
    balance_account_id: str | None,
    now: datetime,
    payment_rail: str | None = None,
) -> VirtualAccount:
    """A fresh `vba_` in the sandbox bank (not yet added to the session): USD account and
    routing number, EUR IBAN and BIC, other currencies account number and BIC."""
    account_id = new_id("vba")
    code = currency
    number = _account_number(account_id)
    account = VirtualAccount(
        id=account_id,
        organization_id=customer.organization_id,
        customer_id=customer.id,
        balance_account_id=balance_account_id,
        transfer_id=None,
        type=VIRTUAL_BANK,
        status="ACTIVE",
        currency=code,
        payment_rail=payment_rail,
        bank_name=SANDBOX_BANK_NAME,
        account_holder_name=f"Corridor Sandbox FBO {customer.name}"[:200],
        created_at=now,
        updated_at=now,
    )
    if code == "USD":
        account.account_number, account.routing_number = number, SANDBOX_ROUTING_NUMBER
    elif code == "EUR":
        iban = IBAN.generate("DE", bank_code=sandbox_iban_bank_code, account_code=number[:10])
        account.iban, account.bic = iban.compact, sandbox_euro_bic
    else:
        account.account_number, account.bic = number, SANDBOX_BIC
    return account


# --- Funds arriving -----------------------------------------------------------------------


async def funds_arrived(
    session: AsyncSession,
    *,
    transfer: Transfer,
    legs: list[TransferLeg],
    from_balance_id: str | None,
    now: datetime,
) -> None:
    """The awaited source amount is in CLEARING: the funding leg completes, and a PENDING
    transfer moves on (one in review or awaiting authorization waits for its decision)."""
    await postings.receive_funds(
        session, transfer=transfer, from_balance_id=from_balance_id, now=now
    )
    if from_balance_id is not None:
        transfer.source_account_id = from_balance_id
    transfer.funds_received_at = now
    transfer.funding_needed = False
    transfer.deposit_instructions = None
    lifecycle.set_leg_status(session, transfer, legs, legs[0], LegStatus.COMPLETED, now=now)
    if transfer.status == TransferStatus.PENDING:
        lifecycle.set_status(session, transfer, legs, TransferStatus.PROCESSING, now=now)
        transfer.next_step_at = now


def _awaiting(transfer: Transfer) -> bool:
    return transfer.funding_needed and transfer.status in ACCEPTING_FUNDS


def _mismatch(transfer: Transfer, *, rail: str, currency: str, amount: int) -> str | None:
    if not _awaiting(transfer):
        return f"transfer {transfer.id} is not waiting for funds"
    if rail != transfer.source.get("paymentRail"):
        return f"expected by {transfer.source.get('paymentRail')}, arrived by {rail}"
    if currency != transfer.source_currency:
        return f"expected {transfer.source_currency}, arrived in {currency}"
    if amount != transfer.source_amount:
        return f"expected {transfer.source_amount} minor units, arrived {amount}"
    return None


async def _destination(
    session: AsyncSession, caller: Caller, *, to_address: str | None, virtual_account_id: str | None
) -> VirtualAccount:
    if (to_address is None) == (virtual_account_id is None):
        raise ValidationFailed("toAddress", "send exactly one of toAddress or virtualAccountId")
    if to_address is not None:
        found = await repository.virtual_account_at(
            session, organization_id=caller.organization_id, address=to_address
        )
        missing = NotFound("deposit address", to_address)
    else:
        assert virtual_account_id is not None
        found = await repository.virtual_account(
            session, organization_id=caller.organization_id, virtual_account_id=virtual_account_id
        )
        if found is not None and found.type != VIRTUAL_BANK:
            found = None
        missing = NotFound("virtual account", virtual_account_id)
    if found is None or not caller.may_see_customer(found.customer_id):
        raise missing
    return found


async def _candidate(
    session: AsyncSession, virtual: VirtualAccount, reference: str | None
) -> Transfer | None:
    if virtual.transfer_id is not None:
        return await repository.transfer_by_id(session, virtual.transfer_id, for_update=True)
    if reference is None:
        return None
    found = await repository.transfer_awaiting_reference(
        session, organization_id=virtual.organization_id, reference=reference
    )
    if found is None or (found.deposit_instructions or {}).get("accountId") != virtual.id:
        return None
    return found


async def receive_deposit(
    session: AsyncSession,
    *,
    caller: Caller,
    payment_rail: str,
    currency: str,
    amount: int,
    to_address: str | None,
    virtual_account_id: str | None,
    from_address: str | None,
    reference: str | None,
    now: datetime,
) -> Deposit:
    """A deposit arrives (the sandbox stands in for the bank or chain)."""
    caller.require_customer_binding()
    if amount <= 0:
        raise ValidationFailed("amount.value", "must be greater than zero")
    virtual = await _destination(
        session, caller, to_address=to_address, virtual_account_id=virtual_account_id
    )
    routed = await routing.route_deposit(
        session,
        virtual=virtual,
        payment_rail=payment_rail,
        currency=currency,
        amount=amount,
        from_address=from_address,
        now=now,
    )
    if routed is not None:
        # A fixed route's own account: its new transfer waits for exactly this deposit.
        transfer, reason = routed.transfer, routed.unmatched_reason
    else:
        transfer = await _candidate(session, virtual, reference)
        reason = (
            "no transfer is waiting for this deposit"
            if transfer is None
            else _mismatch(transfer, rail=payment_rail, currency=currency, amount=amount)
        )
    deposit = Deposit(
        id=new_id("inw"),
        organization_id=virtual.organization_id,
        customer_id=virtual.customer_id,
        virtual_account_id=virtual.id,
        transfer_id=transfer.id if transfer is not None and reason is None else None,
        status=MATCHED if reason is None else UNMATCHED,
        payment_rail=payment_rail,
        currency=currency,
        amount=amount,
        to_address=to_address or virtual.address,
        from_address=from_address,
        reference=reference,
        unmatched_reason=reason,
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_RECEIVED, deposit=deposit, now=now)
    if reason is None:
        assert transfer is not None
        legs = await repository.legs_of(session, transfer.id)
        await funds_arrived(session, transfer=transfer, legs=legs, from_balance_id=None, now=now)
        return deposit
    await _book_unmatched(session, deposit=deposit, now=now)
    return deposit


async def _book_unmatched(session: AsyncSession, *, deposit: Deposit, now: datetime) -> None:
    movement = Movement(
        Ref.system(RAIL_SETTLEMENT, deposit.currency),
        Ref.system(SUSPENSE, deposit.currency),
        deposit.amount,
        deposit.currency,
    )
    await postings.post_movements(
        session,
        organization_id=deposit.organization_id,
        transfer_id=None,
        movements=(movement,),
        kind=ENTRY_UNMATCHED,
        description=f"Unmatched deposit {deposit.id}",
        now=now,
    )
    events.deposit_event(session, events.DEPOSIT_UNMATCHED, deposit=deposit, now=now)


# --- Lists --------------------------------------------------------------------------------


async def unmatched_deposits(
    session: AsyncSession, *, caller: Caller, customer_id: str, page: PageRequest
) -> Page[Deposit]:
    customer = await customers.get_customer(session, caller=caller, customer_id=customer_id)
    statement = repository.unmatched_deposits(
        organization_id=caller.organization_id, customer_id=customer.id
    )
    return await fetch_page(session, statement, Deposit.id, page)


async def virtual_accounts(
    session: AsyncSession, *, caller: Caller, account_id: str, page: PageRequest
) -> Page[VirtualAccount]:
    account = await accounts.get_account(session, caller=caller, account_id=account_id)
    statement = repository.virtual_accounts_of_balance(account.id)
    return await fetch_page(session, statement, VirtualAccount.id, page)


async def simulate_matching_deposit(
    session: AsyncSession, *, transfer: Transfer, legs: list[TransferLeg], now: datetime
) -> Deposit:
    """The sandbox sends exactly what the instructions ask for (sandbox helpers)."""
    instructions = transfer.deposit_instructions or {}
    deposit = Deposit(
        id=new_id("inw"),
        organization_id=transfer.organization_id,
        customer_id=transfer.customer_id,
        virtual_account_id=instructions.get("accountId"),
        transfer_id=transfer.id,
        status=MATCHED,
        payment_rail=transfer.source["paymentRail"],
        currency=transfer.source_currency,
        amount=transfer.source_amount,
        to_address=instructions.get("toAddress"),
        from_address=transfer.source.get("fromAddress"),
        reference=instructions.get("reference"),
        unmatched_reason=None,
        received_at=now,
        created_at=now,
    )
    session.add(deposit)
    await session.flush()
    events.deposit_event(session, events.DEPOSIT_RECEIVED, deposit=deposit, now=now)
    await funds_arrived(session, transfer=transfer, legs=legs, from_balance_id=None, now=now)
    return deposit
