"""The audit tests use the agent tests' owner: a tenant with a funded customer and a payee."""

from tests.agents.conftest import owner  # noqa: F401  (the fixture)
