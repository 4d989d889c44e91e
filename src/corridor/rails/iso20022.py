"""ISO 20022 messages (pure but for the schema file): credit transfers written as
`pain.001.001.09`, and what banks answer read back: status reports (`pain.002`,
`pacs.002`), returns (`pacs.004`, and `camt.054` notifications of a returned entry).

Writing follows the published message definition and every message is validated against
the official XSD (shipped by the `sepaxml` package, read with `xmlschema`) before it is
kept. SEPA payments go in one payment information block per requested execution date
(service level SEPA, charges SLEV); cross-border (SWIFT) payments carry the UETR in
`PmtId/UETR`, the correspondent the payer named as `IntrmyAgt1`, and charges SHAR.

Reading is by element local names, so any version of a message (pain.002.001.03 to .12,
pacs.002.001.08+, …) is understood; unknown messages are refused by name.
"""

from __future__ import annotations

import functools
import importlib.resources
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

PAIN_001 = "pain.001.001.09"
PAIN_001_NAMESPACE = f"urn:iso:std:iso:20022:tech:xsd:{PAIN_001}"
message_id_chars_max = 35
name_chars_max = 140
remittance_chars_max = 140


class IsoMessageError(ValueError):
    """A message that is not valid (schema) or not one Corridor reads."""


@dataclass(frozen=True)
class Party:
    name: str
    iban: str | None = None
    account_number: str | None = None
    bic: str | None = None
    country: str | None = None


@dataclass(frozen=True)
class CreditTransfer:
    end_to_end_id: str
    amount_minor: int
    currency: str
    exponent: int
    creditor: Party
    uetr: str | None = None
    intermediary_bic: str | None = None
    remittance: str | None = None


@dataclass(frozen=True)
class PaymentBlock:
    """One PmtInf: the payments of one execution date and one service level."""

    payment_information_id: str
    execution_date: date
    service_level: str | None  # "SEPA", or None for cross-border
    charges: str  # SLEV (SEPA) or SHAR
    transfers: tuple[CreditTransfer, ...]


@dataclass(frozen=True)
class CreditTransferMessage:
    message_id: str
    created_at: datetime
    initiating_party: str
    debtor: Party
    blocks: tuple[PaymentBlock, ...]


def _decimal(amount_minor: int, exponent: int) -> str:
    return str(Decimal(amount_minor).scaleb(-exponent).quantize(Decimal(1).scaleb(-exponent)))


def _sub(parent: ElementTree.Element, tag: str, text: str | None = None, **attributes: str):
    element = ElementTree.SubElement(parent, f"{{{PAIN_001_NAMESPACE}}}{tag}", attributes)
    if text is not None:
        element.text = text
    return element


def _path(parent: ElementTree.Element, tags: str, text: str) -> None:
    """`_path(x, "Id/IBAN", v)`: nested elements ending in a text."""
    *heads, last = tags.split("/")
    for tag in heads:
        parent = _sub(parent, tag)
    _sub(parent, last, text)


def _account(parent: ElementTree.Element, tag: str, party: Party) -> None:
    account = _sub(parent, tag)
    if party.iban:
        _path(account, "Id/IBAN", party.iban.replace(" ", "").upper())
    else:
        assert party.account_number, "an account needs an IBAN or a number"
        _path(account, "Id/Othr/Id", party.account_number[:34])


def _agent(parent: ElementTree.Element, tag: str, bic: str | None) -> None:
    agent = _sub(parent, tag)
    institution = _sub(agent, "FinInstnId")
    if bic:
        _sub(institution, "BICFI", bic.upper())
    else:
        _path(institution, "Othr/Id", "NOTPROVIDED")


def _party(parent: ElementTree.Element, tag: str, party: Party) -> None:
    element = _sub(parent, tag)
    _sub(element, "Nm", party.name[:name_chars_max])
    if party.country:
        _path(element, "PstlAdr/Ctry", party.country.upper())


def _transfer(block: ElementTree.Element, transfer: CreditTransfer) -> None:
    info = _sub(block, "CdtTrfTxInf")
    ids = _sub(info, "PmtId")
    _sub(ids, "InstrId", transfer.end_to_end_id[:message_id_chars_max])
    _sub(ids, "EndToEndId", transfer.end_to_end_id[:message_id_chars_max])
    if transfer.uetr:
        _sub(ids, "UETR", transfer.uetr)
    amount = _sub(info, "Amt")
    _sub(
        amount,
        "InstdAmt",
        _decimal(transfer.amount_minor, transfer.exponent),
        Ccy=transfer.currency,
    )
    if transfer.intermediary_bic:
        _agent(info, "IntrmyAgt1", transfer.intermediary_bic)
    _agent(info, "CdtrAgt", transfer.creditor.bic)
    _party(info, "Cdtr", transfer.creditor)
    _account(info, "CdtrAcct", transfer.creditor)
    if transfer.remittance:
        _path(info, "RmtInf/Ustrd", transfer.remittance[:remittance_chars_max])


def _control_sum(transfers: tuple[CreditTransfer, ...]) -> str:
    # One currency per message in practice; the sum is of the amounts as written.
    total = sum(
        Decimal(_decimal(transfer.amount_minor, transfer.exponent)) for transfer in transfers
    )
    return str(total)


def write_credit_transfers(message: CreditTransferMessage) -> str:
    """The pain.001.001.09 document, validated against its schema."""
    ElementTree.register_namespace("", PAIN_001_NAMESPACE)
    document = ElementTree.Element(f"{{{PAIN_001_NAMESPACE}}}Document")
    initiation = _sub(document, "CstmrCdtTrfInitn")
    header = _sub(initiation, "GrpHdr")
    every = tuple(transfer for block in message.blocks for transfer in block.transfers)
    _sub(header, "MsgId", message.message_id[:message_id_chars_max])
    _sub(header, "CreDtTm", message.created_at.strftime("%Y-%m-%dT%H:%M:%S"))
    _sub(header, "NbOfTxs", str(len(every)))
    _sub(header, "CtrlSum", _control_sum(every))
    _path(header, "InitgPty/Nm", message.initiating_party[:name_chars_max])
    for block in message.blocks:
        element = _sub(initiation, "PmtInf")
        _sub(element, "PmtInfId", block.payment_information_id[:message_id_chars_max])
        _sub(element, "PmtMtd", "TRF")
        _sub(element, "BtchBookg", "true")
        _sub(element, "NbOfTxs", str(len(block.transfers)))
        _sub(element, "CtrlSum", _control_sum(block.transfers))
        if block.service_level:
            _path(element, "PmtTpInf/SvcLvl/Cd", block.service_level)
        _path(element, "ReqdExctnDt/Dt", block.execution_date.isoformat())
        _party(element, "Dbtr", message.debtor)
        _account(element, "DbtrAcct", message.debtor)
        _agent(element, "DbtrAgt", message.debtor.bic)
        _sub(element, "ChrgBr", block.charges)
        for transfer in block.transfers:
            _transfer(element, transfer)
    text = ElementTree.tostring(document, encoding="unicode", xml_declaration=False)
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + text
    validate(xml, PAIN_001)
    return xml


# --- Schemas --------------------------------------------------------------------------------


@functools.cache
def _schema(message: str) -> Any:
    import xmlschema  # a heavy import, only where messages are written or checked

    files = importlib.resources.files("sepaxml") / "schemas" / f"{message}.xsd"
    with importlib.resources.as_file(files) as path:
        return xmlschema.XMLSchema(str(path))


def validate(xml: str, message: str = PAIN_001) -> None:
    """Raise IsoMessageError naming the first schema violation."""
    errors = list(_schema(message).iter_errors(xml))
    if errors:
        first = errors[0]
        raise IsoMessageError(f"{message}: {first.reason} at {first.path}")


def parse_credit_transfers(xml: str) -> dict[str, Any]:
    """A pain.001 as plain data (the schema's decoding), after validating it."""
    validate(xml, PAIN_001)
    decoded: dict[str, Any] = _schema(PAIN_001).to_dict(xml)
    return decoded


# --- Reading what banks answer --------------------------------------------------------------


@dataclass(frozen=True)
class IsoAnswer:
    """One transaction's answer: a status (ACCP, ACSC, ACSP, ACTC, PDNG, RJCT) or a
    return (RETURNED) with its reason code."""

    message: str  # pain.002, pacs.002, pacs.004, camt.054
    kind: str  # "STATUS" or "RETURN"
    status: str
    end_to_end_id: str | None
    uetr: str | None
    original_message_id: str | None
    reason_code: str | None
    reason_text: str | None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _find(element: ElementTree.Element, path: str) -> ElementTree.Element | None:
    """A child path by local names (any namespace)."""
    current: ElementTree.Element | None = element
    for name in path.split("/"):
        if current is None:
            return None
        current = next((child for child in current if _local(child.tag) == name), None)
    return current


def _text(element: ElementTree.Element, path: str) -> str | None:
    found = _find(element, path)
    return found.text.strip() if found is not None and found.text else None


def _all(element: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [child for child in element.iter() if _local(child.tag) == name]


def _reason(element: ElementTree.Element, info: str) -> tuple[str | None, str | None]:
    found = _find(element, info)
    if found is None:
        return None, None
    code = _text(found, "Rsn/Cd") or _text(found, "Rsn/Prtry")
    return code, _text(found, "AddtlInf")


def _status_answers(root: ElementTree.Element, message: str) -> list[IsoAnswer]:
    answers: list[IsoAnswer] = []
    original = _text(root, "OrgnlGrpInfAndSts/OrgnlMsgId")
    for transaction in _all(root, "TxInfAndSts"):
        code, text = _reason(transaction, "StsRsnInf")
        answers.append(
            IsoAnswer(
                message=message,
                kind="STATUS",
                status=_text(transaction, "TxSts") or "PDNG",
                end_to_end_id=_text(transaction, "OrgnlEndToEndId"),
                uetr=_text(transaction, "OrgnlUETR"),
                original_message_id=original,
                reason_code=code,
                reason_text=text,
            )
        )
    group = _find(root, "OrgnlGrpInfAndSts")
    group_status = _text(group, "GrpSts") if group is not None else None
    if not answers and group_status is not None and group is not None:
        # A status of the whole message: every transaction of it.
        code, text = _reason(group, "StsRsnInf")
        answers.append(
            IsoAnswer(
                message=message,
                kind="STATUS",
                status=group_status,
                end_to_end_id=None,
                uetr=None,
                original_message_id=original,
                reason_code=code,
                reason_text=text,
            )
        )
    return answers


def _return_answers(root: ElementTree.Element) -> list[IsoAnswer]:
    answers = []
    original = _text(root, "OrgnlGrpInf/OrgnlMsgId")
    for transaction in _all(root, "TxInf"):
        code, text = _reason(transaction, "RtrRsnInf")
        answers.append(
            IsoAnswer(
                message="pacs.004",
                kind="RETURN",
                status="RETURNED",
                end_to_end_id=_text(transaction, "OrgnlEndToEndId"),
                uetr=_text(transaction, "OrgnlUETR"),
                original_message_id=_text(transaction, "OrgnlGrpInf/OrgnlMsgId") or original,
                reason_code=code,
                reason_text=text,
            )
        )
    return answers


def _notification_answers(root: ElementTree.Element) -> list[IsoAnswer]:
    """camt.054 entries that are returns (their transaction details carry RtrInf)."""
    answers = []
    for details in _all(root, "TxDtls"):
        if _find(details, "RtrInf") is None:
            continue
        code, text = _reason(details, "RtrInf")
        answers.append(
            IsoAnswer(
                message="camt.054",
                kind="RETURN",
                status="RETURNED",
                end_to_end_id=_text(details, "Refs/EndToEndId"),
                uetr=_text(details, "Refs/UETR"),
                original_message_id=_text(details, "Refs/MsgId"),
                reason_code=code,
                reason_text=text,
            )
        )
    return answers


MESSAGES = {
    "CstmrPmtStsRpt": "pain.002",
    "FIToFIPmtStsRpt": "pacs.002",
    "PmtRtr": "pacs.004",
    "BkToCstmrDbtCdtNtfctn": "camt.054",
}


def message_kind(xml: str) -> str:
    """pain.002, pacs.002, pacs.004 or camt.054; IsoMessageError for anything else."""
    root = _root(xml)
    body = next(iter(root), None)
    name = _local(body.tag) if body is not None else ""
    if name not in MESSAGES:
        raise IsoMessageError(f"not a message Corridor reads back: {name or _local(root.tag)}")
    return MESSAGES[name]


def _root(xml: str) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(xml.encode() if isinstance(xml, str) else xml)
    except ElementTree.ParseError as error:
        raise IsoMessageError(f"not well-formed XML: {error}") from error


def read_answers(xml: str) -> list[IsoAnswer]:
    """Every transaction answer a status report, return or notification carries."""
    kind = message_kind(xml)
    body = next(iter(_root(xml)))
    if kind in ("pain.002", "pacs.002"):
        return _status_answers(body, kind)
    if kind == "pacs.004":
        return _return_answers(body)
    return _notification_answers(body)


# --- Statements (camt.053) ------------------------------------------------------------------


@dataclass(frozen=True)
class StatementEntry:
    direction: str  # CREDIT (money in) or DEBIT (money out)
    amount: str  # a decimal string, as the statement writes it
    currency: str
    booked_on: str | None
    reference: str | None  # end-to-end id or UETR
    description: str | None


@dataclass(frozen=True)
class Statement:
    statement_id: str | None
    account: str | None
    entries: tuple[StatementEntry, ...]


def _amount_of(element: ElementTree.Element, *paths: str) -> tuple[str, str] | None:
    for path in paths:
        found = _find(element, path)
        if found is not None and found.text:
            return found.text.strip(), found.get("Ccy", "")
    return None


def _usable(reference: str | None) -> str | None:
    return None if not reference or reference.upper() == "NOTPROVIDED" else reference


def _statement_entries(entry: ElementTree.Element) -> list[StatementEntry]:
    """One line per transaction of an entry (a batch booking lists several)."""
    direction = "CREDIT" if _text(entry, "CdtDbtInd") == "CRDT" else "DEBIT"
    booked = _text(entry, "BookgDt/Dt") or (_text(entry, "BookgDt/DtTm") or "")[:10] or None
    total = _amount_of(entry, "Amt")
    details = _all(entry, "TxDtls")
    lines = []
    for detail in details or [entry]:
        amount = _amount_of(detail, "Amt", "AmtDtls/TxAmt/Amt") if details else None
        amount = amount if amount is not None and len(details) > 1 else total
        if amount is None:
            continue
        reference = _usable(_text(detail, "Refs/EndToEndId")) or _usable(_text(detail, "Refs/UETR"))
        lines.append(
            StatementEntry(
                direction=direction,
                amount=amount[0],
                currency=amount[1],
                booked_on=booked,
                reference=reference,
                description=_text(detail, "RmtInf/Ustrd") or _text(entry, "AddtlNtryInf"),
            )
        )
    return lines


def read_statement(xml: str) -> Statement:
    """A camt.053 bank-to-customer statement (any version), line by line."""
    root = _root(xml)
    body = next(iter(root), None)
    if body is None or _local(body.tag) != "BkToCstmrStmt":
        raise IsoMessageError("not a camt.053 statement (BkToCstmrStmt)")
    statement = _find(body, "Stmt")
    if statement is None:
        raise IsoMessageError("camt.053 without a statement (Stmt)")
    entries = [
        line
        for child in statement
        if _local(child.tag) == "Ntry"
        for line in _statement_entries(child)
    ]
    return Statement(
        statement_id=_text(statement, "Id"),
        account=_text(statement, "Acct/Id/IBAN") or _text(statement, "Acct/Id/Othr/Id"),
        entries=tuple(entries),
    )
