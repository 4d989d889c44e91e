"""A real HTTP server on 127.0.0.1 that answers from a script, for the retry tests: the
SDK's retries are checked against real sockets, real headers and real waits."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any = None  # JSON, or None for no body
    headers: dict[str, str] = field(default_factory=dict)
    # Close the connection without answering (the client sees it dropped mid-request).
    drop: bool = False


DROP = Answer(status=0, drop=True)


def error(status: int, code: str, **headers: str) -> Answer:
    """An answer in the shape of every Corridor error."""
    body = {"code": code, "message": f"scripted {code}", "requestId": "req_scripted"}
    return Answer(status=status, body=body, headers=headers)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    arrived_s: float  # time.monotonic() on arrival


class ScriptedServer:
    """Answers each request with the next answer of the script (404 once it runs out)."""

    def __init__(self, *answers: Answer) -> None:
        self.requests: list[Request] = []
        self._script = list(answers)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def take(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
            return self._script.pop(0) if self._script else error(404, "not_found")

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = server.take(Request(self.command, self.path, headers, time.monotonic()))
            if answer.drop:
                self.close_connection = True
                self.connection.close()
                return
            body = b"" if answer.body is None else json.dumps(answer.body).encode()
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle

        def log_message(self, *_: Any) -> None:
            pass

    return Handler
