"""Every path of the server's OpenAPI document has a method in the SDK, so an endpoint
added to the server without one fails here."""

from __future__ import annotations

import re
from pathlib import Path

from corridor.app import create_app
from corridor.config import Settings

RESOURCES = Path(__file__).resolve().parents[2] / "clients/python/src/corridor_client/_async"


def _normalized(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def test_every_server_path_has_an_sdk_method():
    openapi = create_app(
        Settings(database_url="sqlite+aiosqlite:///openapi-only.db"), run_workers_in_process=False
    ).openapi()
    server_paths = {_normalized(path) for path in openapi["paths"]}
    source = "\n".join(module.read_text() for module in RESOURCES.rglob("*.py"))
    sdk_paths = {_normalized(path) for path in re.findall(r'"(/v1/[^"]*)"', source)}

    assert server_paths - sdk_paths == set(), "paths without an SDK method"
    assert sdk_paths - server_paths == set(), "SDK methods for paths the server lacks"
