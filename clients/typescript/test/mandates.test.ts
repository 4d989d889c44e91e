/**
 * Agent mandates and the audit chain by their named calls: an owner gives an agent a
 * mandate, the agent pays under it, the owner reads, lists and revokes it; the audit chain
 * shows the payment and the mandate's life, filtered.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import { AgentLimitExceeded, type Schemas } from "corridor-client";
import { type Payer, agentPayment, fundedPayer, needsServer, owner, payingAgent } from "./support.js";

function mandateBody(payer: Payer): Schemas["MandateCreate"] {
  return {
    currency: "USD",
    payees: [{ type: "external_account", id: payer.bankAccount.id }],
    maxPerPayment: "2000",
    budget: { amount: "3000", recurrence: "NONE" },
    maxUses: 5,
    notAfter: "2098-01-01T00:00:00Z",
    purpose: "Hosting invoices",
  };
}

test("an owner creates, lists, reads and revokes an agent's mandate; the agent pays under it", needsServer, async () => {
  const corridor = owner();
  const payer = await fundedPayer(corridor);
  const { agent, bot } = await payingAgent(corridor, payer, {
    name: "Hosting bot",
    limits: { perTransfer: "5000", daily: "10000" },
    requireMandate: true,
  });

  const idempotencyKey = `mandate-${agent.id}`;
  const created = await corridor.agents.mandates.create(agent.id, mandateBody(payer), { idempotencyKey }).withResponse();
  const mandate = created.data;
  assert.equal(created.response.status, 201);
  assert.equal(created.idempotencyKey, idempotencyKey);
  assert.match(mandate.id, /^mdt_/);
  assert.equal(mandate.agentId, agent.id);
  assert.equal(mandate.status, "ACTIVE");
  assert.deepEqual(mandate.budget, { amount: "3000", recurrence: "NONE" });
  // The same key replays the first answer: one mandate, not two.
  const again = await corridor.agents.mandates.create(agent.id, mandateBody(payer), { idempotencyKey }).withResponse();
  assert.equal(again.replayed, true);
  assert.equal(again.data.id, mandate.id);
  // Without a key, each create gets a new one (this one for a later window: mandates of
  // one payee do not overlap).
  const later = { notBefore: "2098-06-01T00:00:00Z", notAfter: "2099-01-01T00:00:00Z", purpose: "Next year" };
  const fresh = await corridor.agents.mandates.create(agent.id, { ...mandateBody(payer), ...later }).withResponse();
  assert.ok(fresh.idempotencyKey);
  assert.equal(fresh.replayed, false);

  assert.deepEqual(await corridor.agentMandates.retrieve(mandate.id), mandate);
  const listed = await corridor.agents.mandates.list(agent.id).toArray();
  assert.deepEqual(listed.map((item) => item.id).sort(), [mandate.id, fresh.data.id].sort());
  // A page at a time, as the other lists.
  const pages = [];
  for await (const page of corridor.agents.mandates.list(agent.id, { limit: 1 }).pages()) pages.push(page.data.length);
  assert.deepEqual(pages, [1, 1]);
  // The agent sees its own mandates.
  assert.equal((await bot.agents.mandates.list(agent.id).toArray()).length, 2);

  const paid = await bot.post("/v1/transfers", { body: agentPayment(payer, "1500") });
  assert.equal(paid.agentId, agent.id);
  assert.notEqual(paid.status, "DRAFT");

  await corridor.agentMandates.revoke(fresh.data.id);
  const revoked = await corridor.agentMandates.revoke(mandate.id, { reason: "Contract ended" });
  assert.equal(revoked.id, mandate.id);
  assert.equal(revoked.status, "REVOKED");
  assert.equal((await corridor.agentMandates.retrieve(mandate.id)).status, "REVOKED");
  // Under no live mandate, the agent may not pay.
  await assert.rejects(bot.post("/v1/transfers", { body: agentPayment(payer, "1000") }), AgentLimitExceeded);

  // The audit chain, filtered: the payment's records, then the agent's mandates.
  const ofPayment = await corridor.auditEvents.list({ transferId: paid.id }).toArray();
  assert.ok(ofPayment.length > 0);
  assert.ok(ofPayment.every((event) => event.transferId === paid.id));
  assert.ok(ofPayment.some((event) => event.kind === "agent.payment.allowed" && event.agentId === agent.id));
  const consumed = await corridor.auditEvents.list({ agentId: agent.id, kind: "agent.mandate.consumed" }).toArray();
  assert.deepEqual(
    consumed.map((event) => [event.kind, event.mandateId, event.transferId]),
    [["agent.mandate.consumed", mandate.id, paid.id]],
  );
  const mandateEvents = [];
  for await (const event of corridor.auditEvents.list({ agentId: agent.id, limit: 1 })) {
    if (event.kind.startsWith("agent.mandate.")) mandateEvents.push(event.kind);
  }
  assert.deepEqual(mandateEvents.filter((kind) => kind === "agent.mandate.created").length, 2);
  assert.deepEqual(mandateEvents.filter((kind) => kind === "agent.mandate.revoked").length, 2);
  const retrieved = await corridor.auditEvents.retrieve(consumed[0]?.id ?? "");
  assert.equal(retrieved.id, consumed[0]?.id);
  // A window of time: nothing after a time far ahead, everything before it.
  assert.deepEqual(await corridor.auditEvents.list({ agentId: agent.id, createdAfter: "2099-01-01T00:00:00Z" }).toArray(), []);
  const before = await corridor.auditEvents.list({ agentId: agent.id, createdBefore: "2099-01-01T00:00:00Z" }).toArray();
  assert.ok(before.length >= ofPayment.length);
});
