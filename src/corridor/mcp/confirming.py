"""Write tools that wait for a person (issue 26, API.md 9): the credential's policy
(`toolConfirmation`) decides whether a write tool call asks, and the client's protocol and
capabilities decide how.

- 2026-07-28 with form elicitation: the call answers `input_required` with a form showing
  the exact effect and a `requestState` the SDK's RequestStateBoundary seals (AES-GCM under
  a key derived from the server key) and binds to the tool, the arguments' digest, the
  credential and an expiry; the retry with the person's answer runs the call once.
- 2025-11-25 with form elicitation and a back-channel (stdio): `elicitation/create` with
  the same form, inside the call.
- Otherwise the call is refused (fail closed) with the console page where an owner approves
  exactly this pending call (URL-mode elicitation when the client declares it); the same
  call with the same arguments then runs once.

Every path writes one `tcf_…` record (confirmations/) and its decision through
`confirmations.service.decide`; the record is locked while it is decided and used, so a
replayed, changed or expired state executes nothing, on any process.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import NoBackChannelError, UrlElicitationRequiredError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel

from corridor.auth.callers import Caller, ToolConfirmation
from corridor.confirmations import repository as confirmation_rows
from corridor.confirmations import service as confirmations
from corridor.confirmations.errors import (
    ConfirmationExpired,
    ConfirmationInvalid,
    ConfirmationRefused,
    ConfirmationRequired,
    ConfirmationUsed,
)
from corridor.confirmations.rules import (
    OVER_LIMIT_CODES,
    ConfirmationStatus,
    DecidedVia,
    Origin,
    arguments_sha256,
    asks,
    current_status,
)
from corridor.models.confirmation import ToolConfirmationRecord
from corridor.tools.base import Tool, ToolError
from corridor.tools.previews import Preview, preview
from corridor.tools.registry import ToolEnvironment, run_in_session

# The keys of Corridor's input requests in an InputRequiredResult.
FORM_KEY = "confirm"
URL_KEY = "approve"
CONFIRM_FIELD = "confirm"
CONSOLE_PAGE = "/console/tool-confirmations"


@dataclass(frozen=True, slots=True)
class Asking:
    """What the client can do: speak 2026-07-28, show a form, open a URL, answer a
    server-initiated request on this connection."""

    modern: bool
    form: bool
    url: bool

    @classmethod
    def of(cls, context: ServerRequestContext[Any, Any]) -> Asking:
        capabilities = context.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        # An elicitation capability naming no mode means form (2025-11-25).
        form = elicitation is not None and (elicitation.form is not None or elicitation.url is None)
        url = elicitation is not None and elicitation.url is not None
        return cls(context.protocol_version in MODERN_PROTOCOL_VERSIONS, form, url)


def canonical_arguments(parsed: BaseModel) -> dict[str, Any]:
    """The arguments as the tool understood them, as sent (what the hash binds)."""
    return parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)


def console_url(environment: ToolEnvironment, confirmation_id: str) -> str:
    base = environment.settings.public_base_url or (
        f"http://{environment.settings.host}:{environment.settings.port}"
    )
    return f"{base.rstrip('/')}{CONSOLE_PAGE}/{confirmation_id}"


def _message(shown: Preview, confirmation_id: str) -> str:
    return (
        f"Corridor asks you to confirm: {shown.summary}.\n{shown.effect}.\n"
        f"Nothing happens unless you confirm ({confirmation_id})."
    )


def _form(shown: Preview) -> dict[str, Any]:
    """The form: one boolean, the effect in its description (never a payment credential)."""
    return {
        "type": "object",
        "properties": {
            CONFIRM_FIELD: {
                "type": "boolean",
                "title": "Carry this out",
                "description": f"{shown.summary}. {shown.effect}",
                "default": False,
            }
        },
        "required": [CONFIRM_FIELD],
    }


def _state(record: ToolConfirmationRecord) -> str:
    return json.dumps({"tcf": record.id}, separators=(",", ":"))


def _confirmation_id(state: str) -> str:
    try:
        found = json.loads(state)
    except ValueError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("tcf"), str):
        raise ToolError.of(ConfirmationInvalid("The requestState is not one this server made"))
    return found["tcf"]


def _accepted(answer: types.ElicitResult | None) -> bool | None:
    """True: confirmed; False: declined or dismissed; None: no answer given."""
    if answer is None:
        return None
    if answer.action != "accept":
        return False
    return bool((answer.content or {}).get(CONFIRM_FIELD) is True)


async def _execute(
    environment: ToolEnvironment,
    caller: Caller,
    tool: Tool,
    parsed: BaseModel,
    confirmation_id: str,
    *,
    decision: tuple[bool, DecidedVia] | None,
) -> BaseModel:
    """In one transaction: lock the confirmation, check it is this call's, write the
    decision (when one is given, else it must hold an owner's approval), run the tool and
    mark the confirmation used. A refusal runs nothing."""
    now = environment.clock.now()
    sha = arguments_sha256(tool.name, canonical_arguments(parsed))
    async with environment.database.session(write=True) as session:
        record = await confirmation_rows.locked(session, confirmation_id)
        if (
            record is None
            or record.organization_id != caller.organization_id
            or record.actor_id != caller.actor_id
        ):
            raise ToolError.of(ConfirmationInvalid("This confirmation is not this credential's"))
        if record.tool != tool.name or record.arguments_sha256 != sha:
            raise ToolError.of(
                ConfirmationInvalid(
                    "The arguments differ from those confirmed (confirmation "
                    f"{record.id} is for {record.tool} with other arguments)"
                )
            )
        status = current_status(record.status, record.expires_at, now)
        if status is ConfirmationStatus.EXPIRED:
            record.status = ConfirmationStatus.EXPIRED.value
            await session.commit()
            raise ToolError.of(ConfirmationExpired(record.id))
        if decision is not None:
            approved, via = decision
            try:
                await confirmations.decide(
                    record, approved=approved, decided_by=caller.actor_id, via=via, now=now
                )
            except ConfirmationUsed as used:
                raise ToolError.of(used) from None
            if not approved:
                await session.commit()
                raise ToolError.of(ConfirmationRefused(record.id))
        elif record.status != ConfirmationStatus.APPROVED or record.executed_at is not None:
            raise ToolError.of(ConfirmationUsed(record.id, record.status))
        try:
            result = await run_in_session(
                session,
                caller,
                tool,
                parsed,
                settings=environment.settings,
                plugins=environment.plugins,
                now=now,
            )
        except ToolError as error:
            confirmations.mark_executed(record, {"error": error.body}, now)
            await session.commit()
            raise
        confirmations.mark_executed(
            record, {"result": result.model_dump(mode="json", by_alias=True)}, now
        )
        await session.commit()
        return result


async def _use_owner_approval(
    environment: ToolEnvironment, caller: Caller, tool: Tool, parsed: BaseModel
) -> str | None:
    """The id of an owner's unused approval of exactly this call, if there is one."""
    async with environment.database.session(write=False) as session:
        found = await confirmations.approval_to_use(
            session,
            caller=caller,
            tool=tool.name,
            arguments=canonical_arguments(parsed),
            now=environment.clock.now(),
        )
        return found.id if found is not None else None


async def _open(
    environment: ToolEnvironment, caller: Caller, tool: Tool, parsed: BaseModel, shown: Preview
) -> ToolConfirmationRecord:
    """The pending confirmation of this call: the one already waiting, or a new one."""
    now = environment.clock.now()
    arguments = canonical_arguments(parsed)
    async with environment.database.session(write=True) as session:
        record = await confirmations.pending_call(
            session, caller=caller, tool=tool.name, arguments=arguments, now=now
        )
        if record is None:
            record = confirmations.open_confirmation(
                session,
                caller=caller,
                origin=Origin.MCP,
                tool=tool.name,
                arguments=arguments,
                summary=shown.summary,
                effect=shown.effect,
                now=now,
                ttl_s=environment.settings.tool_confirmation_ttl_s,
            )
        await session.commit()
        return record


async def call_with_confirmation(
    environment: ToolEnvironment,
    context: ServerRequestContext[Any, Any],
    caller: Caller,
    tool: Tool,
    parsed: BaseModel,
    params: types.CallToolRequestParams,
) -> BaseModel | types.InputRequiredResult | None:
    """The tool's result when a confirmation was given (or an owner's approval used), an
    `input_required` asking for one, or None when this call needs none (run it as usual).
    Refusals are ToolErrors."""
    if params.request_state is not None:
        return await _retry(environment, context, caller, tool, parsed, params)
    approval = await _use_owner_approval(environment, caller, tool, parsed)
    if approval is not None:
        return await _execute(environment, caller, tool, parsed, approval, decision=None)
    shown = await preview(environment, caller, tool, parsed)
    over_limit = shown.refusal is not None and shown.refusal.code in OVER_LIMIT_CODES
    if shown.refusal is not None and not over_limit:
        return None  # it would be refused anyway: run it and answer the refusal
    if not asks(caller.tool_confirmation, would_exceed_limits=over_limit):
        return None
    record = await _open(environment, caller, tool, parsed, shown)
    asking = Asking.of(context)
    message = _message(shown, record.id)
    url = console_url(environment, record.id)
    if asking.modern and asking.form:
        return types.InputRequiredResult(
            input_requests={
                FORM_KEY: types.ElicitRequest(
                    params=types.ElicitRequestFormParams(
                        message=message, requested_schema=_form(shown)
                    )
                )
            },
            request_state=_state(record),
        )
    if not asking.modern and asking.form:
        try:
            answer = await context.session.elicit_form(message, _form(shown))
        except NoBackChannelError:
            pass  # stateless HTTP: nowhere for the answer to land; the owner decides
        else:
            decision = (_accepted(answer) is True, DecidedVia.MCP_ELICITATION)
            return await _execute(environment, caller, tool, parsed, record.id, decision=decision)
    return _to_console(asking, record, message, url)


def _to_console(
    asking: Asking, record: ToolConfirmationRecord, message: str, url: str
) -> types.InputRequiredResult:
    """Fail closed: point the person to the console page where an owner approves exactly
    this call (URL-mode elicitation when the client declares it)."""
    text = f"{message}\nAn owner approves it at {url}; then make the same call again."
    if asking.url and asking.modern:
        return types.InputRequiredResult(
            input_requests={
                URL_KEY: types.ElicitRequest(
                    params=types.ElicitRequestURLParams(message=text, url=url)
                )
            },
            request_state=_state(record),
        )
    if asking.url:
        raise UrlElicitationRequiredError(
            [types.ElicitRequestURLParams(message=text, url=url, elicitation_id=record.id)],
            message=f"Confirmation {record.id} needs an owner's approval at {url}",
        )
    raise ToolError.of(ConfirmationRequired(record.id, url, record.summary))


async def _retry(
    environment: ToolEnvironment,
    context: ServerRequestContext[Any, Any],
    caller: Caller,
    tool: Tool,
    parsed: BaseModel,
    params: types.CallToolRequestParams,
) -> BaseModel | types.InputRequiredResult:
    """The 2026-07-28 retry: the SDK verified the sealed state (tool, arguments' digest,
    credential, expiry) and hands the plaintext; the record decides the rest, once."""
    assert params.request_state is not None
    confirmation_id = _confirmation_id(params.request_state)
    responses = params.input_responses or {}
    form_answer = responses.get(FORM_KEY)
    if isinstance(form_answer, types.ElicitResult):
        decision = (_accepted(form_answer) is True, DecidedVia.MCP_FORM)
        return await _execute(environment, caller, tool, parsed, confirmation_id, decision=decision)
    # The URL path (or no answer yet): the owner's approval in the console decides.
    async with environment.database.session(write=False) as session:
        record = await confirmation_rows.locked(session, confirmation_id)
    if record is None or record.actor_id != caller.actor_id:
        raise ToolError.of(ConfirmationInvalid("This confirmation is not this credential's"))
    status = current_status(record.status, record.expires_at, environment.clock.now())
    if status is ConfirmationStatus.PENDING:
        shown = Preview(record.summary, record.effect, None)
        url = console_url(environment, record.id)
        return _to_console(Asking.of(context), record, _message(shown, record.id), url)
    if status is ConfirmationStatus.REFUSED:
        raise ToolError.of(ConfirmationRefused(record.id))
    return await _execute(environment, caller, tool, parsed, confirmation_id, decision=None)


def needs_a_look(caller: Caller, tool: Tool) -> bool:
    """Whether a call of `tool` by `caller` goes through the confirmation path at all."""
    return not tool.read_only and caller.tool_confirmation is not ToolConfirmation.NEVER
