"""The hosted verification page's pure rules: which documents each kind of session asks
for, the sandbox outcomes, and the words the page uses."""

from __future__ import annotations

from dataclasses import dataclass

from corridor.customers.states import CustomerStatus


@dataclass(frozen=True, slots=True)
class DocumentAsk:
    purpose: str
    label: str
    required: bool


INDIVIDUAL_DOCUMENTS = (
    DocumentAsk("id_front", "Front of your ID document", True),
    DocumentAsk("id_back", "Back of your ID document (not needed for a passport)", False),
    DocumentAsk("proof_of_address", "Proof of address (a recent bill or bank statement)", False),
)
BUSINESS_DOCUMENTS = (
    DocumentAsk("business_registration", "Certificate of incorporation or registration", True),
    DocumentAsk("proof_of_address", "Proof of the business address", False),
)
ENTITY_DOCUMENTS = (
    DocumentAsk("id_front", "Front of your ID document", True),
    DocumentAsk("id_back", "Back of your ID document (not needed for a passport)", False),
)
# A company that owns or controls the business: its own registration, not an ID.
COMPANY_ENTITY_DOCUMENTS = (
    DocumentAsk("business_registration", "Certificate of incorporation or registration", True),
)

# What the sandbox's outcome control may decide, and how the page names it.
SANDBOX_OUTCOMES = {
    "ACTIVE": "Approve",
    "REJECTED": "Reject",
    "RFI_PENDING": "Ask for more information",
    "UNDER_REVIEW": "Leave it under review",
}
ENTITY_OUTCOMES = {"VERIFIED": "ACTIVE", "REJECTED": "REJECTED"}

STEP_TITLES = {
    "terms_of_service": "Terms of service accepted",
    "personal_details": "Personal details",
    "address": "Address",
    "tax_identification": "Tax identification number",
    "id_document": "Identity document",
    "business_details": "Business details",
    "registration": "Registration",
    "associated_entities": "Owners and control persons",
}

RESULT_WORDS = {
    CustomerStatus.ACTIVE.value: "Your verification is approved.",
    CustomerStatus.REJECTED.value: "Your verification was not approved.",
    CustomerStatus.RFI_PENDING.value: "More information is needed; you will be contacted.",
    CustomerStatus.UNDER_REVIEW.value: "Your details are under review.",
}


def missing_documents(asks: tuple[DocumentAsk, ...], uploaded: set[str]) -> list[DocumentAsk]:
    return [ask for ask in asks if ask.required and ask.purpose not in uploaded]


# --- Terms of service and owners ---------------------------------------------------------

TERMS_FIELD = "termsAccepted"
TERMS_PATH = "/hosted/terms-of-service"

ROLE_WORDS = {
    "BENEFICIAL_OWNER": "Beneficial owner (25% or more)",
    "CONTROL_PERSON": "Control person (runs the business)",
    "DIRECTOR": "Director",
    "AUTHORIZED_SIGNER": "Authorized signer",
}

# The names of the page's fields, as the summary of problems names them.
FIELD_LABELS = {
    TERMS_FIELD: "Terms of service",
    "dateOfBirth": "Date of birth",
    "nationality": "Nationality",
    "taxIdentificationNumber": "Tax identification number",
    "idDocumentType": "Identity document type",
    "idDocumentIssuingCountry": "Issuing country",
    "idDocumentNumber": "Document number",
    "idDocumentExpiresOn": "Expiry date",
    "registrationNumber": "Registration number",
    "incorporationCountry": "Country of incorporation",
    "addressLine1": "Street address",
    "addressLine2": "Apartment, suite",
    "city": "City",
    "state": "State or region",
    "postalCode": "Postal code",
    "country": "Country",
    "firstName": "First name",
    "lastName": "Last name",
    "email": "Email",
    "phone": "Phone",
    "title": "Job title",
    "roles": "Roles",
    "ownershipPercentage": "Ownership",
    "owners": "Owners and control persons",
    "outcome": "Outcome",
    "form": "The form",
}

# API field paths whose form field has another name.
_FORM_NAMES = {
    "address": "addressLine1",
    "idDocument": "idDocumentType",
    "idDocument.type": "idDocumentType",
    "idDocument.number": "idDocumentNumber",
    "idDocument.issuingCountry": "idDocumentIssuingCountry",
    "idDocument.expiresOn": "idDocumentExpiresOn",
    "tosAcceptanceId": TERMS_FIELD,
    "associatedEntities": "owners",
}


# Questions of a request for information answered by ticking a box (true), not in words.
RFI_CHECKBOXES = frozenset({"attestation.confirmed"})


def rfi_field(path: str) -> str:
    """The page's field of a request-for-information question (`personal.occupation`)."""
    return f"rfi.{path}"


def form_field(path: str) -> str:
    """The page's field that an API field path (`address.city`, `roles.0`,
    `data.personal.occupation`) names."""
    if path in _FORM_NAMES:
        return _FORM_NAMES[path]
    head, _, rest = path.partition(".")
    if head == "data" and rest:
        return rfi_field(rest)
    if head == "address" and rest:
        return rest.split(".")[0]
    if head == "roles":
        return "roles"
    return _FORM_NAMES.get(path, path)


def readable(message: str) -> str:
    """Pydantic's message without its 'Value error, ' prefix."""
    return message.removeprefix("Value error, ")


def field_errors(problems: list[dict[str, str]]) -> dict[str, str]:
    """The first problem of each page field, by the field's form name."""
    errors: dict[str, str] = {}
    for problem in problems:
        errors.setdefault(form_field(problem.get("field", "form")), readable(problem["message"]))
    return errors
