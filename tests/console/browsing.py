"""What the console's browser tests share: Debian's Chromium driven by Playwright's async
API (the module importing this is skipped where either is missing, and fails instead when
CORRIDOR_TEST_BROWSER_REQUIRED=1, as in CI), the test app served by uvicorn inside the
test's event loop (the `base_url` and `browser` fixtures of tests/console/conftest.py),
and where screenshots go (docs/console/ keeps the ones the docs show)."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CORRIDOR_TEST_CHROMIUM", "/usr/bin/chromium")
BROWSER_REQUIRED = os.environ.get("CORRIDOR_TEST_BROWSER_REQUIRED") == "1"
SCREENSHOTS = Path(os.environ.get("CORRIDOR_TEST_SCREENSHOTS", "/tmp/corridor-console"))


def _no_browser(reason: str) -> None:
    if BROWSER_REQUIRED:
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if importlib.util.find_spec("playwright") is None:
    _no_browser(
        "Playwright's Python package is not installed (it is in the dev extras: make install)"
    )
if shutil.which(CHROMIUM) is None:
    _no_browser(
        f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CORRIDOR_TEST_CHROMIUM)"
    )
