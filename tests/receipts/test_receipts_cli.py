"""`corridor receipts verify` and `rotate-key`, run through the real entry point with a user's
argv and environment (tests/cli_runner.py, as tests/test_cli_resources.py) on the suite's
database."""

from __future__ import annotations

import json

from tests.agents.conftest import pay
from tests.test_cli_resources import corridor, ok, refused


async def test_verify_prints_payloads_and_refuses_a_changed_receipt(
    owner, anonymous, database_url, tmp_path
):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    payment = await pay(client, owner.payment(10_000))
    listed = (await client.get(f"/v1/transfers/{payment['id']}/receipts")).text
    (tmp_path / "receipts.json").write_text(listed)
    jwks = (await anonymous.get("/.well-known/jwks.json")).text
    (tmp_path / "jwks.json").write_text(jwks)

    # Against the local database's keys, and against a JWKS file.
    for extra in ((), ("--jwks", str(tmp_path / "jwks.json"))):
        out = ok(
            corridor(database_url, "receipts", "verify", str(tmp_path / "receipts.json"), *extra)
        )
        payload = json.loads(out.splitlines()[0])
        assert payload["transferId"] == payment["id"] and payload["kind"] == "AUTHORIZED"

    token = json.loads(listed)["data"][0]["jws"]
    header, body, signature = token.split(".")
    changed = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BA")
    (tmp_path / "changed.jws").write_text(f"{header}.{body}.{changed}")
    refused(
        corridor(database_url, "receipts", "verify", str(tmp_path / "changed.jws")),
        1,
        "bad signature",
    )

    (tmp_path / "empty.json").write_text('{"keys": []}')
    refused(
        corridor(
            database_url,
            "receipts",
            "verify",
            str(tmp_path / "receipts.json"),
            "--jwks",
            str(tmp_path / "empty.json"),
        ),
        1,
        "unknown kid",
    )


async def test_rotate_key_publishes_a_new_key_and_keeps_the_old(owner, anonymous, database_url):
    agent = await owner.create_agent()
    client = await owner.agent_client(agent["id"])
    before = await pay(client, owner.payment(10_000))
    old_kid = (await anonymous.get("/.well-known/jwks.json")).json()["keys"][0]["kid"]
    rotated = json.loads(ok(corridor(database_url, "receipts", "rotate-key")))
    assert rotated["kid"] != old_kid and rotated["alg"] == "EdDSA"
    kids = [key["kid"] for key in (await anonymous.get("/.well-known/jwks.json")).json()["keys"]]
    assert kids[0] == rotated["kid"] and old_kid in kids
    after = await pay(client, owner.payment(10_000))
    for transfer_id, kid in ((before["id"], old_kid), (after["id"], rotated["kid"])):
        token = (await client.get(f"/v1/transfers/{transfer_id}/receipts")).json()["data"][0]["jws"]
        assert json.loads(_b64(token.split(".")[0]))["kid"] == kid


def _b64(part: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
