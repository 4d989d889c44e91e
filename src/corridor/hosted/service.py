"""The hosted verification page: open a session by the token in its link, upload identity
documents through the documents domain, and submit the answers (in the sandbox, with the
outcome the visible control chose).

The page acts as a caller of its own: the session's customer only, with the customers and
documents scopes (and `sandbox:write` in the sandbox), recorded as the session's id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.secrets import hash_secret, same_hash
from corridor.customers import onboarding
from corridor.customers import service as customers
from corridor.customers.errors import FieldProblems
from corridor.customers.requirements import Requirement
from corridor.customers.schemas.customer import BusinessVerification, IndividualVerification
from corridor.customers.states import CustomerStatus, CustomerType
from corridor.documents import service as documents
from corridor.documents.rules import DocumentStatus
from corridor.documents.schemas import UploadRequestCreate
from corridor.documents.storage import DocumentStorage
from corridor.hosted import repository, rules
from corridor.hosted.errors import LinkExpired, LinkInvalid, LinkUsed
from corridor.kit.errors import NotFound, ValidationFailed
from corridor.kit.ids import looks_like_id
from corridor.models.customer import AssociatedEntity, Customer, VerificationSession
from corridor.models.document import Document
from corridor.models.organization import Organization

COMPLETED = "COMPLETED"
token_chars_max = 100
_PAGE_SCOPES = frozenset({"customers:read", "customers:write", "documents:read", "documents:write"})


def page_caller(verification_session: VerificationSession, *, sandbox: bool) -> Caller:
    scopes = _PAGE_SCOPES | ({"sandbox:write"} if sandbox else set())
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

    @property
    def completed(self) -> bool:
        return self.verification_session.status == COMPLETED

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
        asks = rules.ENTITY_DOCUMENTS
    else:
        kind = customer.type
        is_business = customer.type == CustomerType.BUSINESS
        asks = rules.BUSINESS_DOCUMENTS if is_business else rules.INDIVIDUAL_DOCUMENTS
    subject_type = CustomerType.INDIVIDUAL if entity is not None else CustomerType(customer.type)
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
    )


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


# --- Submit -------------------------------------------------------------------------------


async def submit(
    session: AsyncSession,
    *,
    opened: Opened,
    form: Mapping[str, str],
    sandbox: bool,
    now: datetime,
) -> str:
    """Save the answers, submit the customer for verification, and in the sandbox apply
    the outcome chosen on the page; the session is then COMPLETED. Returns the status the
    subject ends in."""
    _open_for_changes(opened)
    missing = rules.missing_documents(opened.asks, set(opened.uploaded))
    if missing:
        raise FieldProblems(
            "Documents are missing",
            [{"field": ask.purpose, "message": f"upload: {ask.label}"} for ask in missing],
        )
    caller = page_caller(opened.verification_session, sandbox=sandbox)
    outcome = form.get("outcome") or None
    if outcome is not None and (not sandbox or outcome not in rules.SANDBOX_OUTCOMES):
        raise ValidationFailed("outcome", "is not an outcome this page offers")
    if opened.entity is not None:
        status = _submit_entity(opened.entity, outcome, now)
    else:
        status = await _submit_customer(session, caller, opened, form, outcome, sandbox, now)
    opened.verification_session.status = COMPLETED
    return status


def _submit_entity(entity: AssociatedEntity, outcome: str | None, now: datetime) -> str:
    decided = {value: key for key, value in rules.ENTITY_OUTCOMES.items()}
    entity.verification_status = decided.get(outcome or "", "SUBMITTED")
    entity.updated_at = now
    return entity.verification_status


async def _submit_customer(
    session: AsyncSession,
    caller: Caller,
    opened: Opened,
    form: Mapping[str, str],
    outcome: str | None,
    sandbox: bool,
    now: datetime,
) -> str:
    customer_id = opened.customer.id
    try:
        if opened.kind == CustomerType.BUSINESS:
            await onboarding.save_business_verification(
                session,
                caller=caller,
                customer_id=customer_id,
                answers=BusinessVerification.model_validate(_business_answers(form)),
                now=now,
            )
        else:
            await onboarding.save_individual_verification(
                session,
                caller=caller,
                customer_id=customer_id,
                answers=IndividualVerification.model_validate(_individual_answers(form)),
                now=now,
            )
    except ValidationError as error:
        raise _field_problems(error) from None
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


def _present(form: Mapping[str, str], *names: str) -> dict[str, str]:
    """The fields filled in, by their API names (a blank field is not an answer)."""
    return {name: form[name].strip() for name in names if form.get(name, "").strip()}


def _address(form: Mapping[str, str]) -> dict[str, Any] | None:
    address = _present(form, "addressLine1", "addressLine2", "city", "state", "postalCode")
    if form.get("country", "").strip():
        address["country"] = form["country"].strip().upper()
    return address or None


def _individual_answers(form: Mapping[str, str]) -> dict[str, Any]:
    answers: dict[str, Any] = _present(form, "dateOfBirth", "taxIdentificationNumber")
    if form.get("nationality", "").strip():
        answers["nationality"] = form["nationality"].strip().upper()
    address = _address(form)
    if address is not None:
        answers["address"] = address
    document = _present(form, "idDocumentType", "idDocumentNumber", "idDocumentIssuingCountry")
    if document:
        answers["idDocument"] = {
            "type": document.get("idDocumentType"),
            "number": document.get("idDocumentNumber"),
            "issuingCountry": document.get("idDocumentIssuingCountry", "").upper() or None,
        }
    return answers


def _business_answers(form: Mapping[str, str]) -> dict[str, Any]:
    answers: dict[str, Any] = _present(form, "registrationNumber")
    if form.get("incorporationCountry", "").strip():
        answers["incorporationCountry"] = form["incorporationCountry"].strip().upper()
    address = _address(form)
    if address is not None:
        answers["address"] = address
    return answers


def _field_problems(error: ValidationError) -> FieldProblems:
    problems = [
        {
            "field": ".".join(str(part) for part in problem["loc"]) or "form",
            "message": str(problem["msg"]),
        }
        for problem in error.errors()
    ]
    return FieldProblems("Some answers need fixing", problems)
