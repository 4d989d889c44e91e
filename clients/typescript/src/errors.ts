/**
 * Every refusal as a typed error carrying the API's error body (API.md section 2): status,
 * code, message, request id, field errors, and what some codes add (`hint`, `denial`,
 * `currentStatus`, `reason`, `transferId`).
 *
 * The class follows the error's `code` where the SDK knows it (`AgentLimitExceeded`,
 * `InvalidStateError`, …) and its status otherwise (`NotFoundError`, `ValidationError`, …);
 * every one is a `CorridorError`, so `instanceof CorridorError` catches them all.
 */

import { retryAfterMs } from "./retries.js";

/** A field at fault (`errors` of a 422), with the server's dotted camelCase path. */
export interface FieldError {
  field: string;
  message: string;
}

/** Why an agent's payment was refused or parked (spec 7). Amounts are the server's exact
 * decimal strings in major units of `currency` ("20.00"), never numbers. */
export interface AgentDenial {
  /** per_transfer_limit_exceeded, daily_limit_exceeded or monthly_limit_exceeded */
  code: string;
  message: string;
  /** transfer, day or month */
  window: string;
  limit: string;
  attemptedAmount: string;
  currency: string;
  /** Only for the day and month windows. */
  used?: string;
  remaining?: string;
}

/** The JSON body of an error answer. */
export interface ErrorBody {
  code: string;
  message: string;
  requestId?: string | null;
  errors?: FieldError[] | null;
  [extra: string]: unknown;
}

export interface CorridorErrorInit {
  status?: number;
  code?: string;
  requestId?: string;
  errors?: FieldError[];
  body?: Record<string, unknown>;
  headers?: Headers;
  cause?: unknown;
}

/** An error answer of the Corridor API (or, for `APIConnectionError`, no answer). */
export class CorridorError extends Error {
  /** The HTTP status, or undefined when there was no answer. */
  readonly status: number | undefined;
  /** The API's error code (`validation_error`, `agent_limit_exceeded`, …). */
  readonly code: string;
  readonly requestId: string | undefined;
  /** The fields at fault (a 422's `errors`), empty otherwise. */
  readonly errors: FieldError[];
  /** The whole error body as the server sent it ({} when it sent none). */
  readonly body: Record<string, unknown>;
  readonly headers: Headers;

  constructor(message: string, init: CorridorErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code ?? "error";
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.body = init.body ?? {};
    this.headers = init.headers ?? new Headers();
  }

  /** The request field at fault: the body's `param` when it names one, else the first
   * field error's path (`amount.value`), else undefined. */
  get param(): string | undefined {
    const param = this.body["param"];
    if (typeof param === "string" && param) return param;
    return this.errors[0]?.field;
  }

  /** What would lift the refusal, where the API says (agent refusals). */
  get hint(): string | undefined {
    return text(this.body["hint"]);
  }

  override toString(): string {
    const status = this.status === undefined ? "" : `${this.status} `;
    const request = this.requestId ? `, request ${this.requestId}` : "";
    const fields = this.errors.map((error) => `\n  ${error.field}: ${error.message}`).join("");
    return `${this.name}: ${this.message} [${status}${this.code}${request}]${fields}`;
  }
}

/** No API key was given (option `apiKey` or CORRIDOR_API_KEY): thrown by the constructor,
 * before anything is sent. */
export class MissingApiKeyError extends CorridorError {
  constructor() {
    super(
      "no API key: pass new Corridor({ apiKey: \"sk_sandbox_…\" }) or set CORRIDOR_API_KEY " +
        "(`corridor keys create` or the console's API keys page makes one)",
      { code: "missing_api_key" },
    );
  }
}

/** No answer: the connection failed or timed out (after the retries allowed). */
export class APIConnectionError extends CorridorError {
  constructor(message: string, cause?: unknown) {
    super(message, { code: "connection_error", cause });
  }
}

/** 400: the body is not JSON (`invalid_json`). */
export class BadRequestError extends CorridorError {}
/** 401 `unauthorized`: credentials unknown, revoked or of the other environment. */
export class AuthenticationError extends CorridorError {}
/** 403: valid credentials without the right (`forbidden`, `sandbox_only`, …). */
export class PermissionDeniedError extends CorridorError {}
/** 403 `agent_…`: an agent's payment refused; `hint` says what would lift it. */
export class AgentRefused extends PermissionDeniedError {}

/** An agent's payment over one of its limits; `denial` says which and by how much. */
export class AgentDenialError extends AgentRefused {
  get denial(): AgentDenial {
    return this.body["denial"] as AgentDenial;
  }
}

/** 403 `agent_limit_exceeded`: over a limit, refused (`overLimitAction: REJECT`). */
export class AgentLimitExceeded extends AgentDenialError {}

/** 403 `agent_approval_required`: over a limit, the draft `transferId` now awaits an
 * owner's approval (`overLimitAction: REQUEST_APPROVAL`). */
export class AgentApprovalRequired extends AgentDenialError {
  get transferId(): string | undefined {
    return text(this.body["transferId"]);
  }
}

/** 403 `agent_inactive`: the agent is paused or revoked. */
export class AgentInactive extends AgentRefused {}
/** 403 `agent_destination_not_allowed`: the payee is not on the agent's allowlist. */
export class AgentDestinationNotAllowed extends AgentRefused {}
/** 403 `agent_currency_mismatch`: the amount is not in the agent's currency. */
export class AgentCurrencyMismatch extends AgentRefused {}
/** 404 `not_found`: unknown id, or an id of another organization. */
export class NotFoundError extends CorridorError {}
/** 409: the request conflicts with the current state of things. */
export class ConflictError extends CorridorError {}

/** 409 `invalid_state`: the resource's status forbids the call. */
export class InvalidStateError extends ConflictError {
  get currentStatus(): string | undefined {
    return text(this.body["currentStatus"]);
  }
}

/** 409 `insufficient_funds`: the balance does not cover the amount. */
export class InsufficientFundsError extends ConflictError {}
/** 409 `idempotency_key_reused`: the key was used before with another request. */
export class IdempotencyKeyReusedError extends ConflictError {}
/** 409 `idempotency_key_in_progress`: the first request with this key is still running
 * (thrown only once the retries allowed are spent). */
export class IdempotencyKeyInProgressError extends ConflictError {}

/** 409 `agent_approval_refused`: approval impossible now; `reason` says why. */
export class AgentApprovalRefused extends ConflictError {
  get reason(): string | undefined {
    return text(this.body["reason"]);
  }
}

/** 413 `payload_too_large`. */
export class PayloadTooLargeError extends CorridorError {}
/** 422 `validation_error`: the fields at fault are in `errors` (field and message). */
export class ValidationError extends CorridorError {}

/** 429 `rate_limited` (thrown once the retries allowed are spent). */
export class RateLimitError extends CorridorError {
  get retryAfterMs(): number | undefined {
    return retryAfterMs(this.headers.get("retry-after"));
  }
}

/** 5xx: the server failed; `requestId` identifies it in the server's logs. */
export class ServerError extends CorridorError {}
/** 503 (thrown once the retries allowed are spent). */
export class ServiceUnavailableError extends ServerError {}

type ErrorClass = new (message: string, init: CorridorErrorInit) => CorridorError;

const BY_CODE: Record<string, ErrorClass> = {
  agent_limit_exceeded: AgentLimitExceeded,
  agent_approval_required: AgentApprovalRequired,
  agent_inactive: AgentInactive,
  agent_destination_not_allowed: AgentDestinationNotAllowed,
  agent_currency_mismatch: AgentCurrencyMismatch,
  invalid_state: InvalidStateError,
  insufficient_funds: InsufficientFundsError,
  idempotency_key_reused: IdempotencyKeyReusedError,
  idempotency_key_in_progress: IdempotencyKeyInProgressError,
  agent_approval_refused: AgentApprovalRefused,
};

const BY_STATUS: Record<number, ErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: ValidationError,
  429: RateLimitError,
  503: ServiceUnavailableError,
};

/** The typed error of an error answer, from its status, headers and parsed body (which
 * may be anything: a proxy's HTML page gives a body of {}). */
export function errorFromAnswer(status: number, headers: Headers, parsed: unknown, statusText = ""): CorridorError {
  const body = isObject(parsed) ? parsed : {};
  const code = text(body["code"]) ?? `http_${status}`;
  const message = text(body["message"]) ?? (statusText || `HTTP ${status}`);
  const kind =
    (Object.hasOwn(BY_CODE, code) ? BY_CODE[code] : undefined) ??
    BY_STATUS[status] ??
    (status >= 500 ? ServerError : CorridorError);
  return new kind(message, {
    status,
    code,
    requestId: text(body["requestId"]) ?? headers.get("x-request-id") ?? undefined,
    errors: fieldErrors(body["errors"]),
    body,
    headers,
  });
}

/** The error code of an error answer's body, if it has one. */
export function errorCode(parsed: unknown): string | undefined {
  return isObject(parsed) ? text(parsed["code"]) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

function fieldErrors(raw: unknown): FieldError[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (item): item is FieldError =>
      isObject(item) && typeof item["field"] === "string" && typeof item["message"] === "string",
  );
}
