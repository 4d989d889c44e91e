/**
 * Corridor: a client of one Corridor server. Every operation of the API is a typed call
 * by its path, as openapi-fetch makes it from the generated types:
 *
 *     const corridor = new Corridor(); // CORRIDOR_API_KEY, CORRIDOR_BASE_URL
 *     const customer = await corridor.post("/v1/customers/business", {
 *       body: { legalName: "Acme Inc", email: "billing@acme.example" },
 *     });
 *     for await (const transfer of corridor.list("/v1/transfers", { params: { query: { status: "PENDING" } } })) { … }
 *
 * What the client adds: credentials on every request (it refuses to be made without
 * them), an Idempotency-Key on every create, retries (retries.ts), typed errors
 * (errors.ts) thrown instead of returned, and lists walked page by page (pagination.ts).
 *
 * Agent mandates, receipts and the audit chain (API.md 9) also have named calls, as the
 * Python SDK names them: `corridor.agents.mandates`, `corridor.agentMandates`,
 * `corridor.transfers.receipts`, `corridor.jwks()`, `corridor.auditEvents`.
 */

import { randomUUID } from "node:crypto";

import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
} from "openapi-fetch";

import { CorridorError, MissingApiKeyError, errorFromAnswer } from "./errors.js";
import type { components, paths } from "./generated/openapi.js";
import { CREATING_PATHS } from "./generated/operations.js";
import { type Page, Pager } from "./pagination.js";
import type { Jwks } from "./receipts.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryPolicy } from "./retries.js";
import { type FetchFunction, retryingFetch } from "./transport.js";

export const VERSION = "0.1.0";
export const DEFAULT_BASE_URL = "http://127.0.0.1:8000";
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The API's schemas by name: `Schemas["TransferRead"]`, `Schemas["CustomerRead"]`, … */
export type Schemas = components["schemas"];
export type { components, paths };

type Method = "get" | "post" | "put" | "patch" | "delete";
type PathOf<M extends Method> = ClientPathsWithMethod<Client<paths>, M>;
type Operation<P, M extends Method> = P extends keyof paths
  ? M extends keyof paths[P]
    ? paths[P][M]
    : never
  : never;
type RawData<P, M extends Method> =
  Operation<P, M> extends Record<string | number, unknown>
    ? FetchResponse<Operation<P, M>, {}, `${string}/${string}`>["data"]
    : never;
/** What a call answers: the operation's success body (undefined for 204 No Content). */
export type Data<P, M extends Method> = [NonNullable<RawData<P, M>>] extends [never]
  ? undefined
  : NonNullable<RawData<P, M>>;
type Init<P, M extends Method> = P extends keyof paths ? MaybeOptionalInit<paths[P], M> : never;

/** Options of one call, beside openapi-fetch's (`params`, `body`, `headers`, `signal`). */
export interface CallOptions {
  /** The Idempotency-Key to send. Creates get a new one per call when none is given, and
   * keep it across retries; any other POST carries one only when given here. */
  idempotencyKey?: string;
}

type Arguments<P, M extends Method> =
  undefined extends Init<P, M>
    ? [init?: NonNullable<Init<P, M>> & CallOptions]
    : [init: Init<P, M> & CallOptions];

/** A call's answer with its HTTP response. */
export interface Answer<T> {
  data: T;
  response: Response;
  /** `X-Request-Id`: quote it when asking about this call. */
  requestId: string | undefined;
  /** The Idempotency-Key sent, if any. */
  idempotencyKey: string | undefined;
  /** True when the server replayed a first answer for this Idempotency-Key. */
  replayed: boolean;
}

/** The promise of a call: awaits to the data; `.withResponse()` gives the HTTP response
 * (headers, request id, idempotency key) too. */
export class CorridorPromise<T> implements PromiseLike<T> {
  readonly #answer: Promise<Answer<T>>;

  constructor(answer: Promise<Answer<T>>) {
    this.#answer = answer;
  }

  withResponse(): Promise<Answer<T>> {
    return this.#answer;
  }

  then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#answer.then((answer) => answer.data).then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onFinally);
  }

  get [Symbol.toStringTag](): string {
    return "CorridorPromise";
  }
}

/** GET paths whose answer is a page of a list. */
export type ListPath = {
  [P in PathOf<"get">]: Data<P, "get"> extends { data: unknown[] }
    ? "nextCursor" extends keyof Data<P, "get">
      ? P
      : "iterator" extends keyof Data<P, "get">
        ? P
        : never
    : never;
}[PathOf<"get">];

/** The items of a list path. */
export type ListItem<P extends ListPath> = Data<P, "get"> extends { data: (infer I)[] } ? I : never;

export interface CorridorOptions {
  /** An organization key (`sk_sandbox_…`), an agent key or a console session token;
   * defaults to CORRIDOR_API_KEY. Required: the constructor throws MissingApiKeyError
   * without one. */
  apiKey?: string;
  /** Defaults to CORRIDOR_BASE_URL, then http://127.0.0.1:8000. */
  baseUrl?: string;
  /** Per attempt (default 30 s). */
  timeoutMs?: number;
  /** How persistent the client is (see RetryPolicy); `{ attemptsMax: 1 }` never retries. */
  retryPolicy?: Partial<RetryPolicy>;
  /** Sent with every request (e.g. `X-Corridor-Organization`). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: FetchFunction;
}

function environment(name: string): string | undefined {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  return value?.trim() || undefined;
}

/** An agent's mandates (API.md 9): what its owner authorised it to pay (payees, per
 * payment, budget, uses, window); an agent with `requireMandate` pays only under one. */
export class AgentMandates {
  constructor(private readonly corridor: Corridor) {}

  /** Owner only: `currency`, `payees`, `maxPerPayment`, `budget` (amount, recurrence),
   * `maxUses`, `notBefore`, `notAfter`, `purpose`. Sent with an Idempotency-Key. */
  create(agentId: string, body: Schemas["MandateCreate"], options: CallOptions = {}): CorridorPromise<Schemas["MandateRead"]> {
    return this.corridor.post("/v1/agents/{agent_id}/mandates", {
      params: { path: { agent_id: agentId } },
      body,
      ...options,
    });
  }

  /** The agent's mandates, newest first, a page at a time. */
  list(agentId: string, query: { limit?: number } = {}): Pager<Schemas["MandateRead"]> {
    return this.corridor.list("/v1/agents/{agent_id}/mandates", { params: { path: { agent_id: agentId }, query } });
  }
}

/** One mandate by its id (`mdt_…`): read it, or revoke it (owner only, final). */
export class AgentMandatesById {
  constructor(private readonly corridor: Corridor) {}

  retrieve(mandateId: string): CorridorPromise<Schemas["MandateRead"]> {
    return this.corridor.get("/v1/agent-mandates/{mandate_id}", { params: { path: { mandate_id: mandateId } } });
  }

  /** An action: it carries an Idempotency-Key only when `idempotencyKey` is given. */
  revoke(
    mandateId: string,
    body: Schemas["MandateRevoke"] = {},
    options: CallOptions = {},
  ): CorridorPromise<Schemas["MandateRead"]> {
    return this.corridor.post("/v1/agent-mandates/{mandate_id}/revoke", {
      params: { path: { mandate_id: mandateId } },
      body,
      ...options,
    });
  }
}

/** The agents' calls with names (every other agent call is by its path). */
export class Agents {
  readonly mandates: AgentMandates;

  constructor(corridor: Corridor) {
    this.mandates = new AgentMandates(corridor);
  }
}

/** The transfers' calls with names (every other transfer call is by its path). */
export class Transfers {
  constructor(private readonly corridor: Corridor) {}

  /** The signed receipts of an agent's payment, oldest first (`data` is empty for a
   * transfer no agent made); each `jws` verifies offline with `verifyReceipt`. */
  receipts(transferId: string): CorridorPromise<Schemas["ReceiptList"]> {
    return this.corridor.get("/v1/transfers/{transfer_id}/receipts", {
      params: { path: { transfer_id: transferId } },
    });
  }
}

/** Filters of the audit chain's list. */
export type AuditEventFilters = NonNullable<
  NonNullable<paths["/v1/audit-events"]["get"]["parameters"]["query"]>
>;

/** The organization's tamper-evident audit chain (API.md 9). */
export class AuditEvents {
  constructor(private readonly corridor: Corridor) {}

  /** Records newest first, a page at a time: `agentId`, `transferId`, `kind`,
   * `createdAfter`, `createdBefore` (ISO 8601), `limit` per page. */
  list(filters: Omit<AuditEventFilters, "cursor"> = {}): Pager<Schemas["AuditEventRead"]> {
    return this.corridor.list("/v1/audit-events", { params: { query: filters } });
  }

  retrieve(eventId: string): CorridorPromise<Schemas["AuditEventRead"]> {
    return this.corridor.get("/v1/audit-events/{event_id}", { params: { path: { event_id: eventId } } });
  }
}

export class Corridor {
  readonly baseUrl: string;
  readonly retryPolicy: RetryPolicy;
  /** openapi-fetch's client with this one's credentials and retries: answers are
   * returned as `{ data, error, response }`, not thrown. */
  readonly raw: Client<paths>;
  /** `agents.mandates.create(agentId, body)`, `.list(agentId)`. */
  readonly agents: Agents = new Agents(this);
  /** `agentMandates.retrieve(mandateId)`, `.revoke(mandateId, { reason })`. */
  readonly agentMandates: AgentMandatesById = new AgentMandatesById(this);
  /** `transfers.receipts(transferId)`. */
  readonly transfers: Transfers = new Transfers(this);
  /** `auditEvents.list({ agentId, transferId, kind, createdAfter, createdBefore })`. */
  readonly auditEvents: AuditEvents = new AuditEvents(this);

  constructor(options: CorridorOptions = {}) {
    const apiKey = options.apiKey?.trim() || environment("CORRIDOR_API_KEY");
    if (!apiKey) throw new MissingApiKeyError();
    this.baseUrl = (options.baseUrl || environment("CORRIDOR_BASE_URL") || DEFAULT_BASE_URL).replace(/\/+$/, "");
    try {
      new URL(this.baseUrl);
    } catch {
      throw new CorridorError(`baseUrl is not a URL: ${this.baseUrl}`, { code: "invalid_base_url" });
    }
    this.retryPolicy = retryPolicy(options.retryPolicy ?? DEFAULT_RETRY_POLICY);
    this.raw = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: retryingFetch({
        fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
        timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        retryPolicy: this.retryPolicy,
      }),
      headers: {
        Accept: "application/json",
        "User-Agent": `corridor-client-typescript/${VERSION}`,
        ...options.headers,
        Authorization: `Bearer ${apiKey}`,
      },
      querySerializer: { array: { style: "form", explode: false } },
    });
  }

  get<P extends PathOf<"get">>(path: P, ...init: Arguments<P, "get">): CorridorPromise<Data<P, "get">> {
    return this.#call("GET", path, init[0]);
  }

  /** A POST. Creates (the paths answered 201) carry an Idempotency-Key, `idempotencyKey`
   * or a new one; retries resend the same key, so a create happens once. */
  post<P extends PathOf<"post">>(path: P, ...init: Arguments<P, "post">): CorridorPromise<Data<P, "post">> {
    return this.#call("POST", path, init[0]);
  }

  put<P extends PathOf<"put">>(path: P, ...init: Arguments<P, "put">): CorridorPromise<Data<P, "put">> {
    return this.#call("PUT", path, init[0]);
  }

  patch<P extends PathOf<"patch">>(path: P, ...init: Arguments<P, "patch">): CorridorPromise<Data<P, "patch">> {
    return this.#call("PATCH", path, init[0]);
  }

  delete<P extends PathOf<"delete">>(path: P, ...init: Arguments<P, "delete">): CorridorPromise<Data<P, "delete">> {
    return this.#call("DELETE", path, init[0]);
  }

  /** Every item of a list, fetched a page at a time as a `for await` loop asks;
   * `.pages()` walks the pages, `.firstPage()` fetches one, `.toArray()` collects. */
  list<P extends ListPath>(path: P, ...init: Arguments<P, "get">): Pager<ListItem<P>> {
    const options = (init[0] ?? {}) as { params?: { query?: Record<string, unknown> } };
    return new Pager<ListItem<P>>(path, async (cursor) => {
      const params = cursor
        ? { ...options.params, query: { ...options.params?.query, [cursor.parameter]: cursor.value } }
        : options.params;
      const page = await this.#call("GET", path, { ...options, params });
      return page as Page<ListItem<P>>;
    });
  }

  /** The public keys receipts are signed with (`/.well-known/jwks.json`, outside the
   * API's paths), for `verifyReceipt`. Keep it: a key's `kid` never changes meaning. */
  jwks(): CorridorPromise<Jwks> {
    return this.#call("GET", "/.well-known/jwks.json", undefined);
  }

  #call<T>(method: Uppercase<Method>, path: string, init: object | undefined): CorridorPromise<T> {
    return new CorridorPromise(this.#send<T>(method, path, (init ?? {}) as Record<string, unknown>));
  }

  async #send<T>(method: Uppercase<Method>, path: string, init: Record<string, unknown>): Promise<Answer<T>> {
    const { idempotencyKey: given, headers: extraHeaders, ...rest } = init as CallOptions & {
      headers?: Record<string, string>;
    };
    const idempotencyKey = given ?? (method === "POST" && CREATING_PATHS.has(path) ? randomUUID() : undefined);
    const headers = { ...extraHeaders, ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}) };
    const request = this.raw[method].bind(this.raw) as unknown as (
      path: string,
      init: Record<string, unknown>,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(path, { ...rest, headers });
    if (!response.ok) {
      throw errorFromAnswer(response.status, response.headers, error, response.statusText);
    }
    return {
      data: data as T,
      response,
      requestId: response.headers.get("x-request-id") ?? undefined,
      idempotencyKey,
      replayed: response.headers.get("idempotent-replayed") === "true",
    };
  }
}
