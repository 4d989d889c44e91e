"""The base of every model (generated or not) and what a model remembers of its response."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, PrivateAttr


@dataclass(frozen=True)
class ResponseInfo:
    """The HTTP side of an answer: its status, headers, request id and idempotency."""

    status: int
    headers: Mapping[str, str]
    request_id: str | None
    # The key the SDK sent (its own or the caller's), None when it sent none.
    idempotency_key: str | None

    @property
    def idempotent_replayed(self) -> bool:
        """True when the server replayed the first answer to this Idempotency-Key."""
        return self.headers.get("idempotent-replayed", "").lower() == "true"


class CorridorModel(BaseModel):
    """Fields are snake_case in Python and camelCase on the wire; both names are accepted."""

    model_config = ConfigDict(populate_by_name=True)

    _last_response: ResponseInfo | None = PrivateAttr(default=None)

    @property
    def last_response(self) -> ResponseInfo | None:
        """The response this object came from, when the client returned it directly."""
        return self._last_response
