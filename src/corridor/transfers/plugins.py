"""The seams where other domains take part in a transfer's life.

Agents (spend limits on submit), quotes (a locked rate for a draft) and fixed routes (a
deposit that makes its own transfer) sit above transfers, and transfers never imports
them: it owns these protocols, and the composition root (`corridor.app.transfer_plugins`)
builds the `TransferPlugins` that every service call reaching a seam is handed. Every
field is required, so a missing plug-in is an error at start-up, never a silent skip.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import fx
from corridor.kit.errors import CorridorError
from corridor.models.transfer import Transfer, TransferLeg, VirtualAccount


@dataclass(frozen=True, slots=True)
class HoldForApproval:
    """A guard's verdict that the submit waits for an owner's decision (spec 3.1): the
    draft is kept, parked, and the caller is answered with `refusal`."""

    refusal: CorridorError


class SubmitGuard(Protocol):
    """Looks at every submit before it happens, under the locks it takes itself."""

    def concerns(self, *, caller: Caller, transfer: Transfer) -> bool:
        """Whether this submit is the guard's business at all (an agent's key, a quote's
        lock). Asked without the database: a submit no guard concerns may take the express
        create+submit (transfers/express), which calls no guard."""
        ...

    async def check_submit(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        transfer: Transfer,
        legs: list[TransferLeg],
        now: datetime,
    ) -> HoldForApproval | None:
        """Raise a CorridorError to refuse the submit (nothing is kept), return
        HoldForApproval to park the draft, or None to let it go on."""
        ...

    async def submitted(
        self, session: AsyncSession, *, caller: Caller, transfer: Transfer, now: datetime
    ) -> None:
        """The submit went through (same transaction): record what it used."""
        ...


class RateLocks(Protocol):
    """A draft priced at a rate locked earlier (quotes)."""

    async def hold(
        self,
        session: AsyncSession,
        *,
        caller: Caller,
        transfer: Transfer,
        quote_id: str | None,
        now: datetime,
    ) -> None:
        """Before the draft is priced: the lock named by `quoteId` (None: none) replaces
        the one it holds; `transfer.quote_id` says which it holds now."""
        ...

    async def settle(self, session: AsyncSession, *, transfer: Transfer, now: datetime) -> None:
        """After the draft is priced: it must still be what its lock priced."""
        ...

    async def lock_of(self, session: AsyncSession, *, transfer: Transfer) -> fx.Lock | None:
        """The rate the draft's lock holds, if it has one."""
        ...


@dataclass(frozen=True, slots=True)
class RoutedDeposit:
    """A deposit to a standing instruction's account: the transfer made to carry it, or the
    reason it cannot (then it becomes an unmatched deposit)."""

    transfer: Transfer | None
    unmatched_reason: str | None


class DepositRouter(Protocol):
    """Deposits to accounts that carry a standing instruction (fixed routes)."""

    async def route(
        self,
        session: AsyncSession,
        *,
        virtual: VirtualAccount,
        payment_rail: str,
        currency: str,
        amount: int,
        from_address: str | None,
        now: datetime,
    ) -> RoutedDeposit | None:
        """None when the account carries no standing instruction."""
        ...


class StatusWatcher(Protocol):
    """Told of every move of a transfer to a final status (lifecycle.set_status), in its
    transaction: receipts of agents' payments. Installed once per process by the
    composition root (`lifecycle.install_status_watchers`), since the moves happen deep in
    the engine and the workers, where no `TransferPlugins` is handed down."""

    async def status_changed(
        self, session: AsyncSession, *, transfer: Transfer, previous: str, now: datetime
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class TransferPlugins:
    # Asked in order; the first that holds a submit for approval stops the others.
    submit_guards: tuple[SubmitGuard, ...]
    rate_locks: RateLocks
    deposit_router: DepositRouter
