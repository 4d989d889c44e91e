"""A posted console form read through the API's own request model, so a page accepts
exactly what the endpoint accepts (and refuses it with the same 422)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from corridor.kit.errors import CorridorError

Model = TypeVar("Model", bound=BaseModel)


def parse_form(model: type[Model], values: Mapping[str, Any]) -> Model:
    """`values` by the API's field names (camelCase); empty strings and lists count as not
    sent."""
    sent = {name: value for name, value in values.items() if value not in (None, "", [])}
    try:
        return model.model_validate(sent)
    except ValidationError as error:
        problems = [
            {
                "field": ".".join(str(part) for part in problem["loc"]) or "form",
                "message": problem["msg"],
            }
            for problem in error.errors()
        ]
        raise CorridorError(
            "The form has values the service does not accept",
            status=422,
            code="validation_error",
            errors=problems,
        ) from None


def problems_by_field(error: CorridorError) -> dict[str, str]:
    """A refused form's problems keyed by the form's field (the first part of the API's
    field path, e.g. `transferAuthorizationThreshold.value` → `transferAuthorizationThreshold`),
    so a page can show each next to its control. Problems without a field go under `form`."""
    found: dict[str, str] = {}
    for problem in error.errors or []:
        field = str(problem.get("field") or "form").split(".")[0] or "form"
        found.setdefault(field, str(problem.get("message", "")))
    if not found:
        found["form"] = error.message
    return found
