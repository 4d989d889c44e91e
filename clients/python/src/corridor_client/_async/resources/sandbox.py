"""Sandbox-only operations that stand in for the outside world (403 in production)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._async._http import AsyncResource
from corridor_client.models import (
    BalanceRead,
    ClockAdvance,
    ClockRead,
    CustomerRead,
    DepositRead,
    SandboxDeposit,
    SandboxFund,
    SandboxLegStatus,
    SandboxVerificationStatus,
    TransferRead,
)


class AsyncSandbox(AsyncResource):
    async def set_verification_status(
        self,
        customer_id: str,
        params: SandboxVerificationStatus | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> CustomerRead:
        """Decide a customer's verification: `status` ACTIVE, REJECTED, RFI_PENDING, …"""
        path = _calls.path("/v1/sandbox/customers/{}/verification-status", customer_id)
        body = _calls.body(SandboxVerificationStatus, params, fields)
        return await self._send(_calls.action(path, body), CustomerRead)

    async def fund_account(
        self,
        account_id: str,
        params: SandboxFund | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> BalanceRead:
        """Credit a balance account: `amount={"currency": "USD", "value": "12550"}`."""
        path = _calls.path("/v1/sandbox/accounts/{}/fund", account_id)
        body = _calls.body(SandboxFund, params, fields)
        return await self._send(_calls.action(path, body), BalanceRead)

    async def simulate_deposit(
        self,
        params: SandboxDeposit | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> DepositRead:
        """A deposit arrives at a virtual account, virtual wallet or deposit address."""
        body = _calls.body(SandboxDeposit, params, fields)
        return await self._send(
            _calls.create("/v1/sandbox/deposits", body, idempotency_key), DepositRead
        )

    async def complete_transfer(self, transfer_id: str) -> TransferRead:
        """Run a transfer's remaining legs to the end at once."""
        path = _calls.path("/v1/sandbox/transfers/{}/complete", transfer_id)
        return await self._send(_calls.action(path), TransferRead)

    async def set_leg_status(
        self,
        transfer_id: str,
        leg_id: str,
        params: SandboxLegStatus | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> TransferRead:
        """Force the current leg COMPLETED, FAILED or (a settled payout) RETURNED."""
        path = _calls.path("/v1/sandbox/transfers/{}/legs/{}/status", transfer_id, leg_id)
        body = _calls.body(SandboxLegStatus, params, fields)
        return await self._send(_calls.action(path, body), TransferRead)

    async def get_clock(self) -> ClockRead:
        """The organization's sandbox clock: `now`, `frozen`, `offsetSeconds`."""
        return await self._send(_calls.read("/v1/sandbox/clock"), ClockRead)

    async def advance_clock(
        self, params: ClockAdvance | Mapping[str, Any] | None = None, /, **fields: Any
    ) -> ClockRead:
        """Move the organization's clock forward: `seconds=86400` or `to="2026-12-01T14:00:00Z"`
        (never backwards), optionally `freeze=True`. Due work follows within seconds."""
        body = _calls.body(ClockAdvance, params, fields)
        return await self._send(_calls.action("/v1/sandbox/clock/advance", body), ClockRead)

    async def reset_clock(self) -> ClockRead:
        """Back to real time."""
        return await self._send(_calls.action("/v1/sandbox/clock/reset"), ClockRead)
