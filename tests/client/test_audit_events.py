"""The audit chain through the SDK: `audit_events.list` and `export` (issue 25 item 4),
the export verifying offline with nothing but hashlib and the RFC 8785 package."""

from __future__ import annotations

import hashlib

import pytest
import rfc8785

from corridor_client import AgentLimitExceeded, Corridor
from tests.client.support import funded_payer
from tests.client.test_agents import _agent_key, _payment
from tests.live_server import LiveServer


def test_the_owner_lists_and_exports_the_chain_and_it_verifies(
    corridor: Corridor, live: LiveServer
):
    payer = funded_payer(corridor)
    agent_id, secret = _agent_key(corridor, payer)
    with Corridor(api_key=secret, base_url=live.base_url) as agent:
        paid = agent.transfers.create(_payment(payer, "1500"))
        with pytest.raises(AgentLimitExceeded):
            agent.transfers.create(_payment(payer, "3000"))
        own = list(agent.audit_events.list())
        assert own and {event.agent_id for event in own} == {agent_id}

    listed = list(corridor.audit_events.list(agent_id=agent_id))
    assert [event.kind for event in reversed(listed)] == [
        "agent.created",
        "agent.key.issued",
        "agent.payment.allowed",
        "agent.payment.denied",
    ]
    assert listed[1].transfer_id == paid.id
    assert listed[0].detail["code"] == "per_transfer_limit_exceeded"

    exported = corridor.audit_events.export()
    previous = "sha256:" + "0" * 64
    for expected_sequence, item in enumerate(exported, start=1):
        assert item["sequence"] == expected_sequence
        assert item["previousHash"] == previous
        body = {key: value for key, value in item.items() if key != "hash"}
        assert item["hash"] == "sha256:" + hashlib.sha256(rfc8785.dumps(body)).hexdigest()
        previous = item["hash"]
    assert exported[-1]["id"] == listed[0].id
