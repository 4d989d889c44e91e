"""The sandbox bank: the answers a real bank would send for a file Corridor wrote: a NACHA
file of returns and notifications of change, an ISO 20022 status report (pain.002) or
payment return (pacs.004, or a camt.054 notification of the returned entry).

The tests and the sandbox use it to play the bank's part; every file it makes is read by
the same strict readers as a real bank's."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from xml.sax.saxutils import escape

from bai2 import bai2, constants, models

from corridor.rails import nacha


@dataclass(frozen=True)
class NachaAnswer:
    trace_number: str
    code: str  # R01…, C01…
    corrected_data: str = ""


def nacha_answers(original: str, answers: list[NachaAnswer], *, now: datetime) -> str:
    """The return/NOC file the receiving banks' answers come back in, through the ODFI:
    one batch per original batch, each answered entry with its 99 (return) or 98 (NOC)
    addenda and a new trace number of the RDFI."""
    parsed = nacha.parse(original)
    wanted = {answer.trace_number: answer for answer in answers}
    batches = []
    sequence = 0
    for batch in parsed.batches:
        entries = []
        for entry in batch.entries:
            answer = wanted.get(entry.trace_number)
            if answer is None:
                continue
            sequence += 1
            trace = entry.routing_number[:8] + str(sequence).zfill(7)
            if answer.code.startswith("R"):
                addenda = nacha.return_addenda(
                    reason_code=answer.code,
                    original_trace=entry.trace_number,
                    original_routing8=entry.routing_number[:8],
                    trace_number=trace,
                )
            else:
                addenda = nacha.change_addenda(
                    change_code=answer.code,
                    original_trace=entry.trace_number,
                    original_routing8=entry.routing_number[:8],
                    corrected_data=answer.corrected_data,
                    trace_number=trace,
                )
            entries.append(
                nacha.Entry(
                    transaction_code=nacha.RETURN_CODES_OF.get(
                        entry.transaction_code, entry.transaction_code
                    ),
                    routing_number=parsed.immediate_destination.strip().zfill(9),
                    account_number=entry.account_number,
                    amount_cents=0 if answer.code.startswith("C") else entry.amount_cents,
                    individual_id=entry.individual_id,
                    individual_name=entry.individual_name,
                    trace_number=trace,
                    addenda=(addenda,),
                )
            )
        if entries:
            is_change = all(answer.code.startswith("C") for answer in answers)
            batches.append(
                nacha.Batch(
                    sec_code="COR" if is_change else batch.sec_code,
                    company_name=batch.company_name,
                    company_id=batch.company_id,
                    entry_description="RETURN" if not is_change else "NOC",
                    effective_date=(now + timedelta(days=1)).date(),
                    odfi_identification=batch.odfi_identification,
                    entries=tuple(entries),
                )
            )
    return nacha.write(
        nacha.NachaFile(
            immediate_destination=parsed.immediate_destination.strip(),
            immediate_origin=parsed.immediate_destination.strip().rjust(10),
            destination_name=parsed.origin_name,
            origin_name=parsed.destination_name,
            created_at=now,
            batches=tuple(batches),
        )
    )


@dataclass(frozen=True)
class IsoAnswer:
    end_to_end_id: str | None  # None: the whole message
    status: str  # ACCP, ACSC, RJCT, … or RETURNED
    reason_code: str | None = None
    uetr: str | None = None
    amount: str | None = None
    currency: str | None = None


def _reason(tag: str, code: str | None) -> str:
    if not code:
        return ""
    return f"<{tag}><Rsn><Cd>{escape(code)}</Cd></Rsn></{tag}>"


def status_report(original_message_id: str, answers: list[IsoAnswer], *, now: datetime) -> str:
    """A pain.002.001.10 customer payment status report."""
    group = next((answer for answer in answers if answer.end_to_end_id is None), None)
    transactions = "".join(
        "<TxInfAndSts>"
        f"<OrgnlEndToEndId>{escape(answer.end_to_end_id)}</OrgnlEndToEndId>"
        + (f"<OrgnlUETR>{answer.uetr}</OrgnlUETR>" if answer.uetr else "")
        + f"<TxSts>{answer.status}</TxSts>"
        + _reason("StsRsnInf", answer.reason_code)
        + "</TxInfAndSts>"
        for answer in answers
        if answer.end_to_end_id is not None
    )
    group_status = (
        f"<GrpSts>{group.status}</GrpSts>" + _reason("StsRsnInf", group.reason_code)
        if group
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>'
        f"<GrpHdr><MsgId>STS{uuid.uuid4().hex[:20].upper()}</MsgId>"
        f"<CreDtTm>{now.strftime('%Y-%m-%dT%H:%M:%S')}</CreDtTm></GrpHdr>"
        f"<OrgnlGrpInfAndSts><OrgnlMsgId>{escape(original_message_id)}</OrgnlMsgId>"
        f"<OrgnlMsgNmId>pain.001.001.09</OrgnlMsgNmId>{group_status}</OrgnlGrpInfAndSts>"
        + (
            f"<OrgnlPmtInfAndSts><OrgnlPmtInfId>{escape(original_message_id)}-1</OrgnlPmtInfId>"
            f"{transactions}</OrgnlPmtInfAndSts>"
            if transactions
            else ""
        )
        + "</CstmrPmtStsRpt></Document>"
    )


def payment_return(original_message_id: str, answers: list[IsoAnswer], *, now: datetime) -> str:
    """A pacs.004.001.09 payment return."""
    transactions = "".join(
        "<TxInf>"
        f"<RtrId>RTR{index}</RtrId>"
        f"<OrgnlGrpInf><OrgnlMsgId>{escape(original_message_id)}</OrgnlMsgId>"
        "<OrgnlMsgNmId>pacs.008.001.08</OrgnlMsgNmId></OrgnlGrpInf>"
        f"<OrgnlEndToEndId>{escape(answer.end_to_end_id or '')}</OrgnlEndToEndId>"
        + (f"<OrgnlUETR>{answer.uetr}</OrgnlUETR>" if answer.uetr else "")
        + (
            f'<RtrdIntrBkSttlmAmt Ccy="{answer.currency}">{answer.amount}</RtrdIntrBkSttlmAmt>'
            if answer.amount
            else ""
        )
        + _reason("RtrRsnInf", answer.reason_code)
        + "</TxInf>"
        for index, answer in enumerate(answers, start=1)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pacs.004.001.09"><PmtRtr>'
        f"<GrpHdr><MsgId>RTR{uuid.uuid4().hex[:20].upper()}</MsgId>"
        f"<CreDtTm>{now.strftime('%Y-%m-%dT%H:%M:%S')}</CreDtTm><NbOfTxs>{len(answers)}</NbOfTxs>"
        "<SttlmInf><SttlmMtd>CLRG</SttlmMtd></SttlmInf></GrpHdr>"
        f"{transactions}</PmtRtr></Document>"
    )


def returned_entry_notification(answers: list[IsoAnswer], *, now: datetime) -> str:
    """A camt.054.001.08 debit/credit notification whose entries are returns."""
    entries = "".join(
        "<Ntry>"
        f'<Amt Ccy="{answer.currency or "EUR"}">{answer.amount or "0.00"}</Amt>'
        "<CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd><Sts><Cd>BOOK</Cd></Sts>"
        "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly>"
        "</Domn></BkTxCd><NtryDtls><TxDtls><Refs>"
        f"<EndToEndId>{escape(answer.end_to_end_id or '')}</EndToEndId>"
        + (f"<UETR>{answer.uetr}</UETR>" if answer.uetr else "")
        + "</Refs>"
        + _reason("RtrInf", answer.reason_code)
        + "</TxDtls></NtryDtls></Ntry>"
        for answer in answers
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>'
        f"<GrpHdr><MsgId>NTF{uuid.uuid4().hex[:20].upper()}</MsgId>"
        f"<CreDtTm>{now.strftime('%Y-%m-%dT%H:%M:%S')}</CreDtTm></GrpHdr>"
        f"<Ntfctn><Id>N1</Id><CreDtTm>{now.strftime('%Y-%m-%dT%H:%M:%S')}</CreDtTm>"
        f"<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>{entries}</Ntfctn>"
        "</BkToCstmrDbtCdtNtfctn></Document>"
    )


@dataclass(frozen=True)
class StatementLine:
    direction: str  # DBIT or CRDT
    amount: str
    currency: str
    end_to_end_id: str | None
    booked_on: str = "2026-11-19"
    remittance: str | None = None


def account_statement(lines: list[StatementLine], *, statement_id: str, now: datetime) -> str:
    """A camt.053.001.08 bank-to-customer statement of Corridor's account."""
    entries = "".join(
        "<Ntry>"
        f'<Amt Ccy="{line.currency}">{line.amount}</Amt>'
        f"<CdtDbtInd>{line.direction}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>"
        f"<BookgDt><Dt>{line.booked_on}</Dt></BookgDt><ValDt><Dt>{line.booked_on}</Dt></ValDt>"
        "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly>"
        "</Domn></BkTxCd><NtryDtls><TxDtls><Refs>"
        f"<EndToEndId>{escape(line.end_to_end_id or 'NOTPROVIDED')}</EndToEndId></Refs>"
        + (f"<RmtInf><Ustrd>{escape(line.remittance)}</Ustrd></RmtInf>" if line.remittance else "")
        + "</TxDtls></NtryDtls></Ntry>"
        for line in lines
    )
    stamp = now.strftime("%Y-%m-%dT%H:%M:%S")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>'
        f"<GrpHdr><MsgId>{escape(statement_id)}</MsgId><CreDtTm>{stamp}</CreDtTm></GrpHdr>"
        f"<Stmt><Id>{escape(statement_id)}</Id><CreDtTm>{stamp}</CreDtTm>"
        "<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>"
        f"{entries}</Stmt></BkToCstmrStmt></Document>"
    )


def bai2_statement(
    lines: list[StatementLine], *, file_id: str, now: datetime, account: str = "000123456789"
) -> str:
    """The same lines as a BAI2 balance-and-transaction report of Corridor's account
    (written by the `bai2` package, control totals and record counts included): ACH
    credits received (142) and debits (451), the end-to-end id or trace number as the
    customer reference. One currency per account, the first line's."""
    currency = lines[0].currency if lines else "USD"
    details: list[models.TransactionDetail] = []
    for line in lines:
        code = "142" if line.direction == "CRDT" else "451"
        details.append(
            models.TransactionDetail(
                type_code=constants.TypeCodes[code],
                amount=int(Decimal(line.amount).scaleb(2)),
                funds_type=constants.FundsType.immediate_availability,
                bank_reference=f"BNK{len(details) + 1:06d}",
                customer_reference=line.end_to_end_id,
                text=line.remittance,
            )
        )
    booked = datetime.fromisoformat(lines[0].booked_on if lines else now.date().isoformat())
    header = models.Bai2FileHeader(
        sender_id="CRDRUS30",
        receiver_id="CORRIDOR",
        creation_date=now.date(),
        creation_time=now.time().replace(second=0, microsecond=0),
        file_id=file_id,
        physical_record_length=80,
        block_size=0,
    )
    group = models.Group(
        header=models.GroupHeader(
            ultimate_receiver_id="CORRIDOR",
            originator_id="CRDRUS30",
            group_status=constants.GroupStatus.update,
            as_of_date=booked.date(),
            currency=currency,
            as_of_date_modifier=constants.AsOfDateModifier.final_previous_day,
        ),
        children=[
            models.Account(
                header=models.AccountIdentifier(customer_account_number=account, currency=currency),
                children=details,
            )
        ],
    )
    return bai2.write(models.Bai2File(header=header, children=[group])) + "\n"
