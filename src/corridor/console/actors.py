"""People and keys by name: the console shows who did something as the console user's
email, the API key's name, or the agent's and its key's names, never as a raw
`usr_…`/`key_…` id alone."""

from __future__ import annotations

from corridor.agents import service as agents
from corridor.auth import service as auth_service
from corridor.console.session import Console
from corridor.kit.errors import Forbidden
from corridor.kit.pagination import PageRequest

# An organization's keys, read a page at a time; past this many the rest show as ids.
keys_read_max = 1000
_page_size = 100


async def actor_names(console: Console) -> dict[str, str]:
    """Actor id → what a person recognises: a console user's email, an API key's name
    (or its prefix when it has none), an agent key's agent and key names."""
    names: dict[str, str] = {}
    try:
        for user in await auth_service.console_users_of(console.session, caller=console.caller):
            names[user.id] = user.email
    except Forbidden:
        pass
    cursor: str | None = None
    try:
        while len(names) < keys_read_max:
            found = await auth_service.list_api_keys(
                console.session,
                caller=console.caller,
                page=PageRequest(limit=_page_size, cursor=cursor),
            )
            for key in found.items:
                names[key.id] = f"API key “{key.name}”" if key.name else f"API key {key.prefix}"
            if not found.has_more:
                break
            cursor = found.next_cursor
    except Forbidden:
        pass
    try:
        names |= await agents.agent_key_names(
            console.session, caller=console.caller, limit=keys_read_max
        )
    except Forbidden:
        pass
    return names
