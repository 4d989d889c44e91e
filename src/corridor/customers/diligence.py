"""Enhanced-diligence requests for information: their steps and how answers merge (pure rules).

Answers are stored nested by section (`{"business": {"sourceOfFunds": "…"}}`); a client
may send them nested or flat with dotted paths (`{"business.sourceOfFunds": "…"}`), and
the two forms can be mixed. Every path must be a field of one of the request's steps,
so a typo fails loudly instead of being saved where no reviewer looks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from corridor.customers.states import CustomerType

answer_paths_per_request_max = 100
answer_text_chars_max = 1000
answer_list_items_max = 50
path_depth_max = 4


@dataclass(frozen=True, slots=True)
class Problem:
    field: str
    message: str


def _step(step_id: str, title: str, *fields: tuple[str, str]) -> dict[str, Any]:
    return {
        "id": step_id,
        "title": title,
        "fields": [{"path": f"{step_id}.{name}", "label": label} for name, label in fields],
        "completed": False,
        "completedAt": None,
    }


def initial_steps(customer_type: CustomerType) -> list[dict[str, Any]]:
    """The questions a reviewer asks when the automatic checks were not enough."""
    attestation = _step(
        "attestation", "Attestation", ("confirmed", "The answers are true and complete")
    )
    if customer_type is CustomerType.BUSINESS:
        return [
            _step(
                "business",
                "Business activity",
                ("sourceOfFunds", "Where the money moved through Corridor comes from"),
                ("expectedMonthlyVolume", "Expected monthly volume, in USD"),
                ("purposeOfAccount", "What the account will be used for"),
            ),
            _step(
                "ownership",
                "Ownership",
                ("ownershipStructure", "Who owns and controls the business, and how"),
            ),
            attestation,
        ]
    return [
        _step(
            "personal",
            "Personal information",
            ("occupation", "Occupation"),
            ("sourceOfFunds", "Where the money moved through Corridor comes from"),
        ),
        _step(
            "activity",
            "Expected activity",
            ("expectedMonthlyVolume", "Expected monthly volume, in USD"),
            ("purposeOfAccount", "What the account will be used for"),
        ),
        attestation,
    ]


def field_paths(steps: list[dict[str, Any]]) -> frozenset[str]:
    return frozenset(field["path"] for step in steps for field in step["fields"])


def flatten(
    data: Mapping[str, Any], known_paths: frozenset[str]
) -> tuple[dict[str, Any], list[Problem]]:
    """Dotted path → answer for every answer in `data`, and the problems found."""
    flat: dict[str, Any] = {}
    problems: list[Problem] = []
    _flatten_into(flat, problems, data, prefix="", known_paths=known_paths, depth=1)
    if len(flat) > answer_paths_per_request_max:
        problems.append(
            Problem("data", f"at most {answer_paths_per_request_max} answers per request")
        )
    return flat, problems


def _flatten_into(
    flat: dict[str, Any],
    problems: list[Problem],
    data: Mapping[str, Any],
    *,
    prefix: str,
    known_paths: frozenset[str],
    depth: int,
) -> None:
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path in known_paths:
            problem = _answer_problem(value)
            if problem is None:
                flat[path] = value
            else:
                problems.append(Problem(f"data.{path}", problem))
        elif (
            isinstance(value, Mapping)
            and depth < path_depth_max
            and _leads_somewhere(path, known_paths)
        ):
            _flatten_into(
                flat, problems, value, prefix=f"{path}.", known_paths=known_paths, depth=depth + 1
            )
        else:
            problems.append(Problem(f"data.{path}", "unknown field"))


def _leads_somewhere(path: str, known_paths: frozenset[str]) -> bool:
    return any(known.startswith(f"{path}.") for known in known_paths)


def _answer_problem(value: Any) -> str | None:
    if value is None or isinstance(value, bool | int):
        return None
    if isinstance(value, str):
        if len(value) > answer_text_chars_max:
            return f"at most {answer_text_chars_max} characters"
        return None
    if isinstance(value, list):
        if len(value) > answer_list_items_max:
            return f"at most {answer_list_items_max} items"
        if all(isinstance(item, str) and len(item) <= answer_text_chars_max for item in value):
            return None
    return "must be a text, a number, a boolean, null or a list of texts"


def merged(answers: Mapping[str, Any], flat: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the stored answers with the new ones written over them."""
    result = {section: dict(values) for section, values in answers.items()}
    for path, value in flat.items():
        section, _, name = path.partition(".")
        result.setdefault(section, {})[name] = value
    return result


def current_step(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Steps are answered in order: the first not yet complete."""
    return next((step for step in steps if not step["completed"]), None)


def unanswered(step: Mapping[str, Any], answers: Mapping[str, Any]) -> list[str]:
    return [field["path"] for field in step["fields"] if not _is_answered(answers, field["path"])]


def _is_answered(answers: Mapping[str, Any], path: str) -> bool:
    section, _, name = path.partition(".")
    value = answers.get(section, {}).get(name)
    # An attestation left false is not an answer; a zero is.
    if value is None or value is False:
        return False
    return not (isinstance(value, str | list) and len(value) == 0)


def all_complete(steps: list[dict[str, Any]]) -> bool:
    return all(step["completed"] for step in steps)
