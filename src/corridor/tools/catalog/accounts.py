"""Balance account tools: list accounts, a balance, its transactions."""

from __future__ import annotations

from corridor.accounts import service as accounts
from corridor.accounts.schemas import AccountRead, BalanceRead
from corridor.auth.scopes import Scope
from corridor.kit.schemas import CurrencyCode
from corridor.tools.base import Tool, ToolContext, ToolInput, ToolKind
from corridor.tools.catalog.common import AccountId, CustomerId, PagedInput
from corridor.tools.results import BalanceResult, BalanceTransactionResult, ListResult


class ListAccounts(PagedInput):
    customer_id: CustomerId | None = None
    currency: CurrencyCode | None = None


class AccountInput(ToolInput):
    account_id: AccountId


class AccountPage(PagedInput):
    account_id: AccountId


async def list_accounts(context: ToolContext, args: ListAccounts) -> ListResult[AccountRead]:
    found = await accounts.list_accounts(
        context.session,
        caller=context.caller,
        customer_id=args.customer_id,
        currency=args.currency,
        page=args.page(),
    )
    return ListResult[AccountRead].of(found, AccountRead.of)


async def get_balance(context: ToolContext, args: AccountInput) -> BalanceResult:
    account = await accounts.read_account(
        context.session, caller=context.caller, account_id=args.account_id
    )
    return BalanceResult.of(BalanceRead.of(account, as_of=context.now))


async def list_balance_transactions(
    context: ToolContext, args: AccountPage
) -> ListResult[BalanceTransactionResult]:
    found = await accounts.balance_transactions(
        context.session, caller=context.caller, account_id=args.account_id, page=args.page()
    )
    return ListResult[BalanceTransactionResult].of(found, BalanceTransactionResult.of)


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_accounts",
        title="List balance accounts",
        description=(
            "List balance accounts (acc_…), one per customer and currency. Filter by "
            "customerId or currency."
        ),
        input=ListAccounts,
        result=ListResult[AccountRead],
        kind=ToolKind.READ,
        scope=Scope.ACCOUNTS_READ,
        handler=list_accounts,
    ),
    Tool(
        name="get_balance",
        title="Get an account's balance",
        description=(
            "The balance of one account as decimals in major units: available (may be spent "
            "now), pending (incoming) and total."
        ),
        input=AccountInput,
        result=BalanceResult,
        kind=ToolKind.READ,
        scope=Scope.ACCOUNTS_READ,
        handler=get_balance,
    ),
    Tool(
        name="list_balance_transactions",
        title="List an account's balance transactions",
        description=(
            "Every credit and debit of one account, newest first, with the balance after each."
        ),
        input=AccountPage,
        result=ListResult[BalanceTransactionResult],
        kind=ToolKind.READ,
        scope=Scope.ACCOUNTS_READ,
        handler=list_balance_transactions,
    ),
)
