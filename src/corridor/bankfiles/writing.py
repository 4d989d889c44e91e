"""Writing each window's file once its cutoff has come, by the organization's clock.

A worker task (and `corridor bank-files write`): find the windows whose cutoff has passed
with entries still QUEUED, and for each, in one transaction, lock its entries, write the
file (NACHA for ACH, pain.001.001.09 for SEPA and SWIFT), mark them FILED with the file's
id and emit `bank_file.written`. A window has one file (a unique row per organization,
rail and cutoff), so entries of two windows never share a file and a retried writer never
writes a second one; an entry that reached a window whose file was already written (its
step committed just after the cutoff) rolls to the next window.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import date, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.bankfiles import events, repository, rules
from corridor.kit.clock import Clock, Moments
from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.kit.logging import get_logger
from corridor.kit.money import CURRENCIES
from corridor.models import clock as sandbox_clocks
from corridor.models.bank_file import BankFile, BankFileEntry
from corridor.rails import iso20022, nacha
from corridor.rails.base import RailName
from corridor.rails.files import BankProfile, EntryStatus
from corridor.rails.registry import adapter_for

logger = get_logger(__name__)


async def write_due_files(
    database: Database,
    clock: Clock,
    *,
    profile: BankProfile,
    organization_id: str | None = None,
) -> int:
    """One pass: write every window whose cutoff has come; the number of files written."""
    async with database.session(write=False) as session:
        shifts = await sandbox_clocks.shifts(session, organization_id=organization_id)
        moments = Moments.at(clock.now(), shifts)
        windows = await repository.due_windows(
            session, moments, organization_id=organization_id, limit=rules.windows_per_pass_max
        )
    written = 0
    for window in windows:
        now = Moments.at(clock.now(), shifts).of(window.organization_id)
        async with database.session() as session, session.begin():
            file = await write_window(session, window, profile=profile, now=now)
        if file is not None:
            written += 1
            logger.info("bank_file_written", bank_file_id=file.id, entries=file.entry_count)
    return written


async def write_window(
    session: AsyncSession,
    window: repository.Window,
    *,
    profile: BankProfile,
    now: datetime,
) -> BankFile | None:
    entries = await repository.queued_entries(session, window, limit=rules.entries_per_file_max)
    if not entries:
        return None
    if await repository.window_file(session, window) is not None:
        _roll_to_next_window(entries, now=now)
        return None
    organization = await repository.organization(session, window.organization_id)
    file_format = rules.format_of_rail(window.rail)
    file_id = new_id("bkf")
    if file_format == "NACHA":
        content = _nacha(entries, profile=profile, company_name=organization.name, now=now)
    else:
        content = _pain_001(entries, profile=profile, message_id=file_id, now=now)
    credits = sum(entry.amount for entry in entries if entry.direction == "CREDIT")
    file = BankFile(
        id=file_id,
        organization_id=window.organization_id,
        direction="OUTGOING",
        format=file_format,
        rail=window.rail,
        window_cutoff_at=window.cutoff_at,
        name=rules.file_name(
            rail=window.rail,
            window_cutoff_at=window.cutoff_at,
            file_id=file_id,
            format=file_format,
        ),
        content=content,
        sha256=hashlib.sha256(content.encode()).hexdigest(),
        entry_count=len(entries),
        credit_total=credits,
        debit_total=sum(entry.amount for entry in entries) - credits,
        currency=entries[0].currency if len({entry.currency for entry in entries}) == 1 else None,
        status="WRITTEN",
        upload_attempts=0,
        next_upload_at=now if profile.upload_required else None,
        created_at=now,
        updated_at=now,
    )
    session.add(file)
    for entry in entries:
        entry.status, entry.bank_file_id, entry.updated_at = EntryStatus.FILED, file_id, now
    events.file_event(session, events.WRITTEN, file, now=now)
    return file


def _roll_to_next_window(entries: list[BankFileEntry], *, now: datetime) -> None:
    for entry in entries:
        schedule = adapter_for(RailName(entry.rail)).schedule(at=now + timedelta(seconds=1))
        assert schedule.next_cutoff_at is not None
        entry.window_cutoff_at = schedule.next_cutoff_at
        entry.settles_at = schedule.estimated_settlement_at
        entry.updated_at = now


def _nacha(
    entries: list[BankFileEntry], *, profile: BankProfile, company_name: str, now: datetime
) -> str:
    """Batches by SEC code and effective date, in that order; entries by trace number."""
    batches: defaultdict[tuple[str, str], list[nacha.Entry]] = defaultdict(list)
    for entry in sorted(entries, key=lambda entry: entry.reference):
        beneficiary = entry.beneficiary
        batches[(entry.details["secCode"], entry.effective_date)].append(
            nacha.Entry(
                transaction_code=entry.details["transactionCode"],
                routing_number=str(beneficiary.get("routing", "")).zfill(9),
                account_number=str(beneficiary.get("account", "")),
                amount_cents=entry.amount,
                individual_id=entry.transfer_id[-15:],
                individual_name=str(beneficiary.get("name", "")),
                trace_number=entry.reference,
            )
        )
    odfi = profile.odfi_routing_number
    file = nacha.NachaFile(
        immediate_destination=odfi,
        immediate_origin=profile.company_id.rjust(10),
        destination_name=profile.odfi_name,
        origin_name=company_name,
        created_at=now,
        batches=tuple(
            nacha.Batch(
                sec_code=sec_code,
                company_name=company_name,
                company_id=profile.company_id,
                entry_description="PAYMENT",
                effective_date=date.fromisoformat(effective),
                odfi_identification=odfi[:8],
                entries=tuple(batch),
            )
            for (sec_code, effective), batch in sorted(batches.items())
        ),
    )
    return nacha.write(file)


def _pain_001(
    entries: list[BankFileEntry], *, profile: BankProfile, message_id: str, now: datetime
) -> str:
    """One payment information block per requested execution date."""
    blocks: defaultdict[str, list[iso20022.CreditTransfer]] = defaultdict(list)
    sepa = entries[0].rail == RailName.SEPA
    for entry in sorted(entries, key=lambda entry: entry.id):
        beneficiary = entry.beneficiary
        blocks[entry.effective_date].append(
            iso20022.CreditTransfer(
                end_to_end_id=entry.reference if sepa else entry.transfer_id,
                amount_minor=entry.amount,
                currency=entry.currency,
                exponent=CURRENCIES[entry.currency].exponent,
                creditor=iso20022.Party(
                    name=str(beneficiary.get("name", "")),
                    iban=beneficiary.get("iban"),
                    account_number=beneficiary.get("account"),
                    bic=beneficiary.get("bic"),
                    country=beneficiary.get("country"),
                ),
                uetr=None if sepa else entry.reference,
                intermediary_bic=entry.details.get("correspondentBic"),
                remittance=entry.details.get("remittance"),
            )
        )
    message = iso20022.CreditTransferMessage(
        message_id=message_id,
        created_at=now,
        initiating_party=profile.debtor_name,
        debtor=iso20022.Party(
            name=profile.debtor_name, iban=profile.debtor_iban, bic=profile.debtor_bic
        ),
        blocks=tuple(
            iso20022.PaymentBlock(
                payment_information_id=f"{message_id}-{number}",
                execution_date=date.fromisoformat(execution),
                service_level="SEPA" if sepa else None,
                charges="SLEV" if sepa else "SHAR",
                transfers=tuple(transfers),
            )
            for number, (execution, transfers) in enumerate(sorted(blocks.items()), start=1)
        ),
    )
    return iso20022.write_credit_transfers(message)
