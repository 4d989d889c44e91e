/**
 * Receipts: an agent's payment's signed receipt verified offline against the server's
 * JWKS, and refused once one byte changes; verifyReceipt's own rules with keys made here
 * (EdDSA and ES256, the kid, the algorithm).
 */

import assert from "node:assert/strict";
import { type KeyObject, generateKeyPairSync, sign } from "node:crypto";
import { test } from "node:test";

import { type Jwk, type Jwks, ReceiptVerificationError, verifyReceipt } from "corridor-client";
import { achPayout, agentPayment, fundedPayer, needsServer, owner, payingAgent } from "./support.js";

/** The JWS with the character at `index` changed (to another base64url character). */
function changedAt(jws: string, index: number): string {
  const replacement = jws[index] === "A" ? "B" : "A";
  return jws.slice(0, index) + replacement + jws.slice(index + 1);
}

function refused(jws: string, jwks: Jwks, message: RegExp): void {
  assert.throws(
    () => verifyReceipt(jws, jwks),
    (caught: unknown) => caught instanceof ReceiptVerificationError && message.test(caught.message),
  );
}

test("an agent's payment's receipt verifies offline with the fetched JWKS; one changed byte fails", needsServer, async () => {
  const corridor = owner();
  const payer = await fundedPayer(corridor);
  const { agent, bot } = await payingAgent(corridor, payer, {
    name: "Receipts bot",
    limits: { perTransfer: "5000" },
  });
  const paid = await bot.post("/v1/transfers", { body: agentPayment(payer, "1234") });

  const { data: receipts } = await corridor.transfers.receipts(paid.id);
  assert.deepEqual(
    receipts.map((receipt) => receipt.kind),
    ["AUTHORIZED"],
  );
  assert.deepEqual(await bot.transfers.receipts(paid.id), { data: receipts });
  const receipt = receipts[0]!;
  assert.match(receipt.id, /^rcpt_/);

  const jwks = await corridor.jwks();
  assert.ok(jwks.keys.length > 0);
  const payload = verifyReceipt(receipt.jws, jwks);
  assert.equal(payload["kind"], "AUTHORIZED");
  assert.equal(payload["transferId"], paid.id);
  assert.equal(payload["agentId"], agent.id);
  assert.equal(payload["mandateId"], null);
  assert.deepEqual(payload["sourceAmount"], paid.sourceAmount);

  const [header, body, signature] = receipt.jws.split(".") as [string, string, string];
  // One byte changed in the payload, then in the signature.
  refused(changedAt(receipt.jws, header.length + 1 + Math.floor(body.length / 2)), jwks, /bad signature/);
  refused(changedAt(receipt.jws, header.length + body.length + 2 + Math.floor(signature.length / 2)), jwks, /bad signature/);
  // A payload rewritten to say something else, under the old signature.
  const forged = Buffer.from(JSON.stringify({ ...payload, kind: "COMPLETED" })).toString("base64url");
  refused(`${header}.${forged}.${signature}`, jwks, /bad signature/);
  // A JWKS without the receipt's key.
  refused(receipt.jws, { keys: [] }, /unknown kid/);
  // A transfer no agent made has no receipts.
  const own = await corridor.post("/v1/transfers", { body: achPayout(payer, "100") });
  assert.deepEqual(await corridor.transfers.receipts(own.id), { data: [] });
});

function compact(header: object, payload: object, sign: (input: Buffer) => Buffer): string {
  const encoded = [header, payload].map((part) => Buffer.from(JSON.stringify(part)).toString("base64url"));
  const input = Buffer.from(encoded.join("."));
  return `${encoded.join(".")}.${sign(input).toString("base64url")}`;
}

function publicJwk(key: KeyObject, kid: string, alg: string): Jwk {
  return { ...(key.export({ format: "jwk" }) as Jwk), kid, alg, use: "sig" };
}

test("verifyReceipt checks EdDSA and ES256 receipts, choosing the key by kid", () => {
  const ed = generateKeyPairSync("ed25519");
  const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwks: Jwks = { keys: [publicJwk(ed.publicKey, "ed-1", "EdDSA"), publicJwk(ec.publicKey, "ec-1", "ES256")] };
  const claims = { kind: "AUTHORIZED", transferId: "tfr_1" };

  const edReceipt = compact({ alg: "EdDSA", kid: "ed-1" }, claims, (input) => sign(null, input, ed.privateKey));
  const ecReceipt = compact({ alg: "ES256", kid: "ec-1" }, claims, (input) =>
    sign("sha256", input, { key: ec.privateKey, dsaEncoding: "ieee-p1363" }),
  );
  assert.deepEqual(verifyReceipt(edReceipt, jwks), claims);
  assert.deepEqual(verifyReceipt(ecReceipt, jwks), claims);

  // Another key under the right kid, or the right key under another algorithm: refused.
  const other = generateKeyPairSync("ed25519");
  refused(edReceipt, { keys: [publicJwk(other.publicKey, "ed-1", "EdDSA")] }, /bad signature/);
  const swapped = compact({ alg: "ES256", kid: "ed-1" }, claims, (input) =>
    sign("sha256", input, { key: ec.privateKey, dsaEncoding: "ieee-p1363" }),
  );
  refused(swapped, jwks, /not a ES256 public key/);
  // A DER-encoded ES256 signature is not the JWS form.
  const der = compact({ alg: "ES256", kid: "ec-1" }, claims, (input) => sign("sha256", input, ec.privateKey));
  refused(der, jwks, /bad signature/);
  // No signature at all, or not a JWS.
  refused(compact({ alg: "none", kid: "ed-1" }, claims, () => Buffer.alloc(0)), jwks, /unexpected alg/);
  refused(compact({ alg: "EdDSA" }, claims, (input) => sign(null, input, ed.privateKey)), jwks, /no kid/);
  refused("a.b", jwks, /three dot-separated parts/);
  refused("!!.e30.AA", jwks, /header is not base64url/);
  // The unused low bits of the signature's last character count too.
  const last = edReceipt.at(-1) ?? "";
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? "";
  refused(edReceipt.slice(0, -1) + sibling, jwks, /not base64url/);
  // Every byte matters.
  for (let index = 0; index < edReceipt.length; index += 7) {
    if (edReceipt[index] === ".") continue;
    assert.throws(() => verifyReceipt(changedAt(edReceipt, index), jwks), ReceiptVerificationError);
  }
});
