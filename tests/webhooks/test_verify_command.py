"""`corridor webhooks verify`: checks a saved delivery and says which part fails."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime, timedelta

import pytest

from corridor.webhooks import signing, verification
from corridor.webhooks.rules import payload_bytes
from tests.cli_runner import run_corridor

SECRET = signing.new_secret()
MESSAGE_ID = "msg_01jd3x0p6x9e3k2v1m8q4r7s5t"


def _saved(
    *,
    at: datetime | None = None,
    body: bytes | None = None,
    drop: str | None = None,
    line_ending: bytes = b"\r\n",
) -> tuple[dict[str, str], bytes, bytes]:
    """A delivery as Corridor sends it: its headers, its body and the saved request bytes."""
    at = at or datetime.now(UTC)
    sent_body = payload_bytes("transfer.completed", at, {"id": "tfr_1", "amount": "12550"})
    headers = signing.delivery_headers([SECRET], message_id=MESSAGE_ID, at=at, body=sent_body)
    headers["content-length"] = str(len(sent_body))
    if drop:
        headers.pop(drop)
    lines = [b"POST /hooks HTTP/1.1"] + [f"{k}: {v}".encode() for k, v in headers.items()]
    raw = line_ending.join(lines) + line_ending * 2 + (sent_body if body is None else body)
    return headers, sent_body, raw


def _check(raw: bytes, secret: str = SECRET, **options) -> verification.Report:
    headers, body = verification.parse_saved_delivery(raw)
    return verification.verify_saved_delivery(
        secret=secret, headers=headers, body=body, now=datetime.now(UTC), **options
    )


def _failed(report: verification.Report) -> dict[str, str]:
    return {check.part: check.detail for check in report.checks if not check.passed}


def test_a_faithfully_saved_delivery_verifies():
    for line_ending in (b"\r\n", b"\n"):
        report = _check(_saved(line_ending=line_ending)[2])
        assert report.passed, report.checks


def test_a_changed_body_fails_the_signature():
    # One instant for both deliveries: the body carries its timestamp (second precision).
    at = datetime.now(UTC)
    _, body, _ = _saved(at=at)
    flipped = body.replace(b"12550", b"12551")
    failed = _failed(_check(_saved(at=at, body=flipped)[2]))
    assert set(failed) == {"signature"}
    assert "none of the 1 v1 signature(s) matches" in failed["signature"]


def test_a_trailing_newline_is_named_as_the_problem():
    at = datetime.now(UTC)
    _, body, _ = _saved(at=at)
    failed = _failed(_check(_saved(at=at, body=body + b"\n")[2]))
    assert "Content-Length" in failed["signature"]


def test_a_missing_header_is_named():
    failed = _failed(_check(_saved(drop="webhook-signature")[2]))
    assert failed == {"headers": "missing webhook-signature"}


def test_another_secret_fails_the_signature_and_a_bad_secret_is_named():
    assert set(_failed(_check(_saved()[2], secret=signing.new_secret()))) == {"signature"}
    assert set(_failed(_check(_saved()[2], secret="sk_not_a_secret"))) == {"secret"}


def test_an_old_delivery_fails_on_its_age_unless_told_to_ignore_it():
    raw = _saved(at=datetime.now(UTC) - timedelta(hours=3))[2]
    failed = _failed(_check(raw))
    assert set(failed) == {"timestamp"}
    assert "3 h old" in failed["timestamp"]
    assert _check(raw, check_age=False).passed


def test_a_file_without_a_blank_line_is_not_a_saved_delivery():
    with pytest.raises(verification.SavedDeliveryError):
        verification.parse_saved_delivery(b"webhook-id: msg_1\r\n")


def _corridor(tmp_path, *arguments: str, content: bytes) -> subprocess.CompletedProcess[str]:
    saved = tmp_path / "delivery.http"
    saved.write_bytes(content)
    # In this process through the real entry point (tests/cli_runner.py).
    return run_corridor(
        ["webhooks", "verify", *arguments, str(saved)],
        environment={**os.environ, "COLUMNS": "200"},
    )


def test_the_command_passes_a_good_delivery_and_fails_a_tampered_one(tmp_path):
    at = datetime.now(UTC)
    _, body, raw = _saved(at=at)
    good = _corridor(tmp_path, "--secret", SECRET, content=raw)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "The delivery verifies" in good.stdout

    tampered = _corridor(
        tmp_path, "--secret", SECRET, content=_saved(at=at, body=body[:-2] + b"0}")[2]
    )
    assert tampered.returncode == 1
    assert "✗ signature" in tampered.stdout
    assert "✓ headers" in tampered.stdout


def test_the_command_takes_headers_as_options_and_the_body_as_the_file(tmp_path):
    headers, body, _ = _saved()
    options = [
        item
        for name in verification.REQUIRED_HEADERS
        for item in ("-H", f"{name}: {headers[name]}")
    ]
    checked = _corridor(tmp_path, "--secret", SECRET, *options, content=body)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_command_says_when_the_file_cannot_be_read(tmp_path):
    unreadable = _corridor(tmp_path, "--secret", SECRET, content=b"just a body, no headers")
    assert unreadable.returncode == 2
    assert "blank line" in unreadable.stderr


def test_trailing_whitespace_is_named_even_without_a_content_length():
    headers, body, _ = _saved(drop="content-length")
    lines = [f"{name}: {value}".encode() for name, value in headers.items()]
    raw = b"\n".join(lines) + b"\n\n" + body + b"\n"
    failed = _failed(_check(raw))
    assert "whitespace was added at the end of the body" in failed["signature"]
