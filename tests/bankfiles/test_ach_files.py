"""ACH through NACHA files: payouts due before a cutoff written into that window's file
(batches by SEC code and effective date, the trace numbers the transfers report), the
sandbox clock moving a payout to the next window, settlement after the file, and the
bank's returns and notifications of change applied to the transfers."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select

from corridor.bankfiles import bank
from corridor.models.event import Event
from corridor.rails import nacha
from corridor.rails.base import RailName
from tests.bankfiles.conftest import write_files
from tests.conftest import assert_error
from tests.parties.helpers import create_account, create_counterparty
from tests.transfers.conftest import (
    act,
    amount,
    assert_books_balance,
    create,
    fetch,
    make_customer,
    settle,
)

# Wednesday 18 November 2026, 09:00 in New York: before the first same-day window (10:30).
MORNING = datetime(2026, 11, 18, 14, 0, tzinfo=UTC)
FIRST_CUTOFF = "2026-11-18T15:30:00.000Z"  # 10:30 ET
SECOND_CUTOFF = "2026-11-18T19:45:00.000Z"  # 14:45 ET


async def advance_to(client, when: str) -> None:
    response = await client.post("/v1/sandbox/clock/advance", json={"to": when})
    assert response.status_code == 200, response.text


async def payee(client, customer_id: str, beneficiary_type: str, account_number: str) -> str:
    counterparty = await create_counterparty(
        client, customer_id, beneficiaryType=beneficiary_type, name=f"{beneficiary_type} payee"
    )
    account = await create_account(
        client, {"counterpartyId": counterparty["id"]}, accountNumber=account_number
    )
    return account["id"]


def payout(customer, account_id: str, value: int, *, confirm: bool = True) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["USD"]},
        "destination": {
            "externalAccountId": account_id,
            "paymentRail": "ACH_SAME_DAY",
            "currency": "USD",
        },
        "amount": amount("USD", value),
        "confirm": confirm,
    }


async def files(client, **query) -> list[dict]:
    response = await client.get("/v1/bank-files", params=query)
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def content(client, file_id: str) -> str:
    response = await client.get(f"/v1/bank-files/{file_id}/content")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


async def event_types(app, organization_id: str) -> list[str]:
    async with app.state.database.session(write=False) as session:
        found = await session.execute(
            select(Event.type).where(Event.organization_id == organization_id).order_by(Event.id)
        )
        return list(found.scalars())


async def test_same_day_payouts_go_out_in_their_windows_file_and_settle(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 1_000_000)
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    company = await payee(tenant.client, customer.id, "BUSINESS", "444455556666")

    first = await create(tenant.client, payout(customer, person, 10_000))
    second = await create(tenant.client, payout(customer, company, 25_000))
    late = await create(tenant.client, payout(customer, person, 7_000, confirm=False))
    await settle(app, tenant.organization_id)
    first, second = (
        await fetch(tenant.client, first["id"]),
        await fetch(tenant.client, second["id"]),
    )
    for transfer in (first, second):
        assert transfer["status"] == "PROCESSING"
        assert transfer["nextCutoffAt"] == FIRST_CUTOFF
        assert len(transfer["achTraceNumber"]) == 15
    assert await write_files(app, tenant.organization_id) == 0  # the cutoff has not come

    # The clock passes the first cutoff: that window's file is written, with both payouts.
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    assert await write_files(app, tenant.organization_id) == 1
    assert await write_files(app, tenant.organization_id) == 0  # written once
    (written,) = await files(tenant.client, direction="OUTGOING")
    assert written["format"] == "NACHA" and written["rail"] == "ACH_SAME_DAY"
    assert written["windowCutoffAt"] == FIRST_CUTOFF
    assert (written["entryCount"], written["creditTotal"]) == (2, "35000")
    parsed = nacha.parse(await content(tenant.client, written["id"]))
    assert parsed.immediate_destination == "123456780"
    by_sec = {batch.sec_code: batch for batch in parsed.batches}
    assert set(by_sec) == {"PPD", "CCD"}  # a person's account, a company's
    for sec, transfer, value, account in (
        ("PPD", first, 10_000, "111122223333"),
        ("CCD", second, 25_000, "444455556666"),
    ):
        (entry,) = by_sec[sec].entries
        assert entry.trace_number == transfer["achTraceNumber"]
        assert (entry.amount_cents, entry.account_number) == (value, account)
        assert entry.transaction_code == "22" and entry.routing_number == "021000021"
        assert by_sec[sec].effective_date.isoformat() == "2026-11-18"  # same day

    # A payout submitted after the first cutoff goes in the next window's file, alone.
    await act(tenant.client, late["id"], "submit")
    await settle(app, tenant.organization_id)
    late = await fetch(tenant.client, late["id"])
    assert late["nextCutoffAt"] == SECOND_CUTOFF
    await advance_to(tenant.client, "2026-11-18T19:46:00Z")
    assert await write_files(app, tenant.organization_id) == 1
    newest, oldest = await files(tenant.client, direction="OUTGOING")
    assert oldest["id"] == written["id"] and newest["windowCutoffAt"] == SECOND_CUTOFF
    later = nacha.parse(await content(tenant.client, newest["id"]))
    traces = [entry.trace_number for batch in later.batches for entry in batch.entries]
    assert traces == [late["achTraceNumber"]]
    earlier = {entry.trace_number for batch in parsed.batches for entry in batch.entries}
    assert earlier.isdisjoint(traces)

    # The first window settled at 13:00 ET: its payouts complete; the later one waits.
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, first["id"]))["status"] == "COMPLETED"
    assert (await fetch(tenant.client, second["id"]))["status"] == "COMPLETED"
    assert (await fetch(tenant.client, late["id"]))["status"] == "PROCESSING"
    assert "bank_file.written" in await event_types(app, tenant.organization_id)
    await assert_books_balance(app, tenant.organization_id)


async def test_returns_reverse_payouts_and_changes_are_notified_once(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 100_000)
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    returned = await create(tenant.client, payout(customer, person, 10_000))
    corrected = await create(tenant.client, payout(customer, person, 5_000))
    unsettled = await create(tenant.client, payout(customer, person, 3_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    original = await content(tenant.client, written["id"])
    await advance_to(tenant.client, "2026-11-18T18:30:00Z")  # after 13:00 ET settlement
    await settle(app, tenant.organization_id)
    returned, corrected, unsettled = [
        await fetch(tenant.client, transfer["id"]) for transfer in (returned, corrected, unsettled)
    ]
    assert {returned["status"], corrected["status"], unsettled["status"]} == {"COMPLETED"}
    assert (await customer.balance("USD"))["available"] == 100_000 - 18_000

    answers = bank.nacha_answers(
        original,
        [
            bank.NachaAnswer(returned["achTraceNumber"], "R03"),
            bank.NachaAnswer(corrected["achTraceNumber"], "C01", corrected_data="999988887777"),
        ],
        now=datetime(2026, 11, 19, 14, 0, tzinfo=UTC),
    )
    body = {"name": "returns-20261119.ach", "content": answers}
    response = await tenant.client.post("/v1/sandbox/bank-files/imports", json=body)
    assert response.status_code == 201, response.text
    imported = response.json()
    assert imported["direction"] == "INCOMING" and imported["format"] == "NACHA_RETURN"
    assert imported["summary"]["applied"] == {"RETURN": 1, "CHANGE": 1}
    assert imported["summary"]["unmatched"] == []

    reversed_ = await fetch(tenant.client, returned["id"])
    assert reversed_["status"] == "REVERSED"
    assert reversed_["returnedToAccountId"] == customer.accounts["USD"]
    assert reversed_["returnedAt"] == "2026-11-18T18:30:00.000Z"
    assert (await fetch(tenant.client, corrected["id"]))["status"] == "COMPLETED"
    assert (await customer.balance("USD"))["available"] == 100_000 - 8_000

    # The same file again: its first reading's answer; no money moves twice.
    again = await tenant.client.post("/v1/sandbox/bank-files/imports", json=body)
    assert again.status_code == 201 and again.json()["id"] == imported["id"]
    assert (await customer.balance("USD"))["available"] == 100_000 - 8_000

    types = await event_types(app, tenant.organization_id)
    assert types.count("transfer.reversed") == 1
    assert types.count("bank_file.change_notified") == 1
    assert types.count("bank_file.received") == 1
    entries = await tenant.client.get(f"/v1/bank-files/{written['id']}/entries")
    by_transfer = {entry["transferId"]: entry for entry in entries.json()["data"]}
    assert by_transfer[returned["id"]]["status"] == "RETURNED"
    assert by_transfer[returned["id"]]["reasonCode"] == "R03"
    assert by_transfer[corrected["id"]]["changes"][0]["correctedData"] == "999988887777"
    await assert_books_balance(app, tenant.organization_id)


async def test_a_return_before_settlement_fails_the_payout_and_gives_the_money_back(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 50_000)
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    transfer = await create(tenant.client, payout(customer, person, 20_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    transfer = await fetch(tenant.client, transfer["id"])
    answers = bank.nacha_answers(
        await content(tenant.client, written["id"]),
        [bank.NachaAnswer(transfer["achTraceNumber"], "R02")],
        now=MORNING,
    )
    response = await tenant.client.post(
        "/v1/sandbox/bank-files/imports", json={"name": "r.ach", "content": answers}
    )
    assert response.status_code == 201, response.text
    failed = await fetch(tenant.client, transfer["id"])
    assert failed["status"] == "FAILED"
    await settle(app, tenant.organization_id)  # the refund, if any, runs
    assert (await customer.balance("USD"))["available"] == 50_000
    await assert_books_balance(app, tenant.organization_id)


async def test_an_unreadable_file_is_refused_and_changes_nothing(app, tenant):
    for content_text in ("hello", "1" + "0" * 93 + "\n", "<Document><Other/></Document>"):
        response = await tenant.client.post(
            "/v1/sandbox/bank-files/imports", json={"name": "x", "content": content_text}
        )
        assert_error(response, 422, "validation_error")
    assert await files(tenant.client) == []


async def test_bank_files_are_the_organizations_own(app, tenant, make_tenant):
    other = await make_tenant()
    assert_error(
        await other.client.get("/v1/bank-files/bkf_01m8a2q7c9x4yz3k8w5r6t1v0n"), 404, "not_found"
    )
    assert_error(await tenant.client.get("/v1/bank-files/nonsense"), 404, "not_found")


def pull(customer, external_account_id: str, value: int) -> dict:
    """An ACH debit of the customer's own account at another bank into their balance."""
    return {
        "customerId": customer.id,
        "source": {"externalAccountId": external_account_id, "paymentRail": "ACH_SAME_DAY"},
        "destination": {"accountId": customer.accounts["USD"]},
        "amount": amount("USD", value),
        "confirm": True,
    }


async def test_a_returned_pull_reverses_its_transfer_like_a_returned_payout(
    app, tenant, clock, file_rails
):
    """R01 after the pull settled: the money credited to the balance goes back to the bank
    (the transfer REVERSED with `returnedAt`, `transfer.reversed`); a pull returned before
    it settled fails and credits nothing."""
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    external = await customer.bank_account()
    settled = await create(tenant.client, pull(customer, external, 30_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    original = await content(tenant.client, written["id"])
    (entry,) = [entry for batch in nacha.parse(original).batches for entry in batch.entries]
    assert entry.transaction_code == "27" and entry.amount_cents == 30_000  # a debit
    await advance_to(tenant.client, "2026-11-18T18:30:00Z")  # after 13:00 ET settlement
    await settle(app, tenant.organization_id)
    settled = await fetch(tenant.client, settled["id"])
    assert settled["status"] == "COMPLETED"
    assert (await customer.balance("USD"))["available"] == 30_000

    answers = bank.nacha_answers(
        original,
        [bank.NachaAnswer(settled["legs"][0]["achTraceNumber"], "R01")],
        now=datetime(2026, 11, 19, 14, 0, tzinfo=UTC),
    )
    body = {"name": "returns-pull.ach", "content": answers}
    response = await tenant.client.post("/v1/sandbox/bank-files/imports", json=body)
    assert response.status_code == 201, response.text
    assert response.json()["summary"]["applied"] == {"RETURN": 1}
    reversed_ = await fetch(tenant.client, settled["id"])
    assert reversed_["status"] == "REVERSED"
    assert reversed_["returnedAt"] == "2026-11-18T18:30:00.000Z"
    assert reversed_["returnedToAccountId"] is None  # nothing came back to a balance
    assert "R01" in reversed_["systemRemark"]
    assert (await customer.balance("USD"))["available"] == 0
    again = await tenant.client.post("/v1/sandbox/bank-files/imports", json=body)
    assert again.json()["id"] == response.json()["id"]
    assert (await customer.balance("USD"))["available"] == 0
    types = await event_types(app, tenant.organization_id)
    assert types.count("transfer.reversed") == 1
    entries = await tenant.client.get(f"/v1/bank-files/{written['id']}/entries")
    (filed,) = entries.json()["data"]
    assert (filed["status"], filed["reasonCode"]) == ("RETURNED", "R01")
    await assert_books_balance(app, tenant.organization_id)

    # The bank's statement shows the pull coming in and its return going out: both match.
    statement = bank.bai2_statement(
        [
            bank.StatementLine("CRDT", "300.00", "USD", filed["reference"]),
            bank.StatementLine("DBIT", "300.00", "USD", filed["reference"]),
        ],
        file_id="BAI-RETURN",
        now=datetime(2026, 11, 20, 8, 0, tzinfo=UTC),
    )
    imported = await tenant.client.post(
        "/v1/reconciliation/statements", json={"name": "bai2.txt", "content": statement}
    )
    assert imported.status_code == 201, imported.text
    assert (imported.json()["matchedCount"], imported.json()["exceptionCount"]) == (2, 0)


async def test_a_pull_returned_before_it_settles_fails_and_credits_nothing(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    external = await customer.bank_account()
    transfer = await create(tenant.client, pull(customer, external, 12_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    transfer = await fetch(tenant.client, transfer["id"])
    answers = bank.nacha_answers(
        await content(tenant.client, written["id"]),
        [bank.NachaAnswer(transfer["legs"][0]["achTraceNumber"], "R01")],
        now=MORNING,
    )
    response = await tenant.client.post(
        "/v1/sandbox/bank-files/imports", json={"name": "r.ach", "content": answers}
    )
    assert response.status_code == 201, response.text
    failed = await fetch(tenant.client, transfer["id"])
    assert failed["status"] == "FAILED" and "R01" in failed["systemRemark"]
    await settle(app, tenant.organization_id)
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)


async def test_a_returned_pull_already_spent_takes_what_is_left_and_the_rest_is_owed(
    app, tenant, clock, file_rails
):
    """The customer paid 200.00 out of a 300.00 pull before the payer's bank returned it:
    the 100.00 left goes back to the bank, the 200.00 the balance no longer has is owed
    (SUSPENSE), the balance never below zero, the books balanced."""
    clock.set(MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    external = await customer.bank_account()
    pulled = await create(tenant.client, pull(customer, external, 30_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    original = await content(tenant.client, written["id"])
    await advance_to(tenant.client, "2026-11-18T18:30:00Z")
    await settle(app, tenant.organization_id)
    pulled = await fetch(tenant.client, pulled["id"])
    assert pulled["status"] == "COMPLETED"
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    await create(tenant.client, payout(customer, person, 20_000))
    await settle(app, tenant.organization_id)
    assert (await customer.balance("USD"))["available"] == 10_000

    answers = bank.nacha_answers(
        original,
        [bank.NachaAnswer(pulled["legs"][0]["achTraceNumber"], "R01")],
        now=datetime(2026, 11, 19, 14, 0, tzinfo=UTC),
    )
    response = await tenant.client.post(
        "/v1/sandbox/bank-files/imports", json={"name": "r01.ach", "content": answers}
    )
    assert response.status_code == 201, response.text
    reversed_ = await fetch(tenant.client, pulled["id"])
    assert reversed_["status"] == "REVERSED"
    assert "200.00 USD it no longer had is owed" in reversed_["systemRemark"]
    assert (await customer.balance("USD"))["available"] == 0
    await assert_books_balance(app, tenant.organization_id)
