# Generated from corridor_client/_async/resources/agents.py by clients/python/codegen.py.
# Do not edit: change the async original and run `make sdk-models`.
"""Agents: spending identities for software, their keys and their spend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corridor_client import _calls
from corridor_client._sync._http import Pager, Resource, Transport
from corridor_client.models import (
    AgentCreate,
    AgentKeyCreate,
    AgentKeyCreated,
    AgentKeyRead,
    AgentRead,
    AgentSpendRead,
    AgentUpdate,
    MandateCreate,
    MandateRead,
    MandateRevoke,
    SigningKeyCreate,
    SigningKeyRead,
)


class AgentKeys(Resource):
    def create(
        self,
        agent_id: str,
        params: AgentKeyCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> AgentKeyCreated:
        """An `sk_…_agent_…` key; its `secret` is in this answer only. Sent without an
        Idempotency-Key unless you give one (see ApiKeys.create)."""
        path = _calls.path("/v1/agents/{}/keys", agent_id)
        body = _calls.optional_body(AgentKeyCreate, params, fields)
        return self._send(_calls.action(path, body, idempotency_key), AgentKeyCreated)

    def list(self, agent_id: str, *, limit: int | None = None) -> Pager[AgentKeyRead]:
        return self._list(_calls.path("/v1/agents/{}/keys", agent_id), AgentKeyRead, limit=limit)

    def revoke(self, agent_id: str, key_id: str) -> None:
        path = _calls.path("/v1/agents/{}/keys/{}", agent_id, key_id)
        self._send_for_nothing(_calls.delete(path))


class AgentSigningKeys(Resource):
    """Public keys an agent signs its requests with (RFC 9421); once one is bound, the
    agent's unsigned requests are refused. Make the JWK with `corridor_client.public_jwk`."""

    def create(
        self,
        agent_id: str,
        params: SigningKeyCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> SigningKeyRead:
        """Bind `public_key_jwk` (Ed25519 or ECDSA P-256) to the agent."""
        path = _calls.path("/v1/agents/{}/signing-keys", agent_id)
        body = _calls.body(SigningKeyCreate, params, fields)
        return self._send(_calls.create(path, body, idempotency_key), SigningKeyRead)

    def list(self, agent_id: str, *, limit: int | None = None) -> Pager[SigningKeyRead]:
        path = _calls.path("/v1/agents/{}/signing-keys", agent_id)
        return self._list(path, SigningKeyRead, limit=limit)

    def revoke(self, agent_id: str, signing_key_id: str) -> None:
        path = _calls.path("/v1/agents/{}/signing-keys/{}", agent_id, signing_key_id)
        self._send_for_nothing(_calls.delete(path))


class AgentMandates(Resource):
    """What an owner authorised an agent to pay (payees, per payment, budget, uses,
    window); an agent with `require_mandate` pays only under one."""

    def create(
        self,
        agent_id: str,
        params: MandateCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> MandateRead:
        """Owner only: `currency`, `payees`, `max_per_payment`, `budget` (amount,
        recurrence), `max_uses`, `not_before`, `not_after`, `purpose`."""
        path = _calls.path("/v1/agents/{}/mandates", agent_id)
        body = _calls.body(MandateCreate, params, fields)
        return self._send(_calls.create(path, body, idempotency_key), MandateRead)

    def list(self, agent_id: str, *, limit: int | None = None) -> Pager[MandateRead]:
        path = _calls.path("/v1/agents/{}/mandates", agent_id)
        return self._list(path, MandateRead, limit=limit)


class AgentMandatesById(Resource):
    """One mandate by its id (`mdt_…`): read it, or revoke it (owner only, final)."""

    def retrieve(self, mandate_id: str) -> MandateRead:
        path = _calls.path("/v1/agent-mandates/{}", mandate_id)
        return self._send(_calls.read(path), MandateRead)

    def revoke(
        self,
        mandate_id: str,
        params: MandateRevoke | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> MandateRead:
        path = _calls.path("/v1/agent-mandates/{}/revoke", mandate_id)
        body = _calls.optional_body(MandateRevoke, params, fields)
        return self._send(_calls.action(path, body, idempotency_key), MandateRead)


class Agents(Resource):
    def __init__(self, transport: Transport) -> None:
        super().__init__(transport)
        self.keys = AgentKeys(transport)
        self.mandates = AgentMandates(transport)
        self.signing_keys = AgentSigningKeys(transport)

    def create(
        self,
        params: AgentCreate | Mapping[str, Any] | None = None,
        /,
        *,
        idempotency_key: str | None = None,
        **fields: Any,
    ) -> AgentRead:
        """An agent for an ACTIVE customer: `customer_id`, `source_account_id`, `name`,
        `limits` (minor units), `destination_allowlist`, `over_limit_action`."""
        body = _calls.body(AgentCreate, params, fields)
        return self._send(_calls.create("/v1/agents", body, idempotency_key), AgentRead)

    def list(self, *, customer_id: str | None = None, limit: int | None = None) -> Pager[AgentRead]:
        return self._list("/v1/agents", AgentRead, customerId=customer_id, limit=limit)

    def retrieve(self, agent_id: str) -> AgentRead:
        return self._send(_calls.read(_calls.path("/v1/agents/{}", agent_id)), AgentRead)

    def update(
        self,
        agent_id: str,
        params: AgentUpdate | Mapping[str, Any] | None = None,
        /,
        **fields: Any,
    ) -> AgentRead:
        """Limits, allowlist, over-limit action, or `status` active/paused."""
        path = _calls.path("/v1/agents/{}", agent_id)
        body = _calls.body(AgentUpdate, params, fields)
        return self._send(_calls.update(path, body), AgentRead)

    def revoke(self, agent_id: str, *, idempotency_key: str | None = None) -> AgentRead:
        """Final: the agent and every key of it stop working."""
        path = _calls.path("/v1/agents/{}/revoke", agent_id)
        return self._send(_calls.action(path, None, idempotency_key), AgentRead)

    def spend(self, agent_id: str) -> AgentSpendRead:
        """Used and remaining per window (minor units), and when each resets."""
        path = _calls.path("/v1/agents/{}/spend", agent_id)
        return self._send(_calls.read(path), AgentSpendRead)
