"""The HTTP server's protocol: uvicorn's httptools protocol, but a request target longer
than httptools' URL parser takes still reaches the app (which answers 414 in the error
shape, web/middleware.py).

httptools parses a request's URL with a parser whose offsets are 16-bit: a target over
65,535 bytes fails to parse, and uvicorn answers its plain-text 400 "Invalid HTTP request
received." before the app sees the request (a comma-separated filter of 8,100 characters,
each a 3-byte character percent-encoded, is 73 KB). The app refuses any target over
`url_bytes_max` (8 KiB) by its length alone, so keeping the first 64 KiB of one changes
no answer but that one.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# What httptools' URL parser takes (its offsets are 16-bit).
url_bytes_parsed_max = 65_535


class CorridorHttpToolsProtocol(HttpToolsProtocol):
    def on_url(self, url: bytes) -> None:
        room = url_bytes_parsed_max - len(self.url)
        if room > 0:
            super().on_url(url[:room])
