"""What a tool is: declared once, with who may use it, and the context it runs in."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind
from corridor.auth.scopes import Scope
from corridor.config import Settings
from corridor.kit.errors import CorridorError
from corridor.kit.schemas import RequestModel
from corridor.transfers.plugins import TransferPlugins


class ToolKind(StrEnum):
    READ = "read"
    WRITE = "write"


class ToolInput(RequestModel):
    """A tool's arguments: camelCase names like the REST API, unknown names refused, so a
    model cannot slip in `organizationId` or any field the server owns."""


class ToolResult(BaseModel):
    """A tool's answer: camelCase names, amounts as decimal strings."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


@dataclass(frozen=True, slots=True)
class ToolContext:
    """One tool call's unit of work: the caller it acts as and a session of its own."""

    session: AsyncSession
    caller: Caller
    now: datetime
    settings: Settings
    plugins: TransferPlugins


class ToolError(Exception):
    """A tool call refused: the REST error's code and body (spec 7 denials included)."""

    def __init__(self, code: str, message: str, *, status: int, body: dict[str, Any]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.body = body

    @classmethod
    def of(cls, error: CorridorError) -> ToolError:
        body = {key: value for key, value in error.body().items() if key != "requestId"}
        return cls(error.code, error.message, status=error.status, body=body)

    @classmethod
    def invalid_arguments(cls, error: ValidationError) -> ToolError:
        problems = [
            {
                "field": ".".join(str(part) for part in problem["loc"]) or "arguments",
                "message": problem["msg"].removeprefix("Value error, "),
            }
            for problem in error.errors(include_url=False)
        ]
        first = problems[0] if problems else {"field": "arguments", "message": "invalid"}
        message = f"{first['field']}: {first['message']}"
        body = {"code": "validation_error", "message": message, "errors": problems}
        return cls("validation_error", message, status=422, body=body)


@dataclass(frozen=True, slots=True)
class Refused:
    """A handler's named result for a refusal whose work is kept (a submit parked for an
    owner's approval): the tool call commits, then answers with `error`, as the REST
    endpoint does with `context.refuse`."""

    error: CorridorError


InputT = TypeVar("InputT", bound=RequestModel)
ResultT = TypeVar("ResultT", bound=BaseModel)
Handler = Callable[[ToolContext, Any], Awaitable[BaseModel | Refused]]


@dataclass(frozen=True)
class Tool(Generic[InputT, ResultT]):
    """A tool declared once; the assistant and MCP list and call it from the registry.

    `scope` is the REST scope the service checks; the flags below only decide whether the
    tool is offered at all (the service checks the caller again when it runs).
    """

    name: str
    description: str
    input: type[InputT]
    result: type[ResultT]
    kind: ToolKind
    scope: Scope
    handler: Callable[[ToolContext, InputT], Awaitable[ResultT | Refused]]
    title: str = ""
    sandbox_only: bool = False
    # Agent keys act only for their agent (spec 5.4): tools outside that stay hidden.
    for_agent_keys: bool = True
    # Platform sessions create drafts or transfers held IN_REVIEW, nothing else that
    # moves money (spec 5.9).
    for_platform_sessions: bool = True
    # Only a console session or an unrestricted key (approving agent payments).
    unrestricted_only: bool = False
    # Offered to an agent key whatever its scopes say (it reads its own agent).
    agent_key_reads_own: bool = False
    destructive: bool = False
    idempotent: bool = False
    # What a person reads before confirming (the assistant's argsSummary): from the
    # arguments and, when the dry run succeeded, the result it would give.
    summarize: Callable[[InputT, Any], str] | None = field(default=None)

    def available_to(self, caller: Caller, settings: Settings) -> bool:
        if self.sandbox_only and not settings.is_sandbox:
            return False
        if caller.kind is CallerKind.AGENT_KEY:
            if not self.for_agent_keys:
                return False
            if self.agent_key_reads_own:
                return True
        if caller.kind is CallerKind.PLATFORM_SESSION and not self.for_platform_sessions:
            return False
        if self.unrestricted_only and not caller.is_unrestricted:
            return False
        return caller.has_scope(self.scope)

    @property
    def read_only(self) -> bool:
        return self.kind is ToolKind.READ

    def input_schema(self) -> dict[str, Any]:
        return _input_schema(self.input)

    def output_schema(self) -> dict[str, Any]:
        return _output_schema(self.result)


# JSON schemas are made once per model: every tool list of every caller repeats them.
@functools.cache
def _input_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True)


@functools.cache
def _output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True, mode="serialization")
