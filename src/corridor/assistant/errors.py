"""The assistant's refusals (API.md §2)."""

from __future__ import annotations

from corridor.kit.errors import Conflict, CorridorError
from corridor.models.assistant import AssistantRun, AssistantToolCall


class RunInProgress(Conflict):
    """A message sent to a thread whose previous run has not ended."""

    code = "run_in_progress"

    def __init__(self, run: AssistantRun) -> None:
        super().__init__(
            f"Run {run.id} of this thread is {run.status}; wait for it to end, or cancel it",
            extra={"runId": run.id, "runStatus": run.status},
        )


class AlreadyDecided(Conflict):
    """A tool call confirmed or refused before (or cancelled with its run)."""

    code = "tool_call_already_decided"

    def __init__(self, call: AssistantToolCall) -> None:
        super().__init__(
            f"Tool call {call.id} is {call.status}; it can be confirmed only once",
            extra={"currentStatus": call.status},
        )


class ArgumentsChanged(Conflict):
    code = "tool_call_arguments_changed"

    def __init__(self) -> None:
        super().__init__("The stored arguments no longer match what was previewed; nothing ran")


class ProviderNotConfigured(CorridorError):
    status, code = 503, "assistant_provider_not_configured"
