"""Resolving a transfer's source (sources.py) and destination (destinations.py): which
accounts, wallets and parties they name, whether the customer may use them, and the
objects the API shows (2.3, 2.4). This module holds what both sides share.

The request shapes are dictionaries with the API's camelCase names (what the client sent,
merged across PATCHes); resolution reads the rows they point at through the accounts
and parties services, so a caller only ever reaches what it may see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts import service as accounts
from corridor.auth.callers import Caller
from corridor.kit.errors import NotFound, ValidationFailed
from corridor.models.ledger import LedgerAccount
from corridor.rails.base import RailName, currencies_for
from corridor.transfers.rules.flows import Endpoint

PULL_RAILS = frozenset({RailName.ACH.value, RailName.ACH_SAME_DAY.value})
ACTIVE = "ACTIVE"
# Destination fields forwarded to the rail as references (never remarks or internalRemarks).
REFERENCE_FIELDS = (
    "wireMessage",
    "achReference",
    "swiftReference",
    "rtpReference",
    "payoutReference",
    "sepaReference",
    "blockchainMemo",
    "correspondentBankName",
    "correspondentBankSwiftCode",
    "correspondentAccountNumber",
)


@dataclass
class ResolvedSource:
    endpoint: Endpoint
    display: dict[str, Any]
    balance_account_id: str | None = None
    refund_known: bool = False


@dataclass
class ResolvedDestination:
    endpoint: Endpoint
    display: dict[str, Any]
    balance_account_id: str | None = None
    counterparty_id: str | None = None
    references: dict[str, str] = field(default_factory=dict)


def problem(path: str, message: str) -> ValidationFailed:
    return ValidationFailed(path, message)


def check_rail_currency(path: str, rail: str, code: str) -> None:
    if code not in currencies_for(RailName(rail)):
        raise problem(f"{path}.paymentRail", f"{rail} does not carry {code}")


def check_currency(path: str, sent: str | None, actual: str) -> None:
    if sent is not None and sent != actual:
        raise problem(f"{path}.currency", f"must be the account's currency, {actual}")


def only_fields(path: str, request: dict[str, Any], allowed: set[str], what: str) -> None:
    extra = sorted(
        key for key, value in request.items() if value is not None and key not in allowed
    )
    if extra:
        raise problem(f"{path}.{extra[0]}", f"not allowed with {what}")


async def balance_account(
    session: AsyncSession, caller: Caller, path: str, account_id: str
) -> LedgerAccount:
    try:
        return await accounts.get_account(session, caller=caller, account_id=account_id)
    except NotFound:
        raise NotFound("account", account_id) from None
