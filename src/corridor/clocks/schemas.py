"""Request and response models of the sandbox clock."""

from __future__ import annotations

from datetime import datetime

from pydantic import ConfigDict, Field, model_validator

from corridor.clocks.rules import advance_s_max
from corridor.kit.clock import isoformat_z
from corridor.kit.schemas import RequestModel, ResponseModel


class ClockAdvance(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"seconds": 86400}, {"to": "2026-12-01T15:30:00Z"}]}
    )

    seconds: int | None = Field(
        default=None,
        ge=1,
        le=advance_s_max,
        description="How far to move the clock forward, in seconds.",
    )
    to: datetime | None = Field(
        default=None,
        description="The instant to move the clock to (ISO 8601 with a zone); never earlier "
        "than the clock's now.",
    )
    freeze: bool | None = Field(
        default=None,
        description="true: the clock stands still at its new time until advanced again "
        "(Stripe's test clocks); false: it runs on from there. Absent: as it was.",
    )

    @model_validator(mode="after")
    def _one_target(self) -> ClockAdvance:
        if (self.seconds is None) == (self.to is None):
            raise ValueError("send exactly one of seconds and to")
        if self.to is not None and self.to.tzinfo is None:
            raise ValueError("to: needs a zone (Z or an offset)")
        return self


class ClockRead(ResponseModel):
    now: str = Field(description="The organization's time (ISO 8601 UTC).")
    frozen: bool = Field(description="Whether the clock stands still until advanced.")
    offset_seconds: int = Field(
        description="How far the clock is ahead of real time, in whole seconds."
    )

    @classmethod
    def of(cls, now: datetime, *, frozen: bool, offset_seconds: int) -> ClockRead:
        return cls(now=isoformat_z(now), frozen=frozen, offset_seconds=offset_seconds)
