"""Mandates' refusals: a payment no mandate admits (403 agent_limit_exceeded with the
denial body of spec 7, window `mandate`) and a mandate that overlaps another (409)."""

from __future__ import annotations

from typing import Any

from corridor.agents.mandates.rules import MANDATE_WINDOW, MandateDenial, MandateDenialCode
from corridor.kit.clock import isoformat_z
from corridor.kit.errors import CorridorError
from corridor.kit.money import currency as currency_of
from corridor.kit.money import to_decimal_string


def _decimal(minor_units: int, currency: str) -> str:
    return to_decimal_string(minor_units, currency_of(currency).exponent)


def _message(denial: MandateDenial, currency: str) -> str:
    named = f"mandate {denial.mandate_id}"
    attempted = f"{_decimal(denial.attempted_minor, currency)} {currency}"
    code = denial.code
    if code == MandateDenialCode.REQUIRED:
        return "The agent may pay only under a mandate, and it has no live mandate"
    if code == MandateDenialCode.PAYEE:
        return "No live mandate of the agent names this payee"
    if code == MandateDenialCode.REVOKED:
        return f"The payee's {named} was revoked"
    if code == MandateDenialCode.EXPIRED:
        return f"The payee's {named} has expired"
    if code == MandateDenialCode.NOT_YET_VALID:
        return f"The payee's {named} is not valid yet"
    if code == MandateDenialCode.USES:
        return f"Every use of {named} is taken ({denial.limit_minor})"
    assert denial.limit_minor is not None
    limit = f"{_decimal(denial.limit_minor, currency)} {currency}"
    if code == MandateDenialCode.MAX_PER_PAYMENT:
        return f"{attempted} is over the {named} maximum per payment of {limit}"
    used = _decimal((denial.used_minor or 0) + denial.attempted_minor, currency)
    return f"{attempted} would bring {named} to {used} {currency}, over its budget of {limit}"


_HINTS = {
    MandateDenialCode.REQUIRED: "Ask an owner to create a mandate for this payee: "
    "POST /v1/agents/{agentId}/mandates.",
    MandateDenialCode.PAYEE: "Ask an owner for a mandate that names this payee.",
    MandateDenialCode.REVOKED: "A revoked mandate never admits a payment again; ask an owner "
    "for a new one.",
    MandateDenialCode.EXPIRED: "Ask an owner for a new mandate; this one's notAfter passed.",
    MandateDenialCode.NOT_YET_VALID: "Pay once the mandate's notBefore is reached.",
    MandateDenialCode.USES: "Ask an owner for a new mandate; this one's maxUses are used.",
    MandateDenialCode.MAX_PER_PAYMENT: "Pay at most the mandate's maxPerPayment at once.",
    MandateDenialCode.BUDGET: "Pay at most what remains of the mandate's budget",
}


def mandate_hint(denial: MandateDenial, currency: str) -> str:
    hint = _HINTS[denial.code]
    if denial.code != MandateDenialCode.BUDGET:
        return hint
    assert denial.limit_minor is not None
    left = _decimal(max(denial.limit_minor - (denial.used_minor or 0), 0), currency)
    if denial.resets_at is None:
        return f"{hint} ({left} {currency}), or ask an owner for a new mandate."
    return (
        f"{hint} ({left} {currency}), or wait until it resets at {isoformat_z(denial.resets_at)}."
    )


def mandate_denial_body(denial: MandateDenial, currency: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "code": denial.code.value,
        "message": _message(denial, currency),
        "window": MANDATE_WINDOW,
        "mandateId": denial.mandate_id,
    }
    if denial.code in (MandateDenialCode.BUDGET, MandateDenialCode.MAX_PER_PAYMENT):
        assert denial.limit_minor is not None
        body["limit"] = _decimal(denial.limit_minor, currency)
    if denial.code == MandateDenialCode.BUDGET:
        assert denial.limit_minor is not None
        used = denial.used_minor or 0
        body["used"] = _decimal(used, currency)
        body["remaining"] = _decimal(max(denial.limit_minor - used, 0), currency)
        if denial.resets_at is not None:
            body["resetsAt"] = isoformat_z(denial.resets_at)
    if denial.code == MandateDenialCode.USES:
        body["maxUses"] = denial.limit_minor
        body["uses"] = denial.used_minor
    body["attemptedAmount"] = _decimal(denial.attempted_minor, currency)
    body["currency"] = currency
    return body


class MandateDenied(CorridorError):
    """An agent's payment no mandate admits (API.md §9)."""

    status, code = 403, "agent_limit_exceeded"

    def __init__(self, denial: MandateDenial, currency: str) -> None:
        super().__init__(
            "The payment is not covered by a mandate",
            extra={
                "denial": mandate_denial_body(denial, currency),
                "hint": mandate_hint(denial, currency),
            },
        )


class MandateOverlap(CorridorError):
    """Two ACTIVE mandates of one agent with a payee in common and overlapping windows:
    which one a payment consumes would be ambiguous."""

    status, code = 409, "mandate_overlap"

    def __init__(self, other_id: str) -> None:
        super().__init__(
            f"Mandate {other_id} of this agent already covers one of these payees in an "
            "overlapping window",
            extra={
                "mandateId": other_id,
                "hint": f"Revoke {other_id} first, or make the windows or payees disjoint.",
            },
        )
