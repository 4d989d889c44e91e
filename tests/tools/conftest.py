"""Fixtures of the tool tests: an owner with a funded customer, a payee and an agent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.agents.conftest import Owner, make_owner


@pytest.fixture
async def owner(app, tenant, clock) -> Owner:
    clock.set(datetime(2026, 11, 18, 12, 0, tzinfo=UTC))
    return await make_owner(app, tenant)
