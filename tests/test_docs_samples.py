"""Every shell and Python sample of the guide's pages runs in a test (tests/docs_samples.py
says which), but for the few NOT_RUN names with its reason; and the samples that stand
alone run here: the webhook handler verifies a real signed delivery, the signing-key
example makes a key and a client."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
from datetime import UTC, datetime

from standardwebhooks.webhooks import Webhook

from tests.docs_samples import CHECKOUT, DOCS, NOT_RUN, RUN_BY, blocks, page_text, script

RUN_LANGUAGES = ("sh", "python")


# Other names Pygments gives the same languages: a sample tagged so would slip past the check.
ALIASES = ("bash", "shell", "zsh", "py", "python3", "py3")


def _guide_pages() -> list[str]:
    """Every page the site builds: docs/**/*.md but what mkdocs.yml's exclude_docs leaves
    out (its lines are folders under docs/)."""
    config = (CHECKOUT / "mkdocs.yml").read_text()
    excluded = re.search(r"^exclude_docs: \|\n((?:  .*\n)+)", config, flags=re.MULTILINE)
    assert excluded, "mkdocs.yml: exclude_docs as a block of folders"
    folders = tuple(line.strip() for line in excluded.group(1).splitlines())
    assert all(folder.endswith("/") for folder in folders), folders
    pages = [path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")]
    return sorted(page for page in pages if not page.startswith(folders))


def test_the_check_covers_every_page_of_the_sites_navigation():
    config = (CHECKOUT / "mkdocs.yml").read_text()
    in_nav = set(re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", config, flags=re.MULTILINE))
    assert len(in_nav) > 20
    assert in_nav == set(_guide_pages())


def test_no_sample_is_tagged_with_another_name_for_sh_or_python():
    tagged = [
        f"{page}: ```{alias}"
        for page in _guide_pages()
        for alias in ALIASES
        if re.search(rf"^\s*```{alias}$", page_text(page), flags=re.MULTILINE)
    ]
    assert tagged == [], "tag runnable samples sh or python so the check below sees them"


def test_every_shell_and_python_sample_of_the_guide_runs_in_a_test():
    run = {
        block
        for samples in RUN_BY.values()
        for page, language, section in samples
        for block in blocks(page, language, section)
    }
    left_out = []
    for page in _guide_pages():
        for language in RUN_LANGUAGES:
            for block in blocks(page, language):
                if block not in run and block.splitlines()[0] not in NOT_RUN:
                    left_out.append(f"{page}: {block.splitlines()[0]}")
    assert left_out == [], "samples no test runs (tests/docs_samples.py RUN_BY)"
    # Each reason not to run one still names a sample that is there.
    first_lines = {
        block.splitlines()[0]
        for page in _guide_pages()
        for language in RUN_LANGUAGES
        for block in blocks(page, language)
    }
    assert set(NOT_RUN) <= first_lines


def test_the_webhook_handler_sample_accepts_a_signed_delivery_once_and_refuses_a_changed_one():
    secret = "whsec_" + base64.b64encode(b"corridor-docs-sample-secret-32b!").decode()
    sample = script("quickstart/webhooks.md", "python")
    assert '"whsec_…"' in sample
    seen: set[str] = set()
    processed: list[tuple[str, dict]] = []
    namespace = {
        "already_processed": lambda message_id: message_id in seen or seen.add(message_id),
        "process": lambda event_type, data: processed.append((event_type, data)),
    }
    exec(sample.replace('"whsec_…"', repr(secret)), namespace)
    handle = namespace["handle"]

    body = json.dumps(
        {
            "type": "transfer.completed",
            "timestamp": "2026-11-27T14:02:11.482Z",
            "data": {"id": "tfr_1"},
        }
    )
    now = datetime.now(UTC)
    headers = {
        "webhook-id": "msg_01m87py17w42f876w56avbebe1",
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign("msg_01m87py17w42f876w56avbebe1", now, body),
    }
    assert handle(body.encode(), headers) == 200
    assert processed == [("transfer.completed", {"id": "tfr_1"})]
    assert handle(body.encode(), headers) == 200  # a redelivery: not processed twice
    assert len(processed) == 1
    assert handle(body.replace("tfr_1", "tfr_2").encode(), headers) == 400


def test_the_signing_key_sample_makes_a_key_and_a_signing_client():
    sample = script("quickstart/mcp.md", "python", "Agents connect safely")
    printed = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(printed):
        exec(sample, namespace)
    assert "'kty': 'OKP'" in printed.getvalue() and "'crv': 'Ed25519'" in printed.getvalue()
    assert namespace["corridor"] is not None
