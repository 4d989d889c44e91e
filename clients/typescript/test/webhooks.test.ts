/**
 * Webhook verification: a real delivery of `corridor serve` to a Node HTTP server on
 * 127.0.0.1, verified with the secret the API gives; and the same verification checked
 * against the reference implementation (the `standardwebhooks` package) both ways.
 */

import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { type IncomingHttpHeaders, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";

import { Webhook } from "standardwebhooks";

import { type Schemas, WebhookVerificationError, verifyWebhook } from "corridor-client";
import { needsServer, owner } from "./support.js";

// A bound, not a timing: deliveries are made by the server's worker, at once when idle.
const DELIVERY_WAIT_MS_MAX = 60_000;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An HTTP endpoint on 127.0.0.1 that keeps what it receives and answers 204. */
async function receiver(): Promise<{ url: string; received: Delivery[]; close: () => Promise<void> }> {
  const received: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/corridor-webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function waitFor<T>(find: () => T | undefined): Promise<T> {
  const deadline = Date.now() + DELIVERY_WAIT_MS_MAX;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    assert.ok(Date.now() < deadline, "no delivery arrived");
    await sleep(100);
  }
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

describe("a real delivery", needsServer, () => {
  test("verifies with the endpoint's secret and reads as the event", async () => {
    const corridor = owner();
    const endpointReceiver = await receiver();
    try {
      const endpoint = await corridor.post("/v1/webhooks/endpoints", {
        body: { url: endpointReceiver.url, eventTypes: ["customer.created"] },
      });
      const { key: secret } = await corridor.get("/v1/webhooks/endpoints/{endpoint_id}/secret", {
        params: { path: { endpoint_id: endpoint.id } },
      });
      const customer = await corridor.post("/v1/customers/business", {
        body: { legalName: "Acme Inc", email: `billing-${randomUUID()}@acme.example` },
      });

      // Other tests create customers on the same server: this customer's delivery.
      const delivery = await waitFor(() =>
        endpointReceiver.received.find((candidate) => candidate.body.includes(customer.id)),
      );
      const event = verifyWebhook<Schemas["CustomerRead"]>(delivery.body, delivery.headers, secret);

      assert.equal(event.type, "customer.created");
      assert.equal(event.id, delivery.headers["webhook-id"]);
      assert.match(event.id, /^msg_/);
      assert.equal(event.data.id, customer.id);
      assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
      // The reference implementation agrees.
      new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);

      const tampered = Buffer.concat([delivery.body, Buffer.from(" ")]);
      assert.throws(() => verifyWebhook(tampered, delivery.headers, secret), WebhookVerificationError);
      assert.throws(() => verifyWebhook(delivery.body, delivery.headers, newSecret()), /no signature matches/);
      assert.throws(
        () => verifyWebhook(delivery.body, { ...delivery.headers, "webhook-signature": "garbage" }, secret),
        WebhookVerificationError,
      );
      const later = new Date(Date.now() + 10 * 60 * 1000);
      assert.throws(() => verifyWebhook(delivery.body, delivery.headers, secret, { now: later }), /too old/);
    } finally {
      await endpointReceiver.close();
    }
  });
});

describe("verification", () => {
  const secret = newSecret();
  const payload = JSON.stringify({
    type: "transfer.completed",
    timestamp: "2026-11-27T12:00:00.000Z",
    data: { id: "tfr_1", status: "COMPLETED" },
  });

  function signed(at: Date, body = payload, id = "msg_1"): Record<string, string> {
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(secret).sign(id, at, body),
    };
  }

  test("a delivery signed by the reference implementation verifies, from any header form", () => {
    const headers = signed(new Date());
    for (const form of [headers, new Headers(headers), Object.entries(headers)]) {
      const event = verifyWebhook(payload, form, secret);
      assert.deepEqual(event, {
        id: "msg_1",
        type: "transfer.completed",
        timestamp: "2026-11-27T12:00:00.000Z",
        data: { id: "tfr_1", status: "COMPLETED" },
      });
    }
    const upperCase = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    assert.equal(verifyWebhook(Buffer.from(payload), upperCase, secret).id, "msg_1");
  });

  test("after a rotation either of the two signatures verifies", () => {
    const now = new Date();
    const old = newSecret();
    const headers = signed(now);
    const both = { ...headers, "webhook-signature": `${new Webhook(old).sign("msg_1", now, payload)} ${headers["webhook-signature"]}` };
    assert.equal(verifyWebhook(payload, both, secret).id, "msg_1");
    assert.equal(verifyWebhook(payload, both, old).id, "msg_1");
    assert.throws(() => verifyWebhook(payload, both, newSecret()), WebhookVerificationError);
  });

  test("the tolerance window is five minutes either way, or as set", () => {
    const now = new Date();
    const minutes = (count: number) => new Date(now.getTime() + count * 60_000);
    assert.equal(verifyWebhook(payload, signed(minutes(-4)), secret, { now }).id, "msg_1");
    assert.equal(verifyWebhook(payload, signed(minutes(4)), secret, { now }).id, "msg_1");
    assert.throws(() => verifyWebhook(payload, signed(minutes(-6)), secret, { now }), /too old/);
    assert.throws(() => verifyWebhook(payload, signed(minutes(6)), secret, { now }), /too new/);
    assert.equal(verifyWebhook(payload, signed(minutes(-6)), secret, { now, toleranceS: 600 }).id, "msg_1");
  });

  test("a signature over another id, or no headers, or a bad secret, is refused", () => {
    const now = new Date();
    const headers = { ...signed(now), "webhook-id": "msg_2" };
    assert.throws(() => verifyWebhook(payload, headers, secret), /no signature matches/);
    assert.throws(() => verifyWebhook(payload, {}, secret), /missing header/);
    assert.throws(() => verifyWebhook(payload, signed(now), "whsec_not base64!"), /not whsec_ followed by base64/);
    const notAnEvent = "[1, 2]";
    assert.throws(() => verifyWebhook(notAnEvent, signed(now, notAnEvent), secret), /not a Corridor event/);
  });
});
