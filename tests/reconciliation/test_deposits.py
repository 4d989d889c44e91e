"""Reconciliation of money that came in: a statement credit quoting a deposit's reference,
for its amount and currency, is matched to that deposit (and the transfer it funded); a
second line for it is a duplicate, another amount a mismatch, a reference nobody quoted
unknown; a line booked too far from the payment's day is out of range."""

from __future__ import annotations

from datetime import UTC, datetime

from corridor.bankfiles import bank
from corridor.models.bank_file import BankFileEntry
from tests.reconciliation.test_statements import import_statement, lines
from tests.transfers.conftest import amount, create, make_customer

NOW = datetime(2026, 11, 19, 9, 0, tzinfo=UTC)


async def _deposit(client, **body) -> dict:
    response = await client.post("/v1/sandbox/deposits", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def _waiting_for_a_wire(client, customer, value: int) -> dict:
    """A deposit flow that waits for a wire to the customer's virtual account."""
    return await create(
        client,
        {
            "customerId": customer.id,
            "source": {"currency": "USD", "paymentRail": "WIRE"},
            "destination": {"accountId": customer.accounts["USD"]},
            "amount": amount("USD", value),
            "confirm": True,
        },
    )


def _by_number(found: list[dict]) -> list[dict]:
    return sorted(found, key=lambda line: line["lineNumber"])


async def test_statement_credits_match_the_deposits_that_quoted_their_reference(tenant, clock):
    clock.set(NOW)
    customer = await make_customer(tenant.client, ("USD",))
    first = await _waiting_for_a_wire(tenant.client, customer, 700)
    second = await _waiting_for_a_wire(tenant.client, customer, 10_000)
    account = first["depositInstructions"]["accountId"]
    first_reference = first["depositInstructions"]["reference"]
    second_reference = second["depositInstructions"]["reference"]
    funded = await _deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 700),
        virtualAccountId=account,
        reference=first_reference,
    )
    assert funded["status"] == "MATCHED" and funded["transferId"] == first["id"]
    # The same wire sent again: an unmatched deposit quoting the same reference.
    again = await _deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 700),
        virtualAccountId=account,
        reference=first_reference,
    )
    assert again["status"] == "UNMATCHED" and again["transferId"] is None
    waiting = await _deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 10_000),
        virtualAccountId=account,
        reference=second_reference,
    )
    assert waiting["transferId"] == second["id"]

    content = bank.account_statement(
        [
            bank.StatementLine("CRDT", "7.00", "USD", first_reference),
            bank.StatementLine("CRDT", "7.00", "USD", first_reference),  # the second wire
            bank.StatementLine("CRDT", "7.00", "USD", first_reference),  # no third one
            bank.StatementLine("CRDT", "99.99", "USD", second_reference),  # another amount
            bank.StatementLine("CRDT", "100.00", "EUR", second_reference),  # another currency
            bank.StatementLine("DBIT", "100.00", "USD", second_reference),  # money out
            bank.StatementLine("CRDT", "5.00", "USD", "CRDNOBODY"),
        ],
        statement_id="STMT-DEPOSITS-1",
        now=NOW,
    )
    statement = await import_statement(tenant.client, content)
    assert (statement["lineCount"], statement["matchedCount"], statement["exceptionCount"]) == (
        7,
        2,
        5,
    )
    found = _by_number(await lines(tenant.client, statementId=statement["id"]))
    assert [
        (line["status"], line["exceptionReason"], line["depositId"], line["transferId"])
        for line in found
    ] == [
        ("MATCHED", None, funded["id"], first["id"]),
        ("MATCHED", None, again["id"], None),  # an unmatched deposit has no transfer
        ("EXCEPTION", "DUPLICATE", funded["id"], first["id"]),
        ("EXCEPTION", "AMOUNT_MISMATCH", waiting["id"], second["id"]),
        ("EXCEPTION", "AMOUNT_MISMATCH", waiting["id"], second["id"]),
        ("EXCEPTION", "UNKNOWN_REFERENCE", None, None),  # a deposit is money in
        ("EXCEPTION", "UNKNOWN_REFERENCE", None, None),
    ]

    # A later statement: the deposit matched there is a duplicate; the one still free
    # matches.
    later = bank.account_statement(
        [
            bank.StatementLine("CRDT", "7.00", "USD", first_reference),
            bank.StatementLine("CRDT", "100.00", "USD", second_reference),
        ],
        statement_id="STMT-DEPOSITS-2",
        now=NOW,
    )
    statement = await import_statement(tenant.client, later)
    found = _by_number(await lines(tenant.client, statementId=statement["id"]))
    assert [(line["status"], line["exceptionReason"], line["depositId"]) for line in found] == [
        ("EXCEPTION", "DUPLICATE", funded["id"]),
        ("MATCHED", None, waiting["id"]),
    ]

    # The operator resolves the duplicate; the line keeps the deposit it named.
    target = found[0]
    resolved = await tenant.client.post(
        f"/v1/reconciliation/lines/{target['id']}/resolve",
        json={"resolution": "The bank reported the wire twice"},
    )
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["status"] == "RESOLVED"
    assert resolved.json()["depositId"] == funded["id"]


async def test_a_deposit_of_another_organization_is_never_matched(tenant, make_tenant, clock):
    clock.set(NOW)
    stranger = await make_tenant()
    theirs = await make_customer(stranger.client, ("USD",))
    transfer = await _waiting_for_a_wire(stranger.client, theirs, 700)
    reference = transfer["depositInstructions"]["reference"]
    await _deposit(
        stranger.client,
        paymentRail="WIRE",
        amount=amount("USD", 700),
        virtualAccountId=transfer["depositInstructions"]["accountId"],
        reference=reference,
    )
    content = bank.account_statement(
        [bank.StatementLine("CRDT", "7.00", "USD", reference)], statement_id="STMT-X", now=NOW
    )
    statement = await import_statement(tenant.client, content)
    (line,) = await lines(tenant.client, statementId=statement["id"])
    assert (line["exceptionReason"], line["depositId"], line["transferId"]) == (
        "UNKNOWN_REFERENCE",
        None,
        None,
    )


async def test_a_line_booked_far_from_the_payments_day_is_an_exception(app, tenant, clock):
    """The booking date within 5 days of the deposit's arrival (or the bank-file entry's
    settlement): further away it is DATE_OUT_OF_RANGE, naming what it may be; the
    deposit stays free for the line that is near."""
    clock.set(NOW)
    customer = await make_customer(tenant.client, ("USD",))
    transfer = await _waiting_for_a_wire(tenant.client, customer, 700)
    reference = transfer["depositInstructions"]["reference"]
    deposit = await _deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 700),
        virtualAccountId=transfer["depositInstructions"]["accountId"],
        reference=reference,
    )
    async with app.state.database.session() as session, session.begin():
        session.add(
            BankFileEntry(
                organization_id=tenant.organization_id,
                transfer_id="tfr_dated0000000000000000000000",
                leg_id="tleg_dated000000000000000000000",
                rail="SEPA",
                direction="CREDIT",
                currency="EUR",
                amount=2_500,
                reference="E2E-DATED-1",
                window_cutoff_at=NOW,
                effective_date="2026-11-19",
                settles_at=NOW,
                beneficiary={},
                details={},
                status="SETTLED",
                created_at=NOW,
                updated_at=NOW,
            )
        )
    content = bank.account_statement(
        [
            bank.StatementLine("CRDT", "7.00", "USD", reference, booked_on="2026-11-30"),
            bank.StatementLine("CRDT", "7.00", "USD", reference, booked_on="2026-11-24"),
            bank.StatementLine("DBIT", "25.00", "EUR", "E2E-DATED-1", booked_on="2026-11-08"),
            bank.StatementLine("DBIT", "25.00", "EUR", "E2E-DATED-1", booked_on="2026-11-14"),
        ],
        statement_id="STMT-DATED",
        now=NOW,
    )
    statement = await import_statement(tenant.client, content)
    found = _by_number(await lines(tenant.client, statementId=statement["id"]))
    assert [
        (line["status"], line["exceptionReason"], line["depositId"], line["transferId"])
        for line in found
    ] == [
        ("EXCEPTION", "DATE_OUT_OF_RANGE", deposit["id"], transfer["id"]),  # 11 days later
        ("MATCHED", None, deposit["id"], transfer["id"]),  # 5 days later
        ("EXCEPTION", "DATE_OUT_OF_RANGE", None, "tfr_dated0000000000000000000000"),
        ("MATCHED", None, None, "tfr_dated0000000000000000000000"),
    ]
