"""The agents domain's refusals (API.md §2): denials of agent submits and of approvals."""

from __future__ import annotations

from typing import Any

from corridor.agents.spend import Denial, Window
from corridor.kit.clock import isoformat_z
from corridor.kit.errors import CorridorError, InvalidState
from corridor.kit.money import currency as currency_of
from corridor.kit.money import to_decimal_string

_TITLES = {
    Window.TRANSFER: "Per-transfer limit exceeded",
    Window.DAY: "Daily limit exceeded",
    Window.MONTH: "Monthly limit exceeded",
}


def _decimal(minor_units: int, currency: str) -> str:
    return to_decimal_string(minor_units, currency_of(currency).exponent)


def _count_body(denial: Denial, currency: str) -> dict[str, Any]:
    """A daily payment count denial: `limit`, `used` and `remaining` are numbers of
    payments (JSON integers), `attemptedAmount` the payment's amount."""
    assert denial.used_minor is not None
    return {
        "code": denial.code.value,
        "message": (
            f"{denial.used_minor} payments were already submitted today: one more is over the "
            f"daily payment count of {denial.limit_minor}"
        ),
        "window": denial.window.value,
        "limit": denial.limit_minor,
        "used": denial.used_minor,
        "remaining": denial.remaining_minor,
        "attemptedAmount": _decimal(denial.attempted_minor, currency),
        "currency": currency,
    }


def denial_body(denial: Denial, currency: str) -> dict[str, Any]:
    """The `denial` object of spec 7: amounts as decimal strings in major units."""
    if denial.counts_payments:
        return _count_body(denial, currency)
    limit = _decimal(denial.limit_minor, currency)
    attempted = _decimal(denial.attempted_minor, currency)
    if denial.window == Window.TRANSFER:
        message = f"{attempted} {currency} is over the per-transfer limit of {limit} {currency}"
    else:
        assert denial.used_minor is not None
        period = "today" if denial.window == Window.DAY else "this month"
        total = _decimal(denial.used_minor + denial.attempted_minor, currency)
        message = (
            f"{attempted} {currency} would bring the spend {period} to {total} {currency}, "
            f"over the {'daily' if denial.window == Window.DAY else 'monthly'} limit of "
            f"{limit} {currency}"
        )
    body: dict[str, Any] = {
        "code": denial.code.value,
        "message": message,
        "window": denial.window.value,
        "limit": limit,
    }
    if denial.window != Window.TRANSFER:
        assert denial.used_minor is not None and denial.remaining_minor is not None
        body["used"] = _decimal(denial.used_minor, currency)
        body["remaining"] = _decimal(denial.remaining_minor, currency)
    body["attemptedAmount"] = attempted
    body["currency"] = currency
    return body


def limit_hint(denial: Denial, currency: str) -> str:
    if denial.counts_payments:
        assert denial.resets_at is not None
        return (
            "Ask an owner to raise the agent's dailyPaymentCount, or wait until 00:00 UTC "
            f"({isoformat_z(denial.resets_at)})."
        )
    limit = _decimal(denial.limit_minor, currency)
    if denial.window == Window.TRANSFER:
        return (
            f"Send at most {limit} {currency} in one transfer, or ask an owner to raise the "
            "per-transfer limit."
        )
    assert denial.remaining_minor is not None and denial.resets_at is not None
    left = _decimal(denial.remaining_minor, currency)
    if denial.window == Window.DAY:
        return (
            f"Ask an owner to raise the daily limit, or wait until 00:00 UTC "
            f"({isoformat_z(denial.resets_at)}); {left} {currency} remains today."
        )
    return (
        f"Ask an owner to raise the monthly limit, or wait until the month resets at "
        f"{isoformat_z(denial.resets_at)}; {left} {currency} remains this month."
    )


def _title(denial: Denial) -> str:
    return "Daily payment count exceeded" if denial.counts_payments else _TITLES[denial.window]


NEW_PAYEE_CODE = "new_payee"
NEW_PAYEE_WINDOW = "payee"


def new_payee_body(
    payee: tuple[str, str], *, attempted_minor: int, currency: str
) -> dict[str, Any]:
    """The `denial` object of a payment to a payee the agent never paid (newPayeeAction
    REQUEST_APPROVAL): no limit, used or remaining; the payee instead."""
    kind, payee_id = payee
    return {
        "code": NEW_PAYEE_CODE,
        "message": f"The agent has never paid {kind.replace('_', ' ')} {payee_id}",
        "window": NEW_PAYEE_WINDOW,
        "payee": {"type": kind, "id": payee_id},
        "attemptedAmount": _decimal(attempted_minor, currency),
        "currency": currency,
    }


class AgentLimitExceeded(CorridorError):
    """An agent submit over a spend limit, for an agent that rejects such submits."""

    status, code = 403, "agent_limit_exceeded"

    def __init__(self, denial: Denial, currency: str) -> None:
        super().__init__(
            _title(denial),
            extra={"denial": denial_body(denial, currency), "hint": limit_hint(denial, currency)},
        )


class AgentApprovalRequired(CorridorError):
    """The answer to an over-limit submit held for an owner's decision: the draft is kept,
    parked (transfers/actions.py `Parked`), and committed before this answer is sent."""

    status, code = 403, "agent_approval_required"

    def __init__(
        self,
        denial: Denial | None,
        currency: str,
        *,
        transfer_id: str,
        body: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> None:
        """Over `denial`; or, for another reason (a new payee), with its denial `body`
        and `title`."""
        if denial is not None:
            body, title = denial_body(denial, currency), _title(denial)
        assert body is not None and title is not None
        super().__init__(
            f"{title}: transfer {transfer_id} awaits an owner's approval",
            extra={
                "transferId": transfer_id,
                "denial": body,
                "hint": (
                    "The transfer stays a DRAFT with agentApprovalStatus PENDING. An owner "
                    f"approves or declines it with POST /v1/transfers/{transfer_id}/agent-approval "
                    "(console session or unrestricted key); poll GET "
                    f"/v1/transfers/{transfer_id} or listen for transfer.pending."
                ),
            },
        )


class AgentInactive(CorridorError):
    status, code = 403, "agent_inactive"

    def __init__(self, agent_id: str, status: str) -> None:
        super().__init__(
            f"Agent {agent_id} is {status}; its keys cannot submit transfers",
            extra={"hint": f"Ask an owner to resume it: PATCH /v1/agents/{agent_id} status active."}
            if status == "PAUSED"
            else {"hint": "A revoked agent never spends again; ask an owner for a new agent."},
        )


class AgentDestinationNotAllowed(CorridorError):
    status, code = 403, "agent_destination_not_allowed"

    def __init__(self, agent_id: str) -> None:
        super().__init__(
            f"The transfer's payee is not on agent {agent_id}'s destination allowlist",
            extra={
                "hint": "Ask an owner to add the counterparty, external account or wallet to "
                "the agent's destinationAllowlist."
            },
        )


class AgentCurrencyMismatch(CorridorError):
    status, code = 403, "agent_currency_mismatch"

    def __init__(self, *, transfer_currency: str, agent_currency: str) -> None:
        super().__init__(
            f"The transfer is in {transfer_currency}; this agent may only spend "
            f"{agent_currency}, the currency of its limits",
            extra={"hint": f"Send the amount in {agent_currency}."},
        )


class AgentApprovalRefused(CorridorError):
    """APPROVE refused for a reason the spend-limit skip does not cover (spec 7)."""

    status, code = 409, "agent_approval_refused"

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message, extra={"reason": reason})


class NotAwaitingApproval(InvalidState):
    def __init__(self, transfer_id: str, status: str, approval_status: str | None) -> None:
        super().__init__(
            f"Transfer {transfer_id} is not awaiting an agent approval "
            f"(status {status}, agentApprovalStatus {approval_status})",
            current_status=status,
        )
