"""BOOK: a transfer between two Corridor balances, in any currency, at any time.

No outside rail is involved: the ledger entry the engine posts is the settlement, so the
estimate is the submission instant itself and there is no cutoff. The reference is an
internal id derived from the leg; book transfers have no network reference to show.
"""

from __future__ import annotations

from datetime import datetime

from corridor.rails.base import PaymentInstruction, RailName, Schedule
from corridor.rails.sandbox import InstantRailAdapter, alphanumerics_of, leg_digest

book_settlement_s = 0
book_reference_chars = 26


def book_reference(leg_id: str) -> str:
    return "BOOK" + alphanumerics_of(leg_digest(leg_id, "book"), book_reference_chars)


class BookAdapter(InstantRailAdapter):
    name = RailName.BOOK
    settlement_ms = book_settlement_s * 1000

    def references(
        self, instruction: PaymentInstruction, *, schedule: Schedule, now: datetime
    ) -> tuple[str, dict]:
        return book_reference(instruction.leg_id), {}
