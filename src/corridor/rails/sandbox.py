"""What every sandbox adapter shares: submitting, settling on the next poll, and
references derived from the leg id.

References are derived from the leg id (a hash per purpose) rather than drawn at random:
the engine may submit a leg again after a crash between submitting and committing, and
must then get the same references back, as a real rail that deduplicates on the
instruction id would answer. Distinct legs get distinct references.

Sandbox payments settle on the first `status()` poll after submission, whatever their
estimated settlement time, so the engine completes a leg on its next pass; forcing
FAILED or RETURNED is the sandbox leg-status endpoint's job, not the adapter's.
"""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime, timedelta
from typing import ClassVar

from corridor.rails.base import (
    PaymentInstruction,
    RailName,
    RailStatus,
    Schedule,
    Submission,
    currencies_for,
)
from corridor.rails.calendars import CutoffRule

digest_bytes_max = 64  # what blake2b can produce


def leg_digest(leg_id: str, purpose: str, *, size_bytes: int = 32) -> bytes:
    """Stable pseudo-random bytes for one purpose (a hash, a sequence number) of one leg."""
    assert 0 < size_bytes <= digest_bytes_max
    return hashlib.blake2b(f"{purpose}\x00{leg_id}".encode(), digest_size=size_bytes).digest()


def digits_of(digest: bytes, count: int) -> str:
    """`count` decimal digits drawn from a digest (leading zeros kept)."""
    return str(int.from_bytes(digest, "big") % 10**count).zfill(count)


def alphanumerics_of(digest: bytes, count: int) -> str:
    """`count` upper-case letters and digits (base32 alphabet) drawn from a digest."""
    text = base64.b32encode(digest).decode().rstrip("=")
    assert len(text) >= count
    return text[:count]


class SandboxAdapter:
    """A simulated rail: real schedules, made-up references, settlement on the next poll."""

    name: ClassVar[RailName]

    def __init__(self) -> None:
        self.currencies = currencies_for(self.name)

    def schedule(self, *, at: datetime) -> Schedule:
        raise NotImplementedError

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        """The rail's own id for the payment, and the references the leg shows."""
        raise NotImplementedError

    async def submit(self, instruction: PaymentInstruction, *, now: datetime) -> Submission:
        self._check(instruction, now=now)
        schedule = self.schedule(at=now)
        rail_reference, references = self.references(instruction, schedule=schedule, now=now)
        return Submission(rail_reference=rail_reference, references=references, schedule=schedule)

    async def status(self, submission: Submission, *, now: datetime) -> RailStatus:
        assert now.tzinfo is not None
        return RailStatus.SETTLED

    def _check(self, instruction: PaymentInstruction, *, now: datetime) -> None:
        # The engine picks rails with rails_for_currency and validates amounts first: a
        # mismatch here is a bug in the engine, never a client's mistake.
        assert now.tzinfo is not None, "rails need an aware datetime"
        assert instruction.rail == self.name, (instruction.rail, self.name)
        assert instruction.currency in self.currencies, (self.name, instruction.currency)
        assert instruction.amount_minor > 0, instruction.amount_minor
        assert instruction.direction in ("CREDIT", "DEBIT"), instruction.direction


class BatchRailAdapter(SandboxAdapter):
    """A rail that runs in cutoff windows on its market's business days."""

    cutoff_rule: ClassVar[CutoffRule]

    def schedule(self, *, at: datetime) -> Schedule:
        timing = self.cutoff_rule.timing(at=at)
        return Schedule(
            estimated_settlement_at=timing.estimated_settlement_at,
            next_cutoff_at=timing.next_cutoff_at,
            cutoff_timezone=self.cutoff_rule.timezone,
        )


class InstantRailAdapter(SandboxAdapter):
    """A rail that runs all the time and settles a fixed delay after submission."""

    settlement_ms: ClassVar[int]

    def schedule(self, *, at: datetime) -> Schedule:
        assert at.tzinfo is not None, "rails need an aware datetime"
        return Schedule(
            estimated_settlement_at=at.astimezone(UTC) + timedelta(milliseconds=self.settlement_ms),
            next_cutoff_at=None,
            cutoff_timezone=None,
        )
