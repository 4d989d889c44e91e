"""Every rail has an adapter that keeps the contract of docs/transfers-design.md."""

from __future__ import annotations

import dataclasses
import inspect
from datetime import UTC, timedelta
from zoneinfo import ZoneInfo

import pytest

from corridor.rails import registry
from corridor.rails.base import (
    CHAIN_RAILS,
    FIAT_RAILS,
    RailAdapter,
    RailName,
    RailStatus,
    Schedule,
    Submission,
    rails_for_currency,
)
from corridor.rails.registry import adapter_for
from tests.rails.support import CURRENCY_FOR, instruction, utc

ALWAYS_OPEN = frozenset({RailName.RTP, RailName.SEPA_INSTANT, RailName.BOOK}) | CHAIN_RAILS
REFERENCE_KEYS = {"uetr", "imad", "omad", "achTraceNumber", "txHash", "feeTxHash", "swiftRouting"}


@pytest.mark.parametrize("rail", list(RailName))
async def test_adapter_keeps_the_rail_contract(rail: RailName) -> None:
    adapter = adapter_for(rail)
    now = utc(2026, 3, 17, 14)
    assert isinstance(adapter, RailAdapter)
    assert adapter.name == rail
    assert CURRENCY_FOR[rail] in adapter.currencies
    assert inspect.iscoroutinefunction(adapter.submit)
    assert inspect.iscoroutinefunction(adapter.status)

    planned = adapter.schedule(at=now)
    assert isinstance(planned, Schedule)
    assert planned.estimated_settlement_at.utcoffset() == timedelta(0)
    assert (planned.next_cutoff_at is None) == (rail in ALWAYS_OPEN)
    assert (planned.cutoff_timezone is None) == (planned.next_cutoff_at is None)

    submission = await adapter.submit(instruction(rail), now=now)
    assert isinstance(submission, Submission)
    assert submission.schedule == planned
    assert isinstance(submission.rail_reference, str) and submission.rail_reference
    assert set(submission.references) <= REFERENCE_KEYS


@pytest.mark.parametrize("rail", list(RailName))
async def test_sandbox_settles_on_the_first_poll_after_submission(rail: RailName) -> None:
    adapter = adapter_for(rail)
    now = utc(2026, 12, 25, 9)  # even on a holiday, before the estimated settlement
    submission = await adapter.submit(instruction(rail), now=now)
    assert await adapter.status(submission, now=now) is RailStatus.SETTLED


async def test_submit_refuses_a_currency_the_rail_does_not_carry() -> None:
    bad = dataclasses.replace(instruction(RailName.ACH), currency="EUR")
    with pytest.raises(AssertionError):
        await adapter_for(RailName.ACH).submit(bad, now=utc(2026, 3, 17, 14))


async def test_submit_needs_an_aware_time() -> None:
    with pytest.raises(AssertionError):
        await adapter_for(RailName.RTP).submit(
            instruction(RailName.RTP), now=utc(2026, 3, 17, 14).replace(tzinfo=None)
        )


def test_schedule_answers_in_utc_whatever_zone_it_is_asked_in() -> None:
    tokyo = utc(2026, 3, 17, 14).astimezone(ZoneInfo("Asia/Tokyo"))
    for rail in RailName:
        planned = adapter_for(rail).schedule(at=tokyo)
        assert planned.estimated_settlement_at.tzinfo is UTC
        assert planned == adapter_for(rail).schedule(at=utc(2026, 3, 17, 14))


def test_fiat_and_chain_rails_split_every_rail() -> None:
    assert FIAT_RAILS | CHAIN_RAILS == frozenset(RailName)
    assert not FIAT_RAILS & CHAIN_RAILS
    assert CHAIN_RAILS == {
        RailName.ETHEREUM,
        RailName.BASE,
        RailName.POLYGON,
        RailName.SOLANA,
        RailName.TRON,
    }


@pytest.mark.parametrize(
    ("currency", "rails"),
    [
        ("USD", "ACH ACH_SAME_DAY WIRE RTP SWIFT BOOK"),
        ("EUR", "SWIFT SEPA SEPA_INSTANT BOOK"),
        ("GBP", "SWIFT BOOK"),
        ("MXN", "SWIFT BOOK"),
        ("USDC", "BOOK ETHEREUM BASE POLYGON SOLANA"),
        ("USDT", "BOOK ETHEREUM POLYGON SOLANA TRON"),
        ("EURC", "BOOK ETHEREUM BASE SOLANA"),
        ("XYZ", ""),
    ],
)
def test_rails_for_currency(currency: str, rails: str) -> None:
    assert rails_for_currency(currency) == tuple(RailName(name) for name in rails.split())


def test_an_installed_adapter_replaces_the_sandbox_one() -> None:
    class QuietRtp(type(adapter_for(RailName.RTP))):
        pass

    replacement = QuietRtp()
    previous = registry.install(replacement)
    try:
        assert adapter_for(RailName.RTP) is replacement
    finally:
        registry.install(previous)
    assert adapter_for(RailName.RTP) is previous
