"""Checking a saved delivery the way a receiver does, and saying which part fails (pure).

Used by `corridor webhooks verify`: an integrator whose signature check fails saves the
request (headers and raw body) and learns whether the secret, a header, the body bytes
or the timestamp's age is the problem.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from corridor.webhooks.signing import SecretError, secret_key_bytes, sign

# Standard Webhooks receivers refuse timestamps further than this from their clock.
tolerance_s_default = 300
header_lines_max = 200
saved_delivery_bytes_max = 1024 * 1024
REQUIRED_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")


class SavedDeliveryError(ValueError):
    """The file is not an HTTP request with headers, a blank line and a body."""


@dataclass(frozen=True, slots=True)
class Check:
    part: str
    passed: bool
    detail: str


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    def add(self, part: str, passed: bool, detail: str) -> bool:
        self.checks.append(Check(part, passed, detail))
        return passed


def parse_saved_delivery(raw: bytes) -> tuple[dict[str, str], bytes]:
    """Headers (lower-case names) and the raw body of a saved HTTP request.

    The request line ("POST /hooks HTTP/1.1") is optional; headers end at the first blank
    line (CRLF or LF); every byte after it is the body, exactly as saved."""
    cuts = [index for index in (raw.find(b"\r\n\r\n"), raw.find(b"\n\n")) if index >= 0]
    if not cuts:
        raise SavedDeliveryError("no blank line separates the headers from the body")
    cut = min(cuts)
    separator = b"\r\n\r\n" if raw[cut : cut + 4] == b"\r\n\r\n" else b"\n\n"
    head, body = raw[:cut], raw[cut + len(separator) :]
    lines = head.decode("utf-8", errors="replace").splitlines()
    if lines and " HTTP/" in lines[0] and ":" not in lines[0].split(" ", 1)[0]:
        lines = lines[1:]
    if len(lines) > header_lines_max:
        raise SavedDeliveryError(f"more than {header_lines_max} header lines")
    return parse_header_lines(lines), body


def parse_header_lines(lines: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise SavedDeliveryError(f"header line {number} is not 'Name: value': {line[:80]!r}")
        headers[name.strip().lower()] = value.strip()
    return headers


def verify_saved_delivery(
    *,
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    now: datetime,
    tolerance_s: int = tolerance_s_default,
    check_age: bool = True,
) -> Report:
    report = Report()
    headers = {name.lower(): value for name, value in headers.items()}
    secret_ok = _check_secret(report, secret)
    headers_ok = _check_headers(report, headers)
    if not (secret_ok and headers_ok):
        return report
    timestamp_s = int(headers["webhook-timestamp"])
    _check_signature(report, secret, headers, timestamp_s, body)
    if check_age:
        _check_age(report, timestamp_s, now, tolerance_s)
    return report


def _check_secret(report: Report, secret: str) -> bool:
    try:
        secret_key_bytes(secret.strip())
    except SecretError as error:
        return report.add("secret", False, f"not a signing secret: {error}")
    return report.add("secret", True, "a whsec_ signing secret")


def _check_headers(report: Report, headers: Mapping[str, str]) -> bool:
    missing = [name for name in REQUIRED_HEADERS if not headers.get(name)]
    if missing:
        return report.add("headers", False, f"missing {', '.join(missing)}")
    timestamp = headers["webhook-timestamp"]
    if not (timestamp.isdigit() and len(timestamp) <= 12):
        return report.add(
            "webhook-timestamp", False, f"{timestamp!r} is not whole seconds since 1970"
        )
    signatures = headers["webhook-signature"].split()
    malformed = [item for item in signatures if not _well_formed_signature(item)]
    if malformed:
        return report.add(
            "webhook-signature",
            False,
            f"{malformed[0][:40]!r} is not 'v1,<base64>' (several are separated by spaces)",
        )
    return report.add(
        "headers", True, f"webhook-id {headers['webhook-id']}, {len(signatures)} signature(s)"
    )


def _well_formed_signature(item: str) -> bool:
    version, comma, encoded = item.partition(",")
    if not comma or not version:
        return False
    try:
        base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _matches(secret: str, message_id: str, timestamp_s: int, body: bytes, sent: list[str]) -> bool:
    expected = sign(secret.strip(), message_id=message_id, timestamp_s=timestamp_s, body=body)
    return any(hmac.compare_digest(expected, item) for item in sent)


def _check_signature(
    report: Report, secret: str, headers: Mapping[str, str], timestamp_s: int, body: bytes
) -> None:
    message_id = headers["webhook-id"]
    sent = [item for item in headers["webhook-signature"].split() if item.startswith("v1,")]
    if not sent:
        report.add("webhook-signature", False, "no v1 signature to check")
        return
    if _matches(secret, message_id, timestamp_s, body, sent):
        report.add("signature", True, "matches the secret, webhook-id, webhook-timestamp and body")
        return
    report.add("signature", False, _mismatch_diagnosis(secret, headers, timestamp_s, body, sent))


def _mismatch_diagnosis(
    secret: str, headers: Mapping[str, str], timestamp_s: int, body: bytes, sent: list[str]
) -> str:
    message_id = headers["webhook-id"]
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) != len(body):
        cut = body[: int(length)]
        if _matches(secret, message_id, timestamp_s, cut, sent):
            return (
                f"the body has {len(body)} bytes but Content-Length says {length}: bytes were "
                "added after the request (a trailing newline when saving?); verify the body "
                "exactly as received"
            )
    for changed, why in (
        (body.rstrip(b"\r\n\t "), "whitespace was added at the end of the body"),
        (body.replace(b"\r\n", b"\n"), "line endings in the body were changed to CRLF"),
    ):
        if changed != body and _matches(secret, message_id, timestamp_s, changed, sent):
            return f"{why}; verify the raw body bytes exactly as received, before any parsing"
    return (
        f"none of the {len(sent)} v1 signature(s) matches: the secret is not this endpoint's "
        "(or was rotated over 24 hours ago), or the webhook-id, webhook-timestamp or body "
        "differs from what was sent (a body parsed and re-serialised no longer matches)"
    )


def _check_age(report: Report, timestamp_s: int, now: datetime, tolerance_s: int) -> None:
    age_s = int(now.timestamp()) - timestamp_s
    if abs(age_s) <= tolerance_s:
        direction = "ago" if age_s >= 0 else "ahead of this clock"
        report.add(
            "timestamp", True, f"sent {_duration(age_s)} {direction}, within {tolerance_s} s"
        )
        return
    when = "in the future" if age_s < 0 else "old"
    report.add(
        "timestamp",
        False,
        f"{_duration(abs(age_s))} {when}: receivers refuse timestamps over {tolerance_s} s "
        "from their clock (replay protection); check the receiver's clock, or pass "
        "--ignore-age to check only the signature of a saved delivery",
    )


def _duration(seconds: int) -> str:
    seconds = abs(seconds)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"
