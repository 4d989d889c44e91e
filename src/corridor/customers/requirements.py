"""Compliance requirements a customer must meet before it can be submitted (pure rules)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from corridor.customers.states import CustomerType

adult_age_years = 18

# Roles that make an associated entity count as the person behind a business.
RESPONSIBLE_ROLES = frozenset({"BENEFICIAL_OWNER", "CONTROL_PERSON"})


@dataclass(frozen=True, slots=True)
class CustomerFacts:
    """What the rules need to know about a customer, read from the database by the service."""

    type: CustomerType
    terms_of_service_accepted: bool
    first_name: str | None = None
    last_name: str | None = None
    date_of_birth: str | None = None
    has_address: bool = False
    tax_identification_number: str | None = None
    legal_name: str | None = None
    registration_number: str | None = None
    incorporation_country: str | None = None
    associated_entity_roles: tuple[frozenset[str], ...] = ()


@dataclass(frozen=True, slots=True)
class Requirement:
    code: str
    # The request field that satisfies it, named as in the API.
    field: str
    description: str
    satisfied: bool


def requirements_for(facts: CustomerFacts) -> list[Requirement]:
    if facts.type is CustomerType.INDIVIDUAL:
        return _individual_requirements(facts)
    return _business_requirements(facts)


def missing(requirements: list[Requirement]) -> list[Requirement]:
    return [requirement for requirement in requirements if not requirement.satisfied]


def _individual_requirements(facts: CustomerFacts) -> list[Requirement]:
    return [
        Requirement(
            "terms_of_service_accepted",
            "tosAcceptanceId",
            "The customer has accepted the terms of service",
            facts.terms_of_service_accepted,
        ),
        Requirement(
            "name",
            "firstName",
            "First and last name",
            bool(facts.first_name) and bool(facts.last_name),
        ),
        Requirement("date_of_birth", "dateOfBirth", "Date of birth", bool(facts.date_of_birth)),
        Requirement("address", "address", "Residential address", facts.has_address),
        Requirement(
            "tax_identification_number",
            "taxIdentificationNumber",
            "Tax identification number",
            bool(facts.tax_identification_number),
        ),
    ]


def _business_requirements(facts: CustomerFacts) -> list[Requirement]:
    has_responsible_person = any(
        roles & RESPONSIBLE_ROLES for roles in facts.associated_entity_roles
    )
    return [
        Requirement("legal_name", "legalName", "Registered legal name", bool(facts.legal_name)),
        Requirement(
            "registration_number",
            "registrationNumber",
            "Company registration number",
            bool(facts.registration_number),
        ),
        Requirement(
            "incorporation_country",
            "incorporationCountry",
            "Country of incorporation",
            bool(facts.incorporation_country),
        ),
        Requirement("address", "address", "Registered business address", facts.has_address),
        Requirement(
            "beneficial_owner_or_control_person",
            "associatedEntities",
            "At least one associated entity who is a BENEFICIAL_OWNER or CONTROL_PERSON",
            has_responsible_person,
        ),
    ]


def is_adult(date_of_birth: str, today: date) -> bool:
    """Born on a real date at least 18 years before `today` (29 February counts from 1 March)."""
    born = date.fromisoformat(date_of_birth)
    years = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
    return years >= adult_age_years
