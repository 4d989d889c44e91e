"""File rails: ACH, SEPA and SWIFT paid through files exchanged with a bank (issue 27).

A file rail keeps the sandbox adapter's schedule (cutoffs, windows, holidays) and its
references, but moves no money by itself: `submit` queues the payment as a
`bank_file_entries` row for the window of its cutoff, in the transfer step's own
transaction (kit.db.unit_of_work), so an entry exists exactly when its leg was submitted.
The bank-file writer (corridor.bankfiles) writes each window's file once its cutoff has
come by the organization's clock; `status` answers SETTLED once the entry was written
(and uploaded, when a bank connection is set) and its settlement time has come, unless
the bank's answers (read by corridor.bankfiles) rejected or returned it first.

References: the ACH trace number is the ODFI's 8-digit routing prefix and a 7-digit
sequence drawn from the entry's number (unique per ODFI until ten million entries, where
the sandbox's hash of the leg id could collide within one file); SEPA keeps its
end-to-end id, SWIFT its UETR.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from corridor.kit.db import current_unit_of_work
from corridor.models.bank_file import BankFileEntry
from corridor.models.transfer import Transfer
from corridor.rails import nacha, repository
from corridor.rails.base import (
    PaymentInstruction,
    RailName,
    RailStatus,
    Schedule,
    Submission,
)
from corridor.rails.sandbox import BatchRailAdapter

FILE_RAILS = frozenset({RailName.ACH, RailName.ACH_SAME_DAY, RailName.SEPA, RailName.SWIFT})
ACH_RAILS = frozenset({RailName.ACH, RailName.ACH_SAME_DAY})
trace_sequence_modulus = 10**7


class EntryStatus:
    QUEUED = "QUEUED"  # waiting for its window's file
    FILED = "FILED"  # written into a file
    ACCEPTED = "ACCEPTED"  # the bank acknowledged it (pain.002/pacs.002 ACCP, ACSP, …)
    SETTLED = "SETTLED"
    REJECTED = "REJECTED"
    RETURNED = "RETURNED"


@dataclass(frozen=True)
class BankProfile:
    """Who Corridor is to the bank: the ODFI and company of NACHA files, the debtor of
    ISO 20022 messages (settings `bank_*`)."""

    odfi_routing_number: str
    odfi_name: str
    company_id: str
    company_name: str
    debtor_name: str
    debtor_iban: str
    debtor_bic: str
    # With a bank connection, a file counts as delivered once uploaded; without one, once
    # written (it is fetched by hand: `corridor bank-files`, GET …/content).
    upload_required: bool = False


def _local_date(moment: datetime, timezone: str | None) -> str:
    return moment.astimezone(ZoneInfo(timezone or "UTC")).date().isoformat()


async def _party_type(transfer: Transfer, direction: str) -> tuple[str | None, str | None]:
    """The receiver's kind (INDIVIDUAL or BUSINESS) and account type, for the SEC and
    transaction codes of an ACH entry."""
    side = transfer.source if direction == "DEBIT" else transfer.destination
    account_id = side.get("externalAccountId")
    if not account_id:
        return None, None
    return await repository.receiver_of(current_unit_of_work(), account_id)


class FileRailAdapter:
    """A rail paid through bank files, over a sandbox adapter's schedule and references."""

    def __init__(self, inner: BatchRailAdapter, profile: BankProfile) -> None:
        assert inner.name in FILE_RAILS, inner.name
        self.inner, self.profile = inner, profile
        self.name: RailName = inner.name
        self.currencies = inner.currencies

    def schedule(self, *, at: datetime) -> Schedule:
        return self.inner.schedule(at=at)

    async def submit(self, instruction: PaymentInstruction, *, now: datetime) -> Submission:
        entry = await repository.entry_of_leg(current_unit_of_work(), instruction.leg_id)
        if entry is None:  # a step retried after a crash finds the entry it queued
            entry = await self._queue(instruction, now=now)
        return self._submission(entry, instruction, now=now)

    async def _queue(self, instruction: PaymentInstruction, *, now: datetime) -> BankFileEntry:
        session = current_unit_of_work()
        schedule = self.inner.schedule(at=now)
        assert schedule.next_cutoff_at is not None, "a file rail runs in cutoff windows"
        transfer = await repository.transfer(session, instruction.transfer_id)
        assert transfer is not None
        kind, account_type = await _party_type(transfer, instruction.direction)
        details = self._details(instruction, kind=kind, account_type=account_type)
        if self.name in ACH_RAILS:  # the effective entry date: the day it settles
            effective = _local_date(schedule.estimated_settlement_at, schedule.cutoff_timezone)
        else:  # the requested execution date: the day of the window
            effective = _local_date(schedule.next_cutoff_at, schedule.cutoff_timezone)
        entry = BankFileEntry(
            organization_id=transfer.organization_id,
            transfer_id=transfer.id,
            leg_id=instruction.leg_id,
            rail=self.name.value,
            direction=instruction.direction,
            currency=instruction.currency,
            amount=instruction.amount_minor,
            reference=f"pending:{instruction.leg_id}",
            window_cutoff_at=schedule.next_cutoff_at,
            effective_date=effective,
            settles_at=schedule.estimated_settlement_at,
            beneficiary=dict(instruction.beneficiary),
            details=details,
            status=EntryStatus.QUEUED,
            created_at=now,
            updated_at=now,
        )
        session.add(entry)
        await session.flush()  # its number: the trace sequence
        rail_reference, _ = self.inner.references(instruction, schedule=schedule, now=now)
        if self.name in ACH_RAILS:
            sequence = str(entry.id % trace_sequence_modulus).zfill(7)
            entry.reference = self.profile.odfi_routing_number[:8] + sequence
        else:
            entry.reference = rail_reference
        return entry

    def _details(
        self, instruction: PaymentInstruction, *, kind: str | None, account_type: str | None
    ) -> dict:
        references = instruction.references
        remittance = next(
            (
                str(references[key])
                for key in ("achReference", "sepaReference", "swiftReference", "payoutReference")
                if references.get(key)
            ),
            None,
        )
        details: dict = {"remittance": remittance}
        if self.name in ACH_RAILS:
            codes = nacha.DEBIT_CODES if instruction.direction == "DEBIT" else nacha.CREDIT_CODES
            details["secCode"] = (
                nacha.SecCode.CCD.value if kind == "BUSINESS" else nacha.SecCode.PPD.value
            )
            details["transactionCode"] = codes.get(account_type or "CHECKING", codes["CHECKING"])
        if self.name == RailName.SWIFT:
            details["correspondentBic"] = references.get("correspondentBankSwiftCode")
        return details

    def _submission(
        self, entry: BankFileEntry, instruction: PaymentInstruction, *, now: datetime
    ) -> Submission:
        schedule = Schedule(
            estimated_settlement_at=entry.settles_at,
            next_cutoff_at=entry.window_cutoff_at,
            cutoff_timezone=self.inner.cutoff_rule.timezone,
        )
        _, references = self.inner.references(instruction, schedule=schedule, now=now)
        references = dict(references)
        if self.name in ACH_RAILS:
            references["achTraceNumber"] = entry.reference
        references["bankFileEntryId"] = entry.id
        return Submission(rail_reference=entry.reference, references=references, schedule=schedule)

    async def status(self, submission: Submission, *, now: datetime) -> RailStatus:
        session = current_unit_of_work()
        entry = await repository.entry(session, int(submission.references["bankFileEntryId"]))
        assert entry is not None, submission.rail_reference
        if entry.status == EntryStatus.SETTLED:
            return RailStatus.SETTLED
        if entry.status == EntryStatus.REJECTED:
            return RailStatus.FAILED
        if entry.status == EntryStatus.RETURNED:
            return RailStatus.RETURNED
        if entry.bank_file_id is None or now < entry.settles_at:
            return RailStatus.PENDING
        if self.profile.upload_required and not await _uploaded(entry.bank_file_id):
            return RailStatus.PENDING
        entry.status = EntryStatus.SETTLED
        entry.updated_at = now
        return RailStatus.SETTLED


async def _uploaded(bank_file_id: str) -> bool:
    return await repository.file_uploaded(current_unit_of_work(), bank_file_id)
