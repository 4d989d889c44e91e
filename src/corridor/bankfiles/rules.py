"""Pure rules of bank files: file names, and which entries go together."""

from __future__ import annotations

from datetime import datetime

from corridor.kit.clock import as_utc

# A window's file holds at most this many entries; more wait for a second pass (NACHA's
# counts allow far more, banks' file size limits not always).
entries_per_file_max = 10_000
windows_per_pass_max = 100
extensions = {"NACHA": "ach", "PAIN_001": "xml"}


def file_name(*, rail: str, window_cutoff_at: datetime, file_id: str, format: str) -> str:
    """`ACH-20261118T1530Z-bkf_….ach`: the rail, the window's cutoff (UTC), the id."""
    stamp = as_utc(window_cutoff_at).strftime("%Y%m%dT%H%MZ")
    return f"{rail}-{stamp}-{file_id}.{extensions[format]}"


def format_of_rail(rail: str) -> str:
    return "NACHA" if rail in ("ACH", "ACH_SAME_DAY") else "PAIN_001"
