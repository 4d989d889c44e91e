"""Wire shapes of assistant threads, messages and runs (spec 2.10–2.12, 4.2)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import ConfigDict, Field, StrictBool, StrictStr

from corridor.assistant.rules import (
    PinnedType,
    Visibility,
    message_text_chars_max,
    pinned_label_chars_max,
    title_chars_max,
)
from corridor.kit.ids import id_pattern
from corridor.kit.schemas import (
    InSchema,
    RequestModel,
    ResponseModel,
    SingleLineText,
    Sparse,
    Timestamp,
)
from corridor.models.assistant import AssistantMessage, AssistantRun

Title = Annotated[SingleLineText, Field(min_length=1, max_length=title_chars_max)]
Identifier = Annotated[StrictStr, Field(min_length=1, max_length=64)]


class PinnedContextIn(RequestModel):
    """What the thread is about: a customer, transfer, agent or account of the organization."""

    type: PinnedType = PinnedType.CUSTOMER
    id: Identifier
    label: Annotated[SingleLineText, Field(max_length=pinned_label_chars_max)] | None = None


class ThreadCreate(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"title": "Payouts this week", "visibility": "private"}]}
    )

    title: Title | None = Field(default=None, examples=["Payouts this week"])
    visibility: Visibility = Visibility.PRIVATE
    pinned_context: PinnedContextIn | None = None
    agent_id: Annotated[Identifier, InSchema(pattern=id_pattern("agt"))] | None = Field(
        default=None,
        description=(
            "Act as this agent (agt_…): the thread's tool calls carry the agent's authority "
            "(its status, allowlist, limits and mandates, through its newest live key), and "
            "every write still waits for your confirmation. Set at creation only; omit to act "
            "as yourself."
        ),
        examples=["agt_01jd3x0p6x9e3k2v1m8q4r7s5t"],
    )


class ThreadUpdate(RequestModel):
    """Only the fields sent change; `pinnedContext: null` unpins."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "title": "Supplier payouts",
                    "pinnedContext": {
                        "type": "customer",
                        "id": "cus_01jd3x0p6x9e3k2v1m8q4r7s5t",
                        "label": "Analytical Engines Ltd",
                    },
                }
            ]
        }
    )

    title: Title | None = None
    visibility: Visibility | None = None
    pinned_context: PinnedContextIn | None = None


class PinnedContextRead(ResponseModel):
    type: str
    id: str
    label: str | None = None


class AssistantThreadRead(ResponseModel):
    """Spec 2.10."""

    id: str = Field(examples=["thr_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    app: str = Field(examples=["console"])
    env: str = Field(examples=["sandbox"])
    organization_id: str
    user_id: str
    title: str
    status: str = Field(examples=["active"])
    mcp_session_ids: dict[str, Any] = Field(
        description=(
            "The MCP sessions the thread's runs call tools in, by server name: Corridor's "
            "tool server is `corridor`. Empty until the thread's first run starts."
        ),
        examples=[{"corridor": "mcps_01jd3x0p6x9e3k2v1m8q4r7s5t"}],
    )
    visibility: str = Field(examples=["private"])
    created_at: Timestamp
    updated_at: Timestamp
    pinned_context: PinnedContextRead | None
    agent_id: str | None = Field(
        description="The agent the thread acts as; null when it acts as its user"
    )
    last_message_at: Timestamp | None
    retention_expires_at: Timestamp
    active_run_status: str | None = Field(
        description="The status of the thread's latest run; null before the first message"
    )
    unread: bool = Field(description="An assistant message arrived after the last read one")


class AssistantThreadList(ResponseModel):
    data: list[AssistantThreadRead]
    next_cursor: str | None = None
    has_more: bool


class AssistantMessageCreate(RequestModel):
    # Chat text keeps zero-width joiners (emoji sequences, Persian and Indic scripts).
    free_text_fields: ClassVar[frozenset[str]] = frozenset({"text"})

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"text": "Send 25 USD to Bob Builder from acc_01jd3x0p6x9e3k2v1m8q4r7s5t"}]
        }
    )

    text: Annotated[StrictStr, Field(min_length=1, max_length=message_text_chars_max)] = Field(
        examples=["What is the balance of acc_01jd3x0p6x9e3k2v1m8q4r7s5t?"]
    )


class PartRead(Sparse):
    """A message part: `text`, a `tool_call` (with `argsSummary`, `status` and a `preview`
    while it awaits confirmation) or a `tool_result`."""

    optional: ClassVar[frozenset[str]] = frozenset(
        {"text", "tool_call_id", "tool", "args_summary", "status", "preview"}
    )
    type: str = Field(examples=["tool_call"])
    text: str | None = None
    tool_call_id: str | None = None
    tool: str | None = None
    args_summary: str | None = None
    status: str | None = None
    preview: str | None = None


class AssistantMessageRead(ResponseModel):
    """Spec 2.11."""

    id: str = Field(examples=["amsg_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    thread_id: str
    role: str = Field(examples=["assistant"])
    parts: list[PartRead]
    created_at: Timestamp
    run_id: str | None
    tokens_in: int | None
    tokens_out: int | None

    @classmethod
    def of(cls, message: AssistantMessage) -> AssistantMessageRead:
        return cls(
            id=message.id,
            thread_id=message.thread_id,
            role=message.role,
            parts=[PartRead.model_validate(part) for part in message.parts],
            created_at=message.created_at,
            run_id=message.run_id,
            tokens_in=message.tokens_in,
            tokens_out=message.tokens_out,
        )


class AssistantMessageList(ResponseModel):
    data: list[AssistantMessageRead]
    next_cursor: str | None = None
    has_more: bool


class AssistantRunRead(ResponseModel):
    """Spec 2.12. `provider` says which model answered: `sandbox` is the built-in one."""

    id: str = Field(examples=["run_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    thread_id: str
    user_id: str
    organization_id: str
    app: str
    status: str = Field(examples=["awaiting_confirmation"])
    created_at: Timestamp
    updated_at: Timestamp
    model: str | None
    provider: str | None = Field(examples=["sandbox"])
    cost_usd: str | None = Field(examples=["0.0042"])
    cancel_requested_at: Timestamp | None
    started_at: Timestamp | None
    ended_at: Timestamp | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None

    @classmethod
    def of(cls, run: AssistantRun) -> AssistantRunRead:
        return cls(
            id=run.id,
            thread_id=run.thread_id,
            user_id=run.user_id,
            organization_id=run.organization_id,
            app=run.app,
            status=run.status,
            created_at=run.created_at,
            updated_at=run.updated_at,
            model=run.model,
            provider=run.provider,
            cost_usd=run.cost_usd,
            cancel_requested_at=run.cancel_requested_at,
            started_at=run.started_at,
            ended_at=run.ended_at,
            error=run.error,
            tokens_in=run.tokens_in,
            tokens_out=run.tokens_out,
        )


class AssistantMessageAndRun(ResponseModel):
    message: AssistantMessageRead
    run: AssistantRunRead


class ReadMarker(RequestModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"lastReadMessageId": "amsg_01jd3x0p6x9e3k2v1m8q4r7s5t"}]}
    )

    last_read_message_id: Identifier = Field(examples=["amsg_01jd3x0p6x9e3k2v1m8q4r7s5t"])


class Confirmation(RequestModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"approved": True}]})

    approved: StrictBool = Field(examples=[True])


class Ok(ResponseModel):
    ok: bool = True
