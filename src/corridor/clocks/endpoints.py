"""HTTP endpoints of the sandbox clock (API.md 9)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from fastapi import APIRouter, Response

from corridor.clocks import service
from corridor.clocks.schemas import ClockAdvance, ClockRead
from corridor.web.context import Context, RequestContext
from corridor.web.openapi import ERROR_RESPONSES

router = APIRouter(prefix="/v1/sandbox/clock", responses=ERROR_RESPONSES)
TAGS: list[str | Enum] = ["Sandbox"]


def _system_now(context: RequestContext) -> datetime:
    """Real time: the request's own clock is already the organization's."""
    now: datetime = context.request.app.state.clock.now()
    return now


@router.get("", response_model=ClockRead, tags=TAGS, summary="Read the sandbox clock")
async def read_clock(context: Context) -> Response:
    """The organization's time in the sandbox: real time until it is advanced. 404 in
    production."""
    clock = await service.read_clock(
        context.session,
        caller=context.caller,
        sandbox=context.settings.is_sandbox,
        system_now=_system_now(context),
    )
    return await context.respond(clock)


@router.post("/advance", response_model=ClockRead, tags=TAGS, summary="Advance the sandbox clock")
async def advance_clock(body: ClockAdvance, context: Context) -> Response:
    """Move the organization's clock forward, by `seconds` or `to` an instant (never
    backwards), as Stripe's test clocks do. Everything that reads the time for this
    organization follows it: cutoffs and settlement windows of its transfers, bank files,
    agent spend windows and mandate periods, statement months. Work that came due (a
    window's cutoff, a settlement, a scheduled step) is done by the workers within
    seconds of the advance. `freeze: true` stops the clock at its new time until the
    next advance. Needs `sandbox:write`; 404 in production."""
    clock = await service.advance_clock(
        context.session,
        caller=context.caller,
        sandbox=context.settings.is_sandbox,
        system_now=_system_now(context),
        seconds=body.seconds,
        to=body.to,
        freeze=body.freeze,
    )
    return await context.respond(clock)


@router.post("/reset", response_model=ClockRead, tags=TAGS, summary="Reset the sandbox clock")
async def reset_clock(context: Context) -> Response:
    """Back to real time, running. Work already scheduled at the advanced time waits for
    real time to reach it. Needs `sandbox:write`; 404 in production."""
    clock = await service.reset_clock(
        context.session,
        caller=context.caller,
        sandbox=context.settings.is_sandbox,
        system_now=_system_now(context),
    )
    return await context.respond(clock)
