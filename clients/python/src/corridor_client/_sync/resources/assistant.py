# Generated from corridor_client/_async/resources/assistant.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""The assistant: threads, messages, runs, and confirming the writes a run asks for."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource
from corridor_client.models import (
    AssistantMessageAndRun,
    AssistantMessageCreate,
    AssistantMessageRead,
    AssistantRunRead,
    AssistantThreadRead,
    Confirmation,
    Ok,
    ReadMarker,
    ThreadCreate,
    ThreadUpdate,
)


def parse_events(text: str) -> list[dict[str, Any]]:
    """Server-Sent Events as `{"id", "event", "data"}` dicts, `data` decoded from JSON."""
    found: list[dict[str, Any]] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            if name in {"id", "event", "data"}:
                fields[name] = value.strip()
        if "id" in fields and "data" in fields:
            fields["data"] = json.loads(fields["data"])
            found.append(fields)
    return found


class Assistant(Resource):
    def create_thread(
        self,
        params: ThreadCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> AssistantThreadRead:
        body = _calls.body(ThreadCreate, params, fields)
        call = _calls.create("/v1/assistant/threads", body, idempotency_key)
        return self._send(call, AssistantThreadRead)

    def list_threads(
        self, *, status: str | None = None, limit: int | None = None
    ) -> Pager[AssistantThreadRead]:
        return self._list("/v1/assistant/threads", AssistantThreadRead, status=status, limit=limit)

    def retrieve_thread(self, thread_id: str) -> AssistantThreadRead:
        path = _calls.path("/v1/assistant/threads/{}", thread_id)
        return self._send(_calls.read(path), AssistantThreadRead)

    def update_thread(
        self,
        thread_id: str,
        params: ThreadUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> AssistantThreadRead:
        path = _calls.path("/v1/assistant/threads/{}", thread_id)
        body = _calls.body(ThreadUpdate, params, fields)
        return self._send(_calls.update(path, body), AssistantThreadRead)

    def archive_thread(self, thread_id: str) -> AssistantThreadRead:
        path = _calls.path("/v1/assistant/threads/{}/archive", thread_id)
        return self._send(_calls.action(path), AssistantThreadRead)

    def send_message(
        self, thread_id: str, text: str, *, idempotency_key: str | None = None
    ) -> AssistantMessageAndRun:
        """The message and the run that answers it (queued)."""
        path = _calls.path("/v1/assistant/threads/{}/messages", thread_id)
        body = _calls.body(AssistantMessageCreate, {"text": text}, {})
        return self._send(_calls.create(path, body, idempotency_key), AssistantMessageAndRun)

    def list_messages(
        self, thread_id: str, *, limit: int | None = None
    ) -> Pager[AssistantMessageRead]:
        path = _calls.path("/v1/assistant/threads/{}/messages", thread_id)
        return self._list(path, AssistantMessageRead, limit=limit)

    def mark_read(self, thread_id: str, last_read_message_id: str) -> Ok:
        path = _calls.path("/v1/assistant/threads/{}/read", thread_id)
        body = _calls.body(ReadMarker, {"lastReadMessageId": last_read_message_id}, {})
        return self._send(_calls.action(path, body), Ok)

    def retrieve_run(self, run_id: str) -> AssistantRunRead:
        path = _calls.path("/v1/assistant/runs/{}", run_id)
        return self._send(_calls.read(path), AssistantRunRead)

    def cancel_run(self, run_id: str) -> AssistantRunRead:
        path = _calls.path("/v1/assistant/runs/{}/cancel", run_id)
        return self._send(_calls.action(path), AssistantRunRead)

    def confirm(self, run_id: str, tool_call_id: str, *, approved: bool) -> Ok:
        """Approve (runs exactly the previewed arguments) or refuse a write of a run."""
        path = _calls.path("/v1/assistant/runs/{}/tool-calls/{}/confirmation", run_id, tool_call_id)
        body = _calls.body(Confirmation, {"approved": approved}, {})
        return self._send(_calls.action(path, body), Ok)

    def events(self, run_id: str, *, after: int | None = None) -> list[dict[str, Any]]:
        """A run's events after the sequence number `after`; returns once the run has
        ended (to follow a live run, read the same path as an SSE stream)."""
        path = _calls.path("/v1/assistant/runs/{}/events", run_id)
        response = self._transport.send(_calls.read(path, _calls.query(lastEventId=after)))
        return parse_events(response.text)
