/**
 * corridor-client: the TypeScript SDK of Corridor, the open payments service.
 *
 * Requests and answers are typed from the server's OpenAPI document (src/generated/,
 * written by openapi-typescript; openapi-fetch sends them); this layer adds credentials,
 * idempotency keys on creates, retries, typed errors, list iteration and webhook
 * verification.
 */

export {
  AgentMandates,
  AgentMandatesById,
  Agents,
  type Answer,
  type AuditEventFilters,
  AuditEvents,
  type CallOptions,
  Corridor,
  type CorridorOptions,
  CorridorPromise,
  type Data,
  DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  type ListItem,
  type ListPath,
  type Schemas,
  Transfers,
  type components,
  type paths,
  VERSION,
} from "./client.js";
export * from "./errors.js";
export { type Page, Pager } from "./pagination.js";
export {
  type Jwk,
  type Jwks,
  type ReceiptPayload,
  ReceiptVerificationError,
  verifyReceipt,
} from "./receipts.js";
export {
  DEFAULT_RETRY_POLICY,
  Retries,
  type RetryPolicy,
  isReplayable,
  retryAfterMs,
  retryPolicy,
} from "./retries.js";
export { type FetchFunction } from "./transport.js";
export {
  type VerifyOptions,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  verifyWebhook,
} from "./webhooks.js";
