"""The transfers domain's refusals (API.md §2): actions a transfer's state does not allow."""

from __future__ import annotations

from corridor.kit.errors import InvalidState
from corridor.models.transfer import Transfer


class TransferNotDraft(InvalidState):
    def __init__(self, transfer: Transfer, action: str) -> None:
        super().__init__(
            f"Transfer {transfer.id} is {transfer.status}; only a DRAFT can be {action}",
            current_status=transfer.status,
        )


class TransferStateRefused(InvalidState):
    def __init__(self, transfer: Transfer, message: str) -> None:
        super().__init__(
            f"Transfer {transfer.id} is {transfer.status}: {message}",
            current_status=transfer.status,
        )


class AwaitingApproval(InvalidState):
    """A draft parked for approval is frozen: an approval covers exactly what was asked."""

    def __init__(self, transfer_id: str, action: str) -> None:
        super().__init__(
            f"Transfer {transfer_id} awaits an owner's approval and cannot be {action}; an "
            f"owner approves or declines it: POST /v1/transfers/{transfer_id}/agent-approval",
            current_status="DRAFT",
        )
