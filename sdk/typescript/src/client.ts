/** The entry point: `new Aurra({ apiKey, baseURL, timeout, maxRetries, fetch })`. */

import { ConfigurationError } from "./errors.js";
import { query } from "./core/request.js";
import { type Fetch, Transport } from "./core/transport.js";
import { readExportPage } from "./core/wire.js";
import { ExportStream } from "./pagination.js";
import { Audit } from "./resources/audit.js";
import { Erasures } from "./resources/erasures.js";
import { Events } from "./resources/events.js";
import { Imports } from "./resources/imports.js";
import { Jobs } from "./resources/jobs.js";
import { Webhooks } from "./resources/webhooks.js";
import { Memories } from "./resources/memories.js";
import { Settings } from "./resources/settings.js";
import type { ExportPage, ExportParams, RequestOptions } from "./types.js";

export const DEFAULT_BASE_URL = "https://api.aurra.us";
/** Milliseconds per attempt; generous, because a write may wait on the classifier. */
export const DEFAULT_TIMEOUT = 30_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface ClientOptions {
  /** Defaults to the `AURRA_API_KEY` environment variable, where there is a `process.env`. */
  apiKey?: string | undefined;
  /**
   * The server's root; the SDK adds `/agent/...`. A path prefix such as an API
   * Gateway stage (`https://.../prod`) is kept. Defaults to `AURRA_BASE_URL`,
   * then to the hosted API.
   */
  baseURL?: string | undefined;
  /** Milliseconds per attempt (default 30,000). */
  timeout?: number | undefined;
  /** Retries of 429s, 5xx answers, timeouts and connection failures (default 2; 0 turns them off). */
  maxRetries?: number | undefined;
  /** A `fetch` of your own (a proxy agent, a test double); default the platform's `globalThis.fetch`. */
  fetch?: Fetch | undefined;
}

/** The client for Aurra's API. */
export class Aurra {
  readonly memories: Memories;
  readonly settings: Settings;
  readonly audit: Audit;
  readonly erasures: Erasures;
  readonly events: Events;
  readonly imports: Imports;
  readonly jobs: Jobs;
  readonly webhooks: Webhooks;
  readonly #transport: Transport;
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;

  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey ?? env("AURRA_API_KEY");
    if (!apiKey) {
      throw new ConfigurationError(
        "No Aurra API key: pass { apiKey } to new Aurra() or set the AURRA_API_KEY environment variable",
      );
    }
    this.baseURL = resolveBaseURL(options.baseURL ?? env("AURRA_BASE_URL") ?? DEFAULT_BASE_URL);
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT;
    if (!(Number.isFinite(this.timeout) && this.timeout > 0)) {
      throw new ConfigurationError(`timeout must be a positive number of milliseconds, got ${String(this.timeout)}`);
    }
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(Number.isInteger(this.maxRetries) && this.maxRetries >= 0)) {
      throw new ConfigurationError(`maxRetries must be an integer >= 0, got ${String(this.maxRetries)}`);
    }
    const fetch = options.fetch ?? platformFetch();
    const transport = new Transport({
      apiKey,
      baseURL: this.baseURL,
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      fetch,
    });
    this.memories = new Memories(transport);
    this.settings = new Settings(transport);
    this.audit = new Audit(transport);
    this.erasures = new Erasures(transport);
    this.events = new Events(transport);
    this.imports = new Imports(transport);
    this.jobs = new Jobs(transport);
    this.webhooks = new Webhooks(transport);
    this.#transport = transport;
    // Never an enumerable copy of the key: a client is often logged.
  }

  /** One response of `GET /agent/export`; the same cursor gives the same page (resume with it). */
  async exportPage(params: ExportParams = {}, options?: RequestOptions): Promise<ExportPage> {
    return this.#transport.send(
      {
        method: "GET",
        path: "/agent/export",
        query: query({ user_id: params.userId, limit: params.limit, cursor: params.cursor ?? undefined }),
        parse: (data) => readExportPage(data),
        ndjson: true,
      },
      options,
    );
  }

  /**
   * Every record of the tenant's export (memory versions, then audit events, each with a `kind`),
   * following the cursors; the end lines are not yielded. `stream.cursor` resumes it after a failure.
   */
  export(params: ExportParams = {}, options?: RequestOptions): ExportStream {
    const { cursor, ...filters } = params;
    return new ExportStream((at) => this.exportPage({ ...filters, cursor: at }, options), cursor ?? null);
  }
}

function env(name: string): string | undefined {
  const process = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  const value = process?.env?.[name];
  return value === "" ? undefined : value;
}

function resolveBaseURL(value: string): string {
  const url = value.replace(/\/+$/, "");
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || !parsed.host) {
    throw new ConfigurationError(`baseURL must be an http(s) URL such as ${DEFAULT_BASE_URL}, got ${JSON.stringify(value)}`);
  }
  if (parsed.search || parsed.hash) {
    throw new ConfigurationError(`baseURL must not carry a query or a fragment, got ${JSON.stringify(value)}`);
  }
  return url;
}

function platformFetch(): Fetch {
  const fetch = (globalThis as { fetch?: Fetch }).fetch;
  if (typeof fetch !== "function") {
    throw new ConfigurationError("This runtime has no global fetch (Node.js >= 18 has one): pass { fetch } to new Aurra()");
  }
  // Called unbound, some runtimes' fetch throws "Illegal invocation".
  return fetch.bind(globalThis);
}
