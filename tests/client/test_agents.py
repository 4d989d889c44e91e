"""The agent flow: an owner makes an agent and its key; the agent pays within its limits
with its own client; over a limit it gets a typed denial with exact decimal amounts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from corridor_client import (
    AgentApprovalRequired,
    AgentLimitExceeded,
    AsyncCorridor,
    AuthenticationError,
    Corridor,
    PermissionDeniedError,
    key_id,
    public_jwk,
)
from tests.client.support import Payer, ach_payout, funded_payer
from tests.live_server import LiveServer


def _agent_key(corridor: Corridor, payer: Payer, **fields) -> tuple[str, str]:
    agent = corridor.agents.create(
        customer_id=payer.customer.id,
        source_account_id=payer.account.id,
        name="Invoice bot",
        limits={"per_transfer": "2000", "daily": "5000"},
        destination_allowlist=[{"type": "external_account", "id": payer.bank_account.id}],
        **fields,
    )
    key = corridor.agents.keys.create(agent.id, name="bot")
    assert key.secret.startswith("sk_sandbox_agent_")
    return agent.id, key.secret


def _payment(payer: Payer, value_minor: str) -> dict:
    """What an agent sends: no customer (its key knows it), submitted at once."""
    body = ach_payout(payer, value_minor, confirm=True)
    del body["customer_id"]
    return body


def test_an_agent_pays_within_its_limits_and_is_refused_over_them(
    corridor: Corridor, live: LiveServer
):
    payer = funded_payer(corridor)
    agent_id, secret = _agent_key(corridor, payer)

    with Corridor(api_key=secret, base_url=live.base_url) as agent:
        paid = agent.transfers.create(_payment(payer, "1500"))
        assert paid.status == "PENDING" and paid.agent_id == agent_id

        with pytest.raises(AgentLimitExceeded) as over_per_transfer:
            agent.transfers.create(_payment(payer, "3000"))
        denial = over_per_transfer.value.denial
        assert (denial.code, denial.window, denial.currency) == (
            "per_transfer_limit_exceeded",
            "transfer",
            "USD",
        )
        assert (denial.limit, denial.attempted_amount) == (Decimal("20.00"), Decimal("30.00"))
        assert denial.used is None and denial.remaining is None
        assert over_per_transfer.value.hint
        assert over_per_transfer.value.status == 403
        assert isinstance(over_per_transfer.value, PermissionDeniedError)

        agent.transfers.create(_payment(payer, "2000"))
        with pytest.raises(AgentLimitExceeded) as over_daily:
            agent.transfers.create(_payment(payer, "2000"))
        denial = over_daily.value.denial
        assert (denial.code, denial.window) == ("daily_limit_exceeded", "day")
        assert (denial.limit, denial.used, denial.remaining) == (
            Decimal("50.00"),
            Decimal("35.00"),
            Decimal("15.00"),
        )

        spend = agent.agents.spend(agent_id)
        day = next(window for window in spend.windows if window.window == "day")
        assert (day.used, day.remaining) == ("3500", "1500")


async def test_over_a_limit_an_approval_agent_parks_the_draft_for_the_owner(
    corridor: Corridor, async_corridor: AsyncCorridor, live: LiveServer
):
    payer = funded_payer(corridor)
    _, secret = _agent_key(corridor, payer, over_limit_action="REQUEST_APPROVAL")

    async with AsyncCorridor(api_key=secret, base_url=live.base_url) as agent:
        with pytest.raises(AgentApprovalRequired) as parked:
            await agent.transfers.create(_payment(payer, "3000"))
    transfer_id = parked.value.transfer_id
    assert transfer_id.startswith("tfr_")
    assert parked.value.denial.attempted_amount == Decimal("30.00")

    waiting = [
        transfer.id
        async for transfer in async_corridor.transfers.list(
            agent_approval_status="PENDING", customer_id=payer.customer.id
        )
    ]
    assert waiting == [transfer_id]
    approved = await async_corridor.transfers.decide_agent_approval(transfer_id, decision="APPROVE")
    assert (approved.status, approved.agent_approval_status) == ("PENDING", "APPROVED")


def test_an_agent_bound_to_a_signing_key_pays_only_with_signed_requests(
    corridor: Corridor, live: LiveServer
):
    payer = funded_payer(corridor)
    agent_id, secret = _agent_key(corridor, payer)
    private = ed25519.Ed25519PrivateKey.generate()
    bound = corridor.agents.signing_keys.create(agent_id, public_key_jwk=public_jwk(private))
    assert bound.id.startswith("sgk_") and bound.key_id == key_id(private)
    assert [key.id for key in corridor.agents.signing_keys.list(agent_id)] == [bound.id]

    with Corridor(api_key=secret, base_url=live.base_url) as unsigned:
        with pytest.raises(AuthenticationError):
            unsigned.transfers.create(_payment(payer, "500"))
    with Corridor(api_key=secret, base_url=live.base_url, signing_key=private) as signed:
        assert signed.transfers.create(_payment(payer, "500")).agent_id == agent_id

    corridor.agents.signing_keys.revoke(agent_id, bound.id)
    [revoked] = corridor.agents.signing_keys.list(agent_id)
    assert revoked.id == bound.id and revoked.revoked_at is not None
    with Corridor(api_key=secret, base_url=live.base_url) as unsigned_again:
        assert unsigned_again.transfers.create(_payment(payer, "500")).agent_id == agent_id


async def test_readiness_is_read_even_when_the_server_is_not_ready(
    async_corridor: AsyncCorridor,
):
    # This server runs no workers, so no heartbeat: not ready, and said so, not raised.
    readiness = await async_corridor.readiness()
    assert readiness.status == "not_ready"
    assert readiness.checks.database.status == "ok"


def test_an_owner_gives_an_agent_a_mandate_and_the_agent_pays_under_it(
    corridor: Corridor, live: LiveServer
):
    payer = funded_payer(corridor)
    agent_id, secret = _agent_key(corridor, payer, require_mandate=True)
    mandate = corridor.agents.mandates.create(
        agent_id,
        currency="USD",
        payees=[{"type": "external_account", "id": payer.bank_account.id}],
        max_per_payment="1500",
        budget={"amount": "2500", "recurrence": "MONTHLY"},
        not_after="2099-01-01T00:00:00Z",
        purpose="Supplier invoices",
    )
    assert mandate.id.startswith("mdt_") and mandate.status == "ACTIVE"

    with Corridor(api_key=secret, base_url=live.base_url) as agent:
        paid = agent.transfers.create(_payment(payer, "1500"))
        assert paid.mandate_id == mandate.id
        with pytest.raises(AgentLimitExceeded) as over_budget:
            agent.transfers.create(_payment(payer, "1500"))
        assert over_budget.value.denial.code == "mandate_budget_exceeded"
        assert [item.id for item in agent.agents.mandates.list(agent_id)] == [mandate.id]

    read = corridor.agent_mandates.retrieve(mandate.id)
    assert (read.used, read.uses) == ("1500", 1)
    revoked = corridor.agent_mandates.revoke(mandate.id, reason="done")
    assert revoked.status == "REVOKED" and revoked.deactivated_reason == "done"
