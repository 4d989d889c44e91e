"""Requests for information: steps, answer paths and merging, as pure rules."""

from __future__ import annotations

from corridor.customers.diligence import (
    all_complete,
    current_step,
    field_paths,
    flatten,
    initial_steps,
    merged,
    unanswered,
)
from corridor.customers.states import CustomerType

BUSINESS_STEPS = initial_steps(CustomerType.BUSINESS)
PATHS = field_paths(BUSINESS_STEPS)


def test_business_requests_ask_about_the_business_first():
    assert [step["id"] for step in BUSINESS_STEPS] == ["business", "ownership", "attestation"]
    assert "business.sourceOfFunds" in PATHS
    assert current_step(BUSINESS_STEPS)["id"] == "business"


def test_individual_requests_ask_about_the_person():
    steps = initial_steps(CustomerType.INDIVIDUAL)
    assert [step["id"] for step in steps] == ["personal", "activity", "attestation"]


def test_nested_flat_and_mixed_answers_flatten_to_the_same_paths():
    nested, _ = flatten({"business": {"sourceOfFunds": "Revenue"}}, PATHS)
    flat, _ = flatten({"business.sourceOfFunds": "Revenue"}, PATHS)
    mixed, problems = flatten(
        {"business": {"sourceOfFunds": "Revenue"}, "ownership.ownershipStructure": "Sole"}, PATHS
    )
    assert nested == flat == {"business.sourceOfFunds": "Revenue"}
    assert mixed == {"business.sourceOfFunds": "Revenue", "ownership.ownershipStructure": "Sole"}
    assert problems == []


def test_unknown_paths_and_bad_values_are_problems():
    _, problems = flatten(
        {
            "business.sourceOfFund": "typo",
            "nowhere": {"deep": 1},
            "business": {"purposeOfAccount": {"an": "object"}},
            "ownership.ownershipStructure": "x" * 1001,
        },
        PATHS,
    )
    assert {problem.field for problem in problems} == {
        "data.business.sourceOfFund",
        "data.nowhere",
        "data.business.purposeOfAccount",
        "data.ownership.ownershipStructure",
    }


def test_merging_overwrites_only_the_answers_given():
    stored = {"business": {"sourceOfFunds": "Savings", "purposeOfAccount": "Payroll"}}
    result = merged(stored, {"business.sourceOfFunds": "Revenue"})
    assert result == {"business": {"sourceOfFunds": "Revenue", "purposeOfAccount": "Payroll"}}
    assert stored["business"]["sourceOfFunds"] == "Savings"


def test_a_step_is_answered_when_every_field_has_a_real_value():
    step = BUSINESS_STEPS[0]
    answers = {"business": {"sourceOfFunds": "Revenue", "expectedMonthlyVolume": 0}}
    assert unanswered(step, answers) == ["business.purposeOfAccount"]
    attestation = BUSINESS_STEPS[2]
    assert unanswered(attestation, {"attestation": {"confirmed": False}}) == [
        "attestation.confirmed"
    ]
    assert unanswered(attestation, {"attestation": {"confirmed": True}}) == []


def test_all_complete_only_when_every_step_is():
    steps = [dict(step) for step in BUSINESS_STEPS]
    assert not all_complete(steps)
    for step in steps:
        step["completed"] = True
    assert all_complete(steps)
    assert current_step(steps) is None
