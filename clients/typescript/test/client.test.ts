/**
 * The client against a live `corridor serve`: credentials, onboarding, a payout created
 * and submitted with its Idempotency-Key replayed, lists walked across pages, typed errors.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";

import {
  AuthenticationError,
  Corridor,
  IdempotencyKeyReusedError,
  InvalidStateError,
  MissingApiKeyError,
  NotFoundError,
  ValidationError,
} from "corridor-client";
import { achPayout, fundedPayer, needsServer, owner } from "./support.js";

describe("credentials", () => {
  test("a client without an API key fails at once, before sending anything", () => {
    const saved = process.env["CORRIDOR_API_KEY"];
    delete process.env["CORRIDOR_API_KEY"];
    try {
      assert.throws(() => new Corridor({ baseUrl: "http://127.0.0.1:1" }), (caught: unknown) => {
        assert.ok(caught instanceof MissingApiKeyError);
        assert.match(caught.message, /no API key: pass .*apiKey.* or set CORRIDOR_API_KEY/);
        return true;
      });
      assert.throws(() => new Corridor({ apiKey: "  " }), MissingApiKeyError);
    } finally {
      if (saved !== undefined) process.env["CORRIDOR_API_KEY"] = saved;
    }
  });

  test("the key and the base URL come from the environment when not given", needsServer, async () => {
    const corridor = new Corridor();
    assert.equal(corridor.baseUrl, process.env["CORRIDOR_BASE_URL"]);
    const organization = await corridor.get("/v1/organizations/current");
    assert.match(organization.id, /^org_/);
  });

  test("an unknown key is refused with a typed 401", needsServer, async () => {
    const stranger = new Corridor({ apiKey: "sk_sandbox_unknown", baseUrl: process.env["CORRIDOR_BASE_URL"] });
    await assert.rejects(stranger.get("/v1/organizations/current"), (caught: unknown) => {
      assert.ok(caught instanceof AuthenticationError);
      assert.equal(caught.status, 401);
      assert.equal(caught.code, "unauthorized");
      assert.match(caught.requestId ?? "", /^req_/);
      return true;
    });
  });
});

describe("against corridor serve", needsServer, () => {
  test("onboarding: a customer accepts the terms, is verified, funded and given a bank account", async () => {
    const corridor = owner();
    const payer = await fundedPayer(corridor, "12550");

    assert.equal(payer.customer.status, "ACTIVE");
    assert.match(payer.account.id, /^acc_/);
    const balance = await corridor.get("/v1/accounts/{account_id}/balance", {
      params: { path: { account_id: payer.account.id } },
    });
    assert.equal(balance.available.value, "12550");
    assert.equal(payer.bankAccount.customerId, payer.customer.id);
  });

  test("a payout is created once per Idempotency-Key, replayed on repeat, then submitted", async () => {
    const corridor = owner();
    const payer = await fundedPayer(corridor);
    const key = `payout-${randomUUID()}`;

    const first = await corridor.post("/v1/transfers", { body: achPayout(payer, "2500"), idempotencyKey: key }).withResponse();
    assert.equal(first.data.status, "DRAFT");
    assert.equal(first.idempotencyKey, key);
    assert.equal(first.replayed, false);
    const again = await corridor.post("/v1/transfers", { body: achPayout(payer, "2500"), idempotencyKey: key }).withResponse();
    assert.equal(again.data.id, first.data.id);
    assert.equal(again.replayed, true);
    assert.equal(again.response.headers.get("idempotent-replayed"), "true");

    await assert.rejects(
      corridor.post("/v1/transfers", { body: achPayout(payer, "2600"), idempotencyKey: key }),
      IdempotencyKeyReusedError,
    );
    // Without a key of the caller's, each create gets its own: two drafts.
    const unkeyed = await corridor.post("/v1/transfers", { body: achPayout(payer, "100") }).withResponse();
    assert.ok(unkeyed.idempotencyKey && unkeyed.idempotencyKey !== key);
    assert.notEqual(unkeyed.data.id, first.data.id);

    const transferPath = { params: { path: { transfer_id: first.data.id } } };
    const submitted = await corridor.post("/v1/transfers/{transfer_id}/submit", transferPath);
    assert.equal(submitted.id, first.data.id);
    assert.notEqual(submitted.status, "DRAFT");
    await assert.rejects(corridor.post("/v1/transfers/{transfer_id}/submit", transferPath), (caught: unknown) => {
      assert.ok(caught instanceof InvalidStateError);
      assert.equal(caught.status, 409);
      // The workers may have moved it on since: any status but DRAFT.
      assert.match(caught.currentStatus ?? "", /^[A-Z_]+$/);
      assert.notEqual(caught.currentStatus, "DRAFT");
      return true;
    });
  });

  test("a list is walked across pages with for await, newest first", async () => {
    const corridor = owner();
    const payer = await fundedPayer(corridor);
    const made: string[] = [];
    for (const value of ["101", "102", "103"]) {
      made.push((await corridor.post("/v1/transfers", { body: achPayout(payer, value) })).id);
    }
    const query = { params: { query: { customerId: payer.customer.id, limit: 1 } } };

    const pages = [];
    for await (const page of corridor.list("/v1/transfers", query).pages()) pages.push(page);
    assert.deepEqual(pages.map((page) => page.data.length), [1, 1, 1]);
    assert.deepEqual(pages.map((page) => page.hasMore), [true, true, false]);

    const seen: string[] = [];
    for await (const transfer of corridor.list("/v1/transfers", query)) seen.push(transfer.id);
    assert.deepEqual(seen, [...made].reverse());
    const firstTwo = await corridor.list("/v1/transfers", query).toArray(2);
    assert.deepEqual(firstTwo.map((transfer) => transfer.id), seen.slice(0, 2));
  });

  test("a refusal is a typed error carrying the API's error body", async () => {
    const corridor = owner();
    await assert.rejects(
      corridor.get("/v1/transfers/{transfer_id}", { params: { path: { transfer_id: "tfr_nothere" } } }),
      (caught: unknown) => {
        assert.ok(caught instanceof NotFoundError);
        assert.equal(caught.code, "not_found");
        assert.match(caught.requestId ?? "", /^req_/);
        return true;
      },
    );
    await assert.rejects(
      corridor.post("/v1/customers/business", {
        body: { legalName: "Acme Inc", email: "not an email" },
      }),
      (caught: unknown) => {
        assert.ok(caught instanceof ValidationError);
        assert.equal(caught.status, 422);
        assert.equal(caught.code, "validation_error");
        assert.equal(caught.param, "email");
        assert.deepEqual(caught.errors.map((error) => error.field), ["email"]);
        assert.equal(caught.body["code"], "validation_error");
        assert.match(String(caught), /ValidationError: .* \[422 validation_error, request req_.*\]\n  email: /);
        return true;
      },
    );
  });
});
