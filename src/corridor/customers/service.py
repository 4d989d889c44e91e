"""Customers: create, read, update, archive, and every move of the customer status machine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.accounts.service import open_balance_accounts
from corridor.auth import service as auth_service
from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.customers import diligence, repository, requirements, states
from corridor.customers.errors import CustomerArchived, FieldProblems, IllegalStatusMove
from corridor.customers.requirements import CustomerFacts, Requirement
from corridor.customers.schemas.customer import (
    BusinessCustomerCreate,
    CustomerRead,
    CustomerUpdate,
    IndividualCustomerCreate,
    RfiRead,
)
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.kit.db import get_visible
from corridor.kit.errors import Forbidden, InvalidState, SandboxOnly, ValidationFailed
from corridor.kit.ids import looks_like_id, new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.customer import Customer, EnhancedDiligenceRfi
from corridor.models.event import Event, emit

metadata_keys_max = 50
search_chars_max = 100
_NOT_NULL_FIELDS = {
    "email": "email",
    "first_name": "firstName",
    "last_name": "lastName",
    "legal_name": "legalName",
}
_INDIVIDUAL_ONLY = {"first_name": "firstName", "last_name": "lastName"}
_BUSINESS_ONLY = {"legal_name": "legalName", "dba_name": "dbaName", "website": "website"}
READ_SCOPE = Scope.CUSTOMERS_READ
WRITE_SCOPE = Scope.CUSTOMERS_WRITE
SANDBOX_SCOPE = Scope.SANDBOX_WRITE


# --- Reading ------------------------------------------------------------------------------


async def get_customer(
    session: AsyncSession, *, caller: Caller, customer_id: str, for_update: bool = False
) -> Customer:
    """The customer, if this caller may see it; another organization's id is simply unknown.
    A lookup other domains share: it checks visibility, not scopes (callers check theirs;
    the API's own read is reading.read_customer)."""
    caller.require_customer_binding()
    visible = repository.visible_customers(caller)
    return await get_visible(session, visible, customer_id, locked=for_update)


async def names_of(
    session: AsyncSession, *, caller: Caller, customer_ids: Sequence[str]
) -> dict[str, str]:
    """The names of those customers the caller may see, by id (a list page's one query)."""
    caller.require_customer_binding()
    if not customer_ids:
        return {}
    return await repository.names_of(session, caller, customer_ids)


async def list_customers(
    session: AsyncSession,
    *,
    caller: Caller,
    page: PageRequest,
    status: CustomerStatus | None,
    type_: CustomerType | None,
    email: str | None,
    search: str | None = None,
) -> Page[Customer]:
    """`search`: a part of the name or the email, any case (`q` of the list endpoint)."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    if email is not None and "\x00" in email:
        raise ValidationFailed("email", "must not contain NUL characters")
    if search is not None:
        search = search.strip() or None
    if search is not None and ("\x00" in search or len(search) > search_chars_max):
        raise ValidationFailed(
            "q", f"must be 1 to {search_chars_max} characters without NUL characters"
        )
    statement = repository.filtered_customers(
        caller, status=status, type_=type_, email=email, search=search
    )
    return await fetch_page(session, statement, Customer.id, page)


async def compliance_requirements(session: AsyncSession, customer: Customer) -> list[Requirement]:
    customer_type = CustomerType(customer.type)
    roles: tuple[frozenset[str], ...] = ()
    if customer_type is CustomerType.BUSINESS:
        entities = await repository.associated_entities(session, customer)
        roles = tuple(frozenset(entity.roles) for entity in entities)
    facts = CustomerFacts(
        type=customer_type,
        # Only an ACCEPTED acceptance can be linked, and acceptance is final.
        terms_of_service_accepted=customer.tos_acceptance_id is not None,
        first_name=customer.first_name,
        last_name=customer.last_name,
        date_of_birth=customer.date_of_birth,
        has_address=bool(customer.address),
        tax_identification_number=customer.tax_identification_number,
        legal_name=customer.legal_name,
        registration_number=customer.registration_number,
        incorporation_country=customer.incorporation_country,
        associated_entity_roles=roles,
    )
    return requirements.requirements_for(facts)


# --- Creating and changing ----------------------------------------------------------------


async def create_individual(
    session: AsyncSession, *, caller: Caller, data: IndividualCustomerCreate, now: datetime
) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    _refuse_bound_caller(caller)
    if data.date_of_birth is not None:
        check_date_of_birth(data.date_of_birth, now)
    customer = _new_customer(
        caller,
        CustomerType.INDIVIDUAL,
        email=data.email,
        name=f"{data.first_name} {data.last_name}",
        now=now,
        metadata=data.metadata,
    )
    customer.first_name, customer.last_name = data.first_name, data.last_name
    customer.date_of_birth = data.date_of_birth
    customer.phone, customer.nationality = data.phone, data.nationality
    customer.tax_identification_number = data.tax_identification_number
    customer.address = _address(data.address)
    return await _save_new(session, customer, data.tos_acceptance_id, now)


async def create_business(
    session: AsyncSession, *, caller: Caller, data: BusinessCustomerCreate, now: datetime
) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    _refuse_bound_caller(caller)
    customer = _new_customer(
        caller,
        CustomerType.BUSINESS,
        email=data.email,
        name=data.legal_name,
        now=now,
        metadata=data.metadata,
    )
    customer.legal_name, customer.dba_name = data.legal_name, data.dba_name
    customer.registration_number = data.registration_number
    customer.incorporation_country = data.incorporation_country
    customer.website, customer.phone = data.website, data.phone
    customer.address = _address(data.address)
    return await _save_new(session, customer, data.tos_acceptance_id, now)


@dataclass(frozen=True, slots=True)
class BusinessCreated:
    customer: Customer
    # A platform session's REST binding (spec 5.7): a `ps_…` token bound to the customer.
    session_token: str | None = None
    session_expires_at: datetime | None = None


async def create_business_customer(
    session: AsyncSession, *, caller: Caller, data: BusinessCustomerCreate, now: datetime
) -> BusinessCreated:
    """A business customer; created by an unbound platform session, it binds the session
    (spec 5.7): the answer carries a session token acting as the platform key, bound to
    the new customer."""
    customer = await create_business(session, caller=caller, data=data, now=now)
    if caller.kind is not CallerKind.PLATFORM_SESSION or caller.customer_id is not None:
        return BusinessCreated(customer)
    platform_session, token = await auth_service.start_platform_session(
        session, caller=caller, customer_id=customer.id, now=now
    )
    return BusinessCreated(customer, token, platform_session.expires_at)


def _refuse_bound_caller(caller: Caller) -> None:
    # A caller speaking for one customer must not make others it could then not see.
    if caller.customer_id is not None:
        raise Forbidden("A caller bound to a customer cannot create customers")


def _new_customer(
    caller: Caller,
    customer_type: CustomerType,
    *,
    email: str,
    name: str,
    now: datetime,
    metadata: dict[str, str] | None,
) -> Customer:
    return Customer(
        id=new_id("cus"),
        organization_id=caller.organization_id,
        type=customer_type.value,
        status=CustomerStatus.INCOMPLETE.value,
        status_reason=None,
        email=email,
        name=name,
        verification={},
        metadata_=dict(metadata or {}),
        tos_acceptance_id=None,
        created_at=now,
        updated_at=now,
        submitted_at=None,
        archived_at=None,
    )


async def _save_new(
    session: AsyncSession, customer: Customer, tos_acceptance_id: str | None, now: datetime
) -> Customer:
    if tos_acceptance_id is not None:
        await link_terms_of_service(session, customer, tos_acceptance_id)
    session.add(customer)
    await session.flush()
    emit_customer_event(session, customer, "customer.created", now)
    return customer


def _address(address: Any) -> dict[str, Any] | None:
    return None if address is None else address.model_dump(mode="json", by_alias=True)


def check_date_of_birth(date_of_birth: str, now: datetime) -> None:
    if not requirements.is_adult(date_of_birth, now.date()):
        raise ValidationFailed("dateOfBirth", "the customer must be at least 18 years old")


async def link_terms_of_service(
    session: AsyncSession, customer: Customer, acceptance_id: str
) -> None:
    """Link an ACCEPTED acceptance that no other customer uses."""
    acceptance = (
        await repository.terms_of_service_acceptance(
            session, customer.organization_id, acceptance_id, for_update=True
        )
        if looks_like_id(acceptance_id, "tos")
        else None
    )
    if acceptance is None:
        raise ValidationFailed("tosAcceptanceId", "no terms-of-service acceptance with this id")
    if acceptance.status != "ACCEPTED":
        raise ValidationFailed("tosAcceptanceId", "the terms of service are not accepted yet")
    user = await repository.customer_id_using_terms(session, acceptance_id)
    if user is not None and user != customer.id:
        raise ValidationFailed("tosAcceptanceId", "this acceptance belongs to another customer")
    customer.tos_acceptance_id = acceptance_id


async def update_customer(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    changes: CustomerUpdate,
    now: datetime,
) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    customer = await get_customer(session, caller=caller, customer_id=customer_id, for_update=True)
    if not states.is_editable(CustomerStatus(customer.status)):
        raise CustomerArchived()
    sent = changes.model_fields_set
    _check_fields_fit(customer, changes, sent)
    if not sent:
        return customer
    for name in sent & {"email", "phone", "first_name", "last_name", "legal_name"}:
        setattr(customer, name, getattr(changes, name))
    for name in sent & {"dba_name", "website"}:
        setattr(customer, name, getattr(changes, name))
    if "address" in sent:
        customer.address = _address(changes.address)
    if "metadata" in sent:
        customer.metadata_ = _merged_metadata(customer.metadata_, changes.metadata or {})
    if "tos_acceptance_id" in sent and changes.tos_acceptance_id is not None:
        await link_terms_of_service(session, customer, changes.tos_acceptance_id)
    customer.name = _display_name(customer)
    customer.updated_at = now
    emit_customer_event(session, customer, "customer.updated", now)
    return customer


def _check_fields_fit(customer: Customer, changes: CustomerUpdate, sent: set[str]) -> None:
    problems = [
        {"field": api_name, "message": "cannot be null"}
        for name, api_name in _NOT_NULL_FIELDS.items()
        if name in sent and getattr(changes, name) is None
    ]
    if "tos_acceptance_id" in sent and changes.tos_acceptance_id is None:
        problems.append({"field": "tosAcceptanceId", "message": "cannot be null"})
    wrong_type = _BUSINESS_ONLY if customer.type == CustomerType.INDIVIDUAL else _INDIVIDUAL_ONLY
    problems += [
        {"field": api_name, "message": f"not a field of {customer.type} customers"}
        for name, api_name in wrong_type.items()
        if name in sent
    ]
    if problems:
        raise FieldProblems("The changes do not fit this customer", problems)


def _merged_metadata(stored: dict[str, Any], changes: dict[str, str | None]) -> dict[str, str]:
    merged = dict(stored or {})
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    if len(merged) > metadata_keys_max:
        raise ValidationFailed("metadata", f"at most {metadata_keys_max} keys in all")
    return merged


def _display_name(customer: Customer) -> str:
    if customer.type == CustomerType.BUSINESS:
        return customer.legal_name or customer.name
    return f"{customer.first_name} {customer.last_name}"


# --- The status machine -------------------------------------------------------------------


async def archive_customer(
    session: AsyncSession, *, caller: Caller, customer_id: str, now: datetime
) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    customer = await get_customer(session, caller=caller, customer_id=customer_id, for_update=True)
    await move(session, customer, CustomerStatus.ARCHIVED, reason=None, now=now)
    return customer


async def submit_verification(
    session: AsyncSession, *, caller: Caller, customer_id: str, now: datetime
) -> Customer:
    """INCOMPLETE → UNDER_REVIEW once every requirement is met; RFI_PENDING → UNDER_REVIEW
    once every step of the request for information is complete."""
    caller.require_scope(WRITE_SCOPE)
    customer = await get_customer(session, caller=caller, customer_id=customer_id, for_update=True)
    status = CustomerStatus(customer.status)
    if status is CustomerStatus.INCOMPLETE:
        unmet = requirements.missing(await compliance_requirements(session, customer))
        if unmet:
            raise FieldProblems(
                "The customer does not meet every compliance requirement",
                [
                    {"field": item.field, "message": f"required: {item.description}"}
                    for item in unmet
                ],
            )
        customer.submitted_at = now
        await move(session, customer, CustomerStatus.UNDER_REVIEW, reason=None, now=now)
    elif status is CustomerStatus.RFI_PENDING:
        rfi = await repository.pending_rfi(session, customer, for_update=True)
        if rfi is not None:
            _check_rfi_complete(rfi)
            await submit_rfi(session, customer, rfi, now=now)
        else:
            await move(session, customer, CustomerStatus.UNDER_REVIEW, reason=None, now=now)
    else:
        raise InvalidState(
            "Only INCOMPLETE or RFI_PENDING customers can be submitted for verification",
            current_status=status.value,
        )
    return customer


def _check_rfi_complete(rfi: EnhancedDiligenceRfi) -> None:
    incomplete = [step for step in rfi.steps if not step["completed"]]
    if incomplete:
        raise FieldProblems(
            "The request for information is not complete",
            [
                {"field": f"steps.{step['id']}", "message": "step not complete"}
                for step in incomplete
            ],
        )


async def submit_rfi(
    session: AsyncSession, customer: Customer, rfi: EnhancedDiligenceRfi, *, now: datetime
) -> None:
    rfi.status, rfi.submitted_at, rfi.updated_at = "SUBMITTED", now, now
    await move(session, customer, CustomerStatus.UNDER_REVIEW, reason=None, now=now)


async def set_status_in_sandbox(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    target: CustomerStatus,
    reason: str | None,
    sandbox: bool,
    now: datetime,
) -> Customer:
    """Stand in for a verification decision: walk the legal moves from here to `target`."""
    if not sandbox:
        raise SandboxOnly()
    caller.require_scope(SANDBOX_SCOPE)
    if target not in states.SANDBOX_TARGETS:
        allowed = ", ".join(sorted(states.SANDBOX_TARGETS))
        raise ValidationFailed("status", f"must be one of {allowed}")
    customer = await get_customer(session, caller=caller, customer_id=customer_id, for_update=True)
    current = CustomerStatus(customer.status)
    walk = states.path_to(current, target)
    if walk is None:
        raise IllegalStatusMove(current.value, target.value)
    for index, status in enumerate(walk):
        if status is CustomerStatus.UNDER_REVIEW and customer.submitted_at is None:
            customer.submitted_at = now
        last = index == len(walk) - 1
        await move(session, customer, status, reason=reason if last else None, now=now)
    return customer


async def move(
    session: AsyncSession,
    customer: Customer,
    target: CustomerStatus,
    *,
    reason: str | None,
    now: datetime,
) -> None:
    """One legal move, with everything that goes with it, in the caller's transaction."""
    current = CustomerStatus(customer.status)
    if not states.is_allowed(current, target):
        raise IllegalStatusMove(current.value, target.value)
    if current is CustomerStatus.RFI_PENDING:
        # Left without the request being submitted (a reviewer's decision or archiving).
        await _close_pending_rfi(session, customer, now)
    customer.status, customer.status_reason, customer.updated_at = target.value, reason, now
    if target is CustomerStatus.ARCHIVED:
        customer.archived_at = now
    if target is CustomerStatus.ACTIVE:
        await open_balance_accounts(session, customer=customer, now=now)
    emit_customer_event(session, customer, "customer.status_changed", now)
    if target is CustomerStatus.RFI_PENDING:
        await _request_information(session, customer, now)


async def _close_pending_rfi(session: AsyncSession, customer: Customer, now: datetime) -> None:
    rfi = await repository.pending_rfi(session, customer, for_update=True)
    if rfi is not None:
        rfi.status, rfi.updated_at = "CLOSED", now


async def _request_information(session: AsyncSession, customer: Customer, now: datetime) -> None:
    rfi = EnhancedDiligenceRfi(
        id=new_id("rfi"),
        organization_id=customer.organization_id,
        customer_id=customer.id,
        status="PENDING",
        steps=diligence.initial_steps(CustomerType(customer.type)),
        answers={},
        created_at=now,
        updated_at=now,
        submitted_at=None,
    )
    session.add(rfi)
    await session.flush()
    emit(
        session,
        organization_id=customer.organization_id,
        event_type="customer.rfi.requested",
        data=RfiRead.of(rfi).to_json_dict(),
        tags=[customer.id, rfi.id],
        at=now,
    )


def emit_customer_event(
    session: AsyncSession, customer: Customer, event_type: str, now: datetime
) -> Event:
    return emit(
        session,
        organization_id=customer.organization_id,
        event_type=event_type,
        data=CustomerRead.of(customer).to_json_dict(),
        tags=[customer.id],
        at=now,
    )


async def balance_accounts(session: AsyncSession, customer: Customer) -> list[Any]:
    """The customer's balance accounts, oldest first (they exist once it has been ACTIVE)."""
    return list(await repository.balance_accounts(session, customer))


async def associated_entities(session: AsyncSession, customer: Customer) -> list[Any]:
    return list(await repository.associated_entities(session, customer))
