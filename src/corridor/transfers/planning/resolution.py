"""Resolving a transfer's source (sources.py) and destination (destinations.py): which
accounts, wallets and parties they name, whether the customer may use them, and the
objects the API shows (2.3, 2.4). This module holds what both sides share.

The request shapes are dictionaries with the API's camelCase names (what the client sent,
merged across PATCHes). Resolution is pure: it reads the rows they point at from the
request's one Load (`repository.plan_rows`, each row as its domain's visible statement
shows it to the caller), so a caller only ever reaches what it may see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from corridor.kit.errors import NotFound, ValidationFailed
from corridor.models.ledger import LedgerAccount
from corridor.rails.base import RailName, currencies_for
from corridor.transfers.repository import PlanRows
from corridor.transfers.rules.flows import Endpoint

Row = TypeVar("Row")
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


def visible_row(found: Mapping[str, Row], model: Any, identifier: str) -> Row:
    """The row the Load found for `identifier`, or the 404 its get-by-id would answer
    (kit.db.get_visible: not visible to the caller, of the wrong kind, or malformed)."""
    row = found.get(identifier)
    if row is None:
        raise NotFound(model.resource_name, identifier)
    return row


def balance_account(rows: PlanRows, account_id: str) -> LedgerAccount:
    found = rows.balance_accounts.get(account_id)
    if found is None:
        raise NotFound("account", account_id)
    return found
