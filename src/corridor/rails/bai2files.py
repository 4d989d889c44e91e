"""BAI2 balance-and-transaction reports read as statements for reconciliation, with the
maintained `bai2` parser (the Ministry of Justice's, MIT): every transaction detail (16)
record of every account becomes one line, in the same shape as a camt.053's
(`iso20022.Statement`), so both go through one matching.

- Side: the detail's type code says credit or debit (BAI2's codes 100-399 are credits,
  400-699 debits); a detail of neither (the 890s: non-monetary information) is no line.
- Amount: BAI2 writes whole minor units without a decimal point; the line carries it as a
  decimal string of the account's currency (the group's, USD when none is given).
- Reference: the customer reference (where a bank reports the originator's trace number
  or end-to-end id). The bank's own reference never names a payment of Corridor's: it goes
  in the description, after the text.
- Booked: the group's as-of date.
"""

from __future__ import annotations

from bai2 import bai2, constants, exceptions

from corridor.kit.money import CURRENCIES, to_decimal_string
from corridor.rails.iso20022 import Statement, StatementEntry

DEBIT = constants.TypeCodeTransaction.debit


class Bai2Error(ValueError):
    pass


def looks_like_bai2(content: str) -> bool:
    return content.lstrip("\ufeff").lstrip().startswith("01,")


def _usable(reference: object) -> str | None:
    text = str(reference or "").strip()
    return text or None


def _description(text: object, bank_reference: object) -> str | None:
    said = _usable(text)
    reference = _usable(bank_reference)
    if reference is None:
        return said
    return f"{said} (bank reference {reference})" if said else f"bank reference {reference}"


def _amount(minor_units: int, currency: str) -> str:
    known = CURRENCIES.get(currency)
    return to_decimal_string(minor_units, known.exponent if known else 2)


def read_statement(content: str) -> Statement:
    """Every transaction detail of a BAI2 file, in order; Bai2Error when unreadable."""
    try:
        parsed = bai2.parse_from_string(content.lstrip("\ufeff"), check_integrity=True)
    except (
        exceptions.ParsingException,
        exceptions.IntegrityException,
        exceptions.NotSupportedYetException,
        ValueError,
        TypeError,
        IndexError,
        KeyError,
        AttributeError,
        StopIteration,
    ) as error:
        raise Bai2Error(f"BAI2: {error or type(error).__name__}") from error
    entries: list[StatementEntry] = []
    accounts: list[str] = []
    for group in parsed.children:
        as_of = group.header.as_of_date
        booked = as_of.isoformat() if as_of is not None else None
        for account in group.children:
            currency = account.header.currency or group.header.currency or "USD"
            accounts.append(str(account.header.customer_account_number or ""))
            for detail in account.children:
                side = detail.type_code.transaction if detail.type_code else None
                if side not in (constants.TypeCodeTransaction.credit, DEBIT):
                    continue
                entries.append(
                    StatementEntry(
                        direction=("DEBIT" if side is DEBIT else "CREDIT"),
                        amount=_amount(int(detail.amount or 0), currency),
                        currency=currency,
                        booked_on=booked,
                        reference=_usable(detail.customer_reference),
                        description=_description(detail.text, detail.bank_reference),
                    )
                )
    return Statement(
        statement_id=_usable(parsed.header.file_id),
        account=accounts[0] if len(set(accounts)) == 1 and accounts[0] else None,
        entries=tuple(entries),
    )
