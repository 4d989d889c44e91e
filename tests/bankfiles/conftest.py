"""Fixtures of the bank-file tests: file rails installed for a test, the writer run by
hand, and the transfer tests' helpers."""

from __future__ import annotations

import pytest

from corridor.bankfiles import writing
from corridor.bankfiles.profile import file_rail
from corridor.rails import registry
from corridor.rails.base import RailName
from corridor.rails.files import BankProfile
from tests.transfers.conftest import install_rail  # noqa: F401

PROFILE = BankProfile(
    odfi_routing_number="123456780",
    odfi_name="Corridor Sandbox Bank",
    company_id="1234567890",
    company_name="Corridor Payments",
    debtor_name="Corridor Payments",
    debtor_iban="DE89370400440532013000",
    debtor_bic="CRDRUS30",
)


@pytest.fixture
def file_rails():
    """`file_rails(RailName.ACH, …)`: those rails go through bank files for this test."""
    replaced = []

    def install(*rails: RailName, profile: BankProfile = PROFILE) -> None:
        for rail in rails:
            replaced.append(registry.install(file_rail(rail, profile)))

    yield install
    for previous in reversed(replaced):
        registry.install(previous)


async def write_files(app, organization_id: str, profile: BankProfile = PROFILE) -> int:
    return await writing.write_due_files(
        app.state.database, app.state.clock, profile=profile, organization_id=organization_id
    )
