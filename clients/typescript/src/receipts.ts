/**
 * Check Corridor's signed receipts offline (API.md 9): a receipt is a compact JWS whose
 * header names the `kid` of a key of the server's `/.well-known/jwks.json`.
 *
 *     const { data } = await corridor.transfers.receipts("tfr_…");
 *     const jwks = await corridor.jwks();
 *     const payload = verifyReceipt(data[0].jws, jwks); // ReceiptVerificationError when it does not verify
 *
 * Corridor signs with EdDSA (Ed25519); ES256 (P-256) verifies too. Only Node's own
 * `crypto` is used. The key is chosen by the header's `kid`, and its algorithm must be
 * the header's: a JWKS entry never verifies a receipt of another kind of key.
 */

import { type JsonWebKey, type KeyObject, createPublicKey, verify } from "node:crypto";

/** The receipt is not a compact JWS, names a kid the JWKS lacks, uses another algorithm,
 * or its signature is bad. Do not trust its payload. */
export class ReceiptVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReceiptVerificationError";
  }
}

/** One public key of a JWKS (RFC 7517), as /.well-known/jwks.json lists them. */
export interface Jwk {
  kty: string;
  kid?: string;
  alg?: string;
  use?: string;
  crv?: string;
  x?: string;
  y?: string;
  [extra: string]: unknown;
}

/** The JSON of /.well-known/jwks.json. */
export interface Jwks {
  keys: Jwk[];
}

/** What a receipt says (API.md 9): the transfer, its agent and mandate, the decision, … */
export type ReceiptPayload = Record<string, unknown>;

const ALGORITHMS = ["EdDSA", "ES256"] as const;
type Algorithm = (typeof ALGORITHMS)[number];

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decode(part: string, what: string): Buffer {
  const bytes = BASE64URL.test(part) ? Buffer.from(part, "base64url") : undefined;
  // Canonical only: a changed character in the unused bits of the last one is refused too.
  if (bytes === undefined || bytes.toString("base64url") !== part) {
    throw new ReceiptVerificationError(`the JWS ${what} is not base64url`);
  }
  return bytes;
}

function json(part: string, what: string): unknown {
  try {
    return JSON.parse(decode(part, what).toString("utf8"));
  } catch (caught) {
    if (caught instanceof ReceiptVerificationError) throw caught;
    throw new ReceiptVerificationError(`the JWS ${what} is not JSON`);
  }
}

function publicKey(jwk: Jwk, alg: Algorithm, kid: string): KeyObject {
  const fits =
    alg === "EdDSA"
      ? jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.x === "string"
      : jwk.kty === "EC" && jwk.crv === "P-256" && typeof jwk.x === "string" && typeof jwk.y === "string";
  if (!fits || (jwk.alg !== undefined && jwk.alg !== alg)) {
    throw new ReceiptVerificationError(`the key ${JSON.stringify(kid)} is not a ${alg} public key`);
  }
  const { kty, crv, x, y } = jwk;
  try {
    return createPublicKey({ key: { kty, crv, x, ...(y === undefined ? {} : { y }) } as JsonWebKey, format: "jwk" });
  } catch {
    throw new ReceiptVerificationError(`the key ${JSON.stringify(kid)} is not a ${alg} public key`);
  }
}

/** The receipt's payload once its signature verifies against `jwks` (the JSON of
 * /.well-known/jwks.json); throws ReceiptVerificationError otherwise. */
export function verifyReceipt(jws: string, jwks: Jwks): ReceiptPayload {
  const parts = jws.trim().split(".");
  if (parts.length !== 3) {
    throw new ReceiptVerificationError("not a compact JWS (three dot-separated parts)");
  }
  const [protectedPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = json(protectedPart, "header");
  if (typeof header !== "object" || header === null || Array.isArray(header)) {
    throw new ReceiptVerificationError("the JWS header is not a JSON object");
  }
  const { alg, kid } = header as { alg?: unknown; kid?: unknown };
  if (!ALGORITHMS.includes(alg as Algorithm)) {
    throw new ReceiptVerificationError(`unexpected alg ${JSON.stringify(alg)} (receipts use EdDSA or ES256)`);
  }
  if (typeof kid !== "string") throw new ReceiptVerificationError("the JWS header names no kid");
  const jwk = (Array.isArray(jwks?.keys) ? jwks.keys : []).find(
    (candidate) => typeof candidate === "object" && candidate !== null && candidate.kid === kid,
  );
  if (jwk === undefined) {
    throw new ReceiptVerificationError(`unknown kid ${JSON.stringify(kid)}: no key of the JWKS has it`);
  }
  const key = publicKey(jwk, alg as Algorithm, kid);
  const signature = decode(signaturePart, "signature");
  const signed = Buffer.from(`${protectedPart}.${payloadPart}`, "ascii");
  // ES256 signatures are r||s (64 bytes, RFC 7518 3.4), not DER.
  const valid =
    alg === "EdDSA"
      ? verify(null, signed, key, signature)
      : signature.length === 64 && verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, signature);
  if (!valid) throw new ReceiptVerificationError("bad signature");
  const payload = json(payloadPart, "payload");
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new ReceiptVerificationError("the JWS payload is not a JSON object");
  }
  return payload as ReceiptPayload;
}
