"""The SDK's generated code is what the generator makes of today's server and client."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

CODEGEN = Path(__file__).resolve().parents[2] / "clients" / "python" / "codegen.py"


def _codegen():
    spec = importlib.util.spec_from_file_location("corridor_client_codegen", CODEGEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_models_and_the_sync_client_match_what_codegen_makes():
    codegen = _codegen()
    generated = codegen.generated_sources()
    stale = codegen.stale_files(generated)
    diffs = [
        "".join(
            difflib.unified_diff(
                path.read_text().splitlines(keepends=True) if path.exists() else [],
                generated.get(path, "").splitlines(keepends=True),
                str(path.relative_to(codegen.CLIENT_ROOT)),
                "generated",
                n=1,
            )
        )[:3000]
        for path in stale
    ]
    assert not stale, (
        f"The SDK's generated code is stale: run `{codegen.REGENERATE_COMMAND}` and commit "
        "the result.\n" + "\n".join(diffs)
    )
