"""A statement as a file: CSV for spreadsheets, PDF for a person to file (fpdf2)."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta

from anyascii import anyascii
from fpdf import FPDF

from corridor.kit.clock import isoformat_z
from corridor.kit.schemas import Amount
from corridor.statements.schemas import StatementLineRead, StatementRead

CSV_COLUMNS = (
    "date",
    "transaction_id",
    "type",
    "description",
    "transfer_id",
    "money_in",
    "money_out",
    "balance",
    "currency",
)


def statement_csv(statement: StatementRead) -> bytes:
    """One row per transaction between an opening and a closing balance row; amounts as
    decimal strings of the currency (125.50)."""
    output = io.StringIO()
    writer = csv.writer(output, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    currency = statement.currency
    writer.writerow(
        [
            isoformat_z(statement.period_start),
            "",
            "OPENING_BALANCE",
            "Opening balance",
            "",
            "",
            "",
            statement.opening_balance.display_value,
            currency,
        ]
    )
    for line in statement.transactions:
        money_in, money_out = _in_and_out(line)
        writer.writerow(
            [
                isoformat_z(line.created_at),
                line.id,
                line.type,
                _spreadsheet_safe(line.description),
                line.transfer_id or "",
                money_in,
                money_out,
                line.balance_after.display_value,
                currency,
            ]
        )
    writer.writerow(
        [
            isoformat_z(statement.period_end),
            "",
            "CLOSING_BALANCE",
            "Closing balance",
            "",
            statement.total_in.display_value,
            statement.total_out.display_value,
            statement.closing_balance.display_value,
            currency,
        ]
    )
    return output.getvalue().encode()


def _in_and_out(line: StatementLineRead) -> tuple[str, str]:
    if line.direction == "CREDIT":
        return line.amount.display_value, ""
    return "", line.amount.display_value


def _spreadsheet_safe(text: str) -> str:
    """Text a spreadsheet will not run as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


# --- PDF ----------------------------------------------------------------------------------

_COLUMNS = (("Date (UTC)", 27), ("Description", 57), ("Reference", 44), ("In", 20), ("Out", 20))
_BALANCE_WIDTH = 22
_ROW_HEIGHT = 5.5


def _text(value: str) -> str:
    """What the PDF's built-in fonts can draw (Latin-1): anything else transliterated."""
    return "".join(c if ord(c) < 256 else anyascii(c) for c in value)


def _money(amount: Amount) -> str:
    return f"{amount.display_value}"


class _StatementPdf(FPDF):
    def __init__(self, statement: StatementRead) -> None:
        super().__init__(orientation="portrait", unit="mm", format="A4")
        self.statement = statement
        self.set_margins(10, 12, 10)
        self.set_auto_page_break(auto=True, margin=16)
        self.set_title(f"Statement {statement.account_id} {statement.period}")
        self.set_author(_text(statement.organization.name))
        self.set_creator("Corridor")

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("Helvetica", size=7)
        self.set_text_color(110)
        self.cell(
            0,
            5,
            _text(
                f"{self.statement.organization.name} - statement of {self.statement.account_id} "
                f"for {self.statement.period} - page {self.page_no()} of {{nb}}"
            ),
            align="C",
        )
        self.set_text_color(0)

    def table_header(self) -> None:
        self.set_font("Helvetica", style="B", size=8)
        self.set_fill_color(232, 236, 241)
        for title, width in _COLUMNS:
            self.cell(width, 6, title, border="B", fill=True, align="R" if width == 20 else "L")
        self.cell(_BALANCE_WIDTH, 6, "Balance", border="B", fill=True, align="R")
        self.ln()
        self.set_font("Helvetica", size=8)


def _fit(pdf: FPDF, text: str, width: float) -> str:
    text = _text(text)
    if pdf.get_string_width(text) <= width - 1.5:
        return text
    while text and pdf.get_string_width(text + "...") > width - 1.5:
        text = text[:-1]
    return text + "..."


def statement_pdf(statement: StatementRead) -> bytes:
    pdf = _StatementPdf(statement)
    pdf.add_page()
    _heading(pdf, statement)
    _summary(pdf, statement)
    pdf.ln(4)
    pdf.table_header()
    _row(
        pdf, _day(statement.period_start), "Opening balance", "", "", "", statement.opening_balance
    )
    for line in statement.transactions:
        if pdf.will_page_break(_ROW_HEIGHT):
            pdf.add_page()
            pdf.table_header()
        money_in, money_out = _in_and_out(line)
        _row(
            pdf,
            line.created_at.strftime("%Y-%m-%d %H:%M"),
            line.description,
            line.transfer_id or line.id,
            money_in,
            money_out,
            line.balance_after,
        )
    if not statement.transactions:
        pdf.set_font("Helvetica", style="I", size=8)
        pdf.cell(
            0, _ROW_HEIGHT, "No balance transactions in this period.", new_x="LMARGIN", new_y="NEXT"
        )
        pdf.set_font("Helvetica", size=8)
    pdf.set_font("Helvetica", style="B", size=8)
    _row(
        pdf,
        _day(statement.period_end - timedelta(microseconds=1)),
        "Closing balance",
        "",
        statement.total_in.display_value,
        statement.total_out.display_value,
        statement.closing_balance,
    )
    return bytes(pdf.output())


def _day(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d")


def _heading(pdf: _StatementPdf, statement: StatementRead) -> None:
    pdf.set_font("Helvetica", style="B", size=16)
    pdf.cell(110, 9, "Account statement")
    pdf.set_font("Helvetica", style="B", size=11)
    pdf.cell(
        0, 9, _fit(pdf, statement.organization.name, 80), align="R", new_x="LMARGIN", new_y="NEXT"
    )
    pdf.set_font("Helvetica", size=9)
    last_day = statement.period_end - timedelta(microseconds=1)
    details = [
        ("Customer", f"{statement.customer.name} ({statement.customer.id})"),
        ("Account", f"{statement.account_id} - {statement.currency} balance account"),
        (
            "Period",
            f"{statement.period}: {_day(statement.period_start)} to {_day(last_day)} (UTC)"
            + ("" if statement.complete else ", month not yet over"),
        ),
        ("Generated", statement.generated_at.strftime("%Y-%m-%d %H:%M UTC")),
    ]
    pdf.ln(2)
    for label, value in details:
        pdf.set_font("Helvetica", style="B", size=9)
        pdf.cell(24, 5.5, label)
        pdf.set_font("Helvetica", size=9)
        pdf.cell(0, 5.5, _fit(pdf, value, 166), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)


def _summary(pdf: _StatementPdf, statement: StatementRead) -> None:
    figures = [
        ("Opening balance", statement.opening_balance),
        ("Money in", statement.total_in),
        ("Money out", statement.total_out),
        ("Closing balance", statement.closing_balance),
    ]
    width = 190 / len(figures)
    pdf.set_fill_color(246, 248, 250)
    pdf.set_font("Helvetica", size=8)
    pdf.set_text_color(90)
    for label, _ in figures:
        pdf.cell(width, 5, label, border="LTR", fill=True, align="C")
    pdf.ln()
    pdf.set_text_color(0)
    pdf.set_font("Helvetica", style="B", size=12)
    for _, amount in figures:
        pdf.cell(
            width,
            8,
            f"{amount.display_value} {amount.currency}",
            border="LBR",
            fill=True,
            align="C",
        )
    pdf.ln()


def _row(
    pdf: FPDF,
    date: str,
    description: str,
    reference: str,
    money_in: str,
    money_out: str,
    balance: Amount,
) -> None:
    values = (date, description, reference, money_in, money_out)
    for index, ((_, width), value) in enumerate(zip(_COLUMNS, values, strict=True)):
        # Ids are long: the reference column uses a smaller size.
        pdf.set_font_size(6.5 if index == 2 else 8)
        pdf.cell(
            width,
            _ROW_HEIGHT,
            _fit(pdf, value, width),
            border="B",
            align="R" if width == 20 else "L",
        )
        pdf.set_font_size(8)
    pdf.cell(_BALANCE_WIDTH, _ROW_HEIGHT, _money(balance), border="B", align="R")
    pdf.ln()
