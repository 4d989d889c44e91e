"""A posted console form read through the API's own request model, so a page accepts
exactly what the endpoint accepts (and refuses it with the same 422)."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from corridor.kit.errors import CorridorError

Model = TypeVar("Model", bound=BaseModel)


def parse_form(model: type[Model], values: dict[str, str | None]) -> Model:
    """`values` by the API's field names (camelCase); empty strings count as not sent."""
    sent = {name: value for name, value in values.items() if value not in (None, "")}
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
