/**
 * The agent flow: an owner makes an agent with limits and its key; the agent pays within
 * its limits with its own client; over a limit it gets a typed denial whose amounts are
 * the server's exact decimal strings.
 */

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  AgentDenialError,
  AgentLimitExceeded,
  AgentRefused,
  Corridor,
  CorridorError,
  PermissionDeniedError,
} from "corridor-client";
import { agentPayment, fundedPayer, needsServer, owner } from "./support.js";

/** What an agent sends: no customer (its key knows it), submitted at once. */
async function refusal(promise: PromiseLike<unknown>): Promise<AgentLimitExceeded> {
  try {
    await promise;
  } catch (caught) {
    assert.ok(caught instanceof AgentLimitExceeded, `not an AgentLimitExceeded: ${String(caught)}`);
    return caught;
  }
  assert.fail("the payment was accepted");
}

test("an agent pays within its limits and over them gets the typed denial", needsServer, async () => {
  const corridor = owner();
  const payer = await fundedPayer(corridor);
  const agent = await corridor.post("/v1/agents", {
    body: {
      customerId: payer.customer.id,
      sourceAccountId: payer.account.id,
      name: "Invoice bot",
      limits: { perTransfer: "2000", daily: "5000" },
      destinationAllowlist: [{ type: "external_account", id: payer.bankAccount.id }],
    },
  });
  const key = await corridor.post("/v1/agents/{agent_id}/keys", {
    params: { path: { agent_id: agent.id } },
    body: { name: "bot" },
  });
  assert.match(key.secret ?? "", /^sk_sandbox_agent_/);
  const bot = new Corridor({ apiKey: key.secret ?? "", baseUrl: corridor.baseUrl });

  const paid = await bot.post("/v1/transfers", { body: agentPayment(payer, "1500") });
  assert.equal(paid.agentId, agent.id);
  assert.notEqual(paid.status, "DRAFT");

  const overPerTransfer = await refusal(bot.post("/v1/transfers", { body: agentPayment(payer, "3000") }));
  assert.ok(overPerTransfer instanceof AgentDenialError);
  assert.ok(overPerTransfer instanceof AgentRefused);
  assert.ok(overPerTransfer instanceof PermissionDeniedError);
  assert.ok(overPerTransfer instanceof CorridorError);
  assert.equal(overPerTransfer.status, 403);
  assert.equal(overPerTransfer.code, "agent_limit_exceeded");
  assert.ok(overPerTransfer.message.length > 0);
  assert.ok((overPerTransfer.hint ?? "").length > 0, "a hint says what would lift it");
  assert.deepEqual(overPerTransfer.denial, {
    code: "per_transfer_limit_exceeded",
    message: overPerTransfer.denial.message,
    window: "transfer",
    limit: "20.00",
    attemptedAmount: "30.00",
    currency: "USD",
  });

  await bot.post("/v1/transfers", { body: agentPayment(payer, "2000") });
  const overDaily = await refusal(bot.post("/v1/transfers", { body: agentPayment(payer, "2000") }));
  const { code, window, limit, used, remaining, attemptedAmount } = overDaily.denial;
  // Exact decimal strings, as the server wrote them: never numbers.
  assert.deepEqual(
    { code, window, limit, used, remaining, attemptedAmount },
    {
      code: "daily_limit_exceeded",
      window: "day",
      limit: "50.00",
      used: "35.00",
      remaining: "15.00",
      attemptedAmount: "20.00",
    },
  );

  const spend = await bot.get("/v1/agents/{agent_id}/spend", { params: { path: { agent_id: agent.id } } });
  const day = spend.windows.find((entry) => entry.window === "day");
  assert.deepEqual([day?.used, day?.remaining], ["3500", "1500"]);
});
