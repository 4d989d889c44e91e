"""The agents domain's vocabulary (pure): statuses, what happens over a limit, payee kinds,
and an owner's approval decision."""

from __future__ import annotations

from enum import StrEnum


class OverLimitAction(StrEnum):
    REJECT = "REJECT"
    REQUEST_APPROVAL = "REQUEST_APPROVAL"


class NewPayeeAction(StrEnum):
    """What happens to an agent's payment to a payee it never paid."""

    ALLOW = "ALLOW"
    REQUEST_APPROVAL = "REQUEST_APPROVAL"


class AgentStatus(StrEnum):
    ACTIVE = "ACTIVE"
    PAUSED = "PAUSED"
    REVOKED = "REVOKED"


class PayeeType(StrEnum):
    COUNTERPARTY = "counterparty"
    EXTERNAL_ACCOUNT = "external_account"
    EXTERNAL_WALLET = "external_wallet"


class ApprovalDecision(StrEnum):
    APPROVE = "APPROVE"
    DECLINE = "DECLINE"
