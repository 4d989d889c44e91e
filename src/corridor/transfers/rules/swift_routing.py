"""`metadata.swiftRouting` follows the payment (issue 30 item 4).

A SWIFT payout's submission writes the route it takes (rails/swift.py): the sending bank
COMPLETED, the correspondent IN_PROGRESS, the beneficiary bank PENDING. From then on the
steps move with the payout leg and the transfer:

- the payout leg COMPLETED, or the transfer COMPLETED: every step COMPLETED;
- the payout leg FAILED, or the transfer FAILED or CANCELLED: the steps the payment had
  passed stay COMPLETED, the others are FAILED;
- the transfer REVERSED after it completed (the payout came back): the beneficiary bank's
  step is RETURNED, the banks before it stay COMPLETED.

`checkedAt` is the moment of the last move. Pure: the lifecycle applies it to the
transfer's metadata whenever a leg or the transfer moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import Any

from corridor.kit.clock import isoformat_z
from corridor.transfers.rules.states import LegStatus, TransferStatus

ROUTING_KEY = "swiftRouting"


class StepStatus(StrEnum):
    PENDING = "PENDING"
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    RETURNED = "RETURNED"


_OUTCOME_OF_LEG = {LegStatus.COMPLETED: StepStatus.COMPLETED, LegStatus.FAILED: StepStatus.FAILED}
_OUTCOME_OF_TRANSFER = {
    TransferStatus.COMPLETED: StepStatus.COMPLETED,
    TransferStatus.FAILED: StepStatus.FAILED,
    TransferStatus.CANCELLED: StepStatus.FAILED,
    TransferStatus.REVERSED: StepStatus.RETURNED,
}


def outcome_of_leg(status: str) -> StepStatus | None:
    return _OUTCOME_OF_LEG.get(LegStatus(status))


def outcome_of_transfer(status: str) -> StepStatus | None:
    return _OUTCOME_OF_TRANSFER.get(TransferStatus(status))


def _steps_after(steps: list[dict[str, Any]], outcome: StepStatus) -> Sequence[str]:
    statuses = [str(step.get("status")) for step in steps]
    if outcome == StepStatus.COMPLETED:
        return [StepStatus.COMPLETED] * len(steps)
    all_passed = all(status == StepStatus.COMPLETED for status in statuses)
    if outcome == StepStatus.RETURNED and all_passed:
        return [StepStatus.COMPLETED] * (len(steps) - 1) + [StepStatus.RETURNED]
    if outcome == StepStatus.RETURNED and StepStatus.RETURNED in statuses:
        return statuses  # returned already
    # FAILED, or a reversal of a payment that never got through: what it had not
    # passed failed.
    return [
        status if status in (StepStatus.COMPLETED, StepStatus.FAILED) else StepStatus.FAILED
        for status in statuses
    ]


def metadata_after(
    metadata: Mapping[str, Any] | None, outcome: StepStatus | None, *, now: datetime
) -> dict[str, Any] | None:
    """The metadata with its route moved to `outcome`; None when nothing changes (no
    route, no outcome, or the steps already show it)."""
    routing = (metadata or {}).get(ROUTING_KEY)
    if outcome is None or not isinstance(routing, dict):
        return None
    steps = [step for step in routing.get("steps", []) if isinstance(step, dict)]
    statuses = _steps_after(steps, outcome)
    if list(statuses) == [step.get("status") for step in steps]:
        return None
    moved = {
        **routing,
        "checkedAt": isoformat_z(now),
        "steps": [
            {**step, "status": str(status)} for step, status in zip(steps, statuses, strict=True)
        ],
    }
    return {**(metadata or {}), ROUTING_KEY: moved}
