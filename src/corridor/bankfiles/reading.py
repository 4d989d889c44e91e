"""Reading the bank's answers back and applying them to the transfers, once per file.

An incoming file is recognised by its content (a NACHA file of returns and NOCs, or an
ISO 20022 pain.002, pacs.002, pacs.004 or camt.054), kept as an INCOMING bank file, and
each answer applied in the same transaction:

- a return (R##, pacs.004, a camt.054 returned entry): the entry is RETURNED and its
  transfer goes through the transfers' own return path: a settled payout reverses its
  COMPLETED transfer (`returnedAt`, `returnedToAccountId`, `transfer.reversed`), one not
  yet settled fails its leg and the money goes back; a settled ACH pull (a debit the
  payer's bank returned) reverses its COMPLETED transfer too, the pulled amount taken
  back from the balance it was credited to (returns.reverse_pull), and one not yet
  settled fails and credits nothing;
- a rejection (RJCT): the entry is REJECTED and the transfer FAILED with the bank's
  reason code;
- settled (ACSC): the leg settles now; accepted (ACCP, ACSP, ACTC, ACWC): noted;
- a notification of change (C##): kept on the entry, `bank_file.change_notified` emitted;
  no money moves (the originator corrects the receiver's details before the next entry).

The same file read twice (by its SHA-256) is the first reading's answer: nothing is
applied again. Answers naming no entry of the organization are listed in the file's
summary (`unmatched`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.bankfiles import events, repository
from corridor.bankfiles.errors import UnreadableBankFile
from corridor.kit.ids import new_id
from corridor.models.bank_file import BankFile, BankFileEntry
from corridor.rails import iso20022, nacha
from corridor.rails.files import EntryStatus
from corridor.transfers import repository as transfers
from corridor.transfers.engine import advance as engine
from corridor.transfers.returns import returns
from corridor.transfers.rules.states import LegStatus, TransferStatus

ACCEPTED_STATUSES = frozenset({"ACCP", "ACSP", "ACTC", "ACWC", "ACCC", "PDNG", "RCVD"})
SETTLED_STATUSES = frozenset({"ACSC"})
REJECTED_STATUSES = frozenset({"RJCT"})
reason_chars_max = 500
summary_references_max = 1000
FORMATS = {
    "pain.002": "PAIN_002",
    "pacs.002": "PACS_002",
    "pacs.004": "PACS_004",
    "camt.054": "CAMT_054",
}


@dataclass(frozen=True)
class Answer:
    """One answer of the bank about one entry (or a whole original message)."""

    kind: str  # RETURN, REJECT, SETTLE, ACCEPT, CHANGE
    reference: str | None  # trace number, end-to-end id, UETR
    original_message_id: str | None
    code: str | None
    description: str
    corrected_data: str | None = None


def _nacha_answers(content: str) -> list[Answer]:
    try:
        parsed = nacha.parse(content)
    except nacha.NachaError as error:
        raise UnreadableBankFile(f"NACHA: {error}") from error
    return [
        Answer(
            kind="RETURN" if answer.kind == "RETURN" else "CHANGE",
            reference=answer.original_trace,
            original_message_id=None,
            code=answer.code,
            description=answer.description,
            corrected_data=answer.corrected_data,
        )
        for answer in nacha.answers(parsed)
    ]


def _iso_kind(answer: iso20022.IsoAnswer) -> str:
    if answer.kind == "RETURN":
        return "RETURN"
    if answer.status in REJECTED_STATUSES:
        return "REJECT"
    if answer.status in SETTLED_STATUSES:
        return "SETTLE"
    return "ACCEPT"


def _iso_answers(content: str) -> list[Answer]:
    try:
        found = iso20022.read_answers(content)
    except iso20022.IsoMessageError as error:
        raise UnreadableBankFile(str(error)) from error
    return [
        Answer(
            kind=_iso_kind(answer),
            reference=answer.uetr or answer.end_to_end_id,
            original_message_id=answer.original_message_id,
            code=answer.reason_code or answer.status,
            description=answer.reason_text or answer.status,
        )
        for answer in found
    ]


def read(content: str) -> tuple[str, list[Answer]]:
    """The file's format and its answers; UnreadableBankFile when it is neither."""
    text = content.lstrip("\ufeff")
    if text.lstrip().startswith("<"):
        try:
            kind = iso20022.message_kind(text)
        except iso20022.IsoMessageError as error:
            raise UnreadableBankFile(str(error)) from error
        return FORMATS[kind], _iso_answers(text)
    if text.startswith("1"):
        return "NACHA_RETURN", _nacha_answers(text)
    raise UnreadableBankFile("neither a NACHA file nor an ISO 20022 message")


async def import_file(
    session: AsyncSession, *, organization_id: str, name: str, content: str, now: datetime
) -> BankFile:
    """Keep an incoming file and apply its answers (once: a file read again is answered
    with its first reading)."""
    sha256 = hashlib.sha256(content.encode()).hexdigest()
    known = await repository.incoming_by_sha(session, organization_id, sha256)
    if known is not None:
        return known
    file_format, answers = read(content)
    file = BankFile(
        id=new_id("bkf"),
        organization_id=organization_id,
        direction="INCOMING",
        format=file_format,
        rail=None,
        window_cutoff_at=None,
        name=name[:200],
        content=content,
        sha256=sha256,
        entry_count=len(answers),
        credit_total=0,
        debit_total=0,
        currency=None,
        status="APPLIED",
        upload_attempts=0,
        created_at=now,
        updated_at=now,
    )
    session.add(file)
    file.summary = await _apply(session, file, answers, now=now)
    events.file_event(session, events.RECEIVED, file, now=now)
    return file


async def keep_unreadable(
    session: AsyncSession,
    *,
    organization_id: str,
    name: str,
    content: str,
    error: str,
    now: datetime,
) -> BankFile:
    """A file from the bank that is neither NACHA nor a message Corridor reads: kept as
    FAILED (once), for an operator to look at; nothing is applied."""
    sha256 = hashlib.sha256(content.encode()).hexdigest()
    known = await repository.incoming_by_sha(session, organization_id, sha256)
    if known is not None:
        return known
    file = BankFile(
        id=new_id("bkf"),
        organization_id=organization_id,
        direction="INCOMING",
        format="UNKNOWN",
        name=name[:200],
        content=content,
        sha256=sha256,
        entry_count=0,
        credit_total=0,
        debit_total=0,
        status="FAILED",
        upload_attempts=0,
        last_error=error[:reason_chars_max],
        created_at=now,
        updated_at=now,
    )
    session.add(file)
    events.file_event(session, events.RECEIVED, file, now=now)
    return file


async def _entries_for(
    session: AsyncSession, organization_id: str, answers: list[Answer]
) -> dict[str, BankFileEntry]:
    references = [answer.reference for answer in answers if answer.reference]
    found: dict[str, BankFileEntry] = {}
    for entry in await repository.entries_named(session, organization_id, references):
        found[entry.reference] = entry
        found.setdefault(entry.transfer_id, entry)
    return found


async def _apply(
    session: AsyncSession, file: BankFile, answers: list[Answer], *, now: datetime
) -> dict:
    named = await _entries_for(session, file.organization_id, answers)
    applied: dict[str, int] = {}
    unmatched: list[str] = []
    matched: list[str] = []
    for answer in answers:
        if answer.reference is None and answer.original_message_id:
            targets = await repository.entries_of_file(session, answer.original_message_id)
            targets = [entry for entry in targets if entry.organization_id == file.organization_id]
        else:
            entry = named.get(answer.reference or "")
            targets = [entry] if entry is not None else []
        if not targets:
            unmatched.append(answer.reference or answer.original_message_id or "?")
            continue
        for entry in targets:
            await _apply_one(session, file, entry, answer, now=now)
            applied[answer.kind] = applied.get(answer.kind, 0) + 1
            matched.append(entry.reference)
    return {
        "answers": len(answers),
        "applied": applied,
        "references": sorted(set(matched))[:summary_references_max],
        "unmatched": unmatched[:summary_references_max],
    }


async def _apply_one(
    session: AsyncSession, file: BankFile, entry: BankFileEntry, answer: Answer, *, now: datetime
) -> None:
    entry.updated_at = now
    if answer.kind == "CHANGE":
        entry.changes = [
            *(entry.changes or []),
            {
                "code": answer.code,
                "description": answer.description,
                "correctedData": answer.corrected_data,
                "bankFileId": file.id,
            },
        ]
        events.change_event(
            session,
            organization_id=file.organization_id,
            data={
                "bankFileId": file.id,
                "transferId": entry.transfer_id,
                "reference": entry.reference,
                "code": answer.code,
                "description": answer.description,
                "correctedData": answer.corrected_data,
            },
            now=now,
        )
        return
    if entry.status in (EntryStatus.RETURNED, EntryStatus.REJECTED):
        return  # already final: a second answer changes nothing
    if answer.kind == "ACCEPT":
        if entry.status in (EntryStatus.QUEUED, EntryStatus.FILED):
            entry.status = EntryStatus.ACCEPTED
        return
    reason = f"{answer.code}: {answer.description}"[:reason_chars_max]
    if answer.kind in ("RETURN", "REJECT"):
        entry.status = EntryStatus.RETURNED if answer.kind == "RETURN" else EntryStatus.REJECTED
        entry.reason_code, entry.reason = answer.code, reason
    await _move_transfer(session, entry, answer.kind, reason=reason, now=now)


async def _move_transfer(
    session: AsyncSession, entry: BankFileEntry, kind: str, *, reason: str, now: datetime
) -> None:
    """The transfer follows the bank: through the transfers' own return, failure and
    settlement paths, with their ledger entries and events."""
    transfer = await transfers.transfer_by_id(session, entry.transfer_id, for_update=True)
    if transfer is None:
        return
    legs = await transfers.legs_of(session, transfer.id)
    leg = next((leg for leg in legs if leg.id == entry.leg_id), None)
    if leg is None:
        return
    if kind == "SETTLE":
        if leg.status == LegStatus.PROCESSING:
            entry.status = EntryStatus.SETTLED
            await engine.settle_leg(session, transfer, legs, leg, now=now)
        return
    said = "returned" if kind == "RETURN" else "rejected"
    if leg.status == LegStatus.COMPLETED and transfer.status == TransferStatus.COMPLETED:
        problem = returns.returnable_problem(transfer, leg)
        if problem is not None:
            entry.reason = f"{reason} (not applied: {problem})"[:reason_chars_max]
            return
        await engine.leg_returned(
            session, transfer, legs, leg, reason=f"{said} by the bank, {reason}", now=now
        )
    elif leg.status == LegStatus.PROCESSING and transfer.status == TransferStatus.PROCESSING:
        await engine.fail(
            session, transfer, legs, leg, reason=f"{said} by the bank, {reason}", now=now
        )
    elif leg.status == LegStatus.COMPLETED:  # a settled pull whose transfer still moves on
        entry.reason = (
            f"{reason} (not applied: transfer {transfer.id} is {transfer.status}; "
            "an operator settles it)"
        )[:reason_chars_max]
