"""Balance accounts: balances, their history, virtual accounts and transfers."""

from __future__ import annotations

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource
from corridor_client.models import (
    AccountRead,
    BalanceRead,
    BalanceTransactionRead,
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
