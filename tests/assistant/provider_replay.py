"""A model provider's HTTP API played back from recorded answers, on 127.0.0.1.

The real provider code (pydantic-ai's Anthropic and OpenAI models over the official
SDKs) talks to it over real HTTP through `CORRIDOR_ASSISTANT_PROVIDER_BASE_URL`; each
request is kept for the test to inspect. (respx mocks `httpx`; these SDKs now send with
`httpx2`, which respx does not patch, so the recorded answers are served instead.)
Answers are recorded in the providers' non-streamed JSON form and sent as their event
streams when the request asks to stream, as the providers do.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.live_server import free_port

RECORDINGS = Path(__file__).parent / "recordings"
start_s_max = 10


def recording(name: str, **values: str) -> list[dict[str, Any]]:
    """A recorded exchange's answers with its {{placeholders}} filled in."""
    text = (RECORDINGS / f"{name}.json").read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    return json.loads(text)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class ProviderReplay:
    answers: list[dict[str, Any]]
    requests: list[Seen] = field(default_factory=list)
    base_url: str = ""

    async def _answer(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(Seen(request.url.path, dict(request.headers), body))
        if not self.answers:
            return JSONResponse({"error": {"message": "no recorded answer left"}}, status_code=500)
        answer = self.answers.pop(0)
        if not body.get("stream"):
            return JSONResponse(answer)
        if request.url.path.endswith("/messages"):
            return Response(_anthropic_stream(answer), media_type="text/event-stream")
        return Response(_openai_stream(answer), media_type="text/event-stream")


@contextlib.contextmanager
def provider_replay(answers: list[dict[str, Any]], *, prefix: str = "") -> Iterator[ProviderReplay]:
    replay = ProviderReplay(list(answers))
    app = Starlette(routes=[Route("/{path:path}", replay._answer, methods=["POST"])])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_s_max
    while not server.started:
        assert time.monotonic() < deadline, "the provider replay did not start"
        time.sleep(0.02)
    replay.base_url = f"http://127.0.0.1:{port}{prefix}"
    try:
        yield replay
    finally:
        server.should_exit = True
        thread.join(timeout=start_s_max)


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _anthropic_stream(message: dict[str, Any]) -> str:
    """A Messages API answer as the event stream Anthropic sends for it."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events = [_event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opened},
            ),
            _event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            _event("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        _event("message_stop", {"type": "message_stop"}),
    ]
    return "".join(events)


def _openai_stream(completion: dict[str, Any]) -> str:
    """A chat completion as the chunks OpenAI streams for it."""
    choice = completion["choices"][0]
    message = choice["message"]
    base = {key: completion[key] for key in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [
            {**call, "index": index} for index, call in enumerate(message["tool_calls"])
        ]
    chunks = [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
        {**base, "choices": [], "usage": completion["usage"]},
    ]
    return "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
