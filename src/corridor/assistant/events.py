"""A run's events, written in the transaction of the change they tell about: its SSE
stream replays them in order (`sequence` is the SSE id; Last-Event-ID resumes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.assistant.schemas import AssistantMessageRead, AssistantRunRead
from corridor.kit import metrics
from corridor.models.assistant import AssistantMessage, AssistantRun, AssistantRunEvent

RUN_STATUS = "run.status"
MESSAGE_CREATED = "message.created"
MESSAGE_UPDATED = "message.updated"
TEXT_DELTA = "text.delta"


def record(
    session: AsyncSession, run: AssistantRun, event_type: str, data: dict[str, Any], now: datetime
) -> None:
    sequence = run.next_event_sequence
    run.next_event_sequence = sequence + 1
    session.add(
        AssistantRunEvent(
            run_id=run.id, sequence=sequence, type=event_type, data=data, created_at=now
        )
    )


def status_changed(session: AsyncSession, run: AssistantRun, now: datetime) -> None:
    record(session, run, RUN_STATUS, AssistantRunRead.of(run).to_json_dict(), now)
    entered = metrics.ASSISTANT_RUNS.labels(metrics.bounded(run.status))
    metrics.after_commit(session, entered.inc)


def message_event(
    session: AsyncSession,
    run: AssistantRun,
    message: AssistantMessage,
    now: datetime,
    *,
    updated: bool = False,
) -> None:
    kind = MESSAGE_UPDATED if updated else MESSAGE_CREATED
    record(session, run, kind, AssistantMessageRead.of(message).to_json_dict(), now)


def text_deltas(
    session: AsyncSession, run: AssistantRun, message_id: str, text: str, now: datetime
) -> None:
    """The text of a message in pieces, as a client shows it arriving."""
    for start in range(0, len(text), text_delta_chars):
        piece = text[start : start + text_delta_chars]
        record(session, run, TEXT_DELTA, {"messageId": message_id, "text": piece}, now)


text_delta_chars = 200
