"""Where a customer sends money in: deposit instructions, and the virtual bank accounts and
deposit wallets they point at.

A fiat deposit goes to the customer's virtual bank account in that currency (`vba_`, one
per customer and currency) quoting the transfer's reference; a crypto deposit goes to a
deposit wallet made for the transfer (`vwa_`, one address per transfer).
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
from corridor.auth.scopes import Scope
from corridor.kit.ids import new_id
from corridor.kit.money import amount_object
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.customer import Customer
from corridor.models.transfer import Transfer, VirtualAccount
from corridor.rails.base import RailName
from corridor.rails.registry import adapter_for
from corridor.transfers import repository
from corridor.transfers.rules.flows import is_chain

VIRTUAL_BANK, VIRTUAL_WALLET = "VIRTUAL_BANK", "VIRTUAL_WALLET"
# Corridor's own sandbox bank, where virtual accounts live and payouts leave from (the
# same test identifiers the sandbox rails use: a "0" in a BIC's location marks a test BIC,
# 123456780 is the classic test routing number).
SANDBOX_BANK_NAME = "Corridor Sandbox Bank, New York"
SANDBOX_ROUTING_NUMBER = "123456780"
SANDBOX_BIC = "CRDRUS30"
sandbox_iban_bank_code = "10010010"
sandbox_euro_bic = "CRDRDEFF"
account_number_digits = 12
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
        derived = await derived_address(session, wallet, now=now)
        if derived is not None:
            wallet.address = derived
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


async def derived_address(
    session: AsyncSession, wallet: VirtualAccount, *, now: datetime
) -> str | None:
    """A chain paid on a real node with a deposit seed gives the wallet its next HD address
    (rails/evm.py); the sandbox's chains keep the made-up one."""
    assert wallet.payment_rail is not None
    deposits = getattr(adapter_for(RailName(wallet.payment_rail)), "deposits", None)
    if deposits is None:
        return None
    address: str = await deposits.new_address(
        session,
        virtual_account_id=wallet.id,
        organization_id=wallet.organization_id,
        now=now,
    )
    return address


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


# --- Lists ---


async def virtual_accounts(
    session: AsyncSession, *, caller: Caller, account_id: str, page: PageRequest
) -> Page[VirtualAccount]:
    caller.require_scope(Scope.ACCOUNTS_READ)
    account = await accounts.get_account(session, caller=caller, account_id=account_id)
    statement = repository.virtual_accounts_of_balance(account.id)
    return await fetch_page(session, statement, VirtualAccount.id, page)
