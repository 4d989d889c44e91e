"""The references each sandbox rail fills, in the formats of the real networks."""

from __future__ import annotations

import re
import uuid

import base58
from stdnum.us import rtn

from corridor.rails import ach
from corridor.rails.base import RailName, Submission
from corridor.rails.registry import adapter_for
from tests.rails.support import NEW_YORK, instruction, new_york, utc

IMAD = re.compile(r"^(?P<cycle>\d{8})(?P<source>[A-Z0-9]{8})(?P<sequence>\d{6})$")
OMAD = re.compile(
    r"^(?P<cycle>\d{8})(?P<destination>[A-Z0-9]{8})(?P<sequence>\d{6})"
    r"(?P<date>\d{4})(?P<time>\d{4})(?P<frb>[A-Z0-9]{4})$"
)
EVM_HASH = re.compile(r"^0x[0-9a-f]{64}$")
TRON_HASH = re.compile(r"^[0-9a-f]{64}$")
ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


async def submit(rail: RailName, **kwargs) -> Submission:
    now = kwargs.pop("now", utc(2026, 3, 17, 14))
    return await adapter_for(rail).submit(instruction(rail, **kwargs), now=now)


async def test_swift_uetr_is_a_uuid4() -> None:
    submission = await submit(RailName.SWIFT)
    uetr = submission.references["uetr"]
    parsed = uuid.UUID(uetr)
    assert parsed.version == 4
    assert parsed.variant == uuid.RFC_4122
    assert str(parsed) == uetr
    assert submission.rail_reference == uetr


async def test_swift_uetr_differs_between_legs() -> None:
    first = await submit(RailName.SWIFT, leg_id="tleg_01jq0000000000000000000001")
    second = await submit(RailName.SWIFT, leg_id="tleg_01jq0000000000000000000002")
    assert first.references["uetr"] != second.references["uetr"]


async def test_swift_routing_goes_sender_correspondent_receiver() -> None:
    submission = await submit(RailName.SWIFT)
    routing = submission.references["swiftRouting"]
    assert set(routing) == {"source", "senderBic", "receiverBic", "checkedAt", "steps"}
    assert ISO_Z.match(routing["checkedAt"])
    steps = routing["steps"]
    assert [step["label"] for step in steps] == [
        "Sending bank",
        "Correspondent bank",
        "Beneficiary bank",
    ]
    for step in steps:
        assert set(step) == {"label", "bic", "bankName", "status"}
        assert all(isinstance(value, str) and value for value in step.values())
    assert steps[0]["bic"] == routing["senderBic"]
    assert steps[-1]["bic"] == routing["receiverBic"] == "BARCGB22"
    assert steps[1]["bic"][4:6] == "GB"  # a GBP payment clears through a UK correspondent


async def test_swift_routing_uses_the_correspondent_the_payer_named() -> None:
    submission = await submit(
        RailName.SWIFT,
        references={
            "correspondentBankSwiftCode": "DEUTDEFF",
            "correspondentBankName": "Deutsche Bank AG",
        },
    )
    correspondent = submission.references["swiftRouting"]["steps"][1]
    assert (correspondent["bic"], correspondent["bankName"]) == ("DEUTDEFF", "Deutsche Bank AG")


async def test_wire_imad_and_omad_follow_the_fedwire_formats() -> None:
    submission = await submit(RailName.WIRE, now=new_york(2026, 3, 17, 10))
    imad = IMAD.match(submission.references["imad"])
    omad = OMAD.match(submission.references["omad"])
    assert imad and omad
    assert imad["cycle"] == omad["cycle"] == "20260317"
    settled = submission.schedule.estimated_settlement_at.astimezone(NEW_YORK)
    assert (omad["date"], omad["time"]) == (settled.strftime("%m%d"), settled.strftime("%H%M"))
    assert (omad["date"], omad["time"]) == ("0317", "1030")
    assert submission.rail_reference == submission.references["imad"]


async def test_wire_cycle_date_is_the_business_day_it_settles_on() -> None:
    submission = await submit(RailName.WIRE, now=new_york(2026, 11, 25, 19))  # before Thanksgiving
    assert submission.references["imad"].startswith("20261127")
    assert submission.references["omad"].startswith("20261127")


async def test_ach_trace_number_is_the_odfi_prefix_and_a_sequence() -> None:
    for rail in (RailName.ACH, RailName.ACH_SAME_DAY):
        submission = await submit(rail)
        trace = submission.references["achTraceNumber"]
        assert re.fullmatch(r"\d{15}", trace)
        assert trace[:8] == ach.sandbox_odfi_routing_number[:8]
        assert submission.rail_reference == trace
    assert rtn.is_valid(ach.sandbox_odfi_routing_number)


async def test_evm_chains_hash_is_0x_and_64_hex_digits() -> None:
    hashes = set()
    for rail in (RailName.ETHEREUM, RailName.BASE, RailName.POLYGON):
        submission = await submit(rail)
        assert EVM_HASH.match(submission.references["txHash"])
        assert submission.rail_reference == submission.references["txHash"]
        hashes.add(submission.references["txHash"])
    assert len(hashes) == 3  # one leg id never gives the same hash on two chains


async def test_solana_hash_is_a_base58_signature_of_64_bytes() -> None:
    submission = await submit(RailName.SOLANA)
    assert len(base58.b58decode(submission.references["txHash"])) == 64


async def test_tron_hash_is_64_hex_digits_without_0x() -> None:
    submission = await submit(RailName.TRON)
    assert TRON_HASH.match(submission.references["txHash"])


async def test_a_developer_fee_on_a_chain_gets_its_own_fee_hash() -> None:
    without_fee = await submit(RailName.ETHEREUM)
    with_fee = await submit(RailName.ETHEREUM, references={"developerFee": 1_500_000})
    assert "feeTxHash" not in without_fee.references
    assert EVM_HASH.match(with_fee.references["feeTxHash"])
    assert with_fee.references["feeTxHash"] != with_fee.references["txHash"]
    assert with_fee.references["txHash"] == without_fee.references["txHash"]
    solana = await submit(RailName.SOLANA, references={"developerFee": 10})
    assert len(base58.b58decode(solana.references["feeTxHash"])) == 64


async def test_a_zero_developer_fee_sends_no_fee_transfer() -> None:
    submission = await submit(RailName.TRON, references={"developerFee": 0})
    assert "feeTxHash" not in submission.references


async def test_resubmitting_a_leg_gives_the_same_references() -> None:
    for rail in RailName:
        first = await submit(rail)
        again = await submit(rail)
        assert first == again, rail


async def test_rails_without_a_spec_reference_still_name_the_payment() -> None:
    for rail in (RailName.RTP, RailName.SEPA, RailName.SEPA_INSTANT, RailName.BOOK):
        submission = await submit(rail)
        assert submission.references == {}
        assert 0 < len(submission.rail_reference) <= 35  # ISO 20022 Max35Text
