/**
 * Verify an Aurra webhook before trusting its body: Standard Webhooks signatures
 * (https://www.standardwebhooks.com), checked with Node's `crypto`.
 *
 * ```ts
 * import { verifyWebhook, WebhookVerificationError } from "aurra/webhooks";
 *
 * // the raw body, exactly as received (a string or a Buffer), never a re-serialized JSON.parse
 * const event = verifyWebhook(rawBody, request.headers, process.env.AURRA_WEBHOOK_SECRET!);
 * if (event.type === "memory.superseded") console.log(event.memoryId, "->", event.data.supersededBy);
 * ```
 *
 * `webhook-signature` is a space-separated list of `v1,<base64 HMAC-SHA256 of
 * "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the bytes the secret's base64 part
 * (after `whsec_`) decodes to; any one that matches will do (a secret being rotated). The
 * `webhook-timestamp` must be within 5 minutes of now, so a captured delivery cannot be replayed
 * later. This entry needs `node:crypto` (Node.js, Bun, Deno); the main entry, `aurra`, never loads it.
 */

import { createHmac, timingSafeEqual } from "node:crypto";

import { readChangeEvent } from "./core/wire.js";
import { AurraError, InvalidArgumentError } from "./errors.js";
import type { ChangeEvent } from "./types.js";

/** Every Aurra webhook secret starts with it; the rest is base64. */
export const SECRET_PREFIX = "whsec_";
/** How far `webhook-timestamp` may be from now, either way, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The webhook was not signed with this secret, or is too old (or from the future), or lacks a header. */
export class WebhookVerificationError extends AurraError {}

/**
 * A request's headers as the frameworks hand them over: a Fetch `Headers` (the Fetch API, Next.js,
 * Hono), or an object of names to values (Node's `IncomingMessage.headers`, Express), any case.
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

/** The raw body: a string, or the bytes (`Buffer`, `Uint8Array`) as received. */
export type WebhookPayload = string | Uint8Array;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now`, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to check the timestamp against (default: the clock's now). */
  now?: Date;
}

/** The `webhook-signature` value Aurra sends for this message (for tests of a receiver). */
export function signWebhook(secret: string, messageId: string, timestamp: number, payload: WebhookPayload): string {
  if (!Number.isInteger(timestamp)) throw new InvalidArgumentError("timestamp must be whole Unix seconds");
  return signature(secretKey(secret), messageId, String(timestamp), bytes(payload));
}

/** `v1,` then the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`, the timestamp as sent. */
function signature(key: Buffer, messageId: string, timestamp: string, body: Uint8Array): string {
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestamp}.`).update(body).digest("base64")}`;
}

/**
 * Check a webhook's signature and timestamp; throws `WebhookVerificationError` unless both hold.
 * For a receiver that wants the body as it is: `verifyWebhook` also reads it as a change event.
 */
export function verifyWebhookSignature(
  payload: WebhookPayload,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): void {
  const body = bytes(payload);
  const key = secretKey(secret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = (options.now ?? new Date()).getTime() / 1000;
  // NaN compares false with everything: it would let any timestamp through.
  if (!(Number.isFinite(tolerance) && tolerance >= 0)) {
    throw new InvalidArgumentError("toleranceSeconds must be a number of seconds >= 0");
  }
  if (!Number.isFinite(now)) throw new InvalidArgumentError("now must be a valid Date");
  const messageId = header(headers, "webhook-id");
  const stamp = header(headers, "webhook-timestamp");
  if (!/^\d{1,15}$/.test(stamp)) throw new WebhookVerificationError("webhook-timestamp is not whole Unix seconds");
  const timestamp = Number(stamp);
  if (now - timestamp > tolerance) throw new WebhookVerificationError("webhook-timestamp is too old");
  if (timestamp - now > tolerance) throw new WebhookVerificationError("webhook-timestamp is in the future");

  const expected = Buffer.from(signature(key, messageId, stamp, body));
  // Every candidate is compared, in constant time, whether or not an earlier one matched.
  let matched = false;
  for (const candidate of header(headers, "webhook-signature").split(" ")) {
    const given = Buffer.from(candidate);
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError("no signature in webhook-signature matches");
}

/**
 * The change event a webhook carries, once its signature and timestamp check out (the same
 * object as `events.list` yields). Throws `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(
  payload: WebhookPayload,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): ChangeEvent {
  verifyWebhookSignature(payload, headers, secret, options);
  const text = typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8");
  try {
    return readChangeEvent(JSON.parse(text), "webhook");
  } catch (error) {
    throw new WebhookVerificationError("the webhook is signed, but its body is not a change event", { cause: error });
  }
}

function bytes(payload: WebhookPayload): Uint8Array {
  if (typeof payload === "string") return Buffer.from(payload, "utf8");
  if (payload instanceof Uint8Array) return payload;
  // A parsed body re-serialized never matches its signature byte for byte: ask for the raw one.
  throw new InvalidArgumentError(
    "pass the webhook's raw body (a string or a Buffer, as received), not the JSON parsed from it",
  );
}

/** The HMAC key: the bytes of the secret's base64 part. A malformed secret is the receiver's mistake. */
function secretKey(secret: string): Buffer {
  if (typeof secret !== "string") throw new InvalidArgumentError("the webhook secret must be a string (whsec_...)");
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === "" || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new InvalidArgumentError("the webhook secret must be whsec_ then base64, as set in the key's settings");
  }
  return Buffer.from(encoded, "base64");
}

function header(headers: WebhookHeaders, name: string): string {
  let value: string | string[] | null | undefined;
  if (typeof headers.get === "function") {
    value = (headers as { get(name: string): string | null }).get(name);
  } else {
    const record = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) {
    if (value.length !== 1) throw new WebhookVerificationError(`${name} was sent ${value.length} times`);
    value = value[0];
  }
  if (value === undefined || value === null || value === "") throw new WebhookVerificationError(`missing header ${name}`);
  return value;
}
