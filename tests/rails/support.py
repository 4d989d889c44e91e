"""Fixed clock times in the rails' market timezones, and a payment instruction to submit."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from corridor.rails.base import PaymentInstruction, RailName

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")


def new_york(year: int, month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=NEW_YORK)


def berlin(year: int, month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=BERLIN)


def utc(year: int, month: int, day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


BENEFICIARIES: dict[RailName, dict] = {
    RailName.ACH: {"name": "Ada Lovelace", "routing": "021000021", "account": "123456789"},
    RailName.ACH_SAME_DAY: {"name": "Ada Lovelace", "routing": "021000021", "account": "1234"},
    RailName.WIRE: {"name": "Ada Lovelace", "routing": "026009593", "account": "987654321"},
    RailName.RTP: {"name": "Ada Lovelace", "routing": "021000021", "account": "123456789"},
    RailName.SWIFT: {"name": "Ada Lovelace", "bic": "BARCGB22", "iban": "GB33BUKB20201555555555"},
    RailName.SEPA: {"name": "Ada Lovelace", "iban": "DE89370400440532013000"},
    RailName.SEPA_INSTANT: {"name": "Ada Lovelace", "iban": "FR1420041010050500013M02606"},
    RailName.BOOK: {},
    RailName.ETHEREUM: {"address": "0x" + "ab" * 20},
    RailName.BASE: {"address": "0x" + "cd" * 20},
    RailName.POLYGON: {"address": "0x" + "12" * 20},
    RailName.SOLANA: {"address": "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"},
    RailName.TRON: {"address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
}

CURRENCY_FOR: dict[RailName, str] = {
    RailName.ACH: "USD",
    RailName.ACH_SAME_DAY: "USD",
    RailName.WIRE: "USD",
    RailName.RTP: "USD",
    RailName.SWIFT: "GBP",
    RailName.SEPA: "EUR",
    RailName.SEPA_INSTANT: "EUR",
    RailName.BOOK: "USD",
    RailName.ETHEREUM: "USDC",
    RailName.BASE: "USDC",
    RailName.POLYGON: "USDT",
    RailName.SOLANA: "USDC",
    RailName.TRON: "USDT",
}


def instruction(
    rail: RailName,
    *,
    leg_id: str = "tleg_01jq0000000000000000000000",
    at: datetime | None = None,
    references: dict | None = None,
    beneficiary: dict | None = None,
) -> PaymentInstruction:
    return PaymentInstruction(
        leg_id=leg_id,
        transfer_id="tfr_01jq0000000000000000000000",
        rail=rail,
        currency=CURRENCY_FOR[rail],
        amount_minor=125_00,
        direction="CREDIT",
        beneficiary=BENEFICIARIES[rail] if beneficiary is None else beneficiary,
        references=references or {},
        submitted_at=at or utc(2026, 3, 17, 14),
    )
