"""The event and error-code catalogs hold every event type and error code the code has, the
pages made from them (docs/reference/) are current, and the check `make docs` runs fails
when one is missing. The event catalog is webhooks/catalog.py, the one list of types: the
guide, the endpoints' subscriptions and the sandbox's test events (console, API, CLI) all
read it."""

from __future__ import annotations

import json
import re

import pytest

from corridor import docs_catalog
from corridor.transfers.events import status_event
from corridor.transfers.rules.states import TransferStatus
from corridor.webhooks import catalog
from tests.docs_samples import CHECKOUT


def test_every_type_and_code_in_the_code_has_its_entry_and_the_pages_are_current():
    assert docs_catalog.problems() == []
    assert docs_catalog.main(["--check", "--root", str(CHECKOUT)]) == 0


def test_the_event_page_lists_every_type_in_the_code_with_a_payload_example():
    page = (CHECKOUT / docs_catalog.EVENTS_PAGE).read_text()
    types = docs_catalog.event_types_in_code()
    # The scan finds what the services write, including every transfer status's event.
    assert {"transfer.created", "transfer.pending", "account.funded", "deposit.received"} <= types
    assert {f"transfer.{s.lower()}" for s in TransferStatus if s != "DRAFT"} <= types
    examples = dict(
        re.findall(r"### `([a-z_.]+)` \{#[a-z]+\}\n\n.*?\n\n```json\n(.*?)```", page, re.DOTALL)
    )
    assert set(examples) == types == set(catalog.EVENT_TYPES)
    for event_type, example in examples.items():
        body = json.loads(example)
        assert body["type"] == event_type
        assert set(body) == {"type", "timestamp", "data"}
        assert isinstance(body["data"], dict) and body["data"]
    assert json.loads(examples["transfer.pending"])["data"]["status"] == "PENDING"
    assert "transfer.pending` may arrive before `transfer.created`" in page


def test_the_error_page_lists_every_code_with_its_status_and_an_example_body():
    page = (CHECKOUT / docs_catalog.ERRORS_PAGE).read_text()
    codes = docs_catalog.error_codes_in_code()
    assert {"insufficient_funds", "validation_error", "idempotency_key_reused"} <= set(codes)
    for code, error in codes.items():
        assert f"| [`{code}`](#{code.replace('_', '')}) | {error.status} |" in page
        assert f'"code": "{code}"' in page


def test_a_type_or_code_missing_from_the_catalog_fails_the_check(monkeypatch, capsys):
    events = dict(catalog.EVENTS)
    del events["transfer.pending"]
    monkeypatch.setattr(catalog, "EVENTS", events)
    meanings = dict(docs_catalog.ERROR_MEANINGS)
    del meanings["quote_expired"]  # its class has no docstring either
    monkeypatch.setattr(docs_catalog, "ERROR_MEANINGS", meanings)
    assert docs_catalog.main(["--check", "--root", str(CHECKOUT)]) == 1
    said = capsys.readouterr().err
    assert "event type 'transfer.pending' is in the code but not in the catalog" in said
    assert "error code 'quote_expired' is in the code but not in the catalog" in said


def test_a_page_that_is_not_current_fails_the_check(tmp_path, capsys):
    for relative, text in docs_catalog.pages().items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text.replace("`transfer.pending`", "`x`", 1))
    assert docs_catalog.main(["--check", "--root", str(tmp_path)]) == 1
    assert "not current: docs/reference/events.md" in capsys.readouterr().err


def test_an_entry_for_nothing_in_the_code_fails_the_check(monkeypatch, capsys):
    invented = catalog.EventType("transfer.teleported", "Never.", None, {"id": "tfr_1"})
    monkeypatch.setattr(catalog, "EVENTS", {**catalog.EVENTS, invented.name: invented})
    assert docs_catalog.main(["--check", "--root", str(CHECKOUT)]) == 1
    said = capsys.readouterr().err
    assert "event type 'transfer.teleported' is in the catalog but not in the code" in said


def test_every_status_change_event_is_in_the_catalog_once_with_when_it_is_emitted():
    changes = {status_event(status) for status in TransferStatus if status != TransferStatus.DRAFT}
    assert changes <= set(catalog.EVENT_TYPES)
    assert len(catalog.CATALOG) == len(catalog.EVENTS) == len(catalog.EVENT_TYPES)
    for entry in catalog.CATALOG:
        assert entry.when.endswith(".") and (entry.schema is None) != (entry.data is None)


@pytest.mark.parametrize("event_type", catalog.EVENT_TYPES)
def test_each_payload_example_is_its_schema(event_type):
    entry = catalog.EVENTS[event_type]
    if entry.schema is None:
        return
    model = docs_catalog._schema_class(entry.schema)
    data = docs_catalog.event_data_example(entry, docs_catalog._openapi_examples())
    model.model_validate(data)
