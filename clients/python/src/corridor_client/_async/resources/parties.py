"""The other side of a payment: counterparties, external bank accounts and wallets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._async._http import AsyncPager, AsyncResource
from corridor_client.models import (
    BankCodeValidation,
    BankCodeValidationRead,
    BeneficiaryType,
    Chain,
    CounterpartyCreate,
    CounterpartyRead,
    CounterpartyUpdate,
    ExternalAccountCreate,
    ExternalAccountRead,
    ExternalAccountUpdate,
    ExternalWalletCreate,
    ExternalWalletRead,
    ExternalWalletUpdate,
    PartyStatus,
)


class AsyncCounterparties(AsyncResource):
    async def create(
        self,
        params: CounterpartyCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> CounterpartyRead:
        body = _calls.body(CounterpartyCreate, params, fields)
        return await self._send(
            _calls.create("/v1/counterparties", body, idempotency_key), CounterpartyRead
        )

    def list(
        self,
        *,
        customer_id: str | None = None,
        beneficiary_type: BeneficiaryType | str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[CounterpartyRead]:
        return self._list(
            "/v1/counterparties",
            CounterpartyRead,
            customerId=customer_id,
            beneficiaryType=beneficiary_type,
            limit=limit,
        )

    async def retrieve(self, counterparty_id: str) -> CounterpartyRead:
        path = _calls.path("/v1/counterparties/{}", counterparty_id)
        return await self._send(_calls.read(path), CounterpartyRead)

    async def update(
        self,
        counterparty_id: str,
        params: CounterpartyUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> CounterpartyRead:
        path = _calls.path("/v1/counterparties/{}", counterparty_id)
        body = _calls.body(CounterpartyUpdate, params, fields)
        return await self._send(_calls.update(path, body), CounterpartyRead)

    async def delete(self, counterparty_id: str) -> None:
        path = _calls.path("/v1/counterparties/{}", counterparty_id)
        await self._send_for_nothing(_calls.delete(path))


class AsyncExternalAccounts(AsyncResource):
    async def create(
        self,
        params: ExternalAccountCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ExternalAccountRead:
        """A bank account of a customer or counterparty: `account_number` and
        `routing_number` (US), or `iban` (+ `bic` for SWIFT)."""
        body = _calls.body(ExternalAccountCreate, params, fields)
        return await self._send(
            _calls.create("/v1/external-accounts", body, idempotency_key), ExternalAccountRead
        )

    def list(
        self,
        *,
        customer_id: str | None = None,
        counterparty_id: str | None = None,
        status: PartyStatus | str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[ExternalAccountRead]:
        return self._list(
            "/v1/external-accounts",
            ExternalAccountRead,
            customerId=customer_id,
            counterpartyId=counterparty_id,
            status=status,
            limit=limit,
        )

    async def retrieve(self, external_account_id: str) -> ExternalAccountRead:
        path = _calls.path("/v1/external-accounts/{}", external_account_id)
        return await self._send(_calls.read(path), ExternalAccountRead)

    async def update(
        self,
        external_account_id: str,
        params: ExternalAccountUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> ExternalAccountRead:
        path = _calls.path("/v1/external-accounts/{}", external_account_id)
        body = _calls.body(ExternalAccountUpdate, params, fields)
        return await self._send(_calls.update(path, body), ExternalAccountRead)

    async def close(
        self, external_account_id: str, *, idempotency_key: str | None = None
    ) -> ExternalAccountRead:
        path = _calls.path("/v1/external-accounts/{}/close", external_account_id)
        return await self._send(_calls.action(path, None, idempotency_key), ExternalAccountRead)

    async def validate_bank_code(
        self, params: BankCodeValidation | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> BankCodeValidationRead:
        """Check a routing number, IBAN, BIC or sort code: `valid` with a `reason` if not."""
        body = _calls.body(BankCodeValidation, params, fields)
        call = _calls.action("/v1/external-accounts/validate-bank-code", body)
        return await self._send(call, BankCodeValidationRead)


class AsyncExternalWallets(AsyncResource):
    async def create(
        self,
        params: ExternalWalletCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> ExternalWalletRead:
        """A blockchain address of a customer or counterparty: `chain`, `address`."""
        body = _calls.body(ExternalWalletCreate, params, fields)
        return await self._send(
            _calls.create("/v1/external-wallets", body, idempotency_key), ExternalWalletRead
        )

    def list(
        self,
        *,
        customer_id: str | None = None,
        counterparty_id: str | None = None,
        status: PartyStatus | str | None = None,
        chain: Chain | str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[ExternalWalletRead]:
        return self._list(
            "/v1/external-wallets",
            ExternalWalletRead,
            customerId=customer_id,
            counterpartyId=counterparty_id,
            status=status,
            chain=chain,
            limit=limit,
        )

    async def retrieve(self, external_wallet_id: str) -> ExternalWalletRead:
        path = _calls.path("/v1/external-wallets/{}", external_wallet_id)
        return await self._send(_calls.read(path), ExternalWalletRead)

    async def update(
        self,
        external_wallet_id: str,
        params: ExternalWalletUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> ExternalWalletRead:
        path = _calls.path("/v1/external-wallets/{}", external_wallet_id)
        body = _calls.body(ExternalWalletUpdate, params, fields)
        return await self._send(_calls.update(path, body), ExternalWalletRead)
