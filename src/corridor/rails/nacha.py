"""NACHA files (pure): write an ACH origination file, read one back, and read the return
and notification-of-change (NOC) entries a bank sends.

The layout is the NACHA Operating Rules' (Appendix Three): 94-character records, a file
header (1), batches (5 … 8) of entry details (6) with their addenda (7), a file control
(9), and the file padded with all-9 records to a multiple of ten records (blocking factor
10). Entry hash: the sum of the entries' 8-digit receiving DFI identifications, its
rightmost ten digits. Amounts are cents, zero-padded.

`parse` is strict: it refuses a record of the wrong length or type, counts, totals and
hashes that do not add up, and a file not blocked to ten; the tests check every file
Corridor writes with it, and every file a bank sends is read with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum

record_chars = 94
blocking_factor = 10
entry_hash_digits = 10
amount_digits = 10
total_digits = 12
trace_number_digits = 15


class NachaError(ValueError):
    """A file that is not a valid NACHA file; the message names the record and field."""


class SecCode(StrEnum):
    PPD = "PPD"  # to or from a consumer's account
    CCD = "CCD"  # to or from a business's account
    COR = "COR"  # a notification of change (NOC) sent back by the receiving bank


# Transaction codes (NACHA Appendix Three): account type and direction.
CREDIT_CODES = {"CHECKING": "22", "SAVINGS": "32"}
DEBIT_CODES = {"CHECKING": "27", "SAVINGS": "37"}
# Codes of entries a bank sends back: a return or NOC of a checking/savings credit or debit.
RETURN_CODES_OF = {"22": "21", "27": "26", "32": "31", "37": "36"}
CREDIT_TRANSACTION_CODES = frozenset({"21", "22", "23", "24", "31", "32", "33", "34"})
DEBIT_TRANSACTION_CODES = frozenset({"26", "27", "28", "29", "36", "37", "38", "39"})

# Return reason codes (NACHA), the common ones named; any R## is read.
RETURN_REASONS = {
    "R01": "Insufficient funds",
    "R02": "Account closed",
    "R03": "No account / unable to locate account",
    "R04": "Invalid account number structure",
    "R05": "Unauthorized debit to consumer account using corporate SEC code",
    "R06": "Returned per ODFI's request",
    "R07": "Authorization revoked by customer",
    "R08": "Payment stopped",
    "R09": "Uncollected funds",
    "R10": "Customer advises originator is not known or not authorized",
    "R11": "Customer advises entry not in accordance with the terms of the authorization",
    "R12": "Account sold to another DFI",
    "R13": "Invalid ACH routing number",
    "R14": "Representative payee deceased",
    "R15": "Beneficiary or account holder deceased",
    "R16": "Account frozen / entry returned per OFAC instruction",
    "R17": "File record edit criteria / entry with invalid account number",
    "R20": "Non-transaction account",
    "R23": "Credit entry refused by receiver",
    "R24": "Duplicate entry",
    "R29": "Corporate customer advises not authorized",
}
CHANGE_REASONS = {
    "C01": "Incorrect DFI account number",
    "C02": "Incorrect routing number",
    "C03": "Incorrect routing number and incorrect DFI account number",
    "C05": "Incorrect transaction code",
    "C06": "Incorrect DFI account number and incorrect transaction code",
    "C07": "Incorrect routing number, DFI account number and transaction code",
    "C09": "Incorrect individual identification number",
}


@dataclass(frozen=True)
class Entry:
    """One entry detail record (type 6) and its addenda."""

    transaction_code: str
    routing_number: str  # 9 digits: the 8-digit DFI identification and its check digit
    account_number: str
    amount_cents: int
    individual_id: str
    individual_name: str
    trace_number: str
    discretionary_data: str = ""
    addenda: tuple[str, ...] = ()  # whole type-7 records, 94 characters each

    @property
    def is_credit(self) -> bool:
        return self.transaction_code in CREDIT_TRANSACTION_CODES


@dataclass(frozen=True)
class Batch:
    sec_code: str
    company_name: str
    company_id: str
    entry_description: str
    effective_date: date
    odfi_identification: str  # 8 digits
    entries: tuple[Entry, ...]
    company_discretionary_data: str = ""
    descriptive_date: str = ""

    @property
    def service_class_code(self) -> str:
        credits = any(entry.is_credit for entry in self.entries)
        debits = any(not entry.is_credit for entry in self.entries)
        return "200" if credits and debits else ("220" if credits or not debits else "225")


@dataclass(frozen=True)
class NachaFile:
    immediate_destination: str  # the ODFI's (or ACH operator's) routing number, 9 digits
    immediate_origin: str  # 10 characters: usually the originator's company id
    destination_name: str
    origin_name: str
    created_at: datetime
    file_id_modifier: str = "A"
    reference_code: str = ""
    batches: tuple[Batch, ...] = field(default_factory=tuple)


# --- Writing --------------------------------------------------------------------------------

_ALLOWED = frozenset(" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`{|}~")


def _text(value: str, width: int) -> str:
    """Upper case, printable ASCII only (NACHA's character set), cut or space-padded."""
    cleaned = "".join(char if char in _ALLOWED else " " for char in value.upper())
    return cleaned[:width].ljust(width)


def _number(value: int, width: int) -> str:
    assert 0 <= value < 10**width, (value, width)
    return str(value).zfill(width)


def check_digit(routing8: str) -> str:
    """The ABA check digit of an 8-digit DFI identification."""
    weights = (3, 7, 1, 3, 7, 1, 3, 7)
    total = sum(int(digit) * weight for digit, weight in zip(routing8, weights, strict=True))
    return str((10 - total % 10) % 10)


def entry_hash(routing_numbers: Iterable[str]) -> int:
    return sum(int(number[:8]) for number in routing_numbers) % 10**entry_hash_digits


def _file_header(file: NachaFile) -> str:
    record = (
        "1"
        + "01"
        + " "
        + _text(file.immediate_destination, 9)
        + _text(file.immediate_origin, 10)
        + file.created_at.strftime("%y%m%d%H%M")
        + _text(file.file_id_modifier, 1)
        + "094"
        + "10"
        + "1"
        + _text(file.destination_name, 23)
        + _text(file.origin_name, 23)
        + _text(file.reference_code, 8)
    )
    return record


def _batch_header(batch: Batch, number: int) -> str:
    return (
        "5"
        + batch.service_class_code
        + _text(batch.company_name, 16)
        + _text(batch.company_discretionary_data, 20)
        + _text(batch.company_id, 10)
        + _text(batch.sec_code, 3)
        + _text(batch.entry_description, 10)
        + _text(batch.descriptive_date, 6)
        + batch.effective_date.strftime("%y%m%d")
        + "   "  # settlement date: the ACH operator fills it in
        + "1"
        + _text(batch.odfi_identification, 8)
        + _number(number, 7)
    )


def _entry_record(entry: Entry) -> str:
    return (
        "6"
        + entry.transaction_code
        + entry.routing_number[:8]
        + entry.routing_number[8]
        + _text(entry.account_number, 17)
        + _number(entry.amount_cents, amount_digits)
        + _text(entry.individual_id, 15)
        + _text(entry.individual_name, 22)
        + _text(entry.discretionary_data, 2)
        + ("1" if entry.addenda else "0")
        + _text(entry.trace_number, 15)
    )


def _totals(entries: Sequence[Entry]) -> tuple[int, int]:
    debits = sum(entry.amount_cents for entry in entries if not entry.is_credit)
    credits = sum(entry.amount_cents for entry in entries if entry.is_credit)
    return debits, credits


def _batch_control(batch: Batch, number: int) -> str:
    debits, credits = _totals(batch.entries)
    count = sum(1 + len(entry.addenda) for entry in batch.entries)
    return (
        "8"
        + batch.service_class_code
        + _number(count, 6)
        + _number(entry_hash(entry.routing_number for entry in batch.entries), 10)
        + _number(debits, total_digits)
        + _number(credits, total_digits)
        + _text(batch.company_id, 10)
        + " " * 19
        + " " * 6
        + _text(batch.odfi_identification, 8)
        + _number(number, 7)
    )


def write(file: NachaFile) -> str:
    """The file's text: records of 94 characters, each ended by a newline."""
    records = [_file_header(file)]
    entries: list[Entry] = []
    for number, batch in enumerate(file.batches, start=1):
        assert batch.entries, "a batch has at least one entry"
        records.append(_batch_header(batch, number))
        for entry in batch.entries:
            records.append(_entry_record(entry))
            records.extend(entry.addenda)
        records.append(_batch_control(batch, number))
        entries.extend(batch.entries)
    debits, credits = _totals(entries)
    count = sum(1 + len(entry.addenda) for entry in entries)
    filled = len(records) + 1
    blocks = -(-filled // blocking_factor)
    records.append(
        "9"
        + _number(len(file.batches), 6)
        + _number(blocks, 6)
        + _number(count, 8)
        + _number(entry_hash(entry.routing_number for entry in entries), 10)
        + _number(debits, total_digits)
        + _number(credits, total_digits)
        + " " * 39
    )
    records.extend(["9" * record_chars] * (blocks * blocking_factor - filled))
    for record in records:
        assert len(record) == record_chars, (len(record), record)
    return "\n".join(records) + "\n"


def return_addenda(
    *, reason_code: str, original_trace: str, original_routing8: str, trace_number: str
) -> str:
    """A return addenda (type 7, code 99), as a receiving bank writes it."""
    return (
        "799"
        + _text(reason_code, 3)
        + _text(original_trace, 15)
        + " " * 6
        + _text(original_routing8, 8)
        + _text(RETURN_REASONS.get(reason_code, ""), 44)
        + _text(trace_number, 15)
    )


def change_addenda(
    *,
    change_code: str,
    original_trace: str,
    original_routing8: str,
    corrected_data: str,
    trace_number: str,
) -> str:
    """A notification-of-change addenda (type 7, code 98)."""
    return (
        "798"
        + _text(change_code, 3)
        + _text(original_trace, 15)
        + " " * 6
        + _text(original_routing8, 8)
        + _text(corrected_data, 29)
        + " " * 15
        + _text(trace_number, 15)
    )


# --- Reading --------------------------------------------------------------------------------


def _digits(record: str, start: int, end: int, what: str, line: int) -> int:
    """Positions are NACHA's, 1-based and inclusive."""
    text = record[start - 1 : end]
    if not text.isdigit():
        raise NachaError(
            f"record {line}: {what} (positions {start}-{end}) is not numeric: {text!r}"
        )
    return int(text)


def _field(record: str, start: int, end: int) -> str:
    return record[start - 1 : end]


def _records(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        if len(line) != record_chars:
            raise NachaError(f"record {number} has {len(line)} characters, not {record_chars}")
    if not lines:
        raise NachaError("the file is empty")
    if len(lines) % blocking_factor:
        raise NachaError(f"{len(lines)} records is not a multiple of {blocking_factor}")
    return lines


def _parse_header(record: str) -> dict:
    if record[0] != "1":
        raise NachaError("record 1 is not a file header (type 1)")
    if _field(record, 35, 37) != "094" or _field(record, 38, 39) != "10":
        raise NachaError("file header: record size must be 094 and blocking factor 10")
    _digits(record, 24, 33, "file creation date and time", 1)
    return {
        "immediate_destination": _field(record, 4, 13).strip(),
        "immediate_origin": _field(record, 14, 23).strip(),
        "created_at": datetime.strptime(_field(record, 24, 33), "%y%m%d%H%M"),
        "file_id_modifier": _field(record, 34, 34),
        "destination_name": _field(record, 41, 63).strip(),
        "origin_name": _field(record, 64, 86).strip(),
        "reference_code": _field(record, 87, 94).strip(),
    }


def _parse_entry(record: str, line: int) -> Entry:
    _digits(record, 4, 12, "receiving DFI identification", line)
    return Entry(
        transaction_code=_field(record, 2, 3),
        routing_number=_field(record, 4, 12),
        account_number=_field(record, 13, 29).strip(),
        amount_cents=_digits(record, 30, 39, "amount", line),
        individual_id=_field(record, 40, 54).strip(),
        individual_name=_field(record, 55, 76).strip(),
        discretionary_data=_field(record, 77, 78).strip(),
        trace_number=_field(record, 80, 94),
    )


def _check_batch_control(control: str, header: str, entries: list[Entry], line: int) -> None:
    count = sum(1 + len(entry.addenda) for entry in entries)
    debits, credits = _totals(entries)
    checks = (
        ("service class code", _field(control, 2, 4), _field(header, 2, 4)),
        ("entry/addenda count", _digits(control, 5, 10, "count", line), count),
        (
            "entry hash",
            _digits(control, 11, 20, "entry hash", line),
            entry_hash(entry.routing_number for entry in entries),
        ),
        ("total debits", _digits(control, 21, 32, "total debits", line), debits),
        ("total credits", _digits(control, 33, 44, "total credits", line), credits),
        ("batch number", _field(control, 88, 94), _field(header, 88, 94)),
        ("company identification", _field(control, 45, 54), _field(header, 41, 50)),
    )
    for what, found, expected in checks:
        if found != expected:
            raise NachaError(f"batch control (record {line}): {what} is {found}, not {expected}")


def _batch_of(header: str, entries: list[Entry], line: int) -> Batch:
    effective = _field(header, 70, 75)
    try:
        effective_date = datetime.strptime(effective, "%y%m%d").date()
    except ValueError as error:
        raise NachaError(f"batch header (record {line}): effective date {effective!r}") from error
    return Batch(
        sec_code=_field(header, 51, 53),
        company_name=_field(header, 5, 20).strip(),
        company_discretionary_data=_field(header, 21, 40).strip(),
        company_id=_field(header, 41, 50).strip(),
        entry_description=_field(header, 54, 63).strip(),
        descriptive_date=_field(header, 64, 69).strip(),
        effective_date=effective_date,
        odfi_identification=_field(header, 80, 87),
        entries=tuple(entries),
    )


def parse(text: str) -> NachaFile:
    """Read a NACHA file, checking every count, total, hash and the blocking."""
    records = _records(text)
    header = _parse_header(records[0])
    batches: list[Batch] = []
    all_entries: list[Entry] = []
    batch_header: str | None = None
    entries: list[Entry] = []
    file_control: str | None = None
    previous_kind = "1"
    for line, record in enumerate(records[1:], start=2):
        kind = record[0]
        if file_control is not None:
            if record != "9" * record_chars:
                raise NachaError(f"record {line}: only all-9 padding may follow the file control")
            continue
        if kind == "5":
            if batch_header is not None:
                raise NachaError(f"record {line}: a batch header inside an open batch")
            batch_header, entries = record, []
        elif kind == "6":
            if batch_header is None:
                raise NachaError(f"record {line}: an entry outside a batch")
            entries.append(_parse_entry(record, line))
        elif kind == "7":
            if previous_kind not in ("6", "7") or not entries:
                raise NachaError(f"record {line}: an addenda without its entry")
            last = entries[-1]
            entries[-1] = Entry(**{**last.__dict__, "addenda": (*last.addenda, record)})
        elif kind == "8":
            if batch_header is None:
                raise NachaError(f"record {line}: a batch control without a batch header")
            if not entries:
                raise NachaError(f"record {line}: an empty batch")
            _check_batch_control(record, batch_header, entries, line)
            batches.append(_batch_of(batch_header, entries, line))
            all_entries.extend(entries)
            batch_header = None
        elif kind == "9":
            if batch_header is not None:
                raise NachaError(f"record {line}: the file control inside an open batch")
            file_control = record
        else:
            raise NachaError(f"record {line}: unknown record type {kind!r}")
        previous_kind = kind
    if file_control is None:
        raise NachaError("the file has no file control record (type 9)")
    _check_file_control(file_control, batches, all_entries, len(records))
    traces = [entry.trace_number for entry in all_entries]
    if len(set(traces)) != len(traces):
        raise NachaError("two entries share a trace number")
    return NachaFile(**header, batches=tuple(batches))


def _check_file_control(
    control: str, batches: list[Batch], entries: list[Entry], records: int
) -> None:
    count = sum(1 + len(entry.addenda) for entry in entries)
    debits, credits = _totals(entries)
    checks = (
        ("batch count", _digits(control, 2, 7, "batch count", 0), len(batches)),
        ("block count", _digits(control, 8, 13, "block count", 0), records // blocking_factor),
        ("entry/addenda count", _digits(control, 14, 21, "count", 0), count),
        (
            "entry hash",
            _digits(control, 22, 31, "entry hash", 0),
            entry_hash(entry.routing_number for entry in entries),
        ),
        ("total debits", _digits(control, 32, 43, "total debits", 0), debits),
        ("total credits", _digits(control, 44, 55, "total credits", 0), credits),
    )
    for what, found, expected in checks:
        if found != expected:
            raise NachaError(f"file control: {what} is {found}, not {expected}")


# --- What a bank sends back -----------------------------------------------------------------


@dataclass(frozen=True)
class BankAnswer:
    """A return (R##) or a notification of change (C##) of one original entry."""

    kind: str  # "RETURN" or "CHANGE"
    code: str
    original_trace: str
    description: str
    corrected_data: str | None
    amount_cents: int


def answers(file: NachaFile) -> list[BankAnswer]:
    """The returns and NOCs of a file a bank sent (entries with a 99 or 98 addenda)."""
    found: list[BankAnswer] = []
    for batch in file.batches:
        for entry in batch.entries:
            for addenda in entry.addenda:
                kind_code = addenda[1:3]
                if kind_code == "99":
                    code = _field(addenda, 4, 6)
                    found.append(
                        BankAnswer(
                            kind="RETURN",
                            code=code,
                            original_trace=_field(addenda, 7, 21),
                            description=_field(addenda, 36, 79).strip()
                            or RETURN_REASONS.get(code, "Returned"),
                            corrected_data=None,
                            amount_cents=entry.amount_cents,
                        )
                    )
                elif kind_code == "98":
                    code = _field(addenda, 4, 6)
                    found.append(
                        BankAnswer(
                            kind="CHANGE",
                            code=code,
                            original_trace=_field(addenda, 7, 21),
                            description=CHANGE_REASONS.get(code, "Notification of change"),
                            corrected_data=_field(addenda, 36, 64).strip(),
                            amount_cents=entry.amount_cents,
                        )
                    )
    return found
