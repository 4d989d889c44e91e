"""Onboarding: terms of service, verification answers and sessions, and RFI progress."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.auth.scopes import Scope
from corridor.auth.secrets import hash_secret, random_token
from corridor.customers import diligence, entities, reading, repository, service, states
from corridor.customers.errors import CustomerArchived, FieldProblems, WrongCustomerType
from corridor.customers.requirements import Requirement
from corridor.customers.schemas.customer import (
    BusinessVerification,
    IndividualVerification,
    TermsOfServiceCreate,
    TermsOfServiceRead,
    VerificationStatusRead,
)
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.kit.clock import isoformat_z
from corridor.kit.db import get_visible
from corridor.kit.errors import InvalidState, NotFound
from corridor.kit.ids import new_id
from corridor.models.customer import (
    AssociatedEntity,
    Customer,
    EnhancedDiligenceRfi,
    TermsOfServiceAcceptance,
    VerificationSession,
)
from corridor.models.event import emit

terms_of_service_version = "2026-01-01"
verification_session_lifetime_s = 7 * 24 * 60 * 60
verification_token_chars = 40
READ_SCOPE = Scope.CUSTOMERS_READ
WRITE_SCOPE = Scope.CUSTOMERS_WRITE


# --- Terms of service ---------------------------------------------------------------------


async def start_terms_of_service(
    session: AsyncSession, *, caller: Caller, data: TermsOfServiceCreate, now: datetime
) -> TermsOfServiceAcceptance:
    caller.require_scope(WRITE_SCOPE)
    acceptance = TermsOfServiceAcceptance(
        id=new_id("tos"),
        organization_id=caller.organization_id,
        status="PENDING",
        version=terms_of_service_version,
        email=data.email,
        redirect_url=data.redirect_url,
        accepted_ip=None,
        accepted_user_agent=None,
        created_at=now,
        accepted_at=None,
    )
    session.add(acceptance)
    await session.flush()
    return acceptance


async def get_terms_of_service(
    session: AsyncSession, *, caller: Caller, acceptance_id: str
) -> TermsOfServiceAcceptance:
    caller.require_scope(READ_SCOPE)
    visible = repository.terms_of_service_acceptances(caller.organization_id)
    return await get_visible(session, visible, acceptance_id)


async def accept_terms_of_service(
    session: AsyncSession,
    *,
    caller: Caller,
    acceptance_id: str,
    ip_address: str | None,
    user_agent: str | None,
    now: datetime,
) -> TermsOfServiceAcceptance:
    caller.require_scope(WRITE_SCOPE)
    visible = repository.terms_of_service_acceptances(caller.organization_id)
    acceptance = await get_visible(session, visible, acceptance_id, locked=True)
    if acceptance.status != "PENDING":
        raise InvalidState(
            "These terms of service are accepted already", current_status=acceptance.status
        )
    acceptance.status, acceptance.accepted_at = "ACCEPTED", now
    acceptance.accepted_ip = (ip_address or "")[:64] or None
    acceptance.accepted_user_agent = (user_agent or "")[:512] or None
    emit(
        session,
        organization_id=acceptance.organization_id,
        event_type="tos.accepted",
        data=TermsOfServiceRead.model_validate(acceptance).to_json_dict(),
        tags=[acceptance.id],
        at=now,
    )
    return acceptance


# --- Verification answers -----------------------------------------------------------------


async def _editable_customer(
    session: AsyncSession, caller: Caller, customer_id: str, wanted: CustomerType, action: str
) -> Customer:
    caller.require_scope(WRITE_SCOPE)
    customer = await service.get_customer(
        session, caller=caller, customer_id=customer_id, for_update=True
    )
    if customer.type != wanted:
        raise WrongCustomerType(action, wanted=wanted.value, current_status=customer.status)
    if not states.is_editable(CustomerStatus(customer.status)):
        raise CustomerArchived()
    return customer


async def save_individual_verification(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    answers: IndividualVerification,
    now: datetime,
) -> VerificationStatusRead:
    """Answers that are customer fields go there; the rest is kept in `verification`.
    Saving never changes the status: submitting does. Answers the verification status."""
    customer = await _editable_customer(
        session, caller, customer_id, CustomerType.INDIVIDUAL, "save individual verification"
    )
    sent = answers.model_fields_set
    if answers.date_of_birth is not None:
        service.check_date_of_birth(answers.date_of_birth, now)
        customer.date_of_birth = answers.date_of_birth
    if answers.address is not None:
        customer.address = answers.address.model_dump(mode="json", by_alias=True)
    if answers.tax_identification_number is not None:
        customer.tax_identification_number = answers.tax_identification_number
    if answers.nationality is not None:
        customer.nationality = answers.nationality
    if answers.id_document is not None:
        document = answers.id_document.model_dump(mode="json", by_alias=True)
        customer.verification = {**(customer.verification or {}), "idDocument": document}
    if sent:
        customer.updated_at = now
        service.emit_customer_event(session, customer, "customer.updated", now)
    return await reading.verification_status(session, customer)


async def save_business_verification(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    answers: BusinessVerification,
    now: datetime,
) -> VerificationStatusRead:
    customer = await _editable_customer(
        session, caller, customer_id, CustomerType.BUSINESS, "save business verification"
    )
    if answers.registration_number is not None:
        customer.registration_number = answers.registration_number
    if answers.incorporation_country is not None:
        customer.incorporation_country = answers.incorporation_country
    if answers.address is not None:
        customer.address = answers.address.model_dump(mode="json", by_alias=True)
    kept = answers.model_dump(
        mode="json",
        by_alias=True,
        include={"business_type", "industry", "source_of_funds", "expected_monthly_volume"},
        exclude_none=True,
    )
    customer.verification = {**(customer.verification or {}), **kept}
    if answers.model_fields_set:
        customer.updated_at = now
        service.emit_customer_event(session, customer, "customer.updated", now)
    return await reading.verification_status(session, customer)


# --- Verification sessions ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartedSession:
    verification_session: VerificationSession
    # Only in the answer that creates the session; the database keeps its hash.
    token: str


async def start_verification_session(
    session: AsyncSession,
    *,
    customer: Customer,
    entity: AssociatedEntity | None = None,
    now: datetime,
) -> StartedSession:
    status = CustomerStatus(customer.status)
    if status in (CustomerStatus.ARCHIVED, CustomerStatus.REJECTED):
        raise InvalidState(
            f"A {status.value} customer cannot be verified", current_status=status.value
        )
    token = random_token(verification_token_chars)
    verification_session = VerificationSession(
        id=new_id("vs"),
        organization_id=customer.organization_id,
        customer_id=customer.id,
        associated_entity_id=entity.id if entity else None,
        status="CREATED",
        token_hash=hash_secret(token),
        created_at=now,
        expires_at=now + timedelta(seconds=verification_session_lifetime_s),
    )
    session.add(verification_session)
    await session.flush()
    return StartedSession(verification_session, token)


def verification_url(base_url: str, started: StartedSession) -> str:
    return f"{base_url.rstrip('/')}/verify/{started.verification_session.id}?token={started.token}"


async def start_customer_verification(
    session: AsyncSession, *, caller: Caller, customer_id: str, now: datetime
) -> StartedSession:
    """A hosted verification session for the customer (its URL's token is shown once)."""
    caller.require_scope(WRITE_SCOPE)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    return await start_verification_session(session, customer=customer, now=now)


async def start_entity_verification(
    session: AsyncSession, *, caller: Caller, customer_id: str, entity_id: str, now: datetime
) -> StartedSession:
    """A hosted verification session for an associated entity of a business customer."""
    caller.require_scope(WRITE_SCOPE)
    customer, entity = await entities.get_entity(
        session, caller=caller, customer_id=customer_id, entity_id=entity_id
    )
    return await start_verification_session(session, customer=customer, entity=entity, now=now)


@dataclass(frozen=True, slots=True)
class SessionConfiguration:
    verification_session: VerificationSession
    subject_type: CustomerType
    status: str
    steps: list[str]
    requirements: list[Requirement]


async def verification_session_configuration(
    session: AsyncSession, *, caller: Caller, session_id: str, now: datetime
) -> SessionConfiguration:
    """What the hosted page collects, and the customer's requirements as they stand."""
    caller.require_scope(READ_SCOPE)
    caller.require_customer_binding()
    found = await get_visible(session, repository.visible_verification_sessions(caller), session_id)
    customer = await service.get_customer(session, caller=caller, customer_id=found.customer_id)
    for_entity = found.associated_entity_id is not None
    subject_type = CustomerType.INDIVIDUAL if for_entity else CustomerType(customer.type)
    return SessionConfiguration(
        verification_session=found,
        subject_type=subject_type,
        status=session_status(found, now),
        steps=verification_steps(subject_type, for_entity=for_entity),
        requirements=await service.compliance_requirements(session, customer),
    )


def session_status(verification_session: VerificationSession, now: datetime) -> str:
    if verification_session.status == "CREATED" and verification_session.expires_at <= now:
        return "EXPIRED"
    return verification_session.status


def verification_steps(subject_type: CustomerType, *, for_entity: bool) -> list[str]:
    """What the hosted page collects, in order."""
    if subject_type is CustomerType.BUSINESS:
        return ["business_details", "registration", "address", "associated_entities"]
    steps = ["personal_details", "address", "tax_identification", "id_document"]
    return steps if for_entity else ["terms_of_service", *steps]


# --- Enhanced diligence -------------------------------------------------------------------


async def pending_rfi(
    session: AsyncSession, *, caller: Caller, customer_id: str
) -> EnhancedDiligenceRfi:
    caller.require_scope(READ_SCOPE)
    customer = await service.get_customer(session, caller=caller, customer_id=customer_id)
    rfi = await repository.pending_rfi(session, customer)
    if rfi is None:
        raise NotFound("pending request for information of customer", customer_id)
    return rfi


async def save_rfi_progress(
    session: AsyncSession,
    *,
    caller: Caller,
    customer_id: str,
    data: dict[str, Any],
    mark_step_complete: bool,
    now: datetime,
) -> str:
    """Merge the answers in, optionally complete the current step; returns that step's id.

    Completing the last step submits the request: the customer goes back UNDER_REVIEW.
    """
    caller.require_scope(WRITE_SCOPE)
    customer = await service.get_customer(
        session, caller=caller, customer_id=customer_id, for_update=True
    )
    rfi = await repository.pending_rfi(session, customer, for_update=True)
    if rfi is None:
        raise NotFound("pending request for information of customer", customer_id)
    flat, problems = diligence.flatten(data, diligence.field_paths(rfi.steps))
    if problems:
        raise FieldProblems(
            "Some answers cannot be saved",
            [{"field": problem.field, "message": problem.message} for problem in problems],
        )
    rfi.answers = diligence.merged(rfi.answers or {}, flat)
    rfi.updated_at = now
    step = diligence.current_step(rfi.steps)
    assert step is not None, "a PENDING request always has a step left"
    if mark_step_complete:
        rfi.steps = _completed(rfi, step["id"], now)
        if diligence.all_complete(rfi.steps):
            await service.submit_rfi(session, customer, rfi, now=now)
    return step["id"]


def _completed(rfi: EnhancedDiligenceRfi, step_id: str, now: datetime) -> list[dict[str, Any]]:
    steps = [dict(step) for step in rfi.steps]
    step = next(step for step in steps if step["id"] == step_id)
    missing = diligence.unanswered(step, rfi.answers)
    if missing:
        raise FieldProblems(
            f"Step {step_id} cannot be completed yet",
            [{"field": f"data.{path}", "message": "not answered"} for path in missing],
        )
    step["completed"] = True
    step["completedAt"] = isoformat_z(now)
    # A new list, so the JSON column is seen as changed.
    return steps
