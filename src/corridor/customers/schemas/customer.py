"""Wire shapes of customers, their onboarding and verification (API.md section 8)."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
)

from corridor.customers import diligence
from corridor.customers.rules import BusinessType, IdDocumentType, SourceOfFunds
from corridor.customers.states import (
    Capability,
    CapabilityStatus,
    CustomerStatus,
    CustomerType,
    SandboxStatus,
)
from corridor.kit.emails import checked_email
from corridor.kit.schemas import (
    Address,
    AddressIn,
    Amount,
    AmountIn,
    CountryCode,
    InSchema,
    MultiLineText,
    RequestModel,
    ResponseModel,
    ShownOnce,
    SingleLineText,
    Timestamp,
    web_address_pattern,
)
from corridor.models.customer import Customer, EnhancedDiligenceRfi

metadata_keys_max = 50
metadata_key_chars_max = 40
metadata_value_chars_max = 500
status_reason_chars_max = 500

_PHONE = re.compile(r"^\+[1-9][0-9]{6,14}$")
_TAX_IDENTIFICATION_NUMBER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 .-]*$")


def _email(value: str) -> str:
    # Reserved testing domains (.test, example.com, …): sandbox only (kit/emails.py).
    return checked_email(value)


def _phone(value: str) -> str:
    if not _PHONE.match(value):
        raise ValueError("must be an E.164 phone number, e.g. +14155550100")
    return value


def _calendar_date(value: str) -> str:
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a date YYYY-MM-DD") from None
    if len(value) != 10 or parsed.year < 1900:
        raise ValueError("must be a date YYYY-MM-DD after 1900")
    return value


def _web_address(value: str) -> str:
    if not value.startswith(("https://", "http://")) or any(c.isspace() for c in value):
        raise ValueError("must be an http or https URL")
    return value


def _tax_identification_number(value: str) -> str:
    if not _TAX_IDENTIFICATION_NUMBER.match(value):
        raise ValueError("letters, digits, spaces, dots and dashes only")
    return value


Email = Annotated[
    StrictStr, Field(min_length=3, max_length=320), AfterValidator(_email), InSchema(format="email")
]
Phone = Annotated[
    StrictStr, Field(max_length=32), AfterValidator(_phone), InSchema(pattern=_PHONE.pattern)
]
CalendarDate = Annotated[
    StrictStr,
    Field(max_length=10),
    AfterValidator(_calendar_date),
    InSchema(format="date", pattern="^(19|[2-9][0-9])[0-9]{2}-[0-9]{2}-[0-9]{2}$"),
]
PersonName = Annotated[SingleLineText, Field(min_length=1, max_length=100)]
CompanyName = Annotated[SingleLineText, Field(min_length=1, max_length=300)]
WebAddress = Annotated[
    StrictStr,
    Field(max_length=2048),
    AfterValidator(_web_address),
    InSchema(pattern=web_address_pattern),
]
TaxIdentificationNumber = Annotated[
    StrictStr,
    Field(min_length=4, max_length=64),
    AfterValidator(_tax_identification_number),
    InSchema(pattern=_TAX_IDENTIFICATION_NUMBER.pattern),
]
RegistrationNumber = Annotated[SingleLineText, Field(min_length=1, max_length=100)]
ResourceId = Annotated[StrictStr, Field(min_length=1, max_length=64)]
Metadata = Annotated[
    dict[
        Annotated[StrictStr, Field(min_length=1, max_length=metadata_key_chars_max)],
        Annotated[StrictStr, Field(max_length=metadata_value_chars_max)],
    ],
    Field(max_length=metadata_keys_max, description="Your own key-value pairs"),
]
MetadataChanges = Annotated[
    dict[
        Annotated[StrictStr, Field(min_length=1, max_length=metadata_key_chars_max)],
        Annotated[StrictStr, Field(max_length=metadata_value_chars_max)] | None,
    ],
    Field(
        max_length=metadata_keys_max,
        description="Merged into the stored metadata; a key set to null is removed",
    ),
]

_ADDRESS_EXAMPLE: dict[str, Any] = {
    "addressLine1": "1 Market Street",
    "city": "San Francisco",
    "state": "CA",
    "postalCode": "94105",
    "country": "US",
}


# Every request body of this domain; the kit's RequestModel already refuses NUL characters.
CustomersRequest = RequestModel


def tax_identification_number_last4(value: str | None) -> str | None:
    """Only the last four characters of a tax id ever leave the server."""
    if not value:
        return None
    characters = [character for character in value if character.isalnum()]
    return "".join(characters[-4:])


# --- Customers ----------------------------------------------------------------------------


class IndividualCustomerCreate(CustomersRequest):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "firstName": "Ada",
                    "lastName": "Lovelace",
                    "email": "ada@example.com",
                    "dateOfBirth": "1990-12-10",
                    "phone": "+14155550100",
                    "nationality": "US",
                    "taxIdentificationNumber": "123-45-6789",
                    "address": _ADDRESS_EXAMPLE,
                    "tosAcceptanceId": "tos_01jd3x0p6x9e3k2v1m8q4r7s5t",
                    "metadata": {"crmId": "42"},
                }
            ]
        }
    )

    first_name: PersonName
    last_name: PersonName
    email: Email
    date_of_birth: CalendarDate | None = None
    phone: Phone | None = None
    address: AddressIn | None = None
    nationality: CountryCode | None = None
    tax_identification_number: TaxIdentificationNumber | None = None
    tos_acceptance_id: ResourceId | None = None
    metadata: Metadata | None = None


class BusinessCustomerCreate(CustomersRequest):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "legalName": "Analytical Engines Ltd",
                    "email": "finance@engines.example",
                    "dbaName": "Engines",
                    "registrationNumber": "C1234567",
                    "incorporationCountry": "US",
                    "address": _ADDRESS_EXAMPLE,
                    "website": "https://engines.example",
                    "tosAcceptanceId": "tos_01jd3x0p6x9e3k2v1m8q4r7s5t",
                }
            ]
        }
    )

    legal_name: CompanyName
    email: Email
    dba_name: CompanyName | None = None
    registration_number: RegistrationNumber | None = None
    incorporation_country: CountryCode | None = None
    address: AddressIn | None = None
    website: WebAddress | None = None
    phone: Phone | None = None
    tos_acceptance_id: ResourceId | None = None
    metadata: Metadata | None = None


class CustomerUpdate(CustomersRequest):
    """Only the fields sent change; `null` clears an optional field."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"email": "ada@newmail.example", "phone": None, "metadata": {"tier": "gold"}}
            ]
        }
    )

    email: Email | None = None
    phone: Phone | None = None
    address: AddressIn | None = None
    first_name: PersonName | None = None
    last_name: PersonName | None = None
    legal_name: CompanyName | None = None
    dba_name: CompanyName | None = None
    website: WebAddress | None = None
    tos_acceptance_id: ResourceId | None = None
    metadata: MetadataChanges | None = None


class CustomerRead(ResponseModel):
    id: str = Field(examples=["cus_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    organization_id: str
    type: CustomerType
    status: CustomerStatus
    status_reason: str | None = None
    email: str
    name: str = Field(description="Full name of an individual, legal name of a business")
    first_name: str | None = None
    last_name: str | None = None
    date_of_birth: str | None = None
    phone: str | None = None
    nationality: str | None = None
    tax_identification_number_last4: str | None = Field(
        default=None, description="The full number is never returned"
    )
    legal_name: str | None = None
    dba_name: str | None = None
    registration_number: str | None = None
    incorporation_country: str | None = None
    website: str | None = None
    address: Address | None = None
    tos_acceptance_id: str | None = None
    metadata: dict[str, str]
    submitted_at: Timestamp | None = None
    archived_at: Timestamp | None = None
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, customer: Customer) -> CustomerRead:
        return cls(
            id=customer.id,
            organization_id=customer.organization_id,
            type=CustomerType(customer.type),
            status=CustomerStatus(customer.status),
            status_reason=customer.status_reason,
            email=customer.email,
            name=customer.name,
            first_name=customer.first_name,
            last_name=customer.last_name,
            date_of_birth=customer.date_of_birth,
            phone=customer.phone,
            nationality=customer.nationality,
            tax_identification_number_last4=tax_identification_number_last4(
                customer.tax_identification_number
            ),
            legal_name=customer.legal_name,
            dba_name=customer.dba_name,
            registration_number=customer.registration_number,
            incorporation_country=customer.incorporation_country,
            website=customer.website,
            address=Address.model_validate(customer.address) if customer.address else None,
            tos_acceptance_id=customer.tos_acceptance_id,
            metadata=dict(customer.metadata_ or {}),
            submitted_at=customer.submitted_at,
            archived_at=customer.archived_at,
            created_at=customer.created_at,
            updated_at=customer.updated_at,
        )


class BusinessCustomerCreated(CustomerRead, ShownOnce):
    """The new business customer; for a platform session, the session it binds."""

    secret_fields = ("session_token",)
    replay_note = (
        "The session token is shown once, in the first answer to this request, and is never "
        "stored. If it was lost, send X-Corridor-On-Behalf-Of with this customer's id instead."
    )

    session_token: str | None = Field(
        default=None,
        description="Only when a platform organization's key created the customer (spec 5.7): "
        "a `ps_…` bearer token acting as that key, bound to this customer, valid 12 hours. "
        "Shown once; null in an idempotent replay.",
    )
    session_expires_at: Timestamp | None = None

    def redacted(self) -> ShownOnce:
        """Without a secret to leave out, a replay is the first answer byte for byte."""
        return self if self.session_token is None else super().redacted()


class CustomerAccount(ResponseModel):
    """A balance account as `expand=accounts` shows it: no balances."""

    id: str = Field(examples=["acc_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    currency: str = Field(examples=["USD"])
    status: str = Field(examples=["OPEN"])
    created_at: Timestamp


class CapabilityRead(ResponseModel):
    name: Capability
    status: CapabilityStatus


class CapabilitiesRead(ResponseModel):
    customer_id: str
    capabilities: list[CapabilityRead]


class RequirementRead(ResponseModel):
    code: str = Field(examples=["date_of_birth"])
    field: str = Field(examples=["dateOfBirth"], description="The field that satisfies it")
    description: str
    satisfied: bool


class ComplianceRequirementsRead(ResponseModel):
    customer_id: str
    satisfied: bool = Field(description="True when every requirement is satisfied")
    requirements: list[RequirementRead]


# --- Verification answers -----------------------------------------------------------------


class IdDocumentIn(CustomersRequest):
    type: IdDocumentType
    number: Annotated[StrictStr, Field(min_length=4, max_length=64)]
    issuing_country: CountryCode
    expires_on: CalendarDate | None = None


class IndividualVerification(CustomersRequest):
    """Answers given are saved; answers left out keep their saved value."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "dateOfBirth": "1990-12-10",
                    "address": _ADDRESS_EXAMPLE,
                    "taxIdentificationNumber": "123-45-6789",
                    "nationality": "US",
                    "idDocument": {
                        "type": "PASSPORT",
                        "number": "X1234567",
                        "issuingCountry": "US",
                        "expiresOn": "2031-05-01",
                    },
                }
            ]
        }
    )

    date_of_birth: CalendarDate | None = None
    address: AddressIn | None = None
    tax_identification_number: TaxIdentificationNumber | None = None
    nationality: CountryCode | None = None
    id_document: IdDocumentIn | None = None


class BusinessVerification(CustomersRequest):
    """Answers given are saved; answers left out keep their saved value."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "registrationNumber": "C1234567",
                    "incorporationCountry": "US",
                    "businessType": "CORPORATION",
                    "industry": "Software publishing",
                    "sourceOfFunds": "BUSINESS_REVENUE",
                    "expectedMonthlyVolume": {"currency": "USD", "value": "5000000"},
                    "address": _ADDRESS_EXAMPLE,
                }
            ]
        }
    )

    registration_number: RegistrationNumber | None = None
    incorporation_country: CountryCode | None = None
    business_type: BusinessType | None = None
    industry: Annotated[StrictStr, Field(min_length=1, max_length=100)] | None = None
    source_of_funds: SourceOfFunds | None = None
    expected_monthly_volume: AmountIn | None = None
    address: AddressIn | None = None


class IdDocumentRead(ResponseModel):
    type: str
    number_last4: str
    issuing_country: str
    expires_on: str | None = None


class VerificationAnswersRead(ResponseModel):
    """Saved answers that are not fields of the customer itself."""

    id_document: IdDocumentRead | None = None
    business_type: str | None = None
    industry: str | None = None
    source_of_funds: str | None = None
    expected_monthly_volume: Amount | None = None


class VerificationStatusRead(ResponseModel):
    customer_id: str
    status: CustomerStatus
    status_reason: str | None = None
    submitted_at: Timestamp | None = None
    requirements_satisfied: bool
    missing_requirements: list[str] = Field(examples=[["date_of_birth"]])
    pending_rfi_id: str | None = None
    answers: VerificationAnswersRead


# What an idempotent replay of a verification session's start says in place of its URL.
VERIFICATION_REPLAY_NOTE = (
    "The URL carries a token that is shown once, in the first answer to this request, and is "
    "never stored, so this replay cannot show it. If it was lost, start another session."
)


class VerificationSessionRead(ShownOnce):
    secret_fields = ("url",)
    replay_note = VERIFICATION_REPLAY_NOTE

    id: str = Field(examples=["vs_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    associated_entity_id: str | None = None
    status: str = Field(examples=["CREATED"])
    url: str | None = Field(
        description="The hosted verification page; the token in it is shown once. null in an "
        "idempotent replay of this request (`secretNote` says why)."
    )
    expires_at: Timestamp
    created_at: Timestamp


class VerificationSessionConfiguration(ResponseModel):
    id: str
    customer_id: str
    associated_entity_id: str | None = None
    subject_type: CustomerType = Field(description="Who is verified: a person or a business")
    status: str = Field(examples=["CREATED", "EXPIRED"])
    expires_at: Timestamp
    steps: list[str] = Field(examples=[["terms_of_service", "personal_details", "id_document"]])
    requirements: list[RequirementRead]


class SandboxVerificationStatus(CustomersRequest):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"status": "ACTIVE"},
                {"status": "REJECTED", "reason": "Documents did not match"},
            ]
        }
    )

    status: SandboxStatus
    reason: Annotated[MultiLineText, Field(max_length=status_reason_chars_max)] | None = None


# --- Terms of service ---------------------------------------------------------------------


class TermsOfServiceCreate(CustomersRequest):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"email": "ada@example.com", "redirectUrl": "https://app.example/done"}]
        }
    )

    email: Email | None = None
    redirect_url: WebAddress | None = None


class TermsOfServiceRead(ResponseModel):
    id: str = Field(examples=["tos_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    status: str = Field(examples=["PENDING", "ACCEPTED"])
    version: str
    email: str | None = None
    redirect_url: str | None = None
    created_at: Timestamp
    accepted_at: Timestamp | None = None


# --- Enhanced diligence -------------------------------------------------------------------


class RfiFieldRead(ResponseModel):
    path: str = Field(examples=["business.sourceOfFunds"])
    label: str


class RfiStepRead(ResponseModel):
    id: str = Field(examples=["business"])
    title: str
    fields: list[RfiFieldRead]
    completed: bool
    completed_at: str | None = None


class RfiRead(ResponseModel):
    id: str = Field(examples=["rfi_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    status: str = Field(examples=["PENDING"])
    current_step_id: str | None = None
    steps: list[RfiStepRead]
    answers: dict[str, Any]
    created_at: Timestamp
    updated_at: Timestamp
    submitted_at: Timestamp | None = None

    @classmethod
    def of(cls, rfi: EnhancedDiligenceRfi) -> RfiRead:
        step = diligence.current_step(rfi.steps) if rfi.status == "PENDING" else None
        return cls(
            id=rfi.id,
            customer_id=rfi.customer_id,
            status=rfi.status,
            current_step_id=step["id"] if step else None,
            steps=[RfiStepRead.model_validate(step) for step in rfi.steps],
            answers=dict(rfi.answers or {}),
            created_at=rfi.created_at,
            updated_at=rfi.updated_at,
            submitted_at=rfi.submitted_at,
        )


class RfiProgress(CustomersRequest):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"data": {"business": {"sourceOfFunds": "Revenue"}}, "markStepComplete": False},
                {"data": {"business.expectedMonthlyVolume": "50000"}, "markStepComplete": True},
            ]
        }
    )

    data: dict[str, Any] = Field(
        default_factory=dict,
        description="Answers nested by section, or flat with dotted paths",
    )
    mark_step_complete: StrictBool = False


class RfiProgressRead(ResponseModel):
    success: bool
    step_id: str
