"""HTTP endpoints of the customers domain: customers, their status and verification."""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from corridor.customers import onboarding, reading, service
from corridor.customers.endpoints.onboarding_steps import router as onboarding_router
from corridor.customers.schemas.customer import (
    BusinessCustomerCreate,
    BusinessCustomerCreated,
    BusinessVerification,
    CapabilitiesRead,
    CapabilityRead,
    ComplianceRequirementsRead,
    CustomerAccount,
    CustomerRead,
    CustomerUpdate,
    IndividualCustomerCreate,
    IndividualVerification,
    RequirementRead,
    SandboxVerificationStatus,
    VerificationStatusRead,
)
from corridor.customers.schemas.entities import AssociatedEntityRead
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.kit.pagination import ListResponse, PageRequest
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request

router = APIRouter(prefix="/v1", responses=ERROR_RESPONSES)

TAGS: list[str | Enum] = ["Customers"]


@router.post(
    "/customers/individual",
    status_code=201,
    response_model=CustomerRead,
    tags=TAGS,
    summary="Create an individual customer",
)
async def create_individual_customer(body: IndividualCustomerCreate, context: Context) -> Response:
    """The customer starts INCOMPLETE; `tosAcceptanceId` must be an ACCEPTED acceptance."""
    customer = await service.create_individual(
        context.session, caller=context.caller, data=body, now=context.now()
    )
    return await context.respond(CustomerRead.of(customer), status=201)


@router.post(
    "/customers/business",
    status_code=201,
    response_model=BusinessCustomerCreated,
    tags=TAGS,
    summary="Create a business customer",
)
async def create_business_customer(body: BusinessCustomerCreate, context: Context) -> Response:
    """The customer starts INCOMPLETE; add associated entities before submitting it.

    Created with a platform organization's key (not yet bound to a customer), it binds the
    session (spec 5.7): `sessionToken` is a `ps_…` bearer token that acts as that key bound
    to this customer for 12 hours, shown once."""
    created = await service.create_business_customer(
        context.session, caller=context.caller, data=body, now=context.now()
    )
    answer = BusinessCustomerCreated.model_validate(
        {
            **CustomerRead.of(created.customer).model_dump(),
            "session_token": created.session_token,
            "session_expires_at": created.session_expires_at,
        }
    )
    return await context.respond(answer, status=201)


@router.get(
    "/customers", response_model=ListResponse[CustomerRead], tags=TAGS, summary="List customers"
)
async def list_customers(
    context: Reading,
    page: Annotated[PageRequest, Depends(page_request)],
    status: Annotated[CustomerStatus | None, Query(description="Only this status")] = None,
    type: Annotated[CustomerType | None, Query(description="INDIVIDUAL or BUSINESS")] = None,
    email: Annotated[str | None, Query(max_length=320, description="Exact email")] = None,
    q: Annotated[
        str | None,
        Query(
            max_length=100,
            description="A part of the name or the email, any case",
            examples=["acme"],
        ),
    ] = None,
) -> ListResponse[CustomerRead]:
    """Newest first; filter by `status`, `type`, exact `email`, or `q` (search: a part of the
    name or the email, any case). A caller bound to a customer sees only that customer."""
    result = await service.list_customers(
        context.session,
        caller=context.caller,
        page=page,
        status=status,
        type_=type,
        email=email,
        search=q,
    )
    return ListResponse[CustomerRead].of(result, CustomerRead.of)


def _expansions(expand: str | None) -> list[str]:
    return [part.strip() for part in (expand or "").split(",") if part.strip()]


@router.get(
    "/customers/{customer_id}",
    response_model=CustomerRead,
    tags=TAGS,
    summary="Get a customer",
)
async def get_customer(
    customer_id: str,
    context: Context,
    expand: Annotated[
        str | None,
        Query(
            max_length=100,
            description="Comma list of accounts, associatedEntities, verification",
            examples=["accounts,verification"],
        ),
    ] = None,
) -> Response:
    """Expanded parts appear only when asked for: `accounts` (balance accounts, without
    balances), `associatedEntities`, `verification` (as GET …/verification-status)."""
    view = await reading.read_customer(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        expand=_expansions(expand),
    )
    body = CustomerRead.of(view.customer).to_json_dict()
    if view.accounts is not None:
        body["accounts"] = [
            CustomerAccount.model_validate(account).to_json_dict() for account in view.accounts
        ]
    if view.associated_entities is not None:
        body["associatedEntities"] = [
            AssociatedEntityRead.of(entity).to_json_dict() for entity in view.associated_entities
        ]
    if view.verification is not None:
        body["verification"] = view.verification.to_json_dict()
    return Response(json.dumps(body, ensure_ascii=False), media_type="application/json")


@router.patch(
    "/customers/{customer_id}",
    response_model=CustomerRead,
    tags=TAGS,
    summary="Update a customer",
)
async def update_customer(customer_id: str, body: CustomerUpdate, context: Context) -> Response:
    """Only the fields sent change. An ARCHIVED customer cannot be changed (409)."""
    customer = await service.update_customer(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        changes=body,
        now=context.now(),
    )
    return await context.respond(CustomerRead.of(customer))


@router.post(
    "/customers/{customer_id}/archive",
    response_model=CustomerRead,
    tags=TAGS,
    summary="Archive a customer",
)
async def archive_customer(customer_id: str, context: Context) -> Response:
    """Final: an archived customer is kept for the record and can no longer change."""
    customer = await service.archive_customer(
        context.session, caller=context.caller, customer_id=customer_id, now=context.now()
    )
    return await context.respond(CustomerRead.of(customer))


@router.get(
    "/customers/{customer_id}/capabilities",
    response_model=CapabilitiesRead,
    tags=TAGS,
    summary="What a customer may do",
)
async def get_capabilities(customer_id: str, context: Context) -> CapabilitiesRead:
    """ACTIVE customers have every capability ACTIVE; customers still being verified have
    them PENDING; rejected, suspended and archived customers INACTIVE."""
    customer, granted = await reading.read_capabilities(
        context.session, caller=context.caller, customer_id=customer_id
    )
    return CapabilitiesRead(
        customer_id=customer.id,
        capabilities=[CapabilityRead(name=name, status=status) for name, status in granted.items()],
    )


@router.get(
    "/customers/{customer_id}/compliance-requirements",
    response_model=ComplianceRequirementsRead,
    tags=TAGS,
    summary="Compliance requirements of a customer",
)
async def get_compliance_requirements(
    customer_id: str, context: Context
) -> ComplianceRequirementsRead:
    """All must be satisfied before the customer can be submitted for verification."""
    customer, found = await reading.read_compliance_requirements(
        context.session, caller=context.caller, customer_id=customer_id
    )
    return ComplianceRequirementsRead(
        customer_id=customer.id,
        satisfied=all(requirement.satisfied for requirement in found),
        requirements=[RequirementRead.model_validate(requirement) for requirement in found],
    )


@router.put(
    "/customers/{customer_id}/individual-verification",
    response_model=VerificationStatusRead,
    tags=["Verification"],
    summary="Save individual verification answers",
)
async def save_individual_verification(
    customer_id: str, body: IndividualVerification, context: Context
) -> Response:
    """Saves the answers given (others keep their saved value). The status does not change:
    submit the customer when every requirement is met. 409 for a business customer."""
    status = await onboarding.save_individual_verification(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        answers=body,
        now=context.now(),
    )
    return await context.respond(status)


@router.put(
    "/customers/{customer_id}/business-verification",
    response_model=VerificationStatusRead,
    tags=["Verification"],
    summary="Save business verification answers",
)
async def save_business_verification(
    customer_id: str, body: BusinessVerification, context: Context
) -> Response:
    """Saves the answers given (others keep their saved value). The status does not change:
    submit the customer when every requirement is met. 409 for an individual customer."""
    status = await onboarding.save_business_verification(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        answers=body,
        now=context.now(),
    )
    return await context.respond(status)


@router.post(
    "/customers/{customer_id}/submit-verification",
    response_model=CustomerRead,
    tags=["Verification"],
    summary="Submit a customer for verification",
)
async def submit_verification(customer_id: str, context: Context) -> Response:
    """INCOMPLETE → UNDER_REVIEW when every compliance requirement is met (else 422 with
    each missing one in `errors`); RFI_PENDING → UNDER_REVIEW when every step of the
    request for information is complete."""
    customer = await service.submit_verification(
        context.session, caller=context.caller, customer_id=customer_id, now=context.now()
    )
    return await context.respond(CustomerRead.of(customer))


@router.get(
    "/customers/{customer_id}/verification-status",
    response_model=VerificationStatusRead,
    tags=["Verification"],
    summary="Verification status of a customer",
)
async def get_verification_status(customer_id: str, context: Context) -> VerificationStatusRead:
    """Where the customer's verification stands: its status and reason, which requirements are
    still missing, a pending request for information, and the answers given so far."""
    return await reading.read_verification_status(
        context.session, caller=context.caller, customer_id=customer_id
    )


@router.post(
    "/sandbox/customers/{customer_id}/verification-status",
    response_model=CustomerRead,
    tags=["Sandbox"],
    summary="Set a customer's verification status (sandbox)",
)
async def set_verification_status_in_sandbox(
    customer_id: str, body: SandboxVerificationStatus, context: Context
) -> Response:
    """Stands in for the verification decision, walking the legal moves to the status
    asked for (INCOMPLETE → ACTIVE passes UNDER_REVIEW). ACTIVE opens the balance
    accounts; RFI_PENDING raises a request for information. 403 `sandbox_only` in production."""
    customer = await service.set_status_in_sandbox(
        context.session,
        caller=context.caller,
        customer_id=customer_id,
        target=CustomerStatus(body.status.value),
        reason=body.reason,
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    return await context.respond(CustomerRead.of(customer))


router.include_router(onboarding_router)
