/**
 * When to send a request again, and after how long: the Python SDK's rules
 * (clients/python/src/corridor_client/_retries.py), times in milliseconds.
 *
 * Retried: a connection that could not be made (nothing was sent), and, for a request that
 * is safe to repeat (an idempotent method, or a POST with an Idempotency-Key), a connection
 * lost mid-request or a timeout, 409 `idempotency_key_in_progress`, 429 and 503. Waits
 * honour `Retry-After`, otherwise grow exponentially with jitter, and are bounded in number
 * and in total.
 */

/** How persistent a client is. `{ attemptsMax: 1 }` never retries. */
export interface RetryPolicy {
  /** Attempts per request, the first one included. */
  readonly attemptsMax: number;
  /** The most time spent waiting between the attempts of one request, in total; a
   * Retry-After that would go past it ends the retries at once. */
  readonly waitTotalMaxMs: number;
  /** Backoff when the server does not say how long to wait: the first wait, doubling per
   * retry up to backoffMaxMs, each with up to half of it taken off at random. */
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  attemptsMax: 4,
  waitTotalMaxMs: 60_000,
  backoffInitialMs: 500,
  backoffMaxMs: 8_000,
});

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.attemptsMax) || policy.attemptsMax < 1) {
    throw new RangeError("retryPolicy.attemptsMax must be an integer of at least 1");
  }
  for (const name of ["waitTotalMaxMs", "backoffInitialMs", "backoffMaxMs"] as const) {
    if (!(policy[name] >= 0)) {
      throw new RangeError(`retryPolicy.${name} cannot be negative`);
    }
  }
  return Object.freeze(policy);
}

const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);
const RETRIED_CONFLICT_CODES: ReadonlySet<string> = new Set(["idempotency_key_in_progress"]);
// HTTP methods a server may receive twice with the same effect (RFC 9110 section 9.2.2).
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "OPTIONS",
  "PUT",
  "DELETE",
]);
// Failures before any byte of the request left (undici's and Node's codes): sending again
// cannot repeat anything.
const NOTHING_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Safe to send again after an attempt that may have reached the server: the method is
 * idempotent, or the server recognises the repeat by its Idempotency-Key. */
export function isReplayable(method: string, headers: Headers): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase()) || headers.has("idempotency-key");
}

/** Milliseconds asked for by a Retry-After header (delay seconds or an HTTP date), or
 * undefined when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (text === "") return undefined;
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) ? Math.max(0, seconds * 1000) : undefined;
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The system error code of a failed fetch (undici puts it on the error's `cause`, an
 * AggregateError's errors when every address of a name failed). */
export function transportErrorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4 || value === null || typeof value !== "object") return;
    const code = (value as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    if (value instanceof AggregateError) value.errors.forEach((inner) => visit(inner, depth + 1));
    visit((value as { cause?: unknown }).cause, depth + 1);
  };
  visit(error, 0);
  return codes;
}

/** True when the failure happened before the request could reach the server. */
export function nothingWasSent(error: unknown): boolean {
  const codes = transportErrorCodes(error);
  return codes.length > 0 && codes.every((code) => NOTHING_SENT_CODES.has(code));
}

/** The retry state of one request: how many attempts so far, how long waited. */
export class Retries {
  attempts = 1;
  waitedMs = 0;

  constructor(
    readonly policy: RetryPolicy,
    private readonly randomFraction: () => number = Math.random,
  ) {}

  /** Milliseconds to wait before sending again after a transport failure (no answer), or
   * undefined to give up. */
  waitAfterError(replayable: boolean, error: unknown): number | undefined {
    if (nothingWasSent(error) || replayable) return this.take(undefined);
    return undefined;
  }

  /** Milliseconds to wait before sending again after an error answer, or undefined to
   * give up. */
  waitAfterAnswer(
    replayable: boolean,
    status: number,
    headers: Headers,
    code: string | undefined,
  ): number | undefined {
    const retried =
      RETRIED_STATUSES.has(status) ||
      (status === 409 && code !== undefined && RETRIED_CONFLICT_CODES.has(code));
    if (!retried || !replayable) return undefined;
    return this.take(retryAfterMs(headers.get("retry-after")));
  }

  private take(askedMs: number | undefined): number | undefined {
    if (this.attempts >= this.policy.attemptsMax) return undefined;
    const waitMs = askedMs ?? this.backoffMs();
    if (this.waitedMs + waitMs > this.policy.waitTotalMaxMs) return undefined;
    this.attempts += 1;
    this.waitedMs += waitMs;
    return waitMs;
  }

  private backoffMs(): number {
    const fullMs = Math.min(
      this.policy.backoffMaxMs,
      this.policy.backoffInitialMs * 2 ** (this.attempts - 1),
    );
    return fullMs * (1 - this.randomFraction() / 2);
  }
}
