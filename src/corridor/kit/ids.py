"""Identifiers: <prefix>_<ULID in lowercase Crockford base32>, sortable by creation."""

from __future__ import annotations

import os
import re
import threading
import time

from ulid import ULID

PREFIXES = frozenset(
    "org cus acc vba vwa inw ext ewa cp tfr tleg quo agt key ep msg thr amsg run tc doc frt "
    "tos rfi vs usr req ae jnl pst idk cs dlv atmpt pss mcps".split()
)

_ID_PATTERN = re.compile(r"^[a-z]+_[0-9a-hjkmnp-tv-z]{26}$")
_lock = threading.Lock()
_last_timestamp_ms = 0
_last_randomness = 0
_RANDOMNESS_MAX = (1 << 80) - 1


def _next_ulid() -> ULID:
    """A ULID strictly greater than the previous one made in this process (monotonic ULID)."""
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
        raw = timestamp_ms.to_bytes(6, "big") + randomness.to_bytes(10, "big")
        return ULID.from_bytes(raw)


def new_id(prefix: str) -> str:
    assert prefix in PREFIXES, f"unknown id prefix {prefix!r}"
    return f"{prefix}_{str(_next_ulid()).lower()}"


def id_pattern(prefix: str) -> str:
    """The JSON Schema pattern of an id with this prefix (what `looks_like_id` accepts)."""
    return f"^{prefix}_[0-9a-hjkmnp-tv-z]{{26}}$"


def looks_like_id(value: str, prefix: str) -> bool:
    return value.startswith(prefix + "_") and bool(_ID_PATTERN.match(value))
