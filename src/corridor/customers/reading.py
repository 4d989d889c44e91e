"""What the API shows of a customer beyond its row: expansions, capabilities, compliance
requirements and verification status. Reads only; each public function checks
customers:read itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.customers import repository, requirements, service
from corridor.customers.requirements import Requirement
from corridor.customers.schemas.customer import (
    IdDocumentRead,
    VerificationAnswersRead,
    VerificationStatusRead,
)
from corridor.customers.states import Capability, CapabilityStatus, CustomerStatus, capabilities
from corridor.kit.errors import ValidationFailed
from corridor.kit.schemas import Amount
from corridor.models.customer import AssociatedEntity, Customer
from corridor.models.ledger import LedgerAccount

READ_SCOPE = Scope.CUSTOMERS_READ
EXPANSIONS = ("accounts", "associatedEntities", "verification")


@dataclass(frozen=True, slots=True)
class CustomerView:
    """A customer with the parts `expand` asked for (None: not asked)."""

    customer: Customer
    accounts: list[LedgerAccount] | None = None
    associated_entities: list[AssociatedEntity] | None = None
    verification: VerificationStatusRead | None = None


def checked_expansions(expand: Sequence[str]) -> list[str]:
    for part in expand:
        if part not in EXPANSIONS:
            raise ValidationFailed(
                "expand", f"unknown expansion {part!r}; use {', '.join(EXPANSIONS)}"
            )
    return list(dict.fromkeys(expand))


async def read_customer(
    session: AsyncSession, *, caller: Caller, customer_id: str, expand: Sequence[str] = ()
) -> CustomerView:
    caller.require_scope(READ_SCOPE)
    wanted = checked_expansions(expand)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    return CustomerView(
        customer,
        accounts=await service.balance_accounts(session, customer)
        if "accounts" in wanted
        else None,
        associated_entities=await service.associated_entities(session, customer)
        if "associatedEntities" in wanted
        else None,
        verification=await verification_status(session, customer)
        if "verification" in wanted
        else None,
    )


async def read_capabilities(
    session: AsyncSession, *, caller: Caller, customer_id: str
) -> tuple[Customer, dict[Capability, CapabilityStatus]]:
    caller.require_scope(READ_SCOPE)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    return customer, dict(capabilities(CustomerStatus(customer.status)))


async def read_compliance_requirements(
    session: AsyncSession, *, caller: Caller, customer_id: str
) -> tuple[Customer, list[Requirement]]:
    caller.require_scope(READ_SCOPE)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    return customer, await service.compliance_requirements(session, customer)


async def read_verification_status(
    session: AsyncSession, *, caller: Caller, customer_id: str
) -> VerificationStatusRead:
    caller.require_scope(READ_SCOPE)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    return await verification_status(session, customer)


def verification_answers(customer: Customer) -> VerificationAnswersRead:
    """The saved answers, with document numbers cut to their last four characters."""
    saved: dict[str, Any] = customer.verification or {}
    document = saved.get("idDocument")
    volume = saved.get("expectedMonthlyVolume")
    return VerificationAnswersRead(
        id_document=IdDocumentRead(
            type=document["type"],
            number_last4=document["number"][-4:],
            issuing_country=document["issuingCountry"],
            expires_on=document.get("expiresOn"),
        )
        if document
        else None,
        business_type=saved.get("businessType"),
        industry=saved.get("industry"),
        source_of_funds=saved.get("sourceOfFunds"),
        expected_monthly_volume=Amount.of(int(volume["value"]), volume["currency"])
        if volume
        else None,
    )


async def verification_status(session: AsyncSession, customer: Customer) -> VerificationStatusRead:
    unmet = requirements.missing(await service.compliance_requirements(session, customer))
    rfi = await repository.pending_rfi(session, customer)
    return VerificationStatusRead(
        customer_id=customer.id,
        status=CustomerStatus(customer.status),
        status_reason=customer.status_reason,
        submitted_at=customer.submitted_at,
        requirements_satisfied=not unmet,
        missing_requirements=[item.code for item in unmet],
        pending_rfi_id=rfi.id if rfi else None,
        answers=verification_answers(customer),
    )
