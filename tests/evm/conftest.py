"""Fixtures of the EVM rail tests: a fresh anvil node with the test token per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import programs
from tests.evm.node import Node, running_node
from tests.transfers.conftest import customer, install_rail  # noqa: F401


@pytest.fixture
def node() -> Iterator[Node]:
    anvil = programs.require("anvil")["anvil"]
    with running_node(anvil) as started:
        yield started
