"""The TypeScript SDK's package (clients/typescript) for its tests: its codegen module,
its npm dependencies installed as package-lock.json pins them, and its build."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path
from types import ModuleType

from tests.programs import path_of

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "typescript"
# Bounds for a loaded machine (npm ci fetches from the registry; tsc reads 1 MB of types).
npm_timeout_s = 600


def codegen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "corridor_typescript_codegen", PACKAGE / "codegen.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def program(name: str) -> str:
    path = path_of(name)
    assert path is not None, f"{name} is missing (the test's needs() mark checks it first)"
    return path


def npm(*arguments: str, cwd: Path = PACKAGE, env: dict[str, str] | None = None) -> str:
    """`npm ARGUMENTS` (its output), failing with npm's own words."""
    done = subprocess.run(
        [program("npm"), *arguments],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=npm_timeout_s,
    )
    assert done.returncode == 0, (
        f"npm {' '.join(arguments)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    return done.stdout


def build() -> None:
    """node_modules as pinned, then dist/ (the package) and build/test/ (its tests)."""
    codegen().ensure_node_modules()
    npm("run", "build")
    npm("run", "build:test")
