"""The chain's pure rules: RFC 8785 hashing and the verification both the CLI and the
console use."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from corridor.audit import rules

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _chain(length: int) -> list[dict]:
    previous = rules.GENESIS_HASH
    items = []
    for sequence in range(1, length + 1):
        item = rules.item(
            id=f"aud_{sequence:026d}",
            sequence=sequence,
            kind=rules.AuditKind.PAYMENT_ALLOWED,
            agent_id="agt_x",
            transfer_id=None,
            mandate_id=None,
            actor={"type": "agent_key", "id": "key_x"},
            outcome=rules.AuditOutcome.ALLOWED,
            detail={"amount": sequence * 100, "currency": "USD"},
            created_at=datetime(2026, 11, 28, 1, 2, 3, 456789, tzinfo=UTC),
            previous_hash=previous,
        )
        item["hash"] = previous = rules.hash_of(item)
        items.append(item)
    return items


def test_the_hash_is_sha256_of_the_canonical_json_without_hash():
    item = _chain(1)[0]
    assert item["createdAt"] == "2026-11-28T01:02:03.456Z"
    assert item["previousHash"] == "sha256:" + "0" * 64
    body = {key: value for key, value in item.items() if key != "hash"}
    expected = hashlib.sha256(rules.canonical(body)).hexdigest()
    assert item["hash"] == f"sha256:{expected}"
    # RFC 8785: members sorted, no whitespace.
    assert (
        rules.canonical({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    )


@given(json_values, json_values)
def test_key_order_never_changes_the_hash(first, second):
    one = {"a": first, "b": second}
    other = {"b": second, "a": first}
    assert rules.hash_of(one) == rules.hash_of(other)


@given(st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=5))
def test_any_changed_detail_changes_the_hash(detail):
    changed = {**detail, "extra-member": "x"}
    assert rules.hash_of({"detail": detail}) != rules.hash_of({"detail": changed})


def test_an_intact_chain_verifies():
    chain = _chain(5)
    result = rules.verify(chain, (5, chain[-1]["hash"]))
    assert result.holds and result.count == 5


def test_a_changed_record_is_named():
    chain = _chain(5)
    chain[2]["outcome"] = "denied"
    result = rules.verify(chain)
    assert not result.holds and result.bad_sequence == 3
    assert "content" in (result.reason or "")


def test_a_removed_record_is_named():
    chain = _chain(5)
    del chain[1]
    result = rules.verify(chain)
    assert result.bad_sequence == 2 and "missing" in (result.reason or "")


def test_a_rehashed_record_breaks_the_next_link():
    chain = _chain(4)
    chain[1]["detail"] = {"amount": 1}
    chain[1]["hash"] = rules.hash_of(chain[1])
    result = rules.verify(chain)
    assert result.bad_sequence == 3 and "previousHash" in (result.reason or "")


def test_records_removed_at_the_end_show_against_the_head():
    chain = _chain(4)
    result = rules.verify(chain[:3], (4, chain[-1]["hash"]))
    assert result.bad_sequence == 4 and not result.holds
