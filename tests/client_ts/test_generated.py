"""The TypeScript SDK's generated code (clients/typescript/src/generated/) is what
openapi-typescript makes of today's server."""

from __future__ import annotations

import difflib

from tests.client_ts.node import PACKAGE, codegen
from tests.programs import needs

pytestmark = needs("node", "npm")


def test_the_generated_types_match_the_servers_openapi_document():
    module = codegen()
    generated = module.generated_sources()
    stale = module.stale_files(generated)
    diffs = [
        "".join(
            difflib.unified_diff(
                path.read_text().splitlines(keepends=True) if path.exists() else [],
                generated.get(path, "").splitlines(keepends=True),
                str(path.relative_to(PACKAGE)),
                "generated",
                n=1,
            )
        )[:3000]
        for path in stale
    ]
    assert not stale, (
        f"The TypeScript SDK's generated code is stale: run `{module.REGENERATE_COMMAND}` and "
        "commit the result.\n" + "\n".join(diffs)
    )


def test_creates_are_the_post_operations_answered_201():
    module = codegen()
    openapi = {
        "paths": {
            "/v1/things": {"post": {"responses": {"201": {}}}, "get": {"responses": {"200": {}}}},
            "/v1/things/{thing_id}/submit": {"post": {"responses": {"200": {}}}},
            "/v1/things/{thing_id}/parts": {"post": {"responses": {"201": {}, "422": {}}}},
        }
    }
    assert module.creating_paths(openapi) == ["/v1/things", "/v1/things/{thing_id}/parts"]
