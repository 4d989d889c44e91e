"""Compliance requirements, as pure rules."""

from __future__ import annotations

from datetime import date

from corridor.customers.requirements import CustomerFacts, is_adult, missing, requirements_for
from corridor.customers.states import CustomerType


def _codes(facts: CustomerFacts) -> list[str]:
    return [requirement.code for requirement in missing(requirements_for(facts))]


def test_an_empty_individual_misses_every_requirement():
    facts = CustomerFacts(type=CustomerType.INDIVIDUAL, terms_of_service_accepted=False)
    assert _codes(facts) == [
        "terms_of_service_accepted",
        "name",
        "date_of_birth",
        "address",
        "tax_identification_number",
    ]


def test_a_complete_individual_meets_every_requirement():
    facts = CustomerFacts(
        type=CustomerType.INDIVIDUAL,
        terms_of_service_accepted=True,
        first_name="Ada",
        last_name="Lovelace",
        date_of_birth="1990-12-10",
        has_address=True,
        tax_identification_number="123456789",
    )
    assert _codes(facts) == []
    assert all(requirement.satisfied for requirement in requirements_for(facts))


def test_a_business_needs_a_beneficial_owner_or_control_person():
    base = {
        "type": CustomerType.BUSINESS,
        "terms_of_service_accepted": False,
        "legal_name": "Engines Ltd",
        "registration_number": "C1",
        "incorporation_country": "US",
        "has_address": True,
    }
    directors_only = CustomerFacts(**base, associated_entity_roles=(frozenset({"DIRECTOR"}),))
    assert _codes(directors_only) == ["beneficial_owner_or_control_person"]
    with_owner = CustomerFacts(
        **base, associated_entity_roles=(frozenset({"DIRECTOR", "CONTROL_PERSON"}),)
    )
    assert _codes(with_owner) == []


def test_an_empty_business_misses_every_requirement():
    facts = CustomerFacts(type=CustomerType.BUSINESS, terms_of_service_accepted=False)
    assert _codes(facts) == [
        "legal_name",
        "registration_number",
        "incorporation_country",
        "address",
        "beneficial_owner_or_control_person",
    ]


def test_adulthood_starts_on_the_eighteenth_birthday():
    assert is_adult("2000-06-15", date(2018, 6, 15))
    assert not is_adult("2000-06-15", date(2018, 6, 14))
    assert not is_adult("2000-02-29", date(2018, 2, 28))
    assert is_adult("2000-02-29", date(2018, 3, 1))
