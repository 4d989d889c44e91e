"""A request body an ASGI layer read ahead of the app (to look at it first), given to the
app again as if unread."""

from __future__ import annotations

from starlette.types import Message, Receive


def replayed(body: bytes, receive: Receive) -> Receive:
    """`receive` for the app: the body already read, then whatever the client sends next
    (its disconnect)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
