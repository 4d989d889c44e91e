"""Reconciliation: a camt.053 statement matched line by line to the payments Corridor
sent (by reference, side and amount); duplicates, other amounts and unknown references
become exceptions with `reconciliation.exception`, which an operator resolves."""

from __future__ import annotations

import time

from sqlalchemy import func, select

from corridor.bankfiles import bank
from corridor.models.bank_file import BankFileEntry
from corridor.models.event import Event
from corridor.rails.base import RailName
from tests.bankfiles.conftest import file_rails, write_files  # noqa: F401
from tests.bankfiles.test_ach_files import MORNING as ACH_MORNING
from tests.bankfiles.test_ach_files import advance_to, files, payee, pull
from tests.bankfiles.test_ach_files import payout as ach_payout
from tests.bankfiles.test_iso20022_files import (
    MORNING,
    counterparty_account,
    entries,
    sepa_payout,
)
from tests.conftest import assert_error
from tests.parties.helpers import SEPA_ACCOUNT
from tests.transfers.conftest import (
    create,
    install_rail,  # noqa: F401
    make_customer,
    settle,
)


async def import_statement(client, content: str, name: str = "camt053.xml") -> dict:
    response = await client.post(
        "/v1/reconciliation/statements", json={"name": name, "content": content}
    )
    assert response.status_code == 201, response.text
    return response.json()


async def lines(client, **query) -> list[dict]:
    found, cursor = [], None
    while True:
        params = {**query, "limit": 250, **({"cursor": cursor} if cursor else {})}
        response = await client.get("/v1/reconciliation/lines", params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        found += body["data"]
        if not body["hasMore"]:
            return found
        cursor = body["nextCursor"]


async def test_statement_lines_match_payouts_and_the_rest_are_exceptions(
    app,
    tenant,
    clock,
    file_rails,  # noqa: F811
):
    clock.set(MORNING)
    file_rails(RailName.SEPA)
    customer = await make_customer(tenant.client, ("EUR",))
    await customer.fund("EUR", 500_000)
    account = await counterparty_account(tenant.client, customer.id, SEPA_ACCOUNT)
    payouts = [
        await create(tenant.client, sepa_payout(customer, account, 1_000 * (i + 1)))
        for i in range(3)
    ]
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T14:01:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client)
    references = await entries(tenant.client, written["id"])
    first, second, third = (references[payout["id"]]["reference"] for payout in payouts)

    content = bank.account_statement(
        [
            bank.StatementLine("DBIT", "10.00", "EUR", first),
            bank.StatementLine("DBIT", "20.00", "EUR", second),
            bank.StatementLine("DBIT", "10.00", "EUR", first),  # the same payment twice
            bank.StatementLine("DBIT", "29.99", "EUR", third),  # another amount
            bank.StatementLine("DBIT", "5.00", "EUR", "SOMEONE-ELSES-PAYMENT"),
            bank.StatementLine("CRDT", "7.50", "EUR", None, remittance="Interest"),
        ],
        statement_id="STMT-1",
        now=MORNING,
    )
    statement = await import_statement(tenant.client, content)
    assert (statement["lineCount"], statement["matchedCount"], statement["exceptionCount"]) == (
        6,
        2,
        4,
    )
    found = sorted(
        await lines(tenant.client, statementId=statement["id"]), key=lambda line: line["lineNumber"]
    )
    assert [line["status"] for line in found] == [
        "MATCHED",
        "MATCHED",
        "EXCEPTION",
        "EXCEPTION",
        "EXCEPTION",
        "EXCEPTION",
    ]
    assert [line["exceptionReason"] for line in found] == [
        None,
        None,
        "DUPLICATE",
        "AMOUNT_MISMATCH",
        "UNKNOWN_REFERENCE",
        "NO_REFERENCE",
    ]
    assert found[0]["transferId"] == payouts[0]["id"] and found[0]["amount"] == "1000"
    assert found[3]["transferId"] == payouts[2]["id"]  # named, for the operator to look at

    async with app.state.database.session(write=False) as session:
        count = await session.scalar(
            select(func.count())
            .select_from(Event)
            .where(
                Event.organization_id == tenant.organization_id,
                Event.type == "reconciliation.exception",
            )
        )
    assert count == 4
    again = await import_statement(tenant.client, content)
    assert again["id"] == statement["id"]  # read once

    # A later statement with a line already matched: a duplicate across statements.
    later = bank.account_statement(
        [bank.StatementLine("DBIT", "20.00", "EUR", second)], statement_id="STMT-2", now=MORNING
    )
    assert (await import_statement(tenant.client, later))["exceptionCount"] == 1

    exceptions = await lines(tenant.client, status="EXCEPTION")
    assert len(exceptions) == 5
    target = next(line for line in exceptions if line["exceptionReason"] == "NO_REFERENCE")
    resolved = await tenant.client.post(
        f"/v1/reconciliation/lines/{target['id']}/resolve",
        json={"resolution": "Interest from the bank"},
    )
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["status"] == "RESOLVED" and resolved.json()["resolvedAt"]
    assert len(await lines(tenant.client, status="EXCEPTION")) == 4
    twice = await tenant.client.post(
        f"/v1/reconciliation/lines/{target['id']}/resolve", json={"resolution": "again"}
    )
    assert_error(twice, 409, "invalid_state")


async def test_a_bad_statement_changes_nothing(tenant):
    for content in ("nope", "<Document><Other/></Document>"):
        response = await tenant.client.post(
            "/v1/reconciliation/statements", json={"name": "x.xml", "content": content}
        )
        assert_error(response, 422, "validation_error")
    assert await lines(tenant.client) == []


async def test_a_thousand_line_statement_with_duplicates_partials_and_unknowns(app, tenant, clock):
    """Volume: 1,000 lines against 900 payments (entries made directly, as the file rail
    writes them): 880 matched, 40 duplicates, 40 other amounts, 40 unknown references."""
    clock.set(MORNING)
    now = MORNING
    async with app.state.database.session() as session, session.begin():
        for number in range(900):
            session.add(
                BankFileEntry(
                    organization_id=tenant.organization_id,
                    transfer_id=f"tfr_volume{number:022d}",
                    leg_id=f"tleg_volume{number:021d}",
                    rail="SEPA",
                    direction="CREDIT",
                    currency="EUR",
                    amount=10_000 + number,
                    reference=f"E2E-VOLUME-{number:06d}",
                    window_cutoff_at=now,
                    effective_date="2026-11-18",
                    settles_at=now,
                    beneficiary={},
                    details={},
                    status="SETTLED",
                    created_at=now,
                    updated_at=now,
                )
            )
    statement_lines = []
    for number in range(880):
        statement_lines.append(
            bank.StatementLine(
                "DBIT", f"{(10_000 + number) / 100:.2f}", "EUR", f"E2E-VOLUME-{number:06d}"
            )
        )
    statement_lines += [statement_lines[index] for index in range(40)]  # duplicates
    for number in range(880, 900):  # two lines each at another amount
        for _ in range(2):
            statement_lines.append(
                bank.StatementLine("DBIT", "1.00", "EUR", f"E2E-VOLUME-{number:06d}")
            )
    statement_lines += [
        bank.StatementLine("DBIT", "3.00", "EUR", f"UNKNOWN-{number}") for number in range(40)
    ]
    assert len(statement_lines) == 1000
    content = bank.account_statement(statement_lines, statement_id="STMT-VOLUME", now=MORNING)
    started = time.perf_counter()
    statement = await import_statement(tenant.client, content)
    elapsed = time.perf_counter() - started
    print(
        f"\n1,000-line camt.053 reconciled in {elapsed:.2f} s ({app.state.database.engine.dialect.name})"
    )
    assert statement["lineCount"] == 1000
    assert (statement["matchedCount"], statement["exceptionCount"]) == (880, 120)
    reasons: dict[str, int] = {}
    for line in await lines(tenant.client, status="EXCEPTION"):
        reasons[line["exceptionReason"]] = reasons.get(line["exceptionReason"], 0) + 1
    assert reasons == {"DUPLICATE": 40, "AMOUNT_MISMATCH": 40, "UNKNOWN_REFERENCE": 40}


async def test_a_bai2_statement_matches_ach_payouts_and_pulls_the_same_way(
    app,
    tenant,
    clock,
    file_rails,  # noqa: F811
):
    """A BAI2 report of the ODFI account: the payout's debit and the pull's credit match
    their NACHA entries by trace number; an unknown trace and a line with no reference are
    exceptions."""
    clock.set(ACH_MORNING)
    file_rails(RailName.ACH_SAME_DAY)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 100_000)
    person = await payee(tenant.client, customer.id, "INDIVIDUAL", "111122223333")
    sent = await create(tenant.client, ach_payout(customer, person, 12_345))
    external = await customer.bank_account()
    pulled = await create(tenant.client, pull(customer, external, 30_000))
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T15:31:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client, direction="OUTGOING")
    references = await entries(tenant.client, written["id"])
    payout_trace = references[sent["id"]]["reference"]
    pull_trace = references[pulled["id"]]["reference"]

    content = bank.bai2_statement(
        [
            bank.StatementLine("DBIT", "123.45", "USD", payout_trace),
            bank.StatementLine("CRDT", "300.00", "USD", pull_trace),
            bank.StatementLine("CRDT", "300.00", "USD", pull_trace),  # twice
            bank.StatementLine("DBIT", "9.99", "USD", "021000029999999"),
            bank.StatementLine("CRDT", "1.25", "USD", None, remittance="Interest"),
        ],
        file_id="BAI-20261119",
        now=ACH_MORNING,
    )
    statement = await import_statement(tenant.client, content, name="bai2-20261119.txt")
    assert statement["format"] == "BAI2" and statement["statementId"] == "BAI-20261119"
    assert (statement["lineCount"], statement["matchedCount"], statement["exceptionCount"]) == (
        5,
        2,
        3,
    )
    found = sorted(
        await lines(tenant.client, statementId=statement["id"]), key=lambda line: line["lineNumber"]
    )
    assert [(line["status"], line["exceptionReason"]) for line in found] == [
        ("MATCHED", None),
        ("MATCHED", None),
        ("EXCEPTION", "DUPLICATE"),
        ("EXCEPTION", "UNKNOWN_REFERENCE"),
        ("EXCEPTION", "NO_REFERENCE"),
    ]
    assert (found[0]["transferId"], found[0]["direction"], found[0]["amount"]) == (
        sent["id"],
        "DEBIT",
        "12345",
    )
    assert (found[1]["transferId"], found[1]["direction"]) == (pulled["id"], "CREDIT")
    assert found[0]["bookedOn"] == "2026-11-19"
    assert found[4]["description"].startswith("Interest (bank reference ")
    again = await import_statement(tenant.client, content)
    assert again["id"] == statement["id"]


async def test_an_unreadable_bai2_file_is_refused(tenant):
    for content in ("01,garbage", "01,A,B,261119,0800,1,80,0,2/\n99,0,0,1/"):
        response = await tenant.client.post(
            "/v1/reconciliation/statements", json={"name": "x.bai", "content": content}
        )
        assert_error(response, 422, "validation_error")
