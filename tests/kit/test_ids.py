"""Ids: a prefix and a ULID, written the way the ULID specification (and python-ulid) does."""

from __future__ import annotations

import re
import time

from hypothesis import given
from hypothesis import strategies as st
from ulid import ULID

from corridor.kit.ids import id_pattern, looks_like_id, new_id, ulid_text


@given(st.integers(min_value=0, max_value=(1 << 128) - 1))
def test_ulid_text_is_the_specifications_encoding(value: int) -> None:
    assert ulid_text(value) == str(ULID.from_int(value)).lower()


def test_new_ids_carry_the_time_they_were_made_and_sort_in_making_order() -> None:
    before_ms = time.time_ns() // 1_000_000
    made = [new_id("tfr") for _ in range(5000)]
    after_ms = time.time_ns() // 1_000_000
    assert made == sorted(made)
    assert len(set(made)) == len(made)
    for value in (made[0], made[-1]):
        assert looks_like_id(value, "tfr")
        assert before_ms <= ULID.from_str(value.removeprefix("tfr_").upper()).milliseconds
        assert ULID.from_str(value.removeprefix("tfr_").upper()).milliseconds <= after_ms


def test_an_id_matches_its_published_pattern() -> None:
    assert re.fullmatch(id_pattern("cus"), new_id("cus"))
    assert not looks_like_id(new_id("cus"), "tfr")
