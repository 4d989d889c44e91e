"""Helpers of the tool tests: callers from credentials, and tool calls as they answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from corridor.auth import service as auth
from corridor.auth.callers import Caller
from corridor.tools.base import ToolError
from corridor.tools.registry import ToolEnvironment, call_tool


def environment_of(app) -> ToolEnvironment:
    return app.state.tools


def tool_error_of_arguments(model: type[BaseModel], arguments: dict[str, Any]) -> ToolError:
    try:
        model.model_validate(arguments)
    except ValidationError as error:
        return ToolError.invalid_arguments(error)
    raise AssertionError("the arguments were accepted")


async def caller_of(app, credential: str, *, on_behalf_of: str | None = None) -> Caller:
    """The caller a bearer credential stands for, as the HTTP edge would build it."""
    async with app.state.database.session(write=False) as session:
        caller = await auth.authenticate(
            session,
            credential=credential,
            key_environment=app.state.settings.key_environment,
            now=app.state.clock.now(),
        )
        if on_behalf_of is not None:
            caller = await auth.bind_to_customer(session, caller=caller, customer_id=on_behalf_of)
        return caller


async def call(app, caller: Caller, name: str, **arguments: Any) -> dict[str, Any]:
    """A tool call that must succeed; its result as JSON."""
    result = await call_tool(environment_of(app), caller, name, arguments)
    return result.model_dump(mode="json", by_alias=True)


async def refused(app, caller: Caller, name: str, **arguments: Any) -> ToolError:
    """A tool call that must fail; its tool error."""
    try:
        await call_tool(environment_of(app), caller, name, arguments)
    except ToolError as error:
        return error
    raise AssertionError(f"{name} succeeded")
