"""Helpers of the webhook tests: a real HTTP receiver, driving the worker, making endpoints
and messages, and verifying deliveries with the standardwebhooks library."""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook

from corridor.config import Settings
from corridor.models.event import emit
from corridor.webhooks import dispatcher

# Bounds so a broken worker fails a test instead of hanging it.
dispatch_runs_max = 50
hold_s_max = 30


# --- A receiver: a real HTTP server on 127.0.0.1 --------------------------------------------


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"ok"
    # Hold the answer until this is set (or hold_s_max passes): an endpoint that hangs.
    hold: threading.Event | None = None


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def message_id(self) -> str:
        return self.headers["webhook-id"]


class _Server(ThreadingHTTPServer):
    # Workers open dozens of connections at once; the default backlog of 5 would drop some.
    request_queue_size = 256


class Receiver:
    """Records every POST to its own path and answers from a script (200 once it runs out).

    Each receiver has a path of its own: a leftover delivery of an earlier test that finds
    this port gets a 404 and is not recorded."""

    def __init__(self) -> None:
        self.path = f"/hooks/{uuid.uuid4().hex}"
        self.received: list[Received] = []
        self.arrived = threading.Condition()
        self._script: list[Answer] = []
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.path}"

    def answer_with(self, *answers: int | Answer) -> None:
        with self._lock:
            self._script.extend(
                answer if isinstance(answer, Answer) else Answer(status=answer)
                for answer in answers
            )

    def next_answer(self) -> Answer:
        with self._lock:
            return self._script.pop(0) if self._script else Answer()

    def record(self, received: Received) -> None:
        with self.arrived:
            self.received.append(received)
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout_s: float = hold_s_max) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.received) >= count, timeout=timeout_s)

    def ids(self) -> list[str]:
        return [item.message_id for item in self.received]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            expected = int(self.headers.get("content-length", "0"))
            try:
                body = self.rfile.read(expected)
            except OSError:
                return  # the sender died mid-request
            if len(body) != expected:
                return  # cut short: a receiver never sees it as a request
            if self.path != receiver.path:
                self._answer(Answer(status=404, body=b"unknown path"))
                return
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = receiver.next_answer()
            receiver.record(Received(path=self.path, headers=headers, body=body))
            if answer.hold is not None:
                answer.hold.wait(hold_s_max)
            self._answer(answer)

        def _answer(self, answer: Answer) -> None:
            try:
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)
            except OSError:
                pass  # the client gave up (a timeout test): nothing to answer to

        def log_message(self, *_: Any) -> None:
            pass

    return Handler


# --- Driving the worker -------------------------------------------------------------------


def worker_settings(app, **changes: Any) -> Settings:
    """The app's settings with webhook settings changed (e.g. a scaled-down schedule)."""
    return app.state.settings.model_copy(update=changes)


async def deliver(app, settings: Settings | None = None, clock=None) -> int:
    """Run the worker until nothing is due; returns the attempts it made."""
    settings = settings or app.state.settings
    clock = clock or app.state.clock
    total = 0
    for _ in range(dispatch_runs_max):
        made = await dispatcher.dispatch(app.state.database, clock, settings)
        total += made
        if made == 0:
            return total
    raise AssertionError("the worker never ran out of due work")


def verify(received: Received, secret: str) -> dict[str, Any]:
    """The standardwebhooks library's verification, as a receiver runs it."""
    return Webhook(secret).verify(received.body, received.headers)


# --- Making endpoints and messages --------------------------------------------------------


async def create_endpoint(client: httpx.AsyncClient, url: str, **fields: Any) -> dict[str, Any]:
    response = await client.post("/v1/webhooks/endpoints", json={"url": url, **fields})
    assert response.status_code == 201, response.text
    return response.json()


async def secret_of(client: httpx.AsyncClient, endpoint_id: str) -> str:
    response = await client.get(f"/v1/webhooks/endpoints/{endpoint_id}/secret")
    assert response.status_code == 200, response.text
    return response.json()["key"]


async def emit_events(
    app,
    organization_id: str,
    count: int = 1,
    *,
    event_type: str = "test.ping",
    tags: tuple[str, ...] = (),
    at: datetime | None = None,
) -> list[str]:
    """Write events to the outbox and commit, as a state change does; their msg_ ids."""
    moment = at or app.state.clock.now()
    async with app.state.database.session() as session, session.begin():
        events = [
            emit(
                session,
                organization_id=organization_id,
                event_type=event_type,
                data={"sequence": index, "text": "héllo"},
                tags=tags,
                at=moment,
            )
            for index in range(count)
        ]
    return [event.id for event in events]


async def message(client: httpx.AsyncClient, message_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/webhooks/messages/{message_id}")
    assert response.status_code == 200, response.text
    return response.json()


async def attempts(
    client: httpx.AsyncClient, message_id: str, **params: Any
) -> list[dict[str, Any]]:
    response = await client.get(
        f"/v1/webhooks/messages/{message_id}/attempts", params={"limit": 250, **params}
    )
    assert response.status_code == 200, response.text
    return response.json()["data"]


async def endpoint(client: httpx.AsyncClient, endpoint_id: str) -> dict[str, Any]:
    response = await client.get(f"/v1/webhooks/endpoints/{endpoint_id}")
    assert response.status_code == 200, response.text
    return response.json()
