"""Wire shapes of a business customer's associated entities (owners, directors, signers)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, StrictStr

from corridor.customers.rules import EntityRole
from corridor.customers.schemas.customer import (
    VERIFICATION_REPLAY_NOTE,
    CalendarDate,
    CompanyName,
    CustomersRequest,
    Email,
    PersonName,
    Phone,
    RegistrationNumber,
    TaxIdentificationNumber,
    tax_identification_number_last4,
)
from corridor.customers.states import CustomerType
from corridor.kit.schemas import (
    Address,
    AddressIn,
    CountryCode,
    InSchema,
    ResponseModel,
    ShownOnce,
    SingleLineText,
    Timestamp,
)
from corridor.models.customer import AssociatedEntity

roles_per_entity_max = 4
_PERCENTAGE = re.compile(r"^[0-9]{1,3}(\.[0-9]{1,2})?$")


def _percentage(value: str) -> str:
    if not _PERCENTAGE.match(value) or not 0 < percentage_to_basis_points(value) <= 10_000:
        raise ValueError("must be a decimal string above 0 and at most 100, e.g. '25.5'")
    return value


def percentage_to_basis_points(value: str) -> int:
    whole, _, fraction = value.partition(".")
    return int(whole) * 100 + int((fraction + "00")[:2])


def basis_points_to_percentage(value: int | None) -> str | None:
    if value is None:
        return None
    return f"{value // 100}.{value % 100:02d}"


Percentage = Annotated[
    StrictStr,
    Field(max_length=6, description="Ownership in percent, decimal string: '25.5'"),
    AfterValidator(_percentage),
    # Above 0 and at most 100, at most two decimals.
    InSchema(pattern=r"^(100(\.0{1,2})?|0\.(0[1-9]|[1-9][0-9]?)|[1-9][0-9]?(\.[0-9]{1,2})?)$"),
]
Roles = Annotated[list[EntityRole], Field(min_length=1, max_length=roles_per_entity_max)]
JobTitle = Annotated[SingleLineText, Field(min_length=1, max_length=100)]

# Fields kept in the entity's `details`, under their API names.
DETAIL_FIELDS = (
    "firstName",
    "lastName",
    "email",
    "phone",
    "dateOfBirth",
    "nationality",
    "title",
    "taxIdentificationNumber",
    "legalName",
    "registrationNumber",
    "incorporationCountry",
    "address",
)
INDIVIDUAL_ONLY_FIELDS = frozenset({"firstName", "lastName", "dateOfBirth", "nationality", "title"})
BUSINESS_ONLY_FIELDS = frozenset({"legalName", "registrationNumber", "incorporationCountry"})


class _EntityFields(CustomersRequest):
    roles: Roles | None = None
    ownership_percentage: Percentage | None = None
    first_name: PersonName | None = None
    last_name: PersonName | None = None
    email: Email | None = None
    phone: Phone | None = None
    date_of_birth: CalendarDate | None = None
    nationality: CountryCode | None = None
    title: JobTitle | None = None
    tax_identification_number: TaxIdentificationNumber | None = None
    legal_name: CompanyName | None = None
    registration_number: RegistrationNumber | None = None
    incorporation_country: CountryCode | None = None
    address: AddressIn | None = None

    def details(self) -> dict[str, Any]:
        """The detail fields that were sent, by API name (null included: it clears)."""
        sent = self.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return {name: value for name, value in sent.items() if name in DETAIL_FIELDS}


class AssociatedEntityCreate(_EntityFields):
    """An INDIVIDUAL needs firstName and lastName; a BUSINESS needs legalName."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "type": "INDIVIDUAL",
                    "roles": ["BENEFICIAL_OWNER", "DIRECTOR"],
                    "ownershipPercentage": "60",
                    "firstName": "Charles",
                    "lastName": "Babbage",
                    "email": "charles@engines.example",
                    "dateOfBirth": "1971-12-26",
                    "nationality": "GB",
                    "title": "Director",
                }
            ]
        }
    )

    type: CustomerType
    roles: Roles


class AssociatedEntityUpdate(_EntityFields):
    """Only the fields sent change; `null` clears an optional field."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"roles": ["CONTROL_PERSON"], "title": "CEO"}]}
    )


class AssociatedEntityRead(ResponseModel):
    id: str = Field(examples=["ae_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    type: CustomerType
    roles: list[EntityRole]
    ownership_percentage: str | None = Field(default=None, examples=["60.00"])
    first_name: str | None = None
    last_name: str | None = None
    email: str | None = None
    phone: str | None = None
    date_of_birth: str | None = None
    nationality: str | None = None
    title: str | None = None
    tax_identification_number_last4: str | None = None
    legal_name: str | None = None
    registration_number: str | None = None
    incorporation_country: str | None = None
    address: Address | None = None
    verification_status: str = Field(examples=["NOT_STARTED"])
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, entity: AssociatedEntity) -> AssociatedEntityRead:
        details = entity.details or {}
        address = details.get("address")
        return cls(
            id=entity.id,
            customer_id=entity.customer_id,
            type=CustomerType(entity.type),
            roles=[EntityRole(role) for role in entity.roles],
            ownership_percentage=basis_points_to_percentage(entity.ownership_basis_points),
            first_name=details.get("firstName"),
            last_name=details.get("lastName"),
            email=details.get("email"),
            phone=details.get("phone"),
            date_of_birth=details.get("dateOfBirth"),
            nationality=details.get("nationality"),
            title=details.get("title"),
            tax_identification_number_last4=tax_identification_number_last4(
                details.get("taxIdentificationNumber")
            ),
            legal_name=details.get("legalName"),
            registration_number=details.get("registrationNumber"),
            incorporation_country=details.get("incorporationCountry"),
            address=Address.model_validate(address) if address else None,
            verification_status=entity.verification_status,
            created_at=entity.created_at,
            updated_at=entity.updated_at,
        )


class VerificationLinkRead(ShownOnce):
    secret_fields = ("url",)
    replay_note = VERIFICATION_REPLAY_NOTE

    id: str = Field(examples=["vs_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    customer_id: str
    associated_entity_id: str
    url: str | None = Field(
        description="Send it to the person; the token in it is shown once. null in an "
        "idempotent replay of this request (`secretNote` says why)."
    )
    expires_at: Timestamp
