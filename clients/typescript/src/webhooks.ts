/**
 * Check a webhook delivery's signature (Standard Webhooks) and read the event in it.
 *
 *     const event = verifyWebhook(rawBody, request.headers, secret);
 *
 * Verify the raw body exactly as received, before any JSON parsing; de-duplicate by
 * `event.id` (the `webhook-id` header: the same on every retry of one message).
 *
 * The signature is `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed by the secret
 * (`whsec_<base64>`); during the 24 hours after a rotation a delivery carries two,
 * space-separated, and either verifies. Signatures are compared in constant time, and a
 * timestamp further than the tolerance (5 minutes) from now is refused, so a captured
 * delivery cannot be replayed later.
 */

import { createHmac, timingSafeEqual } from "node:crypto";

/** The delivery is not signed by this secret, is too old or too new, or is malformed.
 * Answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** An event as Corridor sends it: `type`, `timestamp` and the resource in `data`. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** The message id (`msg_…`), from the webhook-id header. */
  id: string;
  /** transfer.completed, customer.created, … */
  type: string;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: Data;
}

/** Headers as Node's http module, the Fetch API or a plain object give them. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

export interface VerifyOptions {
  /** How far the delivery's timestamp may be from now, in seconds (default 300). */
  toleranceS?: number;
  /** The time to check against (default: now). */
  now?: Date;
}

const DEFAULT_TOLERANCE_S = 5 * 60;
const SECRET_PREFIX = "whsec_";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The event of a delivery whose signature and timestamp check out with `secret`
 * (`whsec_…`, from GET /v1/webhooks/endpoints/{endpoint_id}/secret); throws
 * WebhookVerificationError otherwise. */
export function verifyWebhook<Data = Record<string, unknown>>(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent<Data> {
  const lowered = lowerCased(headers);
  const id = lowered.get("webhook-id");
  const timestamp = lowered.get("webhook-timestamp");
  const signatures = lowered.get("webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "missing header: a delivery has webhook-id, webhook-timestamp and webhook-signature",
    );
  }
  checkTimestamp(timestamp, options);
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload);
  const expected = createHmac("sha256", secretKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest();
  if (!signatures.split(" ").some((signature) => matches(signature, expected))) {
    throw new WebhookVerificationError("no signature matches this secret");
  }
  return event<Data>(id, body);
}

function lowerCased(headers: WebhookHeaders): Map<string, string> {
  const lowered = new Map<string, string>();
  const entries: Iterable<[string, unknown]> =
    Symbol.iterator in Object(headers)
      ? (headers as Iterable<[string, string]>)
      : Object.entries(headers);
  for (const [name, value] of entries) {
    const single = Array.isArray(value) ? value[0] : value;
    if (typeof single === "string") lowered.set(name.toLowerCase(), single);
  }
  return lowered;
}

function checkTimestamp(timestamp: string, options: VerifyOptions): void {
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError(`webhook-timestamp is not a Unix time: ${timestamp.slice(0, 40)}`);
  }
  const toleranceS = options.toleranceS ?? DEFAULT_TOLERANCE_S;
  const nowS = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sentS = Number(timestamp);
  if (sentS < nowS - toleranceS) {
    throw new WebhookVerificationError("the delivery's timestamp is too old");
  }
  if (sentS > nowS + toleranceS) {
    throw new WebhookVerificationError("the delivery's timestamp is too new");
  }
}

function secretKey(secret: string): Buffer {
  if (typeof secret !== "string" || secret === "") {
    throw new WebhookVerificationError("the secret is empty");
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded)) {
    throw new WebhookVerificationError("the secret is not whsec_ followed by base64");
  }
  return Buffer.from(encoded, "base64");
}

function matches(signature: string, expected: Buffer): boolean {
  const [version, encoded] = signature.split(",", 2);
  if (version !== "v1" || encoded === undefined || !BASE64.test(encoded)) return false;
  const given = Buffer.from(encoded, "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function event<Data>(id: string, body: Buffer): WebhookEvent<Data> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (error) {
    throw new WebhookVerificationError(`signed, but not JSON: ${String(error)}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new WebhookVerificationError("signed, but not a Corridor event (not an object)");
  }
  const { type, timestamp, data } = parsed as Record<string, unknown>;
  if (typeof type !== "string" || typeof timestamp !== "string" || typeof data !== "object" || data === null) {
    throw new WebhookVerificationError("signed, but not a Corridor event (type, timestamp, data)");
  }
  return { id, type, timestamp, data: data as Data };
}
