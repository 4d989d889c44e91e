"""What each rail needs to know about a beneficiary, and what is wrong with one.

Problems are strings "<field>: <what is wrong>", with the contract's beneficiary keys
(`name`, `account`, `iban`, `bic`, `routing`, `address`).

Chain addresses are checked by the parties package's address rules (EIP-55 checksums for
EVM chains, 32-byte base58 keys for Solana, base58check "T…" addresses for Tron), so a
wallet the parties API accepted is never refused here, and the other way round.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from schwifty import BIC, IBAN
from schwifty.exceptions import SchwiftyException
from stdnum.us import rtn

from corridor.parties.addresses import Chain, address_problem
from corridor.rails.base import CHAIN_RAILS, RailName

beneficiary_name_chars_max = 140  # ISO 20022 Name (Max140Text)
us_account_number_digits_min = 4
us_account_number_digits_max = 17  # NACHA's DFI account number field
swift_account_chars_max = 34  # SWIFT field 59 account line

_US_ACCOUNT = re.compile(
    rf"^[0-9]{{{us_account_number_digits_min},{us_account_number_digits_max}}}$"
)
_SWIFT_ACCOUNT = re.compile(rf"^[A-Za-z0-9/\-?:().,'+ ]{{1,{swift_account_chars_max}}}$")

Beneficiary = Mapping[str, object]


def _text(beneficiary: Beneficiary, field: str) -> str:
    value = beneficiary.get(field)
    return value.strip() if isinstance(value, str) else ""


def _name(beneficiary: Beneficiary) -> list[str]:
    name = _text(beneficiary, "name")
    if not name:
        return ["name: required"]
    if len(name) > beneficiary_name_chars_max:
        return [f"name: longer than {beneficiary_name_chars_max} characters"]
    return []


def _us_bank_account(beneficiary: Beneficiary) -> list[str]:
    found = _name(beneficiary)
    routing = _text(beneficiary, "routing")
    account = _text(beneficiary, "account")
    if not routing:
        found.append("routing: required")
    elif not rtn.is_valid(routing):
        found.append("routing: not a valid ABA routing number")
    if not account:
        found.append("account: required")
    elif not _US_ACCOUNT.match(account):
        found.append(
            f"account: {us_account_number_digits_min} to {us_account_number_digits_max} digits"
        )
    return found


def _iban(beneficiary: Beneficiary) -> tuple[IBAN | None, list[str]]:
    text = _text(beneficiary, "iban")
    if not text:
        return None, ["iban: required"]
    try:
        return IBAN(text), []
    except SchwiftyException:
        return None, ["iban: not a valid IBAN"]


def _sepa_account(beneficiary: Beneficiary) -> list[str]:
    iban, found = _iban(beneficiary)
    if iban is not None and not iban.in_sepa_zone:
        found.append(f"iban: {iban.country_code} is not in the SEPA zone")
    return _name(beneficiary) + found


def _swift_account(beneficiary: Beneficiary) -> list[str]:
    found = _name(beneficiary)
    bic = _text(beneficiary, "bic")
    if not bic:
        found.append("bic: required")
    else:
        try:
            BIC(bic)
        except SchwiftyException:
            found.append("bic: not a valid BIC")
    if _text(beneficiary, "iban"):
        found.extend(_iban(beneficiary)[1])
    elif not _text(beneficiary, "account"):
        found.append("account: required (or iban)")
    elif not _SWIFT_ACCOUNT.match(_text(beneficiary, "account")):
        found.append(f"account: up to {swift_account_chars_max} SWIFT characters")
    return found


def _chain_address(rail: RailName) -> Callable[[Beneficiary], list[str]]:
    chain = Chain(rail.value)

    def check(beneficiary: Beneficiary) -> list[str]:
        address = _text(beneficiary, "address")
        if not address:
            return ["address: required"]
        problem = address_problem(chain, address)
        return [] if problem is None else [f"address: {problem}"]

    return check


_CHECKS: dict[RailName, Callable[[Beneficiary], list[str]]] = {
    RailName.ACH: _us_bank_account,
    RailName.ACH_SAME_DAY: _us_bank_account,
    RailName.WIRE: _us_bank_account,
    RailName.RTP: _us_bank_account,
    RailName.SWIFT: _swift_account,
    RailName.SEPA: _sepa_account,
    RailName.SEPA_INSTANT: _sepa_account,
    # Between Corridor balances: the engine resolves the balance account itself.
    RailName.BOOK: lambda beneficiary: [],
    **{rail: _chain_address(rail) for rail in CHAIN_RAILS},
}
assert set(_CHECKS) == set(RailName), "every rail checks its beneficiaries"


def validate_beneficiary(rail: RailName | str, beneficiary: Beneficiary) -> list[str]:
    """What is missing or malformed in a beneficiary for a rail; empty when it is fine."""
    return _CHECKS[RailName(rail)](beneficiary)
