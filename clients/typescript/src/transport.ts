/**
 * The fetch every request of a client goes through (openapi-fetch's `fetch` option): a
 * timeout per attempt, and retries by the rules of retries.ts. The request's body is read
 * once and sent again as is; its Idempotency-Key header stays the same on every attempt.
 */

import { setTimeout as sleep } from "node:timers/promises";

import { APIConnectionError, errorCode } from "./errors.js";
import { Retries, type RetryPolicy, isReplayable, transportErrorCodes } from "./retries.js";

export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchFunction;
  timeoutMs: number;
  retryPolicy: RetryPolicy;
}

/** A fetch that retries what may be retried and turns a lost connection, once the retries
 * are spent, into an APIConnectionError. Error answers are returned (as a new Response
 * holding the same body), for the caller to turn into typed errors. */
export function retryingFetch(options: TransportOptions): (request: Request) => Promise<Response> {
  return async (request: Request): Promise<Response> => {
    const replayable = isReplayable(request.method, request.headers);
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const retries = new Retries(options.retryPolicy);
    const where = `${request.method} ${new URL(request.url).pathname}`;
    for (;;) {
      let waitMs: number | undefined;
      let response: Response;
      try {
        response = await options.fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body,
          signal: withTimeout(request.signal, options.timeoutMs),
          redirect: request.redirect,
        });
      } catch (error) {
        if (request.signal.aborted || !isTransportError(error)) throw error;
        waitMs = retries.waitAfterError(replayable, error);
        if (waitMs === undefined) {
          throw new APIConnectionError(
            `${where}: ${describe(error)} (after ${retries.attempts} attempt(s))`,
            error,
          );
        }
        await sleep(waitMs, undefined, { signal: request.signal });
        continue;
      }
      if (response.ok) return response;
      const text = await response.text();
      waitMs = retries.waitAfterAnswer(replayable, response.status, response.headers, errorCode(parse(text)));
      if (waitMs === undefined) {
        return new Response(text, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      }
      await sleep(waitMs, undefined, { signal: request.signal });
    }
  };
}

/** A signal that aborts when `signal` does, or with a TimeoutError after `timeoutMs`
 * (AbortSignal.any without needing Node 20.3). */
function withTimeout(signal: AbortSignal, timeoutMs: number): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  const controller = new AbortController();
  const abort = (source: AbortSignal) => () => controller.abort(source.reason);
  if (signal.aborted) controller.abort(signal.reason);
  signal.addEventListener("abort", abort(signal), { once: true, signal: controller.signal });
  timeout.addEventListener("abort", abort(timeout), { once: true, signal: controller.signal });
  return controller.signal;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A failure to get an answer (connection refused or lost, DNS, timeout), as opposed to a
 * mistake in the call (which is thrown as is). */
function isTransportError(error: unknown): boolean {
  if (error instanceof DOMException && error.name === "TimeoutError") return true;
  if (transportErrorCodes(error).length > 0) return true;
  // undici's "fetch failed" carries the socket's error as its cause.
  return error instanceof TypeError && error.cause !== undefined;
}

function describe(error: unknown): string {
  if (error instanceof DOMException && error.name === "TimeoutError") return "timed out";
  const codes = transportErrorCodes(error);
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return codes.length ? `${message}${cause} (${[...new Set(codes)].join(", ")})` : `${message}${cause}`;
}
