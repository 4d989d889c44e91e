"""The NACHA writer and its strict reader: every count, total, hash and the blocking
checked; a file broken anywhere is refused with the record named."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from corridor.bankfiles import bank
from corridor.rails import nacha

ODFI = "123456780"


def entry(trace: str, amount: int, *, routing: str = "021000021", code: str = "22") -> nacha.Entry:
    return nacha.Entry(
        transaction_code=code,
        routing_number=routing,
        account_number="000123456789",
        amount_cents=amount,
        individual_id="tfr_0123456789",
        individual_name="Ada Lovelace",
        trace_number=trace,
    )


def sample(entries_per_batch: int = 3) -> str:
    batches = tuple(
        nacha.Batch(
            sec_code=sec,
            company_name="Acme Payments",
            company_id="1234567890",
            entry_description="PAYMENT",
            effective_date=date(2026, 11, 19),
            odfi_identification=ODFI[:8],
            entries=tuple(
                entry(f"{ODFI[:8]}{offset + index:07d}", 1_000 * (index + 1))
                for index in range(entries_per_batch)
            ),
        )
        for offset, sec in ((0, "PPD"), (100, "CCD"))
    )
    return nacha.write(
        nacha.NachaFile(
            immediate_destination=ODFI,
            immediate_origin=" 1234567890",
            destination_name="Corridor Sandbox Bank",
            origin_name="Acme",
            created_at=datetime(2026, 11, 18, 15, 30, tzinfo=UTC),
            batches=batches,
        )
    )


def test_a_written_file_reads_back_with_its_counts_totals_and_hash():
    text = sample()
    records = text.splitlines()
    assert all(len(record) == 94 for record in records)
    assert len(records) % 10 == 0
    parsed = nacha.parse(text)
    assert [batch.sec_code for batch in parsed.batches] == ["PPD", "CCD"]
    control = next(record for record in records if record.startswith("9") and record != "9" * 94)
    assert int(control[1:7]) == 2  # batches
    assert int(control[7:13]) == len(records) // 10  # blocks
    assert int(control[13:21]) == 6  # entries and addenda
    assert int(control[21:31]) == 6 * 2100002  # six entries to 021000021: their 8 digits
    assert int(control[43:55]) == 2 * (1_000 + 2_000 + 3_000)  # credits
    assert parsed.batches[0].entries[0].trace_number == "123456780000000"


@pytest.mark.parametrize(
    ("damage", "complaint"),
    [
        (lambda lines: [lines[0][:-1], *lines[1:]], "characters"),
        (lambda lines: lines[:-1], "multiple of 10"),
        (
            lambda lines: [*lines[:2], lines[2][:29] + "0000009999" + lines[2][39:], *lines[3:]],
            "total",
        ),
        (lambda lines: [*lines[:2], lines[2][:3] + "99999999" + lines[2][11:], *lines[3:]], "hash"),
        (
            lambda lines: [
                line if not line.startswith("8") else line[:4] + "000009" + line[10:]
                for line in lines
            ],
            "count",
        ),
        (lambda lines: [lines[0].replace("094", "095", 1), *lines[1:]], "record size"),
    ],
)
def test_a_broken_file_is_refused_naming_what_is_wrong(damage, complaint):
    lines = sample().splitlines()
    with pytest.raises(nacha.NachaError, match=complaint):
        nacha.parse("\n".join(damage(lines)) + "\n")


def test_duplicate_trace_numbers_are_refused():
    text = sample(1).replace("123456780000100", "123456780000000")
    with pytest.raises(nacha.NachaError):
        nacha.parse(text)


def test_returns_and_changes_read_back_from_the_banks_file():
    original = sample()
    answer_file = bank.nacha_answers(
        original,
        [
            bank.NachaAnswer("123456780000001", "R01"),
            bank.NachaAnswer("123456780000101", "C01", corrected_data="987654321"),
        ],
        now=datetime(2026, 11, 20, 9, 0, tzinfo=UTC),
    )
    parsed = nacha.parse(answer_file)  # as strict for the bank's file as for ours
    answers = {answer.original_trace: answer for answer in nacha.answers(parsed)}
    assert answers["123456780000001"].kind == "RETURN"
    assert answers["123456780000001"].code == "R01"
    assert answers["123456780000001"].description == "INSUFFICIENT FUNDS"
    assert answers["123456780000101"].kind == "CHANGE"
    assert answers["123456780000101"].corrected_data == "987654321"
    assert parsed.batches[0].entries[0].transaction_code == "21"


def test_only_rails_paid_through_files_can_be_named_in_the_setting():
    from pydantic import ValidationError

    from corridor.config import Settings

    assert Settings(bank_file_rails="ach, SEPA").file_rails == {"ACH", "SEPA"}
    with pytest.raises(ValidationError, match="WIRE"):
        Settings(bank_file_rails="ACH,WIRE")
