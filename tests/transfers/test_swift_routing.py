"""metadata.swiftRouting follows the payment (issue 30 item 4): the steps written when a
SWIFT payout is sent (sending bank COMPLETED, correspondent IN_PROGRESS, beneficiary
PENDING) move with the payout leg and end with the transfer: COMPLETED, FAILED or
RETURNED (rules/swift_routing.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from corridor.rails.base import RailName, RailStatus
from corridor.transfers.rules import swift_routing
from corridor.transfers.rules.swift_routing import StepStatus
from tests.parties.helpers import create_account
from tests.transfers.conftest import (
    Customer,
    ScriptedAdapter,
    amount,
    assert_books_balance,
    create,
    fetch,
    settle,
)

SENT = ["COMPLETED", "IN_PROGRESS", "PENDING"]


async def _swift_payout(tenant, customer: Customer) -> dict:
    await customer.fund("USD", 100_000)
    external = await create_account(
        tenant.client,
        {"customerId": customer.id},
        currency="GBP",
        country="GB",
        accountHolderName="Ada Lovelace",
        iban="GB33BUKB20201555555555",
        bic="BUKBGB22",
    )
    return await create(
        tenant.client,
        {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {
                "externalAccountId": external["id"],
                "paymentRail": "SWIFT",
                "currency": "GBP",
            },
            "amount": amount("USD", 10_000),
            "confirm": True,
        },
    )


def _steps(transfer: dict) -> list[str]:
    return [step["status"] for step in transfer["metadata"]["swiftRouting"]["steps"]]


async def _set_leg(client, transfer: dict, index: int, status: str) -> dict:
    leg = transfer["legs"][index]["id"]
    response = await client.post(
        f"/v1/sandbox/transfers/{transfer['id']}/legs/{leg}/status", json={"status": status}
    )
    assert response.status_code == 200, response.text
    return response.json()


async def _sent_and_waiting(app, tenant, customer, install_rail, answers) -> dict:
    """A SWIFT payout sent, its rail not yet settled: the route as the bank starts it."""
    install_rail(ScriptedAdapter(RailName.SWIFT, answers))
    transfer = await _swift_payout(tenant, customer)
    await settle(app, tenant.organization_id)
    waiting = await fetch(tenant.client, transfer["id"])
    assert waiting["status"] == "PROCESSING"
    assert waiting["legs"][-1]["status"] == "PROCESSING"
    assert _steps(waiting) == SENT
    return waiting


async def _a_year_later(app, tenant, clock) -> None:
    clock.set(clock.now().replace(year=clock.now().year + 1))
    try:
        await settle(app, tenant.organization_id)
    finally:
        clock.reset()


async def test_a_completed_swift_payout_shows_every_step_completed(
    app, tenant, customer, install_rail, clock
):
    waiting = await _sent_and_waiting(app, tenant, customer, install_rail, [RailStatus.PENDING])
    await _a_year_later(app, tenant, clock)
    done = await fetch(tenant.client, waiting["id"])
    assert done["status"] == "COMPLETED"
    assert _steps(done) == ["COMPLETED"] * 3
    routing = done["metadata"]["swiftRouting"]
    assert routing["checkedAt"] > waiting["metadata"]["swiftRouting"]["checkedAt"]
    assert routing["receiverBic"] == waiting["metadata"]["swiftRouting"]["receiverBic"]


async def test_a_failed_swift_payout_shows_the_steps_it_did_not_pass_failed(
    app, tenant, customer, install_rail, clock
):
    waiting = await _sent_and_waiting(
        app, tenant, customer, install_rail, [RailStatus.PENDING, RailStatus.FAILED]
    )
    await _a_year_later(app, tenant, clock)
    failed = await fetch(tenant.client, waiting["id"])
    assert failed["status"] == "FAILED"
    assert _steps(failed) == ["COMPLETED", "FAILED", "FAILED"]
    await assert_books_balance(app, tenant.organization_id)


async def test_a_returned_swift_payout_shows_the_beneficiary_bank_returned_it(
    app, tenant, customer, install_rail
):
    install_rail(ScriptedAdapter(RailName.SWIFT, []))
    transfer = await _swift_payout(tenant, customer)
    await settle(app, tenant.organization_id)
    completed = await fetch(tenant.client, transfer["id"])
    assert completed["status"] == "COMPLETED" and _steps(completed) == ["COMPLETED"] * 3
    payout = len(completed["legs"]) - 1
    returned = await _set_leg(tenant.client, completed, payout, "RETURNED")
    assert returned["status"] == "REVERSED"
    assert _steps(returned) == ["COMPLETED", "COMPLETED", "RETURNED"]
    assert _steps(await fetch(tenant.client, transfer["id"])) == _steps(returned)


async def test_a_swift_payout_failed_by_hand_in_the_sandbox_fails_its_route(
    app, tenant, customer, install_rail
):
    waiting = await _sent_and_waiting(app, tenant, customer, install_rail, [RailStatus.PENDING])
    failed = await _set_leg(tenant.client, waiting, len(waiting["legs"]) - 1, "FAILED")
    assert failed["status"] == "FAILED"
    assert _steps(failed) == ["COMPLETED", "FAILED", "FAILED"]


# --- The rule alone ---------------------------------------------------------------------------

_NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


def _metadata(statuses: list[str]) -> dict:
    steps = [{"label": f"bank {n}", "bic": "CRDRUS30", "status": s} for n, s in enumerate(statuses)]
    return {"other": 1, "swiftRouting": {"senderBic": "CRDRUS30", "steps": steps}}


def _after(statuses: list[str], outcome: StepStatus | None) -> list[str] | None:
    moved = swift_routing.metadata_after(_metadata(statuses), outcome, now=_NOW)
    if moved is None:
        return None
    assert moved["other"] == 1 and moved["swiftRouting"]["senderBic"] == "CRDRUS30"
    assert moved["swiftRouting"]["checkedAt"] == "2026-11-27T12:00:00.000Z"
    return [step["status"] for step in moved["swiftRouting"]["steps"]]


def test_the_rule_moves_steps_to_the_outcome_and_changes_nothing_else():
    assert _after(SENT, StepStatus.COMPLETED) == ["COMPLETED"] * 3
    assert _after(SENT, StepStatus.FAILED) == ["COMPLETED", "FAILED", "FAILED"]
    assert _after(["COMPLETED"] * 3, StepStatus.RETURNED) == ["COMPLETED", "COMPLETED", "RETURNED"]
    # A reversal of a payment that never got through: what it had not passed failed.
    assert _after(SENT, StepStatus.RETURNED) == ["COMPLETED", "FAILED", "FAILED"]
    # Nothing to do: no outcome, the steps already there, or no route at all.
    assert _after(SENT, None) is None
    assert _after(["COMPLETED"] * 3, StepStatus.COMPLETED) is None
    assert swift_routing.metadata_after({}, StepStatus.COMPLETED, now=_NOW) is None
    assert swift_routing.metadata_after(None, StepStatus.FAILED, now=_NOW) is None
