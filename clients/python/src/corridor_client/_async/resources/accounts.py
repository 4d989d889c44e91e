"""Balance accounts: balances, their history, virtual accounts and transfers."""

from __future__ import annotations

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource
from corridor_client.models import (
    AccountRead,
    BalanceRead,
    BalanceTransactionRead,
    NonBalanceStatementRead,
    StatementRead,
    TransferRead,
    VirtualAccountRead,
)


class AsyncAccounts(AsyncResource):
    def list(
        self,
        *,
        customer_id: str | None = None,
        currency: str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[AccountRead]:
        return self._list(
            "/v1/accounts", AccountRead, customerId=customer_id, currency=currency, limit=limit
        )

    async def retrieve(self, account_id: str) -> AccountRead:
        return await self._send(
            _calls.read(_calls.path("/v1/accounts/{}", account_id)), AccountRead
        )

    async def balance(self, account_id: str) -> BalanceRead:
        """Available, pending (held) and total, as Amounts."""
        path = _calls.path("/v1/accounts/{}/balance", account_id)
        return await self._send(_calls.read(path), BalanceRead)

    def list_balance_transactions(
        self, account_id: str, *, limit: int | None = None
    ) -> AsyncPager[BalanceTransactionRead]:
        path = _calls.path("/v1/accounts/{}/balance-transactions", account_id)
        return self._list(path, BalanceTransactionRead, limit=limit)

    def list_virtual_accounts(
        self, account_id: str, *, limit: int | None = None
    ) -> AsyncPager[VirtualAccountRead]:
        path = _calls.path("/v1/accounts/{}/virtual-accounts", account_id)
        return self._list(path, VirtualAccountRead, limit=limit)

    def list_transfers(
        self, account_id: str, *, limit: int | None = None
    ) -> AsyncPager[TransferRead]:
        path = _calls.path("/v1/accounts/{}/transfers", account_id)
        return self._list(path, TransferRead, limit=limit)

    async def statement(self, account_id: str, period: str) -> StatementRead:
        """The UTC month `period` (YYYY-MM): opening balance, every balance transaction with
        the running balance, closing balance, totals in and out."""
        path = _calls.path("/v1/accounts/{}/statements/{}", account_id, period)
        return await self._send(_calls.read(path), StatementRead)

    async def statement_file(self, account_id: str, period: str, *, format: str = "pdf") -> bytes:
        """The same statement as a file to keep: `format` "pdf" or "csv"."""
        path = _calls.path("/v1/accounts/{}/statements/{}", account_id, period)
        response = await self._transport.send(_calls.read(path, {"format": format}))
        return response.content

    async def non_balance_statement(self, account_id: str, period: str) -> NonBalanceStatementRead:
        """The month's transfers that passed through the account without touching its balance."""
        path = _calls.path("/v1/accounts/{}/statements/{}/non-balance", account_id, period)
        return await self._send(_calls.read(path), NonBalanceStatementRead)
