"""The guide's code samples (docs/, the MkDocs site at /guide), as the tests run them.

A page's samples are its fenced blocks of one language (```sh, ```python); `section`
narrows them to one section of the page (a `## ` or `### ` heading, up to the next heading
of its level or higher). Every sh and python block of every page the site builds runs in a
test (tests/test_docs_samples.py checks that none is left out) or NOT_RUN says why not:
WALKTHROUGH's pages run top to bottom in one bash (tests/test_docs_walkthrough.py), some
sections again on their own against a fresh server (tests/test_docs_curl.py,
tests/assistant/test_docs_samples.py), the Python SDK's page in Python
(tests/client/test_docs_samples.py), docs/mcp.md's against live servers
(tests/test_docs_mcp_samples.py). A fragment that is not a program is tagged `text`."""

from __future__ import annotations

import re
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
DOCS = CHECKOUT / "docs"

# The walkthrough, in the order it runs: each page builds on the ones before it.
WALKTHROUGH = (
    "quickstart/curl.md",
    "quickstart/payouts.md",
    "quickstart/agents.md",
    "quickstart/platforms.md",
    "quickstart/webhooks.md",
    "quickstart/assistant.md",
    "quickstart/mcp.md",
)


def page_text(page: str) -> str:
    return (DOCS / page).read_text()


def section_text(page: str, title: str | None = None) -> str:
    """The page, or its `## title` (or `### title`, …) section, up to the next heading of
    the same level or higher."""
    text = page_text(page)
    if title is None:
        return text
    heading = re.search(rf"^(#{{2,}}) {re.escape(title)}\n", text, flags=re.MULTILINE)
    if heading is None:
        raise KeyError(f"{page} has no section {title!r}")
    level = len(heading.group(1))
    end = re.compile(rf"^#{{2,{level}}} ", flags=re.MULTILINE).search(text, heading.end())
    return text[heading.start() : None if end is None else end.start()]


def blocks(page: str, language: str, title: str | None = None) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section_text(page, title), flags=re.DOTALL)


def script(page: str, language: str, title: str | None = None) -> str:
    return "\n".join(blocks(page, language, title))


def walkthrough_blocks() -> list[str]:
    return [block for page in WALKTHROUGH for block in blocks(page, "sh")]


# Which test runs which samples: (page, language, section or None for the whole page).
RUN_BY: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    "tests/test_docs_walkthrough.py": tuple((page, "sh", None) for page in WALKTHROUGH),
    "tests/test_docs_curl.py": (
        ("quickstart/curl.md", "sh", None),
        ("quickstart/platforms.md", "sh", "Documents"),
        ("quickstart/platforms.md", "sh", "Statements"),
        ("quickstart/platforms.md", "sh", "Operators and child organizations"),
    ),
    "tests/assistant/test_docs_samples.py": (
        ("quickstart/curl.md", "sh", None),
        ("quickstart/assistant.md", "sh", None),
        ("quickstart/mcp.md", "sh", "MCP"),
        ("quickstart/mcp.md", "python", "MCP"),
    ),
    "tests/client/test_docs_samples.py": (("quickstart/python-sdk.md", "python", None),),
    "tests/test_docs_samples.py": (
        ("quickstart/webhooks.md", "python", None),
        ("quickstart/mcp.md", "python", "Agents connect safely"),
    ),
    "tests/test_docs_mcp_samples.py": (
        ("mcp.md", "sh", "Write tools wait for a person"),
        ("mcp.md", "sh", "Signed agent requests (RFC 9421)"),
        ("mcp.md", "python", "OAuth 2.1: connect a desktop client without a secret"),
        ("mcp.md", "python", "Signed agent requests (RFC 9421)"),
    ),
}

# The samples no test runs, by their first line, and why.
NOT_RUN = {
    "pip install -e clients/python": "installs the SDK; `make install` did that for the tests",
    "export CORRIDOR_ENV=production CORRIDOR_DATABASE_URL=postgresql+asyncpg://corridor@db/corridor": (
        "a production deployment: its own PostgreSQL, secret key and live keys"
    ),
    "sudo install -m 644 deploy/systemd/* /etc/systemd/system/": (
        "installs systemd units on a production host (root, systemd);"
        " tests/operations/test_deployment_files.py checks the units run corridor commands"
    ),
    "docker build -t corridor .": (
        "builds and runs the image on a production host with its corridor.env (no docker"
        " here); tests/operations/test_deployment_files.py checks the Dockerfile's commands"
    ),
    "make test                 # the suite (SQLite; PostgreSQL too with CORRIDOR_TEST_DATABASE_URL)": (
        "runs the whole suite (and make bench, the benchmarks): a test cannot run the suite"
        " it belongs to"
    ),
}
