"""A client's site on 127.0.0.1 over https, publishing its client ID metadata documents: a
real TLS server (a self-signed certificate for 127.0.0.1, trusted by the process that fetches
through SSL_CERT_FILE, the system trust store's variable) answering each path as told."""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.certificates import write_certificate


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})


@dataclass
class DocumentSite:
    base_url: str
    certificate_file: Path
    answers: dict[str, Answer] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.base_url + path

    def publish(self, path: str, document: dict | bytes, **answer) -> str:
        """Serve `document` (JSON) at `path`; its URL."""
        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.answers[path] = Answer(body=body, **answer)
        return self.url(path)


@contextlib.contextmanager
def document_site(directory: Path) -> Iterator[DocumentSite]:
    certificate_file, key_file = write_certificate(directory)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(certificate_file, key_file)
    site: DocumentSite | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            assert site is not None
            site.hits[self.path] = site.hits.get(self.path, 0) + 1
            answer = site.answers.get(self.path, Answer(404, b"{}"))
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = tls.wrap_socket(server.socket, server_side=True)
    site = DocumentSite(f"https://127.0.0.1:{server.server_address[1]}", certificate_file)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
