"""HTTP endpoints of onboarding: terms of service, associated entities, verification
sessions and enhanced-diligence requests for information. Mounted by `endpoints.router`."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Body, Response

from corridor.customers import entities, onboarding
from corridor.customers.schemas.customer import (
    RequirementRead,
    RfiProgress,
    RfiProgressRead,
    RfiRead,
    TermsOfServiceCreate,
    TermsOfServiceRead,
    VerificationSessionConfiguration,
    VerificationSessionRead,
)
from corridor.customers.schemas.entities import (
    AssociatedEntityCreate,
    AssociatedEntityRead,
    AssociatedEntityUpdate,
    VerificationLinkRead,
)
from corridor.web.context import Context
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(responses=ERROR_RESPONSES)

TERMS: list[str | Enum] = ["Terms of service"]
ENTITIES: list[str | Enum] = ["Customers"]
VERIFICATION: list[str | Enum] = ["Verification"]


def _base_url(context: Context) -> str:
    return context.settings.public_base_url or str(context.request.base_url)


# --- Terms of service ---------------------------------------------------------------------


@router.post(
    "/terms-of-service/acceptances",
    status_code=201,
    response_model=TermsOfServiceRead,
    tags=TERMS,
    summary="Start a terms-of-service acceptance",
)
async def start_terms_of_service(
    context: Context, body: Annotated[TermsOfServiceCreate | None, Body()] = None
) -> Response:
    """Step one of two: returns a PENDING `tos_…` acceptance to show the terms with.
    Every field is optional, so the body may be left out."""
    acceptance = await onboarding.start_terms_of_service(
        context.session,
        caller=context.caller,
        data=body or TermsOfServiceCreate(),
        now=context.now(),
    )
    return await context.respond(TermsOfServiceRead.model_validate(acceptance), status=201)


@router.post(
    "/terms-of-service/acceptances/{acceptance_id}/accept",
    response_model=TermsOfServiceRead,
    tags=TERMS,
    summary="Accept the terms of service",
)
async def accept_terms_of_service(acceptance_id: str, context: Context) -> Response:
    """Step two: PENDING → ACCEPTED. Pass the id as `tosAcceptanceId` to one customer."""
    client = context.request.client
    acceptance = await onboarding.accept_terms_of_service(
        context.session,
        caller=context.caller,
        acceptance_id=acceptance_id,
        ip_address=client.host if client else None,
        user_agent=context.request.headers.get("user-agent"),
        now=context.now(),
    )
    return await context.respond(TermsOfServiceRead.model_validate(acceptance))


@router.get(
    "/terms-of-service/acceptances/{acceptance_id}",
    response_model=TermsOfServiceRead,
    tags=TERMS,
    summary="Get a terms-of-service acceptance",
)
async def get_terms_of_service(acceptance_id: str, context: Context) -> TermsOfServiceRead:
    """An acceptance started with `POST /v1/terms-of-service/acceptances`: `acceptedAt` is set
    once the customer accepted; its id then goes into the customer's creation."""
    acceptance = await onboarding.get_terms_of_service(
        context.session, caller=context.caller, acceptance_id=acceptance_id
    )
    return TermsOfServiceRead.model_validate(acceptance)


# --- Associated entities ------------------------------------------------------------------


@router.post(
    "/customers/{customer_id}/associated-entities",
    status_code=201,
    response_model=AssociatedEntityRead,
    tags=ENTITIES,
    summary="Add an associated entity to a business customer",
)
async def create_associated_entity(
    customer_id: str, body: AssociatedEntityCreate, context: Context
) -> Response:
    """An owner, control person, director or signer; business customers only (409)."""
    entity = await entities.create_entity(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        data=body,
        now=context.now(),
    )
    return await context.respond(AssociatedEntityRead.of(entity), status=201)


@router.get(
    "/customers/{customer_id}/associated-entities/{entity_id}",
    response_model=AssociatedEntityRead,
    tags=ENTITIES,
    summary="Get an associated entity",
)
async def get_associated_entity(
    customer_id: str, entity_id: str, context: Context
) -> AssociatedEntityRead:
    """One owner, control person, director or signer of a business customer."""
    entity = await entities.read_entity(
        context.session, caller=context.caller, customer_id=customer_id, entity_id=entity_id
    )
    return AssociatedEntityRead.of(entity)


@router.patch(
    "/customers/{customer_id}/associated-entities/{entity_id}",
    response_model=AssociatedEntityRead,
    tags=ENTITIES,
    summary="Update an associated entity",
)
async def update_associated_entity(
    customer_id: str, entity_id: str, body: AssociatedEntityUpdate, context: Context
) -> Response:
    """Only the fields sent change; the customer's requirements are checked again."""
    entity = await entities.update_entity(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        entity_id=entity_id,
        changes=body,
        now=context.now(),
    )
    return await context.respond(AssociatedEntityRead.of(entity))


@router.delete(
    "/customers/{customer_id}/associated-entities/{entity_id}",
    status_code=204,
    tags=ENTITIES,
    summary="Remove an associated entity",
)
async def delete_associated_entity(customer_id: str, entity_id: str, context: Context) -> Response:
    """Removes the person from the business customer's verification; the customer's
    requirements are checked again."""
    await entities.delete_entity(
        context.session, caller=context.caller, customer_id=customer_id, entity_id=entity_id
    )
    return Response(status_code=204)


@router.post(
    "/customers/{customer_id}/associated-entities/{entity_id}/verification-link",
    status_code=201,
    response_model=VerificationLinkRead,
    tags=ENTITIES,
    summary="Make a verification link for an associated entity",
)
async def create_verification_link(customer_id: str, entity_id: str, context: Context) -> Response:
    """A hosted-verification URL to send to the person; its token is shown only here."""
    started = await onboarding.start_entity_verification(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        entity_id=entity_id,
        now=context.now(),
    )
    link = VerificationLinkRead(
        id=started.verification_session.id,
        customer_id=started.verification_session.customer_id,
        associated_entity_id=entity_id,
        url=onboarding.verification_url(_base_url(context), started),
        expires_at=started.verification_session.expires_at,
    )
    return await context.respond(link, status=201)


# --- Verification sessions ----------------------------------------------------------------


@router.post(
    "/customers/{customer_id}/verification-sessions",
    status_code=201,
    response_model=VerificationSessionRead,
    tags=VERIFICATION,
    summary="Start a hosted verification session",
)
async def create_verification_session(customer_id: str, context: Context) -> Response:
    """Returns the URL of the hosted verification page; its token is shown only here."""
    started = await onboarding.start_customer_verification(
        context.session, caller=context.caller, customer_id=customer_id, now=context.now()
    )
    verification_session = started.verification_session
    answer = VerificationSessionRead(
        id=verification_session.id,
        customer_id=verification_session.customer_id,
        associated_entity_id=None,
        status=verification_session.status,
        url=onboarding.verification_url(_base_url(context), started),
        expires_at=verification_session.expires_at,
        created_at=verification_session.created_at,
    )
    return await context.respond(answer, status=201)


@router.get(
    "/verification-sessions/{session_id}/configuration",
    response_model=VerificationSessionConfiguration,
    tags=VERIFICATION,
    summary="Configuration of a verification session",
)
async def get_verification_session_configuration(
    session_id: str, context: Context
) -> VerificationSessionConfiguration:
    """What the hosted page collects, and the customer's requirements as they stand."""
    found = await onboarding.verification_session_configuration(
        context.session, caller=context.caller, session_id=session_id, now=context.now()
    )
    verification_session = found.verification_session
    return VerificationSessionConfiguration(
        id=verification_session.id,
        customer_id=verification_session.customer_id,
        associated_entity_id=verification_session.associated_entity_id,
        subject_type=found.subject_type,
        status=found.status,
        expires_at=verification_session.expires_at,
        steps=found.steps,
        requirements=[RequirementRead.model_validate(item) for item in found.requirements],
    )


# --- Enhanced diligence -------------------------------------------------------------------


@router.get(
    "/customers/{customer_id}/pending-enhanced-diligence-rfi",
    response_model=RfiRead,
    tags=VERIFICATION,
    summary="The customer's pending request for information",
)
async def get_pending_rfi(customer_id: str, context: Context) -> RfiRead:
    """404 when no request for information is pending."""
    rfi = await onboarding.pending_rfi(
        context.session, caller=context.caller, customer_id=customer_id
    )
    return RfiRead.of(rfi)


@router.patch(
    "/customers/{customer_id}/pending-enhanced-diligence-rfi/progress",
    response_model=RfiProgressRead,
    tags=VERIFICATION,
    summary="Save progress on the pending request for information",
)
async def save_rfi_progress(customer_id: str, body: RfiProgress, context: Context) -> Response:
    """Spec 4.3. `data` holds answers nested by section (`{"business": {"sourceOfFunds":
    "…"}}`) or flat with dotted paths (`{"business.sourceOfFunds": "…"}`); they are merged
    into the saved answers. `markStepComplete` then completes the current step; completing
    the last one submits the request and the customer goes back UNDER_REVIEW."""
    step_id = await onboarding.save_rfi_progress(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        data=body.data,
        mark_step_complete=body.mark_step_complete,
        now=context.now(),
    )
    return await context.respond(RfiProgressRead(success=True, step_id=step_id))
