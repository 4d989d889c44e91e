"""Monthly statements: every balance transaction of a UTC month with the running balance,
opening + movements = closing checked against the ledger, as JSON, CSV and PDF; the
month's non-balance transfers; and the months that have no statement."""

from __future__ import annotations

import csv
import io
import re
import zlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from corridor.models.ledger import Posting
from tests.conftest import assert_error
from tests.fixedroutes.helpers import BANK_PATH, create_route, deposit, to_usdc_on_base
from tests.transfers.conftest import amount, create, make_customer, settle


def at(month: int, day: int, hour: int = 12) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


async def _ledger_sum(app, account_id: str, before: datetime) -> int:
    async with app.state.database.session(write=False) as session:
        statement = select(func.coalesce(func.sum(Posting.amount), 0)).where(
            Posting.account_id == account_id, Posting.created_at < before
        )
        return int((await session.execute(statement)).scalar_one())


async def _statement(client, account_id: str, period: str, **kwargs):
    return await client.get(f"/v1/accounts/{account_id}/statements/{period}", **kwargs)


async def _history(app, tenant, clock):
    """September: +100.00. October: +50.00, then 30.00 paid to another customer. November
    (the current month): +7.25."""
    clock.set(at(9, 20))
    payer = await make_customer(tenant.client, currencies=("USD",))
    payee = await make_customer(tenant.client, currencies=("USD",))
    account = payer.accounts["USD"]
    clock.set(at(9, 25))
    await payer.fund("USD", 10_000)
    clock.set(at(10, 3))
    await payer.fund("USD", 5_000)
    clock.set(at(10, 31, 23))
    paid = await create(
        tenant.client,
        {
            "customerId": payer.id,
            "source": {"accountId": account},
            "destination": {"accountId": payee.accounts["USD"]},
            "amount": amount("USD", 3_000),
            "confirm": True,
        },
    )
    await settle(app, tenant.organization_id)
    clock.set(at(11, 5))
    await payer.fund("USD", 725)
    return payer, account, paid["id"]


async def test_each_month_adds_up_and_matches_the_ledger(app, tenant, clock):
    payer, account, transfer_id = await _history(app, tenant, clock)
    expected = {"2026-09": (0, 10_000), "2026-10": (10_000, 12_000), "2026-11": (12_000, 12_725)}
    for period, (opening, closing) in expected.items():
        response = await _statement(tenant.client, account, period)
        assert response.status_code == 200, response.text
        statement = response.json()
        assert statement["period"] == period and statement["currency"] == "USD"
        assert statement["customer"]["id"] == payer.id
        assert statement["organization"]["id"] == tenant.organization_id
        assert int(statement["openingBalance"]["value"]) == opening
        assert int(statement["closingBalance"]["value"]) == closing
        total_in = int(statement["totalIn"]["value"])
        total_out = int(statement["totalOut"]["value"])
        assert opening + total_in - total_out == closing
        start = datetime.fromisoformat(statement["periodStart"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(statement["periodEnd"].replace("Z", "+00:00"))
        assert await _ledger_sum(app, account, start) == opening
        bound = end if statement["complete"] else end + timedelta(microseconds=1)
        assert await _ledger_sum(app, account, bound) == closing
        running = opening
        for line in statement["transactions"]:
            value = int(line["amount"]["value"])
            running += value if line["direction"] == "CREDIT" else -value
            assert int(line["balanceAfter"]["value"]) == running
        assert running == closing

    october = (await _statement(tenant.client, account, "2026-10")).json()
    assert [(line["direction"], line["amount"]["value"]) for line in october["transactions"]] == [
        ("CREDIT", "5000"),
        ("DEBIT", "3000"),
    ]
    assert october["transactions"][1]["transferId"] == transfer_id
    assert october["complete"] is True and october["periodEnd"] == "2026-11-01T00:00:00.000Z"
    november = (await _statement(tenant.client, account, "2026-11")).json()
    assert november["complete"] is False
    balance = (await tenant.client.get(f"/v1/accounts/{account}/balance")).json()
    assert november["closingBalance"] == balance["total"]


async def test_months_without_a_statement_are_clear_errors(app, tenant, make_tenant, clock):
    clock.set(at(9, 20))
    customer = await make_customer(tenant.client, currencies=("USD",))
    account = customer.accounts["USD"]
    clock.set(at(11, 5))
    for period, message in [
        ("2026-12", "in the future"),
        ("2027-01", "in the future"),
        ("2026-08", "before the account was opened (2026-09)"),
        ("2026-13", "YYYY-MM"),
        ("2026-1", "YYYY-MM"),
        ("26-01", "YYYY-MM"),
        ("november", "YYYY-MM"),
        ("2026-11-01", "YYYY-MM"),
    ]:
        body = assert_error(
            await _statement(tenant.client, account, period), 422, "validation_error"
        )
        assert body["errors"][0]["field"] == "period"
        assert message in body["message"], body
        non_balance = await tenant.client.get(
            f"/v1/accounts/{account}/statements/{period}/non-balance"
        )
        assert_error(non_balance, 422, "validation_error")
    assert (await _statement(tenant.client, account, "2026-09")).status_code == 200
    stranger = await make_tenant()
    assert_error(await _statement(stranger.client, account, "2026-09"), 404, "not_found")
    unknown = "acc_01jd3x0p6x9e3k2v1m8q4r7s5t"
    assert_error(await _statement(tenant.client, unknown, "2026-09"), 404, "not_found")


async def test_the_statement_as_csv(app, tenant, clock):
    _, account, transfer_id = await _history(app, tenant, clock)
    by_header = await _statement(tenant.client, account, "2026-10", headers={"Accept": "text/csv"})
    by_query = await _statement(tenant.client, account, "2026-10", params={"format": "csv"})
    assert by_header.status_code == 200, by_header.text
    assert by_header.headers["content-type"].startswith("text/csv")
    assert 'filename="statement-' in by_header.headers["content-disposition"]
    assert by_header.content == by_query.content
    rows = list(csv.DictReader(io.StringIO(by_header.text)))
    assert [row["type"] for row in rows] == [
        "OPENING_BALANCE",
        "SANDBOX_FUNDING",
        rows[2]["type"],
        "CLOSING_BALANCE",
    ]
    assert rows[0]["balance"] == "100.00"
    assert (rows[1]["money_in"], rows[1]["balance"]) == ("50.00", "150.00")
    assert (rows[2]["money_out"], rows[2]["transfer_id"]) == ("30.00", transfer_id)
    assert rows[3]["balance"] == "120.00"
    assert (rows[3]["money_in"], rows[3]["money_out"]) == ("50.00", "30.00")


def _pdf_text(content: bytes) -> str:
    """The text drawn by the PDF's (deflated) content streams."""
    drawn = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", content, flags=re.DOTALL):
        try:
            drawn.append(zlib.decompress(stream).decode("latin-1"))
        except zlib.error:
            drawn.append(stream.decode("latin-1"))
    return "".join(re.findall(r"\((.*?)\)\s*Tj", "\n".join(drawn)))


async def test_the_statement_as_a_pdf_names_everything_a_person_files(app, tenant, clock):
    payer, account, transfer_id = await _history(app, tenant, clock)
    response = await _statement(
        tenant.client, account, "2026-10", headers={"Accept": "application/pdf"}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    text = _pdf_text(response.content)
    organization = (await tenant.client.get("/v1/organizations/current")).json()["name"]
    for expected in [
        "Account statement",
        organization,
        payer.id,
        account,
        "2026-10",
        "Opening balance",
        "100.00",
        "50.00",
        "30.00",
        "120.00",
        transfer_id,
        "Closing balance",
    ]:
        assert expected in text, expected


async def test_deposits_that_went_on_elsewhere_are_the_non_balance_statement(app, tenant, clock):
    clock.set(at(10, 2))
    customer = await make_customer(tenant.client, currencies=("USD", "USDC"))
    account = customer.accounts["USD"]
    route = await create_route(tenant.client, BANK_PATH, to_usdc_on_base(customer.id))
    clock.set(at(10, 20))
    arrived = await deposit(
        tenant.client,
        paymentRail="WIRE",
        amount=amount("USD", 25_000),
        virtualAccountId=route["depositInstructions"]["accountId"],
    )
    await settle(app, tenant.organization_id)
    await customer.fund("USD", 1_000)
    clock.set(at(11, 5))
    response = await tenant.client.get(f"/v1/accounts/{account}/statements/2026-10/non-balance")
    assert response.status_code == 200, response.text
    listed = response.json()
    assert [item["transferId"] for item in listed["transfers"]] == [arrived["transferId"]]
    item = listed["transfers"][0]
    assert item["depositId"] == arrived["id"] and item["fixedRouteId"] == route["id"]
    assert item["amountReceived"]["value"] == "25000" and item["flow"] == "FIAT_TO_CRYPTO"
    assert item["destinationAmount"]["currency"] == "USDC"
    # The balance statement does not show it: only the sandbox funding touched the balance.
    statement = (await _statement(tenant.client, account, "2026-10")).json()
    assert [line["type"] for line in statement["transactions"]] == ["SANDBOX_FUNDING"]
    empty = await tenant.client.get(f"/v1/accounts/{account}/statements/2026-11/non-balance")
    assert empty.json()["transfers"] == []
