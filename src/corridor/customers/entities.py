"""Associated entities of business customers: owners, control persons, directors, signers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import repository, service, states
from corridor.customers.errors import CustomerArchived, FieldProblems, WrongCustomerType
from corridor.customers.rules import EntityRole
from corridor.customers.schemas.entities import (
    BUSINESS_ONLY_FIELDS,
    INDIVIDUAL_ONLY_FIELDS,
    AssociatedEntityCreate,
    AssociatedEntityUpdate,
    percentage_to_basis_points,
)
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.kit.db import get_visible
from corridor.kit.errors import ValidationFailed
from corridor.kit.ids import new_id
from corridor.models.customer import AssociatedEntity, Customer

READ_SCOPE = Scope.CUSTOMERS_READ
WRITE_SCOPE = Scope.CUSTOMERS_WRITE
associated_entities_per_customer_max = 25
ownership_basis_points_max = 10_000


async def business_customer(
    session: AsyncSession, *, caller: Caller, customer_id: str, for_update: bool = False
) -> Customer:
    customer = await service.get_customer(
        session, caller=caller, customer_id=customer_id, for_update=for_update
    )
    if customer.type != CustomerType.BUSINESS:
        raise WrongCustomerType(
            "have associated entities", wanted="BUSINESS", current_status=customer.status
        )
    return customer


async def _editable_business(session: AsyncSession, caller: Caller, customer_id: str) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    customer = await business_customer(
        session, caller=caller, customer_id=customer_id, for_update=True
    )
    if not states.is_editable(CustomerStatus(customer.status)):
        raise CustomerArchived()
    return customer


async def get_entity(
    session: AsyncSession, *, caller: Caller, customer_id: str, entity_id: str
) -> tuple[Customer, AssociatedEntity]:
    """The entity of a business customer the caller may see (no scope check: callers
    check their own)."""
    customer = await business_customer(session, caller=caller, customer_id=customer_id)
    return customer, await _entity(session, customer, entity_id)


async def read_entity(
    session: AsyncSession, *, caller: Caller, customer_id: str, entity_id: str
) -> AssociatedEntity:
    caller.require_scope(READ_SCOPE)
    _, entity = await get_entity(
        session, caller=caller, customer_id=customer_id, entity_id=entity_id
    )
    return entity


async def _entity(session: AsyncSession, customer: Customer, entity_id: str) -> AssociatedEntity:
    return await get_visible(session, repository.entities_of(customer), entity_id)


async def create_entity(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    data: AssociatedEntityCreate,
    now: datetime,
) -> AssociatedEntity:
    customer = await _editable_business(session, caller, customer_id)
    existing = await repository.associated_entities(session, customer)
    if len(existing) >= associated_entities_per_customer_max:
        raise ValidationFailed(
            "associatedEntities",
            f"a customer has at most {associated_entities_per_customer_max} associated entities",
        )
    details = data.details()
    entity = AssociatedEntity(
        id=new_id("ae"),
        organization_id=customer.organization_id,
        customer_id=customer.id,
        type=data.type.value,
        roles=_unique_roles(data.roles),
        ownership_basis_points=_basis_points(data.ownership_percentage),
        details={name: value for name, value in details.items() if value is not None},
        verification_status="NOT_STARTED",
        created_at=now,
        updated_at=now,
    )
    _check_entity(entity, existing)
    session.add(entity)
    await session.flush()
    return entity


async def update_entity(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    entity_id: str,
    changes: AssociatedEntityUpdate,
    now: datetime,
) -> AssociatedEntity:
    customer = await _editable_business(session, caller, customer_id)
    entity = await _entity(session, customer, entity_id)
    sent = changes.model_fields_set
    if "roles" in sent:
        if changes.roles is None:
            raise ValidationFailed("roles", "cannot be null")
        entity.roles = _unique_roles(changes.roles)
    if "ownership_percentage" in sent:
        entity.ownership_basis_points = _basis_points(changes.ownership_percentage)
    details = dict(entity.details or {})
    for name, value in changes.details().items():
        if value is None:
            details.pop(name, None)
        else:
            details[name] = value
    entity.details = details
    others = [
        other
        for other in await repository.associated_entities(session, customer)
        if other.id != entity.id
    ]
    _check_entity(entity, others)
    entity.updated_at = now
    return entity


async def delete_entity(
    session: AsyncSession, *, caller: Caller, customer_id: str, entity_id: str
) -> None:
    customer = await _editable_business(session, caller, customer_id)
    entity = await _entity(session, customer, entity_id)
    await repository.delete_associated_entity(session, entity)


def _unique_roles(roles: list[EntityRole]) -> list[str]:
    return sorted({role.value for role in roles})


def _basis_points(percentage: str | None) -> int | None:
    return None if percentage is None else percentage_to_basis_points(percentage)


def _check_entity(entity: AssociatedEntity, others: Sequence[AssociatedEntity]) -> None:
    """The fields an entity of its type needs, and ownership that adds up to at most 100%."""
    details: dict[str, Any] = entity.details
    problems: list[dict[str, str]] = []
    required: tuple[str, ...]
    if entity.type == CustomerType.INDIVIDUAL:
        required, foreign = ("firstName", "lastName"), BUSINESS_ONLY_FIELDS
    else:
        required, foreign = ("legalName",), INDIVIDUAL_ONLY_FIELDS
    problems += [
        {"field": name, "message": f"required for an {entity.type} entity"}
        for name in required
        if not details.get(name)
    ]
    problems += [
        {"field": name, "message": f"not a field of {entity.type} entities"}
        for name in sorted(foreign)
        if name in details
    ]
    if EntityRole.BENEFICIAL_OWNER in entity.roles and entity.ownership_basis_points is None:
        problems.append(
            {"field": "ownershipPercentage", "message": "required for a BENEFICIAL_OWNER"}
        )
    owned = sum(other.ownership_basis_points or 0 for other in others)
    if owned + (entity.ownership_basis_points or 0) > ownership_basis_points_max:
        problems.append(
            {"field": "ownershipPercentage", "message": "ownership of all entities exceeds 100%"}
        )
    if problems:
        raise FieldProblems("The associated entity is not valid", problems)
