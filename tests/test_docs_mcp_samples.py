"""The design page of the MCP server and agent signatures (docs/mcp.md) runs as written
against fresh servers, its placeholders (`key_…`, `tcf_…`, `agt_…`, the key's `x`, the
example hosts) filled with real ones: an owner sets a key's confirmation policy; lists a
write tool's pending call and approves it; the official MCP client signs in by OAuth with a
client metadata document; an owner binds an agent's public key, the Python SDK then signs
the agent's requests, and the agent's unsigned requests are refused."""

from __future__ import annotations

import ast
import base64
import contextlib
import io
import json
import os
import subprocess
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.docs_samples import script
from tests.live_server import live_corridor
from tests.oauth.documents import document_site
from tests.oauth.test_official_client import CALLBACK, Owner, Storage
from tests.programs import needs

example_run_s_max = 120
PAGE = "mcp.md"
SIGNED = "Signed agent requests (RFC 9421)"

# Made by the test, not the page: an organization key, an agent and its key.
SETUP = """
KEY_ID=$(api -H "$JSON" -d '{"name": "Desk", "scopes": ["*"]}' $CORRIDOR/v1/api-keys | pick id)
AGENT=$(api -H "$JSON" \\
  -d '{"customerId": "'$CUSTOMER'", "sourceAccountId": "'$ACCOUNT'", "name": "Signing bot"}' \\
  $CORRIDOR/v1/agents | pick id)
AGENT_KEY=$(api -H "$JSON" -d '{"name": "bot"}' $CORRIDOR/v1/agents/$AGENT/keys | pick secret)
echo "AGENT=$AGENT"
echo "AGENT_KEY=$AGENT_KEY"
"""

# Made by the test: a write tool's call over MCP with a key whose calls wait for a person
# (the default, `always`), so that a confirmation is pending; TCF is its id.
WAITING = """
WAITER=$(api -H "$JSON" -d '{"name": "Waiter", "scopes": ["*"]}' $CORRIDOR/v1/api-keys | pick secret)
KEY=$WAITER api -H "$JSON" -H 'Accept: application/json, text/event-stream' \\
  -d '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sandbox_fund_account",
       "arguments": {"accountId": "'$ACCOUNT'", "amount": "5.00"}}}' $CORRIDOR/mcp; echo
TCF=$(api "$CORRIDOR/v1/tool-confirmations?status=PENDING" | pick data.0.id)
echo "TCF=$TCF"
"""


def _urlsafe(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@needs("curl")
def test_the_mcp_pages_policy_confirmation_and_signing_samples_run_against_a_live_server(
    tmp_path,
) -> None:
    key = ed25519.Ed25519PrivateKey.generate()
    public_x = _urlsafe(
        key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )
    private_hex = key.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    ).hex()
    policy = script(PAGE, "sh", "Who sets the policy")
    assert "key_…" in policy
    decision = script(PAGE, "sh", "One record of every confirmation")
    assert "tcf_…" in decision
    binding = script(PAGE, "sh", SIGNED)
    assert "agt_…" in binding and '"x": "…"' in binding

    with live_corridor("sqlite", tmp_path, workers=True) as live:
        environment = {
            **os.environ,
            "CORRIDOR_API_KEY": live.api_key,
            "CORRIDOR_BASE_URL": live.base_url,
        }
        whole = "\n".join(
            [
                "set -euo pipefail",
                script("quickstart/curl.md", "sh"),
                SETUP,
                policy.replace("key_…", "$KEY_ID"),
                "echo",
                WAITING,
                decision.replace("tcf_…", "$TCF"),
                "echo",
                binding.replace("agt_…", "$AGENT").replace('"x": "…"', f'"x": "{public_x}"'),
                "echo",
            ]
        )
        ran = subprocess.run(
            ["bash", "-c", whole],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert ran.returncode == 0, ran.stderr + ran.stdout[-3000:] + live.log_tail()
        # The policy sample changed the key's policy.
        changed = [line for line in ran.stdout.splitlines() if line.startswith('{"id":"key_')]
        assert len(changed) == 1 and json.loads(changed[0])["toolConfirmation"] == "over_limit"
        # The confirmation sample listed the pending call, then approved it (both answers
        # on one line: the block's two commands print no newline).
        tcf = next(line for line in ran.stdout.splitlines() if line.startswith("TCF="))[4:]
        answers = next(
            line for line in ran.stdout.splitlines() if line.startswith('{"data":[{"id":"tcf_')
        )
        listed, end = json.JSONDecoder().raw_decode(answers)
        assert [item["id"] for item in listed["data"]] == [tcf]
        decided = json.loads(answers[end:])
        assert decided["id"] == tcf and decided["status"] == "APPROVED", decided
        assert decided["tool"] == "sandbox_fund_account"
        # The binding sample bound the public key.
        bound = json.loads(ran.stdout.rstrip().splitlines()[-1])
        assert bound["id"].startswith("sgk_") and bound["algorithm"] == "ed25519"
        made = dict(
            line.split("=", 1)
            for line in ran.stdout.splitlines()
            if line.startswith(("AGENT=", "AGENT_KEY="))
        )

        # The SDK sample, with the agent's key and the private key the owner bound.
        sample = script(PAGE, "python", SIGNED)
        generate = "ed25519.Ed25519PrivateKey.generate()"
        assert generate in sample and "sk_sandbox_agent_…" in sample and "agt_…" in sample
        python = subprocess.run(
            [
                sys.executable,
                "-c",
                sample.replace(
                    generate,
                    f"ed25519.Ed25519PrivateKey.from_private_bytes(bytes.fromhex({private_hex!r}))",
                )
                .replace("sk_sandbox_agent_…", made["AGENT_KEY"])
                .replace("agt_…", made["AGENT"]),
            ],
            env=environment,
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert python.returncode == 0, python.stderr + live.log_tail()
        assert f"'x': '{public_x}'" in python.stdout
        assert made["AGENT"] in python.stdout  # the signed request was answered

        # Once a key is bound, the agent's unsigned requests are refused.
        unsigned = subprocess.run(
            [
                "curl",
                "-sS",
                "-H",
                f"Authorization: Bearer {made['AGENT_KEY']}",
                f"{live.base_url}/v1/agents/{made['AGENT']}/spend",
            ],
            capture_output=True,
            text=True,
            timeout=example_run_s_max,
        )
        assert '"signature_required"' in unsigned.stdout, unsigned.stdout


OAUTH = "OAuth 2.1: connect a desktop client without a secret"
DOCUMENT_PATH = "/desk/oauth/client.json"


async def test_the_mcp_pages_oauth_client_sample_connects_through_the_consent_page(
    tmp_path,
) -> None:
    """The official client as docs/mcp.md writes it, its URLs pointed at a live server and
    at a client metadata document on a local https site; the person's consent is given over
    HTTP as a browser would (tests/oauth/test_official_client.py's Owner)."""
    sample = script(PAGE, "python", OAUTH)
    assert sample.count("https://corridor.example.com/mcp") == 2
    assert sample.count("https://desk.example/oauth/client.json") == 1
    (tmp_path / "site").mkdir()
    (tmp_path / "server").mkdir()
    with document_site(tmp_path / "site") as site:
        url = site.publish(
            DOCUMENT_PATH,
            {
                "client_id": site.url(DOCUMENT_PATH),
                "client_name": "Desk",
                "client_uri": site.base_url,
                "redirect_uris": [CALLBACK],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
            },
        )
        settings = {"SSL_CERT_FILE": str(site.certificate_file)}
        with live_corridor("sqlite", tmp_path / "server", settings=settings) as live:
            namespace: dict = {}
            exec(
                sample.replace("https://corridor.example.com/mcp", f"{live.base_url}/mcp").replace(
                    "https://desk.example/oauth/client.json", url
                ),
                namespace,
            )
            owner, storage = Owner(live, scopes=["transfers:read", "accounts:read"]), Storage()
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                await namespace["main"](storage, owner.open, owner.callback)
    tools = ast.literal_eval(printed.getvalue().strip())
    assert {"list_transfers", "get_balance"} <= set(tools)
    assert "create_transfer" not in tools  # transfers:write was not given
    # The client used its document's URL as its client_id: no registration.
    assert storage.client_info is not None and storage.client_info.client_id == url
    assert site.hits[DOCUMENT_PATH] == 1
