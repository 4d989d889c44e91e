"""Identifiers: <prefix>_<ULID in lowercase Crockford base32>, sortable by creation."""

from __future__ import annotations

import os
import re
import threading
import time

PREFIXES = frozenset(
    "org cus acc vba vwa inw ext ewa cp tfr tleg quo agt key ep msg thr amsg run tc doc frt "
    "tos rfi vs usr req ae jnl pst idk cs dlv atmpt pss mcps tcf sgk rcpt wrk bkf ocl oar oag otk stm stl mdt aud".split()
)

_ID_PATTERN = re.compile(r"^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$")
_lock = threading.Lock()
_last_timestamp_ms = 0
_last_randomness = 0
_RANDOMNESS_MAX = (1 << 80) - 1
# Crockford's base32 alphabet in lower case, two characters (ten bits) at a time: a ULID's
# 26 characters are 13 lookups, a quarter of the cost of python-ulid's ULID and str().
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
_PAIRS = tuple(first + second for first in _ALPHABET for second in _ALPHABET)
_SHIFTS = tuple(range(120, -1, -10))


def _next_ulid() -> int:
    """A ULID strictly greater than the previous one made in this process (monotonic ULID),
    as its 128-bit number."""
    global _last_timestamp_ms, _last_randomness
    with _lock:
        timestamp_ms = time.time_ns() // 1_000_000
        if timestamp_ms <= _last_timestamp_ms:
            timestamp_ms = _last_timestamp_ms
            randomness = _last_randomness + 1
            if randomness > _RANDOMNESS_MAX:
                timestamp_ms += 1
                randomness = int.from_bytes(os.urandom(10), "big") >> 1
        else:
            # Half the space, so increments within one millisecond never overflow in practice.
            randomness = int.from_bytes(os.urandom(10), "big") >> 1
        _last_timestamp_ms, _last_randomness = timestamp_ms, randomness
        return timestamp_ms << 80 | randomness


def ulid_text(value: int) -> str:
    """A 128-bit ULID as its 26 characters, lower case (the first encodes two bits only)."""
    return "".join([_PAIRS[value >> shift & 1023] for shift in _SHIFTS])


def new_id(prefix: str) -> str:
    assert prefix in PREFIXES, f"unknown id prefix {prefix!r}"
    return f"{prefix}_{ulid_text(_next_ulid())}"


def id_pattern(prefix: str) -> str:
    """The JSON Schema pattern of an id with this prefix (what `looks_like_id` accepts)."""
    return f"^{prefix}_[0-9a-hjkmnp-tv-z]{{26}}$"


def looks_like_id(value: str, prefix: str) -> bool:
    return value.startswith(prefix + "_") and bool(_ID_PATTERN.match(value))
