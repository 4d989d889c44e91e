"""The registry: which tools a caller gets, and calling one as that caller.

A call is one unit of work: its own session, committed when the tool succeeds, rolled
back when it fails. A handler that answers `Refused` (a parked agent payment) keeps its
work: the call commits, then answers with the refusal's error. Arguments are validated
against the tool's input model before anything runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.config import Settings
from corridor.kit import aftermath, metrics, tracing
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.errors import CorridorError, Forbidden
from corridor.tools.base import Refused, Tool, ToolContext, ToolError, ToolKind
from corridor.tools.catalog import TOOLS
from corridor.transfers.plugins import TransferPlugins

TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
assert len(TOOLS_BY_NAME) == len(TOOLS), "tool names are unique"


@dataclass(frozen=True, slots=True)
class ToolEnvironment:
    """What every tool call needs besides its caller (create_app and the worker build it)."""

    database: Database
    clock: Clock
    settings: Settings
    plugins: TransferPlugins


def tools_for(caller: Caller, settings: Settings) -> list[Tool]:
    """The tools this caller is offered, in a stable order (spec 5.9: the key decides)."""
    return [tool for tool in TOOLS if tool.available_to(caller, settings)]


def tool_for(caller: Caller, settings: Settings, name: str) -> Tool:
    """The named tool, if this caller is offered it; otherwise a tool error."""
    tool = TOOLS_BY_NAME.get(name)
    if tool is None:
        raise ToolError(
            "unknown_tool",
            f"No tool named {name!r}",
            status=404,
            body={"code": "unknown_tool", "message": f"No tool named {name!r}"},
        )
    if not tool.available_to(caller, settings):
        raise ToolError.of(Forbidden(f"This credential cannot use the tool {name!r}"))
    return tool


def parse_arguments(tool: Tool, arguments: dict[str, Any] | None) -> BaseModel:
    try:
        return tool.input.model_validate(arguments or {})
    except ValidationError as error:
        raise ToolError.invalid_arguments(error) from None


async def call_tool(
    environment: ToolEnvironment,
    caller: Caller,
    name: str,
    arguments: dict[str, Any] | None,
) -> BaseModel:
    """Run a tool as `caller`; its result, or ToolError carrying the REST error code."""
    tool = tool_for(caller, environment.settings, name)
    return await run_tool(environment, caller, tool, parse_arguments(tool, arguments))


async def run_tool(
    environment: ToolEnvironment, caller: Caller, tool: Tool, arguments: BaseModel
) -> BaseModel:
    """Run a tool whose arguments are already parsed, in a unit of work of its own (a
    span `tool <name>` while traces are on; counted in `corridor_tool_calls_total`)."""
    with _observed(tool):
        return await _run_tool(environment, caller, tool, arguments)


@contextlib.contextmanager
def _observed(tool: Tool) -> Iterator[None]:
    name = metrics.bounded(tool.name)
    with tracing.span(f"tool {tool.name}", attributes={"corridor.tool": tool.name}) as span:
        try:
            yield
        except BaseException as error:
            metrics.TOOL_CALLS.labels(name, "error").inc()
            tracing.mark_failed(span, type(error).__name__)
            raise
        metrics.TOOL_CALLS.labels(name, "ok").inc()


async def _run_tool(
    environment: ToolEnvironment, caller: Caller, tool: Tool, arguments: BaseModel
) -> BaseModel:
    write = tool.kind is ToolKind.WRITE
    async with environment.database.session(write=write) as session:
        context = ToolContext(
            session=session,
            caller=caller,
            now=environment.clock.now(),
            settings=environment.settings,
            plugins=environment.plugins,
        )
        try:
            result = await tool.handler(context, arguments)
        except CorridorError as error:
            await session.rollback()
            await aftermath.write_after(environment.database, error)
            raise ToolError.of(error) from None
        except BaseException:
            await session.rollback()
            raise
        await session.commit()
        return _answer(result)


async def run_in_session(
    session: AsyncSession,
    caller: Caller,
    tool: Tool,
    arguments: BaseModel,
    *,
    settings: Settings,
    plugins: TransferPlugins,
    now: datetime,
) -> BaseModel:
    """Run a tool inside a caller's unit of work (the assistant's confirmation): its work
    is kept or undone by a savepoint, and the caller's transaction commits either way."""
    context = ToolContext(
        session=session, caller=caller, now=now, settings=settings, plugins=plugins
    )
    with _observed(tool):
        savepoint = await session.begin_nested()
        try:
            result = await tool.handler(context, arguments)
        except CorridorError as error:
            await savepoint.rollback()
            await aftermath.write_within(session, error)
            raise ToolError.of(error) from None
        except BaseException:
            await savepoint.rollback()
            raise
        await savepoint.commit()
        return _answer(result)


async def dry_run(
    environment: ToolEnvironment, caller: Caller, tool: Tool, arguments: BaseModel
) -> BaseModel:
    """What the tool would answer, computed by the real services inside a transaction that
    is always rolled back: nothing is written, no event leaves (the assistant's preview)."""
    async with environment.database.session(write=True) as session:
        context = ToolContext(
            session=session,
            caller=caller,
            now=environment.clock.now(),
            settings=environment.settings,
            plugins=environment.plugins,
        )
        try:
            result = await tool.handler(context, arguments)
        except CorridorError as error:
            raise ToolError.of(error) from None
        finally:
            await session.rollback()
        return _answer(result)


def _answer(result: BaseModel | Refused) -> BaseModel:
    """The tool's result, or its refusal as a ToolError once the work was kept."""
    if isinstance(result, Refused):
        raise ToolError.of(result.error)
    return result
