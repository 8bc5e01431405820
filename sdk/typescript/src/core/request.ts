/**
 * What one API call is, independent of how it is sent: resources describe a
 * call as an `APICall`, and the transport sends it (with its retries).
 */

import { InvalidArgumentError } from "../errors.js";
import type { TimeInput } from "../types.js";

export type HttpMethod = "GET" | "POST" | "PATCH";

export interface APICall<T> {
  method: HttpMethod;
  /** Under the base URL, e.g. `/agent/memories`, ids already escaped. */
  path: string;
  /** Query parameters with unset values already left out. */
  query?: Record<string, string>;
  /** The JSON body; undefined sends none. */
  body?: Record<string, unknown>;
  /** Set once when the call is described, so every retry of it carries the same key. */
  idempotencyKey?: string;
  /** Turns the decoded JSON of a 2xx answer (and its status) into the typed result; throws `ContractViolation`. */
  parse: (data: unknown, status: number) => T;
  /** The answer is NDJSON (`GET /agent/export`): `parse` gets the array of its lines' values. */
  ndjson?: boolean;
}

/** An RFC 3339 timestamp as the API requires it. */
export function formatTime(value: TimeInput, name: string): string {
  if (typeof value === "string") {
    if (value.trim() === "") throw new InvalidArgumentError(`${name} must not be empty`);
    return value;
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidArgumentError(`${name} is an invalid Date`);
    // Always UTC with a `Z`, which is what the server returns too.
    return value.toISOString();
  }
  throw new InvalidArgumentError(`${name} must be a Date or an RFC 3339 string, not ${describe(value)}`);
}

export function optionalTime(value: TimeInput | undefined | null, name: string): string | undefined {
  return value === undefined || value === null ? undefined : formatTime(value, name);
}

/** Query parameters, leaving out unset values and spelling the rest as the API reads them. */
export function query(values: Record<string, string | number | boolean | null | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === null) continue;
    params[name] = String(value);
  }
  return params;
}

/** A JSON body without the fields left undefined (the API rejects unknown fields and reads absent as default). */
export function compact(values: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) body[name] = value;
  }
  return body;
}

/** One path segment from an id, escaped so an id can never change which endpoint is called. */
export function segment(id: unknown, name: string): string {
  if (typeof id !== "string" || id === "") {
    throw new InvalidArgumentError(`${name} must be a non-empty string, not ${describe(id)}`);
  }
  return encodeURIComponent(id);
}

/** The caller's key after checking it, else a fresh UUID: one per call, reused by its retries. */
export function idempotencyKey(given: string | undefined): string {
  if (given === undefined) return randomUUID();
  if (typeof given !== "string" || given.length < 1 || given.length > 128) {
    throw new InvalidArgumentError("idempotencyKey must be a string of 1 to 128 characters");
  }
  return given;
}

interface CryptoLike {
  randomUUID?: () => string;
  getRandomValues?: <A extends Uint8Array>(array: A) => A;
}

function randomUUID(): string {
  const crypto = (globalThis as { crypto?: CryptoLike }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  // Node 18 has no global `crypto`: a v4 UUID from whatever randomness there is.
  const bytes = new Uint8Array(16);
  if (crypto?.getRandomValues) crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
