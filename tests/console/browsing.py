"""What the console's browser tests share: Debian's Chromium driven by Playwright's async
API (each module using it says `pytestmark = needs("chromium")`: skipped where Chromium is
missing, failed under CORRIDOR_TEST_REQUIRE_ALL=1, as in CI; tests/programs.py), the test
app served by uvicorn inside the test's event loop (the `base_url` and `browser` fixtures
of tests/console/conftest.py), and where screenshots go (docs/console/ keeps the ones the
docs show)."""

from __future__ import annotations

import os
from pathlib import Path

SCREENSHOTS = Path(os.environ.get("CORRIDOR_TEST_SCREENSHOTS", "/tmp/corridor-console"))
