"""Queries of counterparties, external accounts and wallets, filtered to what the caller sees."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import ColumnElement, Select, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.models.party import Counterparty, ExternalAccount, ExternalWallet

OwnedParty = TypeVar("OwnedParty", ExternalAccount, ExternalWallet)


# --- Counterparties -----------------------------------------------------------------------


def visible_counterparties(
    caller: Caller, *, include_deleted: bool = False
) -> Select[Counterparty]:
    """The organization's counterparties, or only its bound customer's; deleted ones only
    when asked for (transfers that already reference one still read it)."""
    statement = select(Counterparty).where(Counterparty.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Counterparty.customer_id == caller.customer_id)
    if not include_deleted:
        statement = statement.where(Counterparty.deleted_at.is_(None))
    return statement


def filtered_counterparties(
    caller: Caller, *, customer_id: str | None, beneficiary_type: str | None
) -> Select[Counterparty]:
    statement = visible_counterparties(caller)
    if customer_id is not None:
        statement = statement.where(Counterparty.customer_id == customer_id)
    if beneficiary_type is not None:
        statement = statement.where(Counterparty.beneficiary_type == beneficiary_type)
    return statement


# --- External accounts and wallets --------------------------------------------------------


def _owned_by_customer(model: type[OwnedParty], customer_id: str) -> ColumnElement[bool]:
    """The customer's own parties and those of its counterparties (deleted ones included:
    their accounts and wallets are closed, and stay on record)."""
    counterparties_of_customer = select(Counterparty.id).where(
        Counterparty.customer_id == customer_id
    )
    return or_(
        model.customer_id == customer_id,
        model.counterparty_id.in_(counterparties_of_customer),
    )


def visible_parties(caller: Caller, model: type[OwnedParty]) -> Select[OwnedParty]:
    statement = select(model).where(model.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(_owned_by_customer(model, caller.customer_id))
    return statement


def filtered_parties(
    caller: Caller,
    model: type[OwnedParty],
    *,
    customer_id: str | None,
    counterparty_id: str | None,
    status: str | None,
    chain: str | None = None,
) -> Select[OwnedParty]:
    """The caller's parties of `model` by the list's filters (`chain`: external wallets)."""
    statement = visible_parties(caller, model)
    if customer_id is not None:
        statement = statement.where(_owned_by_customer(model, customer_id))
    if counterparty_id is not None:
        statement = statement.where(model.counterparty_id == counterparty_id)
    if status is not None:
        statement = statement.where(model.status == status)
    if chain is not None:
        statement = statement.where(ExternalWallet.chain == chain)
    return statement


async def active_parties_of_counterparty(
    session: AsyncSession, model: type[OwnedParty], counterparty: Counterparty
) -> Sequence[OwnedParty]:
    """Locked in id order, so two closers can never deadlock."""
    statement = (
        select(model)
        .where(
            model.organization_id == counterparty.organization_id,
            model.counterparty_id == counterparty.id,
            model.status == "ACTIVE",
        )
        .order_by(model.id)
    )
    return list((await session.execute(db.for_update(session, statement))).scalars())
