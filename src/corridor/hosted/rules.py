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
