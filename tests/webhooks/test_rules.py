"""Pure delivery rules and signing: the schedule, answers, Retry-After, statuses, signatures."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook

from corridor.webhooks import rules, signing
from corridor.webhooks.rules import DeliveryStatus, Outcome

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000]


def test_the_schedule_waits_5s_5min_30min_2h_5h_10h_10h_then_gives_up():
    waits = [
        rules.next_attempt_at(attempts_made=made, schedule_s=SCHEDULE, scale=1.0, now=NOW)
        for made in range(1, 9)
    ]
    assert [(wait - NOW).total_seconds() for wait in waits[:7]] == SCHEDULE
    assert waits[7] is None
    assert rules.attempts_max(SCHEDULE) == 8


def test_the_schedule_scales_for_tests():
    retry = rules.next_attempt_at(attempts_made=2, schedule_s=SCHEDULE, scale=0.001, now=NOW)
    assert retry == NOW + timedelta(seconds=0.3)


def test_retry_after_longer_than_the_schedule_wins_and_is_capped_at_a_day():
    longer = rules.next_attempt_at(
        attempts_made=1, schedule_s=SCHEDULE, scale=1.0, now=NOW, retry_after_s=60
    )
    assert longer == NOW + timedelta(seconds=60)
    shorter = rules.next_attempt_at(
        attempts_made=2, schedule_s=SCHEDULE, scale=1.0, now=NOW, retry_after_s=1
    )
    assert shorter == NOW + timedelta(seconds=300)
    capped = rules.next_attempt_at(
        attempts_made=1, schedule_s=SCHEDULE, scale=1.0, now=NOW, retry_after_s=10**9
    )
    assert capped == NOW + timedelta(days=1)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("Sat, 21 Nov 2026 12:01:00 GMT", 60.0),
        ("Sat, 21 Nov 2026 11:00:00 GMT", 0.0),
        ("soon", None),
        ("-5", None),
        (None, None),
        ("9" * 40, float(rules.retry_after_s_max)),
    ],
)
def test_retry_after_is_delay_seconds_or_an_http_date(header, seconds):
    assert rules.parse_retry_after(header, now=NOW) == seconds


@pytest.mark.parametrize(
    ("status_code", "outcome"),
    [
        (200, Outcome.SUCCESS),
        (204, Outcome.SUCCESS),
        (299, Outcome.SUCCESS),
        (301, Outcome.RETRY),
        (404, Outcome.RETRY),
        (410, Outcome.GONE),
        (429, Outcome.RETRY),
        (500, Outcome.RETRY),
        (None, Outcome.RETRY),
    ],
)
def test_any_2xx_is_success_410_is_gone_and_the_rest_is_retried(status_code, outcome):
    assert rules.outcome_of(status_code) is outcome


@pytest.mark.parametrize(
    ("statuses", "dispatched", "overall"),
    [
        ([], False, DeliveryStatus.PENDING),
        ([], True, DeliveryStatus.CANCELED),
        (["SUCCESS", "CANCELED"], True, DeliveryStatus.SUCCESS),
        (["SUCCESS", "FAIL"], True, DeliveryStatus.FAIL),
        (["FAIL", "PENDING"], True, DeliveryStatus.PENDING),
        (["PENDING", "SENDING", "SUCCESS"], True, DeliveryStatus.SENDING),
        (["CANCELED"], True, DeliveryStatus.CANCELED),
    ],
)
def test_a_messages_overall_status(statuses, dispatched, overall):
    assert rules.overall_status(statuses, dispatched=dispatched) is overall


def test_five_days_of_failures_disable_an_endpoint():
    assert not rules.should_disable_for_failing(None, NOW)
    assert not rules.should_disable_for_failing(NOW - timedelta(days=5, seconds=-1), NOW)
    assert rules.should_disable_for_failing(NOW - timedelta(days=5), NOW)


def test_the_payload_is_type_timestamp_and_data_in_compact_utf8():
    body = rules.payload_bytes("customer.created", NOW, {"id": "cus_1", "name": "Zoë"})
    assert body == (
        b'{"type":"customer.created","timestamp":"2026-11-21T12:00:00.000Z",'
        b'"data":{"id":"cus_1","name":"Zo\xc3\xab"}}'
    )


def test_our_signature_is_the_standard_webhooks_signature():
    secret = signing.new_secret()
    body = rules.payload_bytes("a.b", NOW, {"x": "é"})
    ours = signing.sign(secret, message_id="msg_1", timestamp_s=1_790_000_000, body=body)
    theirs = Webhook(secret).sign(
        "msg_1", datetime.fromtimestamp(1_790_000_000, UTC), body.decode()
    )
    assert ours == theirs


@pytest.mark.parametrize(
    "secret",
    ["whsec_", "sk_abc", "whsec_!!!!", "whsec_c2hvcnQ=", "whsec_" + "QUFB" * 30],
)
def test_unusable_secrets_are_refused(secret):
    with pytest.raises(signing.SecretError):
        signing.secret_key_bytes(secret)


def test_unpadded_base64_secrets_are_taken():
    secret = signing.new_secret().rstrip("=")
    assert len(signing.secret_key_bytes(secret)) == signing.secret_bytes_default


def test_rotation_keeps_the_newest_five_unexpired_previous_secrets():
    previous: list[signing.PreviousSecret] = []
    current = "whsec_0"
    for index in range(1, 8):
        previous = signing.rotated(current, previous, now=NOW)
        current = f"whsec_{index}"
    assert [item.key for item in previous] == [f"whsec_{index}" for index in (6, 5, 4, 3, 2)]
    assert all(item.expires_at == NOW + timedelta(hours=24) for item in previous)
    in_use = signing.secrets_in_use(current, previous, now=NOW + timedelta(hours=23))
    assert in_use[0] == current and len(in_use) == 6
    after = signing.secrets_in_use(current, previous, now=NOW + timedelta(hours=24))
    assert after == [current]
    later = signing.rotated(current, previous, now=NOW + timedelta(hours=25))
    assert [item.key for item in later] == [current]


def test_previous_secrets_survive_their_stored_form():
    item = signing.PreviousSecret(key="whsec_x", expires_at=NOW)
    assert signing.PreviousSecret.from_document(item.to_document()) == item
