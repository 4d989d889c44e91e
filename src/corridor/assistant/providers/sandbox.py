"""The built-in `sandbox` model: no AI, a few fixed requests, the real tools.

It understands "balance of acc_…", "send 25 USD to <payee name or ext_…> from acc_…
[by ACH]" and "show transfers awaiting approval", calls the same registry tools a real
model would (so writes pause for confirmation the same way), and answers anything else
by saying what it can do. Every run it answers is named `sandbox`. Its answers are
streamed a few words at a time, as a real provider's are, so a client sees `text.delta`
events arrive before the message is recorded.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

_ID = r"[0-9a-z]{26}"
_BALANCE = re.compile(rf"\bbalance\b.*?\b(acc_{_ID})\b", re.IGNORECASE)
_SEND = re.compile(
    rf"\bsend\s+(?P<amount>[0-9]+(?:\.[0-9]+)?)\s+(?P<currency>[A-Za-z]{{3,5}})\s+to\s+"
    rf"(?P<payee>.+?)\s+from\s+(?P<source>acc_{_ID})(?:\s+by\s+(?P<rail>[A-Za-z_]+))?\s*[.!]?\s*$",
    re.IGNORECASE,
)
_APPROVALS = re.compile(r"\b(awaiting|pending|waiting)\b.*\bapproval\b", re.IGNORECASE)
HELP = (
    "I am Corridor's built-in sandbox assistant (no AI model is configured), so I understand "
    "only a few requests:\n"
    '- "balance of acc_…"\n'
    '- "send 25 USD to Bob Builder from acc_…" (a counterparty\'s name or an ext_… id; '
    'add "by WIRE" to choose the rail)\n'
    '- "show transfers awaiting approval"\n'
    "Every payment waits for your confirmation before it is sent. Set "
    "CORRIDOR_ASSISTANT_PROVIDER to anthropic or openai, with its key, for a full model."
)


words_per_text_chunk_max = 3
_WORD = re.compile(r"\S+\s*|\s+")


def sandbox_model() -> FunctionModel:
    return FunctionModel(answer, stream_function=stream_answer, model_name="corridor-sandbox")


def text_chunks(text: str) -> list[str]:
    """The text a few words at a time, whitespace kept: joined, the chunks are the text."""
    words = _WORD.findall(text)
    return [
        "".join(words[start : start + words_per_text_chunk_max])
        for start in range(0, len(words), words_per_text_chunk_max)
    ]


async def stream_answer(
    messages: list[ModelMessage], info: AgentInfo
) -> AsyncIterator[str | DeltaToolCalls]:
    """The same answer as `answer`, streamed: text in chunks, a tool call whole."""
    response = answer(messages, info)
    for part in response.parts:
        if isinstance(part, TextPart):
            for chunk in text_chunks(part.content):
                yield chunk
        elif isinstance(part, ToolCallPart):
            yield {
                0: DeltaToolCall(
                    name=part.tool_name,
                    json_args=part.args_as_json_str(),
                    tool_call_id=part.tool_call_id,
                )
            }


def _call(tool: str, arguments: dict[str, Any]) -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart(tool, arguments, tool_call_id=f"call_{uuid.uuid4().hex}")],
        model_name="corridor-sandbox",
    )


def _say(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)], model_name="corridor-sandbox")


def _last_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""


def _returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return []
    return [part for part in last.parts if isinstance(part, ToolReturnPart)]


def answer(messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
    prompt = _last_prompt(messages)
    returns = _returns(messages)
    if returns:
        return _after_tool(prompt, returns[-1])
    if match := _BALANCE.search(prompt):
        return _call("get_balance", {"accountId": match.group(1).lower()})
    if match := _SEND.search(prompt.strip()):
        return _start_payment(match)
    if _APPROVALS.search(prompt):
        return _call("list_transfers", {"agentApprovalStatus": "PENDING", "limit": 20})
    return _say(HELP)


def _outcome(part: ToolReturnPart) -> dict[str, Any]:
    content = part.content
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            return {"error": {"message": content}}
    return content if isinstance(content, dict) else {"result": content}


def _payment_arguments(match: re.Match[str], external_account_id: str) -> dict[str, Any]:
    currency = match.group("currency").upper()
    return {
        "source": {"accountId": match.group("source").lower()},
        "destination": {
            "externalAccountId": external_account_id,
            "paymentRail": (match.group("rail") or "ACH").upper(),
            "currency": currency,
        },
        "amount": match.group("amount"),
        "currency": currency,
        "submit": True,
    }


def _start_payment(match: re.Match[str]) -> ModelResponse:
    payee = match.group("payee").strip().strip("\"'")
    if re.fullmatch(rf"ext_{_ID}", payee, re.IGNORECASE):
        return _call("create_transfer", _payment_arguments(match, payee.lower()))
    return _call("list_counterparties", {"limit": 100})


def _after_tool(prompt: str, part: ToolReturnPart) -> ModelResponse:
    outcome = _outcome(part)
    if "declined" in outcome:
        return _say("Understood: I did not do it.")
    if "error" in outcome:
        error = outcome["error"]
        return _say(f"That did not work: {error.get('message', 'refused')} ({error.get('code')}).")
    result = outcome.get("result", {})
    if part.tool_name == "get_balance":
        available, pending = result["available"], result["pending"]
        return _say(
            f"Account {result['accountId']} has {available['amount']} {available['currency']} "
            f"available ({pending['amount']} {pending['currency']} pending)."
        )
    if part.tool_name == "list_transfers":
        return _say(_approvals_text(result.get("data", [])))
    if part.tool_name in {"list_counterparties", "list_external_accounts"}:
        match = _SEND.search(prompt.strip())
        return _continue_payment(part.tool_name, result, match) if match else _say(HELP)
    if part.tool_name == "create_transfer":
        amount = result["sourceAmount"]
        return _say(
            f"Sent: transfer {result['id']} of {amount['amount']} {amount['currency']} is "
            f"{result['status']}."
        )
    return _say("Done.")


def _continue_payment(tool: str, result: dict[str, Any], match: re.Match[str]) -> ModelResponse:
    payee = match.group("payee").strip().strip("\"'")
    if tool == "list_counterparties":
        found = [item for item in result.get("data", []) if item["name"].lower() == payee.lower()]
        if not found:
            return _say(f"I found no counterparty named {json.dumps(payee)}.")
        return _call("list_external_accounts", {"counterpartyId": found[0]["id"], "limit": 100})
    currency = match.group("currency").upper()
    accounts = [
        item
        for item in result.get("data", [])
        if item["currency"] == currency and item["status"] == "ACTIVE"
    ]
    if not accounts:
        return _say(f"{json.dumps(payee)} has no active {currency} bank account.")
    return _call("create_transfer", _payment_arguments(match, accounts[0]["id"]))


def _approvals_text(transfers: list[dict[str, Any]]) -> str:
    if not transfers:
        return "No transfers are awaiting approval."
    lines = [
        f"- {item['id']}: {item['sourceAmount']['amount']} {item['sourceAmount']['currency']} "
        f"by agent {item.get('agentId')}"
        for item in transfers
    ]
    return f"{len(transfers)} transfer(s) await an owner's approval:\n" + "\n".join(lines)
