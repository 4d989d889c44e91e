"""SEPA and SWIFT as ISO 20022: credit transfers written as pain.001.001.09 that validate
against the official schema (SEPA: a block per requested execution date; SWIFT: the UETR
the transfer reports and the correspondent it names), and the bank's status reports
(pain.002, pacs.002) and returns (pacs.004, camt.054) applied to the transfers."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from corridor.bankfiles import bank
from corridor.rails import iso20022
from corridor.rails.base import RailName
from tests.bankfiles.conftest import write_files
from tests.bankfiles.test_ach_files import advance_to, files
from tests.parties.helpers import SEPA_ACCOUNT, create_account, create_counterparty
from tests.transfers.conftest import (
    amount,
    assert_books_balance,
    create,
    fetch,
    make_customer,
    settle,
)

# Wednesday 18 November 2026, 11:00 in Frankfurt: before SEPA's 15:00 and SWIFT's 15:00 ET.
MORNING = datetime(2026, 11, 18, 10, 0, tzinfo=UTC)
SEPA_CUTOFF = "2026-11-18T14:00:00.000Z"
SWIFT_CUTOFF = "2026-11-18T20:00:00.000Z"
SWIFT_ACCOUNT = {
    "currency": "USD",
    "country": "GB",
    "accountHolderName": "Brunel Engineering Ltd",
    "iban": "GB33BUKB20201555555555",
    "bic": "BUKBGB22",
}


async def counterparty_account(client, customer_id: str, account: dict) -> str:
    counterparty = await create_counterparty(client, customer_id)
    return (await create_account(client, {"counterpartyId": counterparty["id"]}, **account))["id"]


async def xml_of(client, file_id: str) -> str:
    response = await client.get(f"/v1/bank-files/{file_id}/content")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/xml")
    return response.text


async def entries(client, file_id: str) -> dict[str, dict]:
    response = await client.get(f"/v1/bank-files/{file_id}/entries")
    assert response.status_code == 200, response.text
    return {entry["transferId"]: entry for entry in response.json()["data"]}


async def answer(client, name: str, content: str) -> dict:
    response = await client.post(
        "/v1/sandbox/bank-files/imports", json={"name": name, "content": content}
    )
    assert response.status_code == 201, response.text
    return response.json()


def sepa_payout(customer, account_id: str, value: int) -> dict:
    return {
        "customerId": customer.id,
        "source": {"accountId": customer.accounts["EUR"]},
        "destination": {
            "externalAccountId": account_id,
            "paymentRail": "SEPA",
            "currency": "EUR",
            "sepaReference": "Invoice 2026-118",
        },
        "amount": amount("EUR", value),
        "confirm": True,
    }


async def test_sepa_payouts_are_a_valid_pain_001_and_a_rejection_fails_with_its_reason(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.SEPA)
    customer = await make_customer(tenant.client, ("EUR",))
    await customer.fund("EUR", 500_000)
    account = await counterparty_account(tenant.client, customer.id, SEPA_ACCOUNT)
    paid = await create(tenant.client, sepa_payout(customer, account, 12_345))
    rejected = await create(tenant.client, sepa_payout(customer, account, 1_000))
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, paid["id"]))["nextCutoffAt"] == SEPA_CUTOFF

    await advance_to(tenant.client, "2026-11-18T14:01:00Z")
    assert await write_files(app, tenant.organization_id) == 1
    (written,) = await files(tenant.client)
    assert written["format"] == "PAIN_001" and written["currency"] == "EUR"
    xml = await xml_of(tenant.client, written["id"])
    iso20022.validate(xml)  # the official pain.001.001.09 schema
    document = iso20022.parse_credit_transfers(xml)["CstmrCdtTrfInitn"]
    assert document["GrpHdr"]["MsgId"] == written["id"]
    assert document["GrpHdr"]["NbOfTxs"] == "2"
    assert Decimal(str(document["GrpHdr"]["CtrlSum"])) == Decimal("133.45")
    (block,) = document["PmtInf"]
    assert block["PmtTpInf"]["SvcLvl"][0]["Cd"] == "SEPA" and block["ChrgBr"] == "SLEV"
    assert block["ReqdExctnDt"]["Dt"] == "2026-11-18"
    assert block["DbtrAcct"]["Id"]["IBAN"] == "DE89370400440532013000"
    by_amount = {Decimal(str(tx["Amt"]["InstdAmt"]["$"])): tx for tx in block["CdtTrfTxInf"]}
    sent = by_amount[Decimal("123.45")]
    assert sent["Amt"]["InstdAmt"]["@Ccy"] == "EUR"
    assert sent["CdtrAcct"]["Id"]["IBAN"] == SEPA_ACCOUNT["iban"]
    assert sent["RmtInf"]["Ustrd"] == ["Invoice 2026-118"]
    references = await entries(tenant.client, written["id"])
    assert sent["PmtId"]["EndToEndId"] == references[paid["id"]]["reference"]

    report = bank.status_report(
        written["id"],
        [
            bank.IsoAnswer(references[paid["id"]]["reference"], "ACCP"),
            bank.IsoAnswer(references[rejected["id"]]["reference"], "RJCT", "AC04"),
        ],
        now=MORNING,
    )
    imported = await answer(tenant.client, "pain002.xml", report)
    assert imported["format"] == "PAIN_002"
    assert imported["summary"]["applied"] == {"ACCEPT": 1, "REJECT": 1}
    failed = await fetch(tenant.client, rejected["id"])
    assert failed["status"] == "FAILED"
    assert "AC04" in failed["systemRemark"]
    assert (await fetch(tenant.client, paid["id"]))["status"] == "PROCESSING"
    await settle(app, tenant.organization_id)
    assert (await customer.balance("EUR"))["available"] == 500_000 - 12_345

    # Settled the next TARGET day at 09:00 Frankfurt; then a pacs.004 brings it back.
    await advance_to(tenant.client, "2026-11-19T08:01:00Z")
    await settle(app, tenant.organization_id)
    assert (await fetch(tenant.client, paid["id"]))["status"] == "COMPLETED"
    returned = bank.payment_return(
        "PACS008-1",
        [
            bank.IsoAnswer(
                references[paid["id"]]["reference"],
                "RETURNED",
                "AC06",
                amount="123.45",
                currency="EUR",
            )
        ],
        now=MORNING,
    )
    await answer(tenant.client, "pacs004.xml", returned)
    back = await fetch(tenant.client, paid["id"])
    assert back["status"] == "REVERSED" and back["returnedToAccountId"] == customer.accounts["EUR"]
    assert (await customer.balance("EUR"))["available"] == 500_000
    await assert_books_balance(app, tenant.organization_id)


async def test_swift_payouts_carry_the_uetr_and_correspondent_and_follow_pacs_answers(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.SWIFT)
    customer = await make_customer(tenant.client, ("USD",))
    await customer.fund("USD", 1_000_000)
    account = await counterparty_account(tenant.client, customer.id, SWIFT_ACCOUNT)

    def swift_payout(value: int) -> dict:
        return {
            "customerId": customer.id,
            "source": {"accountId": customer.accounts["USD"]},
            "destination": {
                "externalAccountId": account,
                "paymentRail": "SWIFT",
                "currency": "USD",
                "correspondentBankSwiftCode": "CHASUS33",
                "swiftReference": "PO 4471",
            },
            "amount": amount("USD", value),
            "confirm": True,
        }

    settled, returned = (
        await create(tenant.client, swift_payout(250_000)),
        await create(tenant.client, swift_payout(40_000)),
    )
    await settle(app, tenant.organization_id)
    settled, returned = [await fetch(tenant.client, t["id"]) for t in (settled, returned)]
    assert settled["nextCutoffAt"] == SWIFT_CUTOFF
    await advance_to(tenant.client, "2026-11-18T20:01:00Z")
    assert await write_files(app, tenant.organization_id) == 1
    (written,) = await files(tenant.client)
    xml = await xml_of(tenant.client, written["id"])
    iso20022.validate(xml)
    (block,) = iso20022.parse_credit_transfers(xml)["CstmrCdtTrfInitn"]["PmtInf"]
    assert block["ChrgBr"] == "SHAR" and "PmtTpInf" not in block
    by_uetr = {tx["PmtId"]["UETR"]: tx for tx in block["CdtTrfTxInf"]}
    sent = by_uetr[settled["uetr"]]
    assert sent["PmtId"]["EndToEndId"] == settled["id"]
    assert sent["IntrmyAgt1"]["FinInstnId"]["BICFI"] == "CHASUS33"
    assert sent["CdtrAgt"]["FinInstnId"]["BICFI"] == "BUKBGB22"
    assert sent["CdtrAcct"]["Id"]["IBAN"] == SWIFT_ACCOUNT["iban"]
    assert Decimal(str(sent["Amt"]["InstdAmt"]["$"])) == Decimal("2500.00")

    # pacs.002 ACSC settles at once, before the estimated time.
    accepted = (
        bank.status_report(written["id"], [], now=MORNING)
        .replace("pain.002.001.10", "pacs.002.001.10")
        .replace("CstmrPmtStsRpt", "FIToFIPmtStsRpt")
    )
    assert iso20022.message_kind(accepted) == "pacs.002"
    pacs002 = accepted.replace(
        "</OrgnlGrpInfAndSts>",
        "</OrgnlGrpInfAndSts><TxInfAndSts><OrgnlEndToEndId>"
        + settled["id"]
        + "</OrgnlEndToEndId><OrgnlUETR>"
        + settled["uetr"]
        + "</OrgnlUETR><TxSts>ACSC</TxSts></TxInfAndSts>",
    )
    await answer(tenant.client, "pacs002.xml", pacs002)
    assert (await fetch(tenant.client, settled["id"]))["status"] == "COMPLETED"
    assert (await fetch(tenant.client, returned["id"]))["status"] == "PROCESSING"

    # A camt.054 notification of a returned entry, named by UETR, before settlement.
    notification = bank.returned_entry_notification(
        [
            bank.IsoAnswer(
                returned["id"],
                "RETURNED",
                "AC01",
                uetr=returned["uetr"],
                amount="400.00",
                currency="USD",
            )
        ],
        now=MORNING,
    )
    imported = await answer(tenant.client, "camt054.xml", notification)
    assert imported["format"] == "CAMT_054" and imported["summary"]["applied"] == {"RETURN": 1}
    assert (await fetch(tenant.client, returned["id"]))["status"] == "FAILED"
    await settle(app, tenant.organization_id)
    assert (await customer.balance("USD"))["available"] == 1_000_000 - 250_000
    await assert_books_balance(app, tenant.organization_id)


async def test_a_rejection_of_the_whole_message_fails_every_payment_in_it(
    app, tenant, clock, file_rails
):
    clock.set(MORNING)
    file_rails(RailName.SEPA)
    customer = await make_customer(tenant.client, ("EUR",))
    await customer.fund("EUR", 100_000)
    account = await counterparty_account(tenant.client, customer.id, SEPA_ACCOUNT)
    payouts = [
        await create(tenant.client, sepa_payout(customer, account, 1_000 + i)) for i in range(3)
    ]
    await settle(app, tenant.organization_id)
    await advance_to(tenant.client, "2026-11-18T14:01:00Z")
    await write_files(app, tenant.organization_id)
    (written,) = await files(tenant.client)
    report = bank.status_report(written["id"], [bank.IsoAnswer(None, "RJCT", "FF01")], now=MORNING)
    imported = await answer(tenant.client, "pain002-group.xml", report)
    assert imported["summary"]["applied"] == {"REJECT": 3}
    for payout in payouts:
        assert (await fetch(tenant.client, payout["id"]))["status"] == "FAILED"
    await settle(app, tenant.organization_id)
    assert (await customer.balance("EUR"))["available"] == 100_000
