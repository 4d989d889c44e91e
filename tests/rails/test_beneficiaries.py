"""What each rail checks in a beneficiary before the engine submits a payment to it."""

from __future__ import annotations

import pytest

from corridor.rails.base import RailName
from corridor.rails.beneficiaries import validate_beneficiary
from tests.rails.support import BENEFICIARIES

US_RAILS = [RailName.ACH, RailName.ACH_SAME_DAY, RailName.WIRE, RailName.RTP]
EVM_RAILS = [RailName.ETHEREUM, RailName.BASE, RailName.POLYGON]


@pytest.mark.parametrize("rail", list(RailName))
def test_a_complete_beneficiary_passes(rail: RailName) -> None:
    assert validate_beneficiary(rail, BENEFICIARIES[rail]) == []


@pytest.mark.parametrize("rail", [rail for rail in RailName if rail is not RailName.BOOK])
def test_an_empty_beneficiary_fails_on_every_outside_rail(rail: RailName) -> None:
    assert validate_beneficiary(rail, {})


@pytest.mark.parametrize("rail", US_RAILS)
def test_us_rails_need_a_routing_and_account_number(rail: RailName) -> None:
    assert validate_beneficiary(rail, {"name": "Ada"}) == [
        "routing: required",
        "account: required",
    ]
    assert validate_beneficiary(
        rail, {"name": "Ada", "routing": "021000022", "account": "12ab"}
    ) == ["routing: not a valid ABA routing number", "account: 4 to 17 digits"]
    assert validate_beneficiary(rail, {"routing": "021000021", "account": "1234"}) == [
        "name: required"
    ]


@pytest.mark.parametrize("rail", [RailName.SEPA, RailName.SEPA_INSTANT])
def test_sepa_needs_a_valid_iban_in_the_sepa_zone(rail: RailName) -> None:
    assert validate_beneficiary(rail, {"name": "Ada"}) == ["iban: required"]
    assert validate_beneficiary(rail, {"name": "Ada", "iban": "DE89370400440532013001"}) == [
        "iban: not a valid IBAN"
    ]
    assert validate_beneficiary(rail, {"name": "Ada", "iban": "TR330006100519786457841326"}) == [
        "iban: TR is not in the SEPA zone"
    ]


def test_swift_needs_a_bic_and_an_account_or_iban() -> None:
    assert validate_beneficiary(RailName.SWIFT, {"name": "Ada"}) == [
        "bic: required",
        "account: required (or iban)",
    ]
    assert (
        validate_beneficiary(
            RailName.SWIFT, {"name": "Ada", "bic": "BNMXMXMM", "account": "012180001234567897"}
        )
        == []
    )
    assert validate_beneficiary(
        RailName.SWIFT, {"name": "Ada", "bic": "NOT A BIC", "account": "1234"}
    ) == ["bic: not a valid BIC"]
    assert validate_beneficiary(
        RailName.SWIFT, {"name": "Ada", "bic": "BARCGB22", "iban": "GB00BUKB20201555555555"}
    ) == ["iban: not a valid IBAN"]


@pytest.mark.parametrize("rail", EVM_RAILS)
def test_evm_chains_need_an_evm_address(rail: RailName) -> None:
    (problem,) = validate_beneficiary(rail, {"address": "0x" + "ab" * 19})
    assert problem.startswith("address: ")
    assert validate_beneficiary(rail, {"address": BENEFICIARIES[RailName.TRON]["address"]})


@pytest.mark.parametrize("rail", EVM_RAILS)
def test_evm_chains_check_the_eip55_checksum_of_mixed_case_addresses(rail: RailName) -> None:
    checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"  # the EIP-55 example
    assert validate_beneficiary(rail, {"address": checksummed}) == []
    assert validate_beneficiary(rail, {"address": checksummed.lower()}) == []
    wrong_case = checksummed[:4] + checksummed[4].swapcase() + checksummed[5:]
    assert validate_beneficiary(rail, {"address": wrong_case})


def test_solana_needs_a_32_byte_base58_address() -> None:
    assert validate_beneficiary(RailName.SOLANA, {"address": "0x" + "ab" * 20})
    assert validate_beneficiary(RailName.SOLANA, {"address": "abc"})


def test_tron_needs_a_checksummed_t_address() -> None:
    good = BENEFICIARIES[RailName.TRON]["address"]
    broken = good[:-1] + ("u" if good[-1] != "u" else "v")
    assert validate_beneficiary(RailName.TRON, {"address": broken})
    assert validate_beneficiary(RailName.TRON, {"address": "0x" + "ab" * 20})


def test_non_text_values_count_as_missing() -> None:
    assert validate_beneficiary(RailName.ETHEREUM, {"address": 12}) == ["address: required"]
