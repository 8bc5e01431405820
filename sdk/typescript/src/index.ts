/**
 * Aurra: memory for AI agents that keeps facts current without losing their history.
 *
 * ```ts
 * import { Aurra } from "aurra";
 * const client = new Aurra({ apiKey: "aurra_..." });
 * await client.memories.add({ content: "alice switched to Emacs", topic: "preferences" });
 * await client.erasures.create({ userId: "alice" });
 * for await (const event of client.events.list({ types: ["memory.superseded"] })) console.log(event.memoryId);
 * ```
 */

export { Aurra, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT } from "./client.js";
export type { ClientOptions } from "./client.js";
export type { Fetch, FetchInit } from "./core/transport.js";
export { ExportStream, Pager } from "./pagination.js";
export { Memories } from "./resources/memories.js";
export { Settings as SettingsResource } from "./resources/settings.js";
export { Audit } from "./resources/audit.js";
export { Erasures } from "./resources/erasures.js";
export { Events, EventStream } from "./resources/events.js";
export { Imports } from "./resources/imports.js";
export { Jobs } from "./resources/jobs.js";
export { Webhooks } from "./resources/webhooks.js";
export { VERSION } from "./version.js";
export {
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  APIUserAbortError,
  AurraError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  GoneError,
  InvalidArgumentError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  ValidationError,
} from "./errors.js";
export type { ValidationProblem } from "./errors.js";
export type * from "./types.js";
