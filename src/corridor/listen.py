"""`corridor listen`: receive a Corridor server's webhooks on this machine, as `stripe listen`
does. A receiver on 127.0.0.1 gets its own webhook endpoint (made, or reused when one
already points at the same address), verifies each delivery's signature (Standard Webhooks),
prints it, can forward it to a local URL, and removes the endpoint on exit.

It talks to the server over its REST API with an API key, like any other client."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from corridor.webhooks.schemas import EVENT_TYPE_PATTERN

receiver_path = "/webhooks"
endpoint_description = "corridor listen"
# A delivery body larger than this is refused (the server sends far smaller ones).
delivery_bytes_max = 1024 * 1024
api_timeout_s = 15.0
forward_timeout_s = 15.0
summary_chars_max = 80
# Endpoints looked at for one to reuse (pages of the maximum size).
endpoints_pages_max = 20
_signature_headers = ("webhook-id", "webhook-timestamp", "webhook-signature")


class ListenError(Exception):
    """A failure to set up listening, in words for the command line."""


@dataclass
class Options:
    api_url: str
    api_key: str
    event_types: list[str] = field(default_factory=list)
    forward_to: str | None = None
    as_json: bool = False
    keep: bool = False
    port: int = 0


@dataclass(frozen=True)
class Delivery:
    body: bytes
    headers: dict[str, str]


def summarize(event_type: str, data: dict[str, Any]) -> str:
    """A few words about the event's object: who or what, how much, which status."""
    parts: list[str] = []
    name = data.get("name") or data.get("legalName") or data.get("accountHolderName")
    if isinstance(name, str):
        parts.append(name)
    amount = data.get("amount") or data.get("sourceAmount")
    if isinstance(amount, dict) and amount.get("currency"):
        shown = amount.get("displayValue") or amount.get("value")
        parts.append(f"{shown} {amount['currency']}")
    for key in ("status", "url"):
        if isinstance(data.get(key), str):
            parts.append(data[key])
    if not parts and isinstance(data.get("id"), str):
        parts.append(data["id"])
    summary = " · ".join(parts)
    return summary if len(summary) <= summary_chars_max else summary[: summary_chars_max - 1] + "…"


class Api:
    """The few calls `listen` makes, with errors turned into ListenError."""

    def __init__(self, api_url: str, api_key: str) -> None:
        self.client = httpx.Client(
            base_url=api_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=api_timeout_s,
        )

    def call(self, method: str, path: str, **options: Any) -> Any:
        try:
            response = self.client.request(method, path, **options)
        except httpx.TransportError as error:
            raise ListenError(f"cannot reach {self.client.base_url}: {error}") from None
        if response.status_code >= 400:
            try:
                message = response.json().get("message", response.text)
            except ValueError:
                message = response.text[:200]
            raise ListenError(f"{method} {path} answered {response.status_code}: {message}")
        return response.json() if response.content else None

    def close(self) -> None:
        self.client.close()


def find_endpoint(api: Api, url: str) -> dict[str, Any] | None:
    cursor: str | None = None
    for _ in range(endpoints_pages_max):
        params: dict[str, Any] = {"limit": 250, **({"cursor": cursor} if cursor else {})}
        page = api.call("GET", "/v1/webhooks/endpoints", params=params)
        for endpoint in page["data"]:
            if endpoint["url"] == url:
                return endpoint
        cursor = page.get("nextCursor")
        if not page.get("hasMore") or not cursor:
            return None
    return None


def open_endpoint(api: Api, url: str, event_types: list[str]) -> tuple[dict[str, Any], bool]:
    """The endpoint for `url` (reused, enabled and set to `event_types`) and whether it was
    made now."""
    found = find_endpoint(api, url)
    if found is not None:
        changes = {"eventTypes": event_types, "disabled": False}
        return api.call("PATCH", f"/v1/webhooks/endpoints/{found['id']}", json=changes), False
    body = {"url": url, "description": endpoint_description, "eventTypes": event_types}
    return api.call("POST", "/v1/webhooks/endpoints", json=body), True


class Listener:
    """Verifies, prints and forwards each delivery; answers the server."""

    def __init__(
        self,
        options: Options,
        secret: str,
        api: Api,
        *,
        say: Callable[[str], None],
        write: Callable[[str], None],
    ) -> None:
        self.options = options
        self.webhook = Webhook(secret)
        self.api = api
        self.say = say
        self.write = write
        self.lock = threading.Lock()
        self.forwarder = httpx.Client(timeout=forward_timeout_s)

    def receive(self, delivery: Delivery) -> int:
        """The status to answer the server with."""
        try:
            event = self.webhook.verify(delivery.body, delivery.headers)
        except (WebhookVerificationError, ValueError) as error:
            with self.lock:
                self.say(f"✗ a delivery failed signature verification ({error}); answered 400")
            return 400
        status, forwarded = 204, ""
        if self.options.forward_to:
            status, forwarded = self._forward(delivery)
        if self.options.as_json:
            self._print(json_line(delivery.body))
        else:
            self._print(self._line(delivery, event) + forwarded)
        return status

    def _line(self, delivery: Delivery, event: dict[str, Any]) -> str:
        event_type = str(event.get("type", "?"))
        data: dict[str, Any] = event["data"] if isinstance(event.get("data"), dict) else {}
        message_id = delivery.headers.get("webhook-id", "?")
        tags = self._tags(message_id, data)
        moment = datetime.now().strftime("%H:%M:%S")
        return f"{moment}  {event_type}  {message_id}  [{' '.join(tags)}]  {summarize(event_type, data)}"

    def _tags(self, message_id: str, data: dict[str, Any]) -> list[str]:
        """The message's tags (the ids of the resources involved), from its history; the
        object's id when the server keeps no history."""
        try:
            return list(self.api.call("GET", f"/v1/webhooks/messages/{message_id}")["tags"])
        except ListenError:
            return [data["id"]] if isinstance(data.get("id"), str) else []

    def _forward(self, delivery: Delivery) -> tuple[int, str]:
        assert self.options.forward_to is not None
        headers = {name: delivery.headers[name] for name in _signature_headers}
        headers["content-type"] = "application/json"
        try:
            answer = self.forwarder.post(
                self.options.forward_to, content=delivery.body, headers=headers
            )
        except httpx.TransportError as error:
            return 502, f"  → {self.options.forward_to} failed: {error}"
        return answer.status_code, f"  → {self.options.forward_to} {answer.status_code}"

    def _print(self, line: str) -> None:
        with self.lock:
            self.write(line)

    def close(self) -> None:
        self.forwarder.close()


def _handler(listener: Listener) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if self.path != receiver_path or not 0 < length <= delivery_bytes_max:
                self.send_response(404 if self.path != receiver_path else 413)
                self.end_headers()
                return
            body = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            status = listener.receive(Delivery(body, headers))
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: `listen` prints each event itself."""

    return Handler


@contextlib.contextmanager
def receiver(listener: Listener, port: int) -> Iterator[ThreadingHTTPServer]:
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler(listener))
    except OSError as error:
        raise ListenError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
    thread = threading.Thread(target=server.serve_forever, name="corridor-listen", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _stop_on_terminate() -> threading.Event:
    """Ctrl+C and SIGTERM both end the wait (and so remove the endpoint)."""
    stop = threading.Event()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signal_number, lambda *_: stop.set())
    return stop


def check_options(options: Options) -> None:
    """Refuse at once what would otherwise fail at every delivery (a --forward-to that is
    no web address) or in the server's answer (an event type not shaped like one)."""
    import re
    from urllib.parse import urlsplit

    if options.forward_to is not None:
        target = urlsplit(options.forward_to)
        if target.scheme not in ("http", "https") or not target.hostname:
            raise ListenError(
                f"--forward-to {options.forward_to!r} is not an http:// or https:// URL "
                "with a host (e.g. http://127.0.0.1:3000/webhooks)"
            )
    for event_type in options.event_types:
        if not re.fullmatch(EVENT_TYPE_PATTERN, event_type):
            raise ListenError(
                f"--event {event_type!r} is not an event type: lowercase words joined by dots, "
                "e.g. transfer.completed"
            )


def listen(options: Options, *, say: Callable[[str], None], write: Callable[[str], None]) -> None:
    """Run until Ctrl+C or SIGTERM. `say` reports on the listening itself (standard error),
    `write` prints events (standard output)."""
    check_options(options)
    stop = _stop_on_terminate()
    api = Api(options.api_url, options.api_key)
    try:
        with contextlib.ExitStack() as stack:
            placeholder = Listener(options, "whsec_" + "A" * 32, api, say=say, write=write)
            server = stack.enter_context(receiver(placeholder, options.port))
            url = f"http://127.0.0.1:{server.server_address[1]}{receiver_path}"
            endpoint, made = open_endpoint(api, url, options.event_types)
            port = server.server_address[1]
            stack.callback(_close_endpoint, api, endpoint["id"], port, options.keep, say)
            secret = api.call("GET", f"/v1/webhooks/endpoints/{endpoint['id']}/secret")["key"]
            placeholder.webhook = Webhook(secret)
            stack.callback(placeholder.close)
            wanted = ", ".join(options.event_types) or "all events"
            forwarding = f", forwarding to {options.forward_to}" if options.forward_to else ""
            say(
                f"Ready: {'made' if made else 'reusing'} endpoint {endpoint['id']} → {url} "
                f"({wanted}{forwarding}). Ctrl+C stops."
            )
            stop.wait()
    finally:
        api.close()


def _close_endpoint(
    api: Api, endpoint_id: str, port: int, keep: bool, say: Callable[[str], None]
) -> None:
    if keep:
        say(f"Kept endpoint {endpoint_id}; `corridor listen --port {port}` reuses it.")
        return
    try:
        api.call("DELETE", f"/v1/webhooks/endpoints/{endpoint_id}")
    except ListenError as error:
        say(f"Could not remove endpoint {endpoint_id}: {error}")
        return
    say(f"Removed endpoint {endpoint_id}.")


def json_line(body: bytes) -> str:
    """The delivery body on one line (it is JSON already; kept byte for byte when it is not)."""
    try:
        return json.dumps(json.loads(body), separators=(",", ":"))
    except ValueError:
        return body.decode("utf-8", "replace")
