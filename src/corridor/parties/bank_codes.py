"""Pure bank-code rules: ABA routing numbers, IBANs, BICs and sort codes with their real
check digits, the shape of an external bank account, and the rails that can pay it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

import schwifty
from schwifty.exceptions import SchwiftyException
from stdnum.exceptions import ValidationError as StdnumValidationError
from stdnum.us import rtn

US_RAILS = ("ACH", "ACH_SAME_DAY", "WIRE", "RTP")
SEPA_RAILS = ("SEPA", "SEPA_INSTANT")
SWIFT = "SWIFT"

# ABA prefixes in use: Federal Reserve districts (01–12), thrifts (21–32), electronic
# (61–72) and traveller's cheques (80); 00 is the U.S. government's.
_ROUTING_PREFIXES = frozenset(
    [f"{n:02d}" for n in range(0, 13)]
    + [f"{n:02d}" for n in range(21, 33)]
    + [f"{n:02d}" for n in range(61, 73)]
    + ["80"]
)
_IBAN_TEXT = re.compile(r"^[A-Za-z0-9 ]{5,42}$")
_BIC_TEXT = re.compile(r"^[A-Za-z0-9]{8}([A-Za-z0-9]{3})?$")
_SORT_CODE_TEXT = re.compile(r"^[0-9]{2}-?[0-9]{2}-?[0-9]{2}$")
_US_ACCOUNT_NUMBER = re.compile(r"^[0-9]{4,17}$")
_ACCOUNT_NUMBER = re.compile(r"^[A-Z0-9]{1,34}$")
_SCHWIFTY_REASONS = {
    "InvalidChecksumDigits": "invalid check digits",
    "InvalidLength": "wrong length for its country",
    "InvalidCountryCode": "unknown country code",
    "InvalidStructure": "does not match its country's format",
    "InvalidBBANChecksum": "invalid national check digits",
    "InvalidBankCode": "invalid bank code",
    "InvalidBranchCode": "invalid branch code",
    "InvalidAccountCode": "invalid account code",
}


class BankCodeKind(StrEnum):
    ROUTING_NUMBER = "routingNumber"
    IBAN = "iban"
    BIC = "bic"
    SORT_CODE = "sortCode"


@dataclass(frozen=True, slots=True)
class BankCode:
    """The verdict on one bank code: normalised form, country and bank when known."""

    valid: bool
    normalized: str | None = None
    country: str | None = None
    bank_name: str | None = None
    reason: str | None = None
    # An IBAN of the SEPA zone (schwifty's registry: the same the SEPA rails check).
    in_sepa_zone: bool = False


def _invalid(reason: str) -> BankCode:
    return BankCode(valid=False, reason=reason)


def _schwifty_reason(error: SchwiftyException) -> str:
    return _SCHWIFTY_REASONS.get(type(error).__name__, str(error) or "invalid")


def check_routing_number(text: str) -> BankCode:
    """A US ABA routing number: nine digits, a prefix in use and the 3-7-1 check digit."""
    compact = text.replace(" ", "").replace("-", "")
    if not compact.isascii() or not compact.isdigit() or len(compact) != 9:
        return _invalid("must be 9 digits")
    if compact[:2] not in _ROUTING_PREFIXES or compact == "0" * 9:
        return _invalid("not a routing number prefix in use")
    try:
        rtn.validate(compact)
    except StdnumValidationError:
        return _invalid("invalid check digit")
    return BankCode(valid=True, normalized=compact, country="US")


def check_iban(text: str) -> BankCode:
    """An IBAN: country format, length and the mod-97 check digits."""
    if not _IBAN_TEXT.match(text):
        return _invalid("must be letters and digits, up to 34 of them")
    try:
        iban = schwifty.IBAN(text)
    except (SchwiftyException, ValueError) as error:
        reason = _schwifty_reason(error) if isinstance(error, SchwiftyException) else "invalid"
        return _invalid(reason)
    return BankCode(
        valid=True,
        normalized=iban.compact,
        country=iban.country_code,
        bank_name=_iban_bank(iban),
        in_sepa_zone=iban.in_sepa_zone,
    )


def _iban_bank(iban: schwifty.IBAN) -> str | None:
    try:
        return iban.bank_name
    except (SchwiftyException, ValueError):
        return None


def check_bic(text: str) -> BankCode:
    """A BIC (SWIFT code): 8 or 11 characters with a real country code."""
    if not _BIC_TEXT.match(text):
        return _invalid("must be 8 or 11 letters and digits")
    try:
        bic = schwifty.BIC(text.upper())
    except (SchwiftyException, ValueError) as error:
        reason = _schwifty_reason(error) if isinstance(error, SchwiftyException) else "invalid"
        return _invalid(reason)
    names = bic.bank_names
    return BankCode(
        valid=True,
        normalized=bic.compact,
        country=bic.country_code,
        bank_name=names[0] if names else None,
    )


def check_sort_code(text: str) -> BankCode:
    """A UK sort code: six digits (its modulus check needs the account number too)."""
    if not _SORT_CODE_TEXT.match(text):
        return _invalid("must be 6 digits, e.g. 40-47-84")
    return BankCode(valid=True, normalized=text.replace("-", ""), country="GB")


_CHECKS = {
    BankCodeKind.ROUTING_NUMBER: check_routing_number,
    BankCodeKind.IBAN: check_iban,
    BankCodeKind.BIC: check_bic,
    BankCodeKind.SORT_CODE: check_sort_code,
}


def validate_bank_code(kind: BankCodeKind, text: str, *, country: str) -> BankCode:
    """The answer of validate-bank-code: the code's own checks, then whether it fits
    `country` (a BIC's country is its bank's, which may differ, so it is not compared)."""
    verdict = _CHECKS[kind](text)
    if not verdict.valid or kind is BankCodeKind.BIC or verdict.country == country:
        return verdict
    return _invalid(f"{_describe(kind)} of {verdict.country}, not {country}")


def _describe(kind: BankCodeKind) -> str:
    return {
        BankCodeKind.ROUTING_NUMBER: "a routing number is",
        BankCodeKind.IBAN: "this IBAN is",
        BankCodeKind.SORT_CODE: "a sort code is",
    }[kind]


# --- External bank accounts ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AccountDetails:
    """The numbers of an external account as a client sent them."""

    country: str
    currency: str
    account_number: str | None = None
    routing_number: str | None = None
    iban: str | None = None
    bic: str | None = None
    sort_code: str | None = None


@dataclass(slots=True)
class CheckedAccount:
    """The numbers normalised, the bank's name where a code tells it, the rails, and the
    problems found (field, message); the account is usable only when there are none."""

    account_number: str | None = None
    routing_number: str | None = None
    iban: str | None = None
    bic: str | None = None
    sort_code: str | None = None
    bank_name: str | None = None
    supported_rails: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)

    def refuse(self, field_name: str, message: str) -> None:
        self.problems.append((field_name, message))


def check_account(details: AccountDetails) -> CheckedAccount:
    """Check an account's numbers together and choose its rails:
    a US account with a routing number → ACH, ACH_SAME_DAY, WIRE, RTP; an IBAN of a SEPA
    country in EUR → SEPA, SEPA_INSTANT (and SWIFT with a BIC); any other IBAN, or an
    account number with a BIC → SWIFT, which needs the BIC."""
    checked = CheckedAccount()
    _check_bic_and_sort_code(details, checked)
    if details.routing_number is not None:
        _check_us_account(details, checked)
    elif details.iban is not None:
        _check_iban_account(details, checked)
    else:
        _check_swift_account(details, checked)
    if checked.problems:
        checked.supported_rails = []
    return checked


def _check_bic_and_sort_code(details: AccountDetails, checked: CheckedAccount) -> None:
    if details.bic is not None:
        bic = check_bic(details.bic)
        if bic.valid:
            checked.bic, checked.bank_name = bic.normalized, bic.bank_name
        else:
            checked.refuse("bic", bic.reason or "invalid")
    if details.sort_code is not None:
        sort_code = check_sort_code(details.sort_code)
        if details.country != "GB":
            checked.refuse("sortCode", "sort codes are for GB accounts only")
        elif not sort_code.valid:
            checked.refuse("sortCode", sort_code.reason or "invalid")
        else:
            checked.sort_code = sort_code.normalized


def _check_us_account(details: AccountDetails, checked: CheckedAccount) -> None:
    assert details.routing_number is not None
    routing = check_routing_number(details.routing_number)
    if not routing.valid:
        checked.refuse("routingNumber", routing.reason or "invalid")
    checked.routing_number = routing.normalized
    if details.iban is not None:
        checked.refuse("iban", "send either routingNumber or iban, not both")
    if details.country != "US":
        checked.refuse("country", "must be US: routing numbers are US ABA numbers")
    if details.currency != "USD":
        checked.refuse("currency", "must be USD for an account with a US routing number")
    if details.account_number is None:
        checked.refuse("accountNumber", "required with routingNumber")
    elif not _US_ACCOUNT_NUMBER.match(details.account_number):
        checked.refuse("accountNumber", "must be 4 to 17 digits")
    else:
        checked.account_number = details.account_number
    checked.supported_rails = list(US_RAILS)


def _check_iban_account(details: AccountDetails, checked: CheckedAccount) -> None:
    assert details.iban is not None
    iban = check_iban(details.iban)
    if details.account_number is not None:
        checked.refuse("accountNumber", "not used with iban: the IBAN holds the account number")
    if not iban.valid:
        checked.refuse("iban", iban.reason or "invalid")
        return
    checked.iban = iban.normalized
    checked.bank_name = iban.bank_name or checked.bank_name
    if iban.country != details.country:
        checked.refuse("country", f"must be {iban.country}, the IBAN's country")
    if iban.in_sepa_zone and details.currency == "EUR":
        checked.supported_rails = [*SEPA_RAILS, *([SWIFT] if details.bic else [])]
    elif details.bic is None:
        checked.refuse("bic", "required: this account can only be paid over SWIFT")
    else:
        checked.supported_rails = [SWIFT]


def _check_swift_account(details: AccountDetails, checked: CheckedAccount) -> None:
    if details.account_number is None:
        checked.refuse(
            "accountNumber",
            "send accountNumber with routingNumber (US), or iban, or accountNumber with bic",
        )
        return
    if details.country == "US":
        checked.refuse("routingNumber", "required for a US account")
    elif details.bic is None:
        checked.refuse("bic", "required: this account can only be paid over SWIFT")
    number = details.account_number.replace(" ", "").upper()
    if not _ACCOUNT_NUMBER.match(number):
        checked.refuse("accountNumber", "must be 1 to 34 letters and digits")
    else:
        checked.account_number = number
    checked.supported_rails = [SWIFT]


def last4(value: str | None) -> str | None:
    return None if value is None else value[-4:]
