/**
 * Retries against a scripted HTTP server on 127.0.0.1 (real sockets, real Retry-After
 * waits), and the retry rules on their own. The rules are the Python SDK's.
 */

import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, describe, test } from "node:test";

import {
  APIConnectionError,
  Corridor,
  IdempotencyKeyInProgressError,
  RateLimitError,
  Retries,
  ServiceUnavailableError,
  retryAfterMs,
  retryPolicy,
} from "corridor-client";
import { DROP, HANG, ScriptedServer, error } from "./scripted.js";

const ACCEPTANCE = { id: "tos_1", status: "PENDING", url: "https://example.test/tos" };
const QUICK = { attemptsMax: 3, backoffInitialMs: 10, backoffMaxMs: 20 };
const servers: ScriptedServer[] = [];

after(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function serve(...answers: Parameters<typeof ScriptedServer.start>): Promise<ScriptedServer> {
  const server = await ScriptedServer.start(...answers);
  servers.push(server);
  return server;
}

function client(server: ScriptedServer): Corridor {
  return new Corridor({ apiKey: "sk_sandbox_scripted", baseUrl: server.baseUrl, retryPolicy: QUICK });
}

describe("retries against a scripted server", () => {
  test("a create is sent again after 503 with Retry-After, with the same Idempotency-Key", async () => {
    const server = await serve(error(503, "unavailable", { "Retry-After": "1" }), { status: 201, body: ACCEPTANCE });
    const answer = await client(server).post("/v1/terms-of-service/acceptances").withResponse();

    assert.equal(answer.data.id, "tos_1");
    const [first, second] = server.requests;
    assert.ok(first && second && server.requests.length === 2);
    const key = first.headers["idempotency-key"];
    assert.ok(typeof key === "string" && key.length >= 32, "a create carries a new key");
    assert.equal(second.headers["idempotency-key"], key);
    assert.equal(answer.idempotencyKey, key);
    // Retry-After: 1 was honoured (a lower bound: waits are never shorter than asked).
    assert.ok(second.arrivedMs - first.arrivedMs >= 990, `waited ${second.arrivedMs - first.arrivedMs} ms`);
  });

  test("a read is sent again after 429", async () => {
    const server = await serve(error(429, "rate_limited", { "Retry-After": "0" }), {
      status: 200,
      body: { status: "ok" },
    });
    const health = await client(server).get("/v1/health");

    assert.equal((health as { status: string }).status, "ok");
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[0]?.headers["idempotency-key"], undefined);
  });

  test("409 idempotency_key_in_progress is waited out, with the caller's key", async () => {
    const server = await serve(error(409, "idempotency_key_in_progress", { "Retry-After": "0" }), {
      status: 201,
      body: ACCEPTANCE,
    });
    await client(server).post("/v1/terms-of-service/acceptances", { idempotencyKey: "tos-once" });

    assert.deepEqual(
      server.requests.map((request) => request.headers["idempotency-key"]),
      ["tos-once", "tos-once"],
    );
  });

  test("attempts are bounded and the last error is thrown, typed", async () => {
    const server = await serve(...Array(5).fill(error(409, "idempotency_key_in_progress", { "Retry-After": "0" })));
    await assert.rejects(
      client(server).post("/v1/transfers/{transfer_id}/submit", {
        params: { path: { transfer_id: "tfr_1" } },
        idempotencyKey: "submit-1",
      }),
      IdempotencyKeyInProgressError,
    );
    assert.equal(server.requests.length, QUICK.attemptsMax);
  });

  test("a Retry-After beyond the wait budget throws at once", async () => {
    const server = await serve(error(429, "rate_limited", { "Retry-After": "3600" }));
    const refusal = await client(server)
      .get("/v1/transfers")
      .then(
        () => assert.fail("answered"),
        (caught: unknown) => caught,
      );
    assert.ok(refusal instanceof RateLimitError);
    assert.equal(refusal.retryAfterMs, 3_600_000);
    assert.equal(refusal.status, 429);
    assert.equal(server.requests.length, 1);
  });

  test("an action without a key is never sent twice (503, then a dropped connection)", async () => {
    const server = await serve(error(503, "unavailable", { "Retry-After": "0" }), DROP);
    const corridor = client(server);
    const submit = () =>
      corridor.post("/v1/transfers/{transfer_id}/submit", { params: { path: { transfer_id: "tfr_1" } } });

    await assert.rejects(submit(), ServiceUnavailableError);
    await assert.rejects(submit(), APIConnectionError);
    assert.equal(server.requests.length, 2);
    assert.ok(server.requests.every((request) => request.headers["idempotency-key"] === undefined));
  });

  test("a connection dropped mid-create is retried with the same key", async () => {
    const server = await serve(DROP, { status: 201, body: ACCEPTANCE });
    await client(server).post("/v1/terms-of-service/acceptances");

    const [first, second] = server.requests;
    assert.ok(first && second);
    assert.equal(first.headers["idempotency-key"], second.headers["idempotency-key"]);
    assert.equal(first.body, second.body);
  });

  test("a refused connection is retried up to attemptsMax, even for an unkeyed action", async () => {
    const port = await freePort();
    const corridor = new Corridor({
      apiKey: "sk_sandbox_scripted",
      baseUrl: `http://127.0.0.1:${port}`,
      retryPolicy: QUICK,
    });
    await assert.rejects(
      corridor.post("/v1/transfers/{transfer_id}/submit", { params: { path: { transfer_id: "tfr_1" } } }),
      (caught: unknown) => {
        assert.ok(caught instanceof APIConnectionError);
        assert.match(caught.message, /ECONNREFUSED/);
        assert.match(caught.message, /after 3 attempt/);
        return true;
      },
    );
  });

  test("a slow answer times out and is retried when the request is replayable", async () => {
    const hanging = await serve(HANG, HANG);
    const corridor = new Corridor({
      apiKey: "sk_sandbox_scripted",
      baseUrl: hanging.baseUrl,
      timeoutMs: 200,
      retryPolicy: { attemptsMax: 2, backoffInitialMs: 1 },
    });
    await assert.rejects(corridor.get("/v1/health"), (caught: unknown) => {
      assert.ok(caught instanceof APIConnectionError);
      assert.match(caught.message, /timed out \(after 2 attempt/);
      return true;
    });
    assert.equal(hanging.requests.length, 2);
  });
});

describe("the retry rules", () => {
  const NOW = Date.parse("2026-11-24T12:00:00Z");

  test("Retry-After reads seconds or an HTTP date", () => {
    const cases: [string | null, number | undefined][] = [
      ["3", 3000],
      [" 1.5 ", 1500],
      ["-4", 0],
      ["Tue, 24 Nov 2026 12:00:30 GMT", 30_000],
      ["Tue, 24 Nov 2026 11:59:00 GMT", 0],
      ["inf", undefined],
      ["soon", undefined],
      [null, undefined],
    ];
    for (const [header, ms] of cases) {
      assert.equal(retryAfterMs(header, NOW), ms, String(header));
    }
  });

  test("backoff doubles up to its ceiling, less up to half at random", () => {
    const policy = retryPolicy({ attemptsMax: 10, waitTotalMaxMs: 1_000_000, backoffInitialMs: 1000, backoffMaxMs: 4000 });
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("refused"), { code: "ECONNREFUSED" }) });
    const most = new Retries(policy, () => 0);
    const least = new Retries(policy, () => 1);

    assert.deepEqual([1, 2, 3, 4].map(() => most.waitAfterError(false, refused)), [1000, 2000, 4000, 4000]);
    assert.deepEqual([1, 2, 3, 4].map(() => least.waitAfterError(false, refused)), [500, 1000, 2000, 2000]);
  });

  test("the wait budget and attemptsMax end the retries", () => {
    const retries = new Retries(retryPolicy({ attemptsMax: 3, waitTotalMaxMs: 5000 }));
    const asked = new Headers({ "retry-after": "2" });

    assert.equal(retries.waitAfterAnswer(true, 503, asked, undefined), 2000);
    assert.equal(retries.waitAfterAnswer(true, 503, asked, undefined), 2000);
    assert.equal(retries.waitAfterAnswer(true, 503, asked, undefined), undefined);
    const overBudget = new Retries(retryPolicy({ waitTotalMaxMs: 5000 }));
    assert.equal(overBudget.waitAfterAnswer(true, 429, new Headers({ "retry-after": "6" }), undefined), undefined);
  });

  test("only requests safe to repeat are retried after they may have arrived", () => {
    const lost = new TypeError("fetch failed", { cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }) });
    const none = new Headers();

    assert.equal(new Retries(retryPolicy()).waitAfterError(false, lost), undefined);
    assert.notEqual(new Retries(retryPolicy()).waitAfterError(true, lost), undefined);
    assert.equal(new Retries(retryPolicy()).waitAfterAnswer(false, 503, none, undefined), undefined);
    assert.equal(new Retries(retryPolicy()).waitAfterAnswer(true, 500, none, undefined), undefined);
    assert.equal(new Retries(retryPolicy()).waitAfterAnswer(true, 409, none, "invalid_state"), undefined);
  });

  test("a policy that cannot work is refused", () => {
    assert.throws(() => retryPolicy({ attemptsMax: 0 }), RangeError);
    assert.throws(() => retryPolicy({ backoffInitialMs: -1 }), RangeError);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
