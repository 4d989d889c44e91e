"""The event catalog (webhooks/catalog.py) names every event type the code emits: the
console's test events offer exactly these, so a type added to the code without the catalog
fails here."""

from __future__ import annotations

import re
from pathlib import Path

import corridor
from corridor.transfers.events import status_event
from corridor.transfers.rules.states import TransferStatus
from corridor.webhooks.catalog import EVENT_TYPES

SOURCE = Path(corridor.__file__).resolve().parent
# A string literal that names an event: a resource, a dot, what happened (table names such
# as "customers.id" and file names are not events).
_LITERAL = re.compile(
    r'"((?:transfer|deposit|account|customer|tos|document|agent|fixed_route|'
    r'reconciliation|bank_file|organization)(?:\.[a-z_]+)+)"'
)
_NOT_EVENTS = {".id", ".html", ".py"}


def _emitted_literals() -> set[str]:
    found: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        if "migrations" in path.parts or path.name == "catalog.py":
            continue
        for name in _LITERAL.findall(path.read_text()):
            if not any(name.endswith(tail) for tail in _NOT_EVENTS):
                found.add(name)
    return found


def test_every_event_type_the_code_names_is_in_the_catalog():
    literals = _emitted_literals()
    assert "transfer.created" in literals and "account.funded" in literals  # the scan works
    assert literals - set(EVENT_TYPES) == set()


def test_every_status_change_event_is_in_the_catalog():
    changes = {status_event(status) for status in TransferStatus if status != TransferStatus.DRAFT}
    assert changes - set(EVENT_TYPES) == set()
    assert len(EVENT_TYPES) == len(set(EVENT_TYPES))
