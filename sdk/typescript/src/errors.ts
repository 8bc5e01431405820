/**
 * Every error the SDK throws derives from `AurraError`. Three families:
 * - mistakes found before anything is sent (`ConfigurationError`, `InvalidArgumentError`);
 * - the API answered with a non-2xx status (`APIStatusError` and one subclass per status);
 * - no usable answer (`APIConnectionError`, `APITimeoutError`, `APIUserAbortError`,
 *   `UnexpectedResponseError`).
 */

/** Base class of every error thrown by the Aurra SDK. */
export class AurraError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    // The subclass's own name, so logs and stack traces say which error it is.
    this.name = new.target.name;
  }
}

/** The client cannot be built as asked: no API key, or an unusable base URL. */
export class ConfigurationError extends AurraError {}

/** A call's arguments are wrong, found before any request is sent (an invalid Date, say). */
export class InvalidArgumentError extends AurraError {}

/** One entry of a 422's `details`: the field (as named on the wire) and what is wrong with it. */
export interface ValidationProblem {
  field?: string;
  problem?: string;
  [key: string]: unknown;
}

export interface APIStatusErrorInit {
  status: number;
  code: string | null;
  details: unknown;
  requestId: string | null;
  retryAfter: number | null;
  headers: Headers | null;
}

/** The API answered with a non-2xx status. `message` is the server's `error.message`, unchanged. */
export class APIStatusError extends AurraError {
  /** The HTTP status. */
  readonly status: number;
  /** The API's error code: `validation_error`, `not_found`, `conflict`... */
  readonly code: string | null;
  /** The server's `error.details`: for a 422, a list of `{field, problem}`; else whatever it sent, or []. */
  readonly details: unknown;
  /** The request id the server or its gateway sent, for support. */
  readonly requestId: string | null;
  /** Seconds to wait from the `Retry-After` header, when the server sent one. */
  readonly retryAfter: number | null;
  readonly headers: Headers | null;

  constructor(message: string, init: APIStatusErrorInit) {
    super(message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }
}

/** 400: the request body was not JSON. */
export class BadRequestError extends APIStatusError {}

/** 401: the API key is missing or wrong. */
export class AuthenticationError extends APIStatusError {}

/** 403: a gateway in front of the API refused the request. */
export class PermissionDeniedError extends APIStatusError {}

/** 404: no such memory, audit event or erasure for this key's tenant. */
export class NotFoundError extends APIStatusError {}

/** 409: already superseded or reverted, a proposal no longer open, or an idempotency key reused with another body. */
export class ConflictError extends APIStatusError {}

/** 410: the memory was erased; `erasureId` names the erasure (its receipt: `erasures.get`). */
export class GoneError extends APIStatusError {
  get erasureId(): string | null {
    if (!Array.isArray(this.details)) return null;
    for (const detail of this.details as unknown[]) {
      if (typeof detail === "object" && detail !== null) {
        const id = (detail as Record<string, unknown>)["erasure_id"];
        if (typeof id === "string") return id;
      }
    }
    return null;
  }
}

/** 413: the request body is larger than the API accepts. */
export class PayloadTooLargeError extends APIStatusError {}

/** 422: the server rejected a field; `details` lists which and why. */
export class ValidationError extends APIStatusError {
  declare readonly details: ValidationProblem[];
}

/** 429: too many requests; `retryAfter` is the server's hint in seconds, if it sent one. */
export class RateLimitError extends APIStatusError {}

/** 5xx: the service failed (retried before it reaches you). A 503 may carry `retryAfter`. */
export class ServerError extends APIStatusError {}

/** The request got no HTTP answer: DNS, refused connection, broken stream. */
export class APIConnectionError extends AurraError {}

/** An attempt took longer than the timeout. */
export class APITimeoutError extends APIConnectionError {}

/** The caller's `AbortSignal` aborted the call. Never retried. */
export class APIUserAbortError extends AurraError {}

/** A 2xx answer whose body is not what the API contract promises. */
export class UnexpectedResponseError extends AurraError {
  readonly status: number;

  constructor(message: string, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}
