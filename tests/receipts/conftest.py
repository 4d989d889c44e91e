"""Receipts are of agents' payments: the agent tests' owner fixture."""

from tests.agents.conftest import owner  # noqa: F401
