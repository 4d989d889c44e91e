"""The design page of the MCP server and agent signatures (docs/mcp.md) runs as written
against a fresh server, its placeholder ids (`key_…`, `agt_…`, the key's `x`) filled with
real ones: an owner sets a key's confirmation policy; an owner binds an agent's public key;
the Python SDK then signs the agent's requests, and the agent's unsigned requests are
refused."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.docs_samples import script
from tests.live_server import live_corridor
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


def _urlsafe(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@needs("curl")
def test_the_mcp_pages_policy_and_signing_samples_run_against_a_live_server(tmp_path) -> None:
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
