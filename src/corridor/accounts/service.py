"""Balance accounts: opened when a customer becomes ACTIVE, one per configured currency;
read with their balances and history; funded from nowhere in the sandbox."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import repository
from corridor.accounts.errors import CustomerNotActive
from corridor.accounts.schemas import BalanceTransactionRead
from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.kit.db import get_visible
from corridor.kit.errors import SandboxOnly, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.money import is_supported_currency
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.ledger import repository as ledger_repository
from corridor.ledger import rules
from corridor.ledger import service as ledger
from corridor.models.customer import Customer
from corridor.models.event import emit
from corridor.models.ledger import LedgerAccount, Posting

READ_SCOPE = Scope.ACCOUNTS_READ
FUND_SCOPE = Scope.SANDBOX_WRITE

CUSTOMER_BALANCE = rules.CUSTOMER_BALANCE
DEFAULT_ACCOUNT_CURRENCIES = ("USD", "USDC")
ACTIVE = "ACTIVE"


def customer_balance_purpose(customer_id: str, currency_code: str) -> str:
    return f"{CUSTOMER_BALANCE}:{customer_id}:{currency_code}"


async def open_balance_accounts(
    session: AsyncSession, *, customer: Customer, now: datetime
) -> list[LedgerAccount]:
    """Open the customer's missing balance accounts; returns the ones opened now.

    Called in the transaction that makes the customer ACTIVE. Reactivating a customer
    opens nothing twice: an account exists once per customer and currency.
    """
    organization = await repository.organization(session, customer.organization_id)
    assert organization is not None
    currencies = organization.configuration.get("accountCurrencies") or list(
        DEFAULT_ACCOUNT_CURRENCIES
    )
    existing = await repository.currencies_of_customer(
        session, organization_id=customer.organization_id, customer_id=customer.id
    )
    opened = []
    for currency_code in currencies:
        if currency_code in existing:
            continue
        account = LedgerAccount(
            id=new_id("acc"),
            organization_id=customer.organization_id,
            customer_id=customer.id,
            kind=CUSTOMER_BALANCE,
            purpose=customer_balance_purpose(customer.id, currency_code),
            currency=currency_code,
            status=ledger.OPEN,
            allow_negative=False,
            posted_balance=0,
            pending_debits=0,
            pending_credits=0,
            created_at=now,
            updated_at=now,
        )
        session.add(account)
        opened.append(account)
    await session.flush()
    return opened


async def list_accounts(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str | None,
    currency: str | None,
    page: PageRequest,
) -> Page[LedgerAccount]:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    if currency is not None and not is_supported_currency(currency):
        raise ValidationFailed("currency", f"unsupported currency {currency!r}")
    statement = repository.visible_accounts(caller, customer_id=customer_id, currency=currency)
    return await fetch_page(session, statement, LedgerAccount.id, page)


async def list_customer_accounts(
    session: AsyncSession, *, caller: Caller, customer_id: str, page: PageRequest
) -> Page[LedgerAccount]:
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    customer = await get_visible(session, repository.visible_customers(caller), customer_id)
    statement = repository.visible_accounts(caller, customer_id=customer.id)
    return await fetch_page(session, statement, LedgerAccount.id, page)


async def get_account(session: AsyncSession, *, caller: Caller, account_id: str) -> LedgerAccount:
    """The account, if this caller may see it; another organization's id is simply unknown.
    A lookup other domains share: visibility only (read_account is the API's read)."""
    caller.require_customer_binding()
    return await get_visible(session, repository.visible_accounts(caller), account_id)


async def read_account(session: AsyncSession, *, caller: Caller, account_id: str) -> LedgerAccount:
    caller.require_scope(READ_SCOPE)
    return await get_account(session, caller=caller, account_id=account_id)


async def balance_transactions(
    session: AsyncSession, *, caller: Caller, account_id: str, page: PageRequest
) -> Page[BalanceTransactionRead]:
    """The account's postings, newest first, each with its journal entry's description."""
    caller.require_scope(READ_SCOPE)
    account = await get_account(session, caller=caller, account_id=account_id)
    found = await fetch_page(
        session, ledger_repository.postings_of_account(account.id), Posting.id, page
    )
    descriptions = await ledger_repository.entry_descriptions(
        session, [posting.journal_entry_id for posting in found.items]
    )
    return found.map(
        lambda posting: BalanceTransactionRead.of(
            posting, description=descriptions[posting.journal_entry_id]
        )
    )


async def fund_in_sandbox(
    session: AsyncSession,
    *,
    caller: Caller,
    account_id: str,
    amount: int,
    currency: str,
    sandbox: bool,
    now: datetime,
) -> LedgerAccount:
    """Credit a customer's account from the organization's SANDBOX_FUNDING account.

    The entry and its `account.funded` event commit together with the caller's unit of
    work. Returns the account after the credit.
    """
    if not sandbox:
        raise SandboxOnly()
    caller.require_scope(FUND_SCOPE)
    account = await get_account(session, caller=caller, account_id=account_id)
    if currency != account.currency:
        raise ValidationFailed(
            "amount.currency", f"must be the account's currency, {account.currency}"
        )
    if amount <= 0:
        raise ValidationFailed("amount.value", "must be greater than zero")
    assert account.customer_id is not None
    customer = await repository.customer(session, account.customer_id)
    assert customer is not None, "a balance account belongs to a customer of its organization"
    if customer.status != ACTIVE:
        raise CustomerNotActive(customer.id, customer.status)
    funding = await ledger.system_account(
        session,
        organization_id=caller.organization_id,
        kind=rules.SANDBOX_FUNDING,
        currency=currency,
        now=now,
    )
    posted = await ledger.post_entry(
        session,
        organization_id=caller.organization_id,
        kind=rules.ENTRY_SANDBOX_FUNDING,
        description="Sandbox funding",
        lines=rules.movement(
            debit_account_id=funding.id,
            credit_account_id=account.id,
            amount=amount,
            currency=currency,
        ),
        now=now,
    )
    transaction = BalanceTransactionRead.of(
        posted.posting_on(account.id), description=posted.journal_entry.description
    )
    emit(
        session,
        organization_id=caller.organization_id,
        event_type="account.funded",
        data=transaction.to_json_dict(),
        tags=[account.id, customer.id],
        at=now,
    )
    return account
