/**
 * Sends `APICall`s over the platform `fetch` (or one the caller gives), with
 * timeouts, retries and typed errors.
 */

import {
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  GoneError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  ValidationError,
} from "../errors.js";
import type { RequestOptions } from "../types.js";
import { VERSION } from "../version.js";
import type { APICall } from "./request.js";
import { RETRY_STATUSES, parseRetryAfter, retryDelay } from "./retry.js";
import { ContractViolation, CutShort } from "./wire.js";

/** The part of the Fetch API the SDK uses: any `fetch` (Node, Deno, Bun, edge runtimes, undici) fits. */
export type Fetch = (url: string, init: FetchInit) => Promise<Response>;

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export interface TransportConfig {
  apiKey: string;
  baseURL: string;
  /** Milliseconds per attempt. */
  timeout: number;
  maxRetries: number;
  fetch: Fetch;
  /** Replaceable in tests so retries are instant; milliseconds. */
  sleep?: (ms: number) => Promise<void>;
  /** Source of jitter in [0, 1); replaceable in tests. */
  random?: () => number;
}

const ERRORS_BY_STATUS: Record<number, typeof APIStatusError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: GoneError,
  413: PayloadTooLargeError,
  422: ValidationError,
  429: RateLimitError,
};

/** Used when a body carries no envelope, e.g. a gateway answered before the service did. */
const DEFAULT_CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  422: "validation_error",
  429: "rate_limited",
  500: "internal",
};

/** The service's own id first, then the ones the API gateway in front of it adds. */
const REQUEST_ID_HEADERS = ["x-request-id", "x-amzn-requestid", "apigw-requestid"];

const USER_AGENT = `aurra-typescript/${VERSION}`;

type Outcome =
  | { kind: "response"; response: Response; text: string }
  | { kind: "timeout" }
  | { kind: "network"; error: unknown };

export class Transport {
  readonly config: TransportConfig;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(config: TransportConfig) {
    this.config = config;
    this.sleep = config.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = config.random ?? Math.random;
  }

  async send<T>(call: APICall<T>, options: RequestOptions = {}): Promise<T> {
    const url = this.url(call);
    // Built once: every attempt sends the same body and the same Idempotency-Key.
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.config.apiKey}`,
      Accept: "application/json",
      "User-Agent": USER_AGENT,
    };
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    if (call.idempotencyKey !== undefined) headers["Idempotency-Key"] = call.idempotencyKey;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const timeout = options.timeout ?? this.config.timeout;

    // Whether an earlier attempt may have reached the server without us seeing its answer.
    let mayBeInFlight = false;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(url, call.method, headers, body, timeout, options.signal);
      const canRetry = attempt < maxRetries;
      if (outcome.kind === "response") {
        const { response, text } = outcome;
        if (response.ok) {
          try {
            return this.parse(call, response, text);
          } catch (error) {
            // A body cut short is a connection broken mid-answer: a read asks again, as after a
            // network failure (an export's cursor gives the same response again).
            const cutShort = error instanceof UnexpectedResponseError && error.cause instanceof CutShort;
            if (!(cutShort && canRetry && call.method === "GET")) throw error;
            await this.wait(retryDelay(attempt, null, this.random), options.signal);
            continue;
          }
        }
        // A 409 to the retry of a keyed call whose first try we lost is most likely the server
        // still running that first try ("retry shortly"): our retry sends the very same body.
        const stillRunning = response.status === 409 && call.idempotencyKey !== undefined && mayBeInFlight;
        if (!(canRetry && (RETRY_STATUSES.has(response.status) || stillRunning))) {
          throw errorFromResponse(response, text);
        }
        mayBeInFlight = mayBeInFlight || response.status >= 500;
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        await this.wait(retryDelay(attempt, retryAfter, this.random), options.signal);
        continue;
      }
      mayBeInFlight = true;
      if (!canRetry) {
        const where = `${call.method} ${url}`;
        if (outcome.kind === "timeout") {
          throw new APITimeoutError(`Request to Aurra timed out after ${timeout} ms: ${where}`);
        }
        throw new APIConnectionError(`Could not reach Aurra: ${where}: ${describeError(outcome.error)}`, {
          cause: outcome.error,
        });
      }
      await this.wait(retryDelay(attempt, null, this.random), options.signal);
    }
  }

  private url(call: APICall<unknown>): string {
    const search = call.query && Object.keys(call.query).length ? `?${new URLSearchParams(call.query)}` : "";
    return `${this.config.baseURL}${call.path}${search}`;
  }

  /** One try: the answer with its body read (within the same timeout), a timeout, or a network failure. */
  private async attempt(
    url: string,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<Outcome> {
    if (signal?.aborted) throw new APIUserAbortError("The request was aborted", { cause: signal.reason });
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const init: FetchInit = { method, headers, signal: controller.signal };
      if (body !== undefined) init.body = body;
      const response = await this.config.fetch(url, init);
      const text = await response.text();
      return { kind: "response", response, text };
    } catch (error) {
      if (signal?.aborted) throw new APIUserAbortError("The request was aborted", { cause: signal.reason });
      if (timedOut) return { kind: "timeout" };
      return { kind: "network", error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Sleep between attempts; an abort of the caller's signal ends the wait (and the call) at once. */
  private async wait(seconds: number, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return this.sleep(seconds * 1000);
    if (signal.aborted) throw new APIUserAbortError("The request was aborted", { cause: signal.reason });
    let onAbort: () => void = () => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new APIUserAbortError("The request was aborted", { cause: signal.reason }));
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([this.sleep(seconds * 1000), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  private parse<T>(call: APICall<T>, response: Response, text: string): T {
    let data: unknown = null;
    if (text !== "") {
      try {
        data = call.ndjson ? parseLines(text) : JSON.parse(text);
      } catch (error) {
        if (error instanceof CutShort) {
          throw new UnexpectedResponseError(
            `Aurra's answer to ${call.method} ${call.path} was cut short: ${error.message}`,
            response.status,
            { cause: error },
          );
        }
        throw new UnexpectedResponseError(
          `Aurra answered HTTP ${response.status} with a body that is not JSON`,
          response.status,
          { cause: error },
        );
      }
    }
    try {
      return call.parse(data, response.status);
    } catch (error) {
      if (error instanceof ContractViolation) {
        throw new UnexpectedResponseError(
          `Aurra's answer to ${call.method} ${call.path} does not match the API contract: ${error.message}`,
          response.status,
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/** NDJSON: one value per line. Only the last line can be cut mid-way; a bad line before it is just bad. */
function parseLines(text: string): unknown[] {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.map((line, i) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      if (i === lines.length - 1) throw new CutShort("its last line is not whole");
      throw error;
    }
  });
}

export function errorFromResponse(response: Response, text: string): APIStatusError {
  const status = response.status;
  let body: unknown = null;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  const bodyObject = isObject(body) ? body : {};
  const envelope = isObject(bodyObject["error"]) ? bodyObject["error"] : {};
  const code =
    (typeof envelope["code"] === "string" ? envelope["code"] : null) ??
    DEFAULT_CODES[status] ??
    (status >= 500 ? "internal" : null);
  const requestId = REQUEST_ID_HEADERS.map((name) => response.headers.get(name)).find((v) => v !== null) ?? null;
  const ErrorClass = ERRORS_BY_STATUS[status] ?? (status >= 500 ? ServerError : APIStatusError);
  return new ErrorClass(message(envelope, bodyObject, text, response), {
    status,
    code,
    details: envelope["details"],
    requestId,
    retryAfter: parseRetryAfter(response.headers.get("retry-after")),
    headers: response.headers,
  });
}

/** The service's message; else a gateway's `{"message": ...}`; else the body text; else the status. */
function message(envelope: Record<string, unknown>, body: Record<string, unknown>, text: string, response: Response): string {
  for (const candidate of [envelope["message"], body["message"]]) {
    if (typeof candidate === "string" && candidate !== "") return candidate;
  }
  const trimmed = text.trim().slice(0, 200);
  return trimmed || `HTTP ${response.status} ${response.statusText}`.trim();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    // undici puts the system error (ECONNREFUSED...) in `cause`.
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return `${error.message}${detail}`;
  }
  return String(error);
}
