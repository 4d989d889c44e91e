"""The SDK's assistant methods against a live server (no workers here, so a run stays
queued until the test cancels it): threads, a message and its run, the run's events."""

from __future__ import annotations

import pytest

from corridor_client import Corridor
from corridor_client.errors import CorridorError


def test_a_thread_a_message_and_a_cancelled_run(corridor: Corridor) -> None:
    thread = corridor.assistant.create_thread(title="Payouts", visibility="organization")
    assert (thread.title, thread.visibility, thread.status) == ("Payouts", "organization", "active")
    renamed = corridor.assistant.update_thread(thread.id, title="Renamed")
    assert renamed.title == "Renamed"

    sent = corridor.assistant.send_message(thread.id, "balance of acc_01jd3x0p6x9e3k2v1m8q4r7s5t")
    assert sent.run.status == "queued"
    assert sent.run.provider == "sandbox"
    with pytest.raises(CorridorError) as busy:
        corridor.assistant.send_message(thread.id, "again")
    assert busy.value.code == "run_in_progress"

    assert corridor.assistant.retrieve_run(sent.run.id).status == "queued"
    assert corridor.assistant.cancel_run(sent.run.id).status == "cancelled"
    events = corridor.assistant.events(sent.run.id)
    assert [event["data"]["status"] for event in events if event["event"] == "run.status"] == [
        "queued",
        "cancelled",
    ]
    assert corridor.assistant.events(sent.run.id, after=int(events[-2]["id"])) == events[-1:]

    messages = list(corridor.assistant.list_messages(thread.id))
    assert [message.role for message in messages] == ["user"]
    assert corridor.assistant.mark_read(thread.id, messages[0].id).ok is True
    assert corridor.assistant.archive_thread(thread.id).status == "archived"
    archived = [item.id for item in corridor.assistant.list_threads(status="archived")]
    assert thread.id in archived
