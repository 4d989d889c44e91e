"""The hosted verification page: open a session by the token in its link, upload identity
documents through the documents domain, accept the terms of service, add and remove a
business's owners, and submit the answers (in the sandbox, with the outcome the visible
control chose). Every change goes through the same service functions as the REST API.

The page acts as a caller of its own: the session's customer only, with the customers and
documents scopes (and `sandbox:write` in the sandbox), recorded as the session's id.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.auth.secrets import hash_secret, same_hash
from corridor.customers import diligence, entities, onboarding
from corridor.customers import service as customers
from corridor.customers.errors import FieldProblems
from corridor.customers.requirements import Requirement
from corridor.customers.schemas.customer import (
    BusinessVerification,
    CustomerUpdate,
    IndividualVerification,
    TermsOfServiceCreate,
)
from corridor.customers.schemas.entities import AssociatedEntityCreate, AssociatedEntityUpdate
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.documents import service as documents
from corridor.documents.rules import DocumentStatus
from corridor.documents.schemas import UploadRequestCreate
from corridor.documents.storage import DocumentStorage
from corridor.hosted import repository, rules
from corridor.hosted.errors import LinkExpired, LinkInvalid, LinkUsed
from corridor.kit.errors import InvalidState, NotFound, ValidationFailed
from corridor.kit.ids import looks_like_id
from corridor.models.customer import (
    AssociatedEntity,
    Customer,
    EnhancedDiligenceRfi,
    VerificationSession,
)
from corridor.models.document import Document
from corridor.models.organization import Organization

COMPLETED = "COMPLETED"
token_chars_max = 100
_PAGE_SCOPES = frozenset(
    {Scope.CUSTOMERS_READ, Scope.CUSTOMERS_WRITE, Scope.DOCUMENTS_READ, Scope.DOCUMENTS_WRITE}
)


def page_caller(verification_session: VerificationSession, *, sandbox: bool) -> Caller:
    scopes = _PAGE_SCOPES | ({Scope.SANDBOX_WRITE} if sandbox else set())
    return Caller(
        kind=CallerKind.ORGANIZATION_KEY,
        organization_id=verification_session.organization_id,
        actor_id=verification_session.id,
        scopes=frozenset(scopes),
        customer_id=verification_session.customer_id,
    )


@dataclass(frozen=True, slots=True)
class Opened:
    """A session its link opened, and what the page shows of it."""

    verification_session: VerificationSession
    organization: Organization
    customer: Customer
    entity: AssociatedEntity | None
    kind: str  # INDIVIDUAL, BUSINESS or ENTITY
    steps: list[str]
    requirements: list[Requirement]
    asks: tuple[rules.DocumentAsk, ...]
    documents: list[Document]
    # A business customer's owners, directors and signers (empty for other pages).
    owners: list[AssociatedEntity]
    # The customer's pending request for information (RFI_PENDING customers' own pages).
    rfi: EnhancedDiligenceRfi | None = None

    @property
    def completed(self) -> bool:
        return self.verification_session.status == COMPLETED

    @property
    def rfi_steps(self) -> list[dict[str, Any]]:
        """The steps of the pending request for information still to answer, in order."""
        return [step for step in self.rfi.steps if not step["completed"]] if self.rfi else []

    @property
    def asks_terms(self) -> bool:
        """The customer's own page asks for the terms of service until they are accepted."""
        return self.entity is None and self.customer.tos_acceptance_id is None

    @property
    def uploaded(self) -> dict[str, Document]:
        return {
            document.purpose: document
            for document in self.documents
            if document.status == DocumentStatus.UPLOADED
        }


async def open_link(
    session: AsyncSession, *, session_id: str, token: str, now: datetime, locked: bool = False
) -> Opened:
    """The session, if `token` is its own and it has not expired; a completed session opens
    (to say so). Anything else is LinkInvalid or LinkExpired, never a hint of whose it is."""
    if not looks_like_id(session_id, "vs") or not 1 <= len(token) <= token_chars_max:
        raise LinkInvalid()
    found = await repository.verification_session(session, session_id, locked=locked)
    if found is None or not same_hash(found.token_hash, hash_secret(token)):
        raise LinkInvalid()
    if found.status != COMPLETED and found.expires_at <= now:
        raise LinkExpired()
    organization, customer, entity = await repository.subject(session, found)
    asks: tuple[rules.DocumentAsk, ...]
    if entity is not None:
        kind = "ENTITY"
        company = entity.type == CustomerType.BUSINESS
        asks = rules.COMPANY_ENTITY_DOCUMENTS if company else rules.ENTITY_DOCUMENTS
    else:
        kind = customer.type
        is_business = customer.type == CustomerType.BUSINESS
        asks = rules.BUSINESS_DOCUMENTS if is_business else rules.INDIVIDUAL_DOCUMENTS
    subject_type = CustomerType.INDIVIDUAL if entity is not None else CustomerType(customer.type)
    owners = (
        await customers.associated_entities(session, customer)
        if kind == CustomerType.BUSINESS
        else []
    )
    rfi = None
    if entity is None and customer.status == CustomerStatus.RFI_PENDING:
        try:
            rfi = await onboarding.pending_rfi(
                session,
                caller=page_caller(found, sandbox=False),
                customer_id=customer.id,
            )
        except NotFound:
            rfi = None
    return Opened(
        verification_session=found,
        organization=organization,
        customer=customer,
        entity=entity,
        kind=kind,
        steps=onboarding.verification_steps(subject_type, for_entity=entity is not None),
        requirements=await customers.compliance_requirements(session, customer),
        asks=asks,
        documents=await repository.documents_of_session(session, found.id),
        owners=owners,
        rfi=rfi,
    )


def csrf_token(token: str, session_id: str) -> str:
    """The CSRF token of a session's page: an HMAC keyed by the link's token, so only a page
    opened with the link can carry it (as the console derives its own from the session)."""
    message = f"corridor hosted page csrf {session_id}".encode()
    digest = hmac.new(token.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def same_csrf_token(sent: str | None, token: str, session_id: str) -> bool:
    expected = csrf_token(token, session_id)
    return sent is not None and hmac.compare_digest(sent.encode(), expected.encode())


def _open_for_changes(opened: Opened) -> None:
    if opened.completed:
        raise LinkUsed()


# --- Uploads ------------------------------------------------------------------------------


async def request_upload(
    session: AsyncSession,
    *,
    opened: Opened,
    purpose: str,
    file_name: str,
    content_type: str,
    size: int,
    storage: DocumentStorage,
    base_url: str,
    sandbox: bool,
    now: datetime,
) -> documents.UploadRequested:
    """An upload request for one of the documents the page asks for, tied to the session."""
    _open_for_changes(opened)
    if purpose not in {ask.purpose for ask in opened.asks}:
        raise ValidationFailed("purpose", "is not a document this page asks for")
    try:
        data = UploadRequestCreate.model_validate(
            {
                "customerId": opened.customer.id,
                "purpose": purpose,
                "fileName": file_name,
                "contentType": content_type,
                "size": size,
            }
        )
    except ValidationError as error:
        raise _field_problems(error) from None
    return await documents.request_upload(
        session,
        caller=page_caller(opened.verification_session, sandbox=sandbox),
        data=data,
        storage=storage,
        base_url=base_url,
        now=now,
        verification_session_id=opened.verification_session.id,
    )


async def confirm_upload(
    session: AsyncSession,
    *,
    opened: Opened,
    document_id: str,
    storage: DocumentStorage,
    sandbox: bool,
    now: datetime,
) -> Document | documents.Rejected:
    _open_for_changes(opened)
    if document_id not in {document.id for document in opened.documents}:
        raise NotFound("document", document_id)
    return await documents.confirm_document(
        session,
        caller=page_caller(opened.verification_session, sandbox=sandbox),
        storage=storage,
        document_id=document_id,
        now=now,
    )


# --- Terms of service --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requester:
    """Who sent the page's form, recorded with a terms-of-service acceptance as the API does."""

    ip_address: str | None
    user_agent: str | None


async def accept_terms(
    session: AsyncSession, *, caller: Caller, opened: Opened, requester: Requester, now: datetime
) -> None:
    """Start and accept an acceptance, then link it to the customer: the API's three calls
    (`POST /v1/terms-of-service/acceptances`, `…/{id}/accept`, `PATCH /v1/customers/{id}`
    with `tosAcceptanceId`), through the same service functions."""
    acceptance = await onboarding.start_terms_of_service(
        session, caller=caller, data=TermsOfServiceCreate(), now=now
    )
    await onboarding.accept_terms_of_service(
        session,
        caller=caller,
        acceptance_id=acceptance.id,
        ip_address=requester.ip_address,
        user_agent=requester.user_agent,
        now=now,
    )
    await customers.update_customer(
        session,
        caller=caller,
        customer_id=opened.customer.id,
        changes=CustomerUpdate.model_validate({"tosAcceptanceId": acceptance.id}),
        now=now,
    )


# --- Owners -------------------------------------------------------------------------------


def _business_page(opened: Opened) -> None:
    _open_for_changes(opened)
    if opened.kind != CustomerType.BUSINESS:
        raise InvalidState("Only a business's page has owners", current_status=opened.kind)


async def add_owner(
    session: AsyncSession,
    *,
    opened: Opened,
    form: Mapping[str, str],
    roles: list[str],
    sandbox: bool,
    now: datetime,
) -> AssociatedEntity:
    """An individual owner, control person, director or signer of the business, validated
    as `POST /v1/customers/{id}/associated-entities` validates it."""
    _business_page(opened)
    answers: dict[str, Any] = {"type": CustomerType.INDIVIDUAL.value, "roles": roles}
    answers |= _person_answers(form)
    if form.get("ownershipPercentage", "").strip():
        answers["ownershipPercentage"] = form["ownershipPercentage"].strip().rstrip("%").strip()
    problems = [] if roles else [{"field": "roles", "message": "choose at least one role"}]
    try:
        data = AssociatedEntityCreate.model_validate(answers)
    except ValidationError as error:
        # No role ticked: said once, in the page's words, not again in pydantic's.
        found = [p for p in _problems(error) if not (problems and p["field"] == "roles")]
        raise FieldProblems("The person's details need fixing", problems + found) from None
    if problems:
        raise FieldProblems("The person's details need fixing", problems)
    return await entities.create_entity(
        session,
        caller=page_caller(opened.verification_session, sandbox=sandbox),
        customer_id=opened.customer.id,
        data=data,
        now=now,
    )


async def remove_owner(
    session: AsyncSession, *, opened: Opened, entity_id: str, sandbox: bool
) -> None:
    """Through `DELETE /v1/customers/{id}/associated-entities/{ae}`'s service function."""
    _business_page(opened)
    if entity_id not in {owner.id for owner in opened.owners}:
        raise NotFound("associated entity", entity_id)
    await entities.delete_entity(
        session,
        caller=page_caller(opened.verification_session, sandbox=sandbox),
        customer_id=opened.customer.id,
        entity_id=entity_id,
    )


# --- Submit -------------------------------------------------------------------------------


async def submit(
    session: AsyncSession,
    *,
    opened: Opened,
    form: Mapping[str, str],
    requester: Requester,
    sandbox: bool,
    now: datetime,
) -> str:
    """Save the answers (and the terms of service, when the page asks for them), submit the
    customer for verification, and in the sandbox apply the outcome chosen on the page;
    the session is then COMPLETED. Returns the status the subject ends in. Every problem
    the page can see is raised at once, before anything is saved."""
    _open_for_changes(opened)
    problems = [
        {"field": ask.purpose, "message": f"upload: {ask.label}"}
        for ask in rules.missing_documents(opened.asks, set(opened.uploaded))
    ]
    if opened.asks_terms and form.get(rules.TERMS_FIELD) != "yes":
        problems.append(
            {"field": rules.TERMS_FIELD, "message": "accept the terms of service to continue"}
        )
    problems += [
        {"field": rules.rfi_field(path), "message": "required"}
        for path in _rfi_unanswered(opened, form)
    ]
    outcome = form.get("outcome") or None
    if outcome is not None and (not sandbox or outcome not in rules.SANDBOX_OUTCOMES):
        problems.append({"field": "outcome", "message": "is not an outcome this page offers"})
    answers: IndividualVerification | BusinessVerification | AssociatedEntityUpdate | None = None
    try:
        answers = _answers(opened, form, problems)
    except ValidationError as error:
        problems += _problems(error)
    if problems or answers is None:
        raise FieldProblems("Some answers need fixing", problems)
    caller = page_caller(opened.verification_session, sandbox=sandbox)
    if opened.entity is not None:
        assert isinstance(answers, AssociatedEntityUpdate)
        status = await _submit_entity(session, caller, opened, answers, outcome, now)
    else:
        if opened.asks_terms:
            await accept_terms(session, caller=caller, opened=opened, requester=requester, now=now)
        status = await _submit_customer(
            session, caller, opened, answers, form, outcome, sandbox, now
        )
    opened.verification_session.status = COMPLETED
    return status


def _answers(
    opened: Opened, form: Mapping[str, str], problems: list[dict[str, str]]
) -> IndividualVerification | BusinessVerification | AssociatedEntityUpdate:
    if opened.entity is not None:
        answers = _entity_answers(opened.entity, form)
        known = opened.entity.details or {}
        problems += [
            {"field": name, "message": "required"}
            for name in _entity_required(opened.entity)
            if name not in answers and not known.get(name)
        ]
        return AssociatedEntityUpdate.model_validate(answers)
    if opened.kind == CustomerType.BUSINESS:
        return BusinessVerification.model_validate(_business_answers(form))
    return IndividualVerification.model_validate(_individual_answers(form))


async def _submit_entity(
    session: AsyncSession,
    caller: Caller,
    opened: Opened,
    answers: AssociatedEntityUpdate,
    outcome: str | None,
    now: datetime,
) -> str:
    """The person's own details, saved as `PATCH …/associated-entities/{ae}` saves them."""
    entity = opened.entity
    assert entity is not None
    await entities.update_entity(
        session,
        caller=caller,
        customer_id=opened.customer.id,
        entity_id=entity.id,
        changes=answers,
        now=now,
    )
    decided = {value: key for key, value in rules.ENTITY_OUTCOMES.items()}
    entity.verification_status = decided.get(outcome or "", "SUBMITTED")
    entity.updated_at = now
    return entity.verification_status


async def _submit_customer(
    session: AsyncSession,
    caller: Caller,
    opened: Opened,
    answers: IndividualVerification | BusinessVerification | AssociatedEntityUpdate,
    form: Mapping[str, str],
    outcome: str | None,
    sandbox: bool,
    now: datetime,
) -> str:
    customer_id = opened.customer.id
    if isinstance(answers, BusinessVerification):
        await onboarding.save_business_verification(
            session, caller=caller, customer_id=customer_id, answers=answers, now=now
        )
    else:
        assert isinstance(answers, IndividualVerification)
        await onboarding.save_individual_verification(
            session, caller=caller, customer_id=customer_id, answers=answers, now=now
        )
    await _answer_rfi(session, caller, opened, form, now)
    customer = opened.customer
    if customer.status in (CustomerStatus.INCOMPLETE, CustomerStatus.RFI_PENDING):
        customer = await customers.submit_verification(
            session, caller=caller, customer_id=customer_id, now=now
        )
    if outcome is not None and outcome != customer.status:
        customer = await customers.set_status_in_sandbox(
            session,
            caller=caller,
            customer_id=customer_id,
            target=CustomerStatus(outcome),
            reason="Decided on the sandbox verification page",
            sandbox=sandbox,
            now=now,
        )
    return customer.status


# --- The request for information ---------------------------------------------------------


def _rfi_answer(path: str, form: Mapping[str, str]) -> str | bool | None:
    """The page's answer to one question: a ticked attestation is true, a text is trimmed;
    None when not answered."""
    value = form.get(rules.rfi_field(path), "").strip()
    if path in rules.RFI_CHECKBOXES:
        return True if value == "yes" else None
    return value or None


def _rfi_unanswered(opened: Opened, form: Mapping[str, str]) -> list[str]:
    """The questions of the steps still open that neither the form nor a saved answer
    answers."""
    saved = opened.rfi.answers if opened.rfi else {}
    return [
        field["path"]
        for step in opened.rfi_steps
        for field in step["fields"]
        if _rfi_answer(field["path"], form) is None
        and field["path"] in diligence.unanswered(step, saved or {})
    ]


async def _answer_rfi(
    session: AsyncSession, caller: Caller, opened: Opened, form: Mapping[str, str], now: datetime
) -> None:
    """Each open step, answered and completed in order as
    `PATCH …/pending-enhanced-diligence-rfi/progress` does; completing the last submits the
    request and the customer goes back UNDER_REVIEW."""
    for step in opened.rfi_steps:
        answers = {
            field["path"]: answer
            for field in step["fields"]
            if (answer := _rfi_answer(field["path"], form)) is not None
        }
        await onboarding.save_rfi_progress(
            session,
            caller=caller,
            customer_id=opened.customer.id,
            data=answers,
            mark_step_complete=True,
            now=now,
        )


def _present(form: Mapping[str, str], *names: str) -> dict[str, str]:
    """The fields filled in, by their API names (a blank field is not an answer)."""
    return {name: form[name].strip() for name in names if form.get(name, "").strip()}


def _country(form: Mapping[str, str], name: str) -> dict[str, str]:
    value = form.get(name, "").strip()
    return {name: value.upper()} if value else {}


def _address(form: Mapping[str, str]) -> dict[str, Any] | None:
    address = _present(form, "addressLine1", "addressLine2", "city", "state", "postalCode")
    address |= _country(form, "country")
    return address or None


def _with_address(answers: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    address = _address(form)
    if address is not None:
        answers["address"] = address
    return answers


def _individual_answers(form: Mapping[str, str]) -> dict[str, Any]:
    answers: dict[str, Any] = _present(form, "dateOfBirth", "taxIdentificationNumber")
    answers |= _country(form, "nationality")
    document = _present(form, "idDocumentType", "idDocumentNumber", "idDocumentIssuingCountry")
    if document:
        answers["idDocument"] = {
            "type": document.get("idDocumentType"),
            "number": document.get("idDocumentNumber"),
            "issuingCountry": document.get("idDocumentIssuingCountry", "").upper() or None,
        }
    return _with_address(answers, form)


def _business_answers(form: Mapping[str, str]) -> dict[str, Any]:
    answers: dict[str, Any] = _present(form, "registrationNumber")
    answers |= _country(form, "incorporationCountry")
    return _with_address(answers, form)


def _person_answers(form: Mapping[str, str]) -> dict[str, Any]:
    """An individual owner's fields, by their API names."""
    answers: dict[str, Any] = _present(
        form, "firstName", "lastName", "email", "dateOfBirth", "title", "taxIdentificationNumber"
    )
    answers |= _country(form, "nationality")
    return _with_address(answers, form)


def _entity_answers(entity: AssociatedEntity, form: Mapping[str, str]) -> dict[str, Any]:
    if entity.type == CustomerType.BUSINESS:
        answers: dict[str, Any] = _present(
            form, "legalName", "registrationNumber", "taxIdentificationNumber"
        )
        answers |= _country(form, "incorporationCountry")
        return _with_address(answers, form)
    return _person_answers(form)


def _entity_required(entity: AssociatedEntity) -> tuple[str, ...]:
    """What the person's page requires: its steps (details, address, tax id)."""
    if entity.type == CustomerType.BUSINESS:
        return ("legalName", "registrationNumber", "incorporationCountry", "address")
    return ("firstName", "lastName", "dateOfBirth", "taxIdentificationNumber", "address")


def _problems(error: ValidationError) -> list[dict[str, str]]:
    return [
        {
            "field": ".".join(str(part) for part in problem["loc"]) or "form",
            "message": "unknown field"
            if problem["type"] == "extra_forbidden"
            else str(problem["msg"]),
        }
        for problem in error.errors()
    ]


def _field_problems(error: ValidationError) -> FieldProblems:
    return FieldProblems("Some answers need fixing", _problems(error))
