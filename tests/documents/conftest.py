"""Fixtures of the document tests: an ACTIVE customer with balance accounts (for transfers)."""

from __future__ import annotations

import pytest

from tests.transfers.conftest import Customer, make_customer


@pytest.fixture
async def customer(tenant) -> Customer:
    return await make_customer(tenant.client)
