/** When to retry a request, and how long to wait first. */

/** 429, and the 5xx answers that mean "try again": a gateway or the service was briefly unavailable. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export const INITIAL_DELAY_S = 0.5;
export const MAX_DELAY_S = 8;
/** A server may ask for a long pause; waiting longer than this blocks the caller for too long. */
export const MAX_RETRY_AFTER_S = 60;

/** Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), or null. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (text === "") return null;
  let seconds = Number(text);
  if (Number.isNaN(seconds)) {
    const when = Date.parse(text);
    if (Number.isNaN(when)) return null;
    seconds = (when - now) / 1000;
  }
  return Number.isFinite(seconds) ? Math.max(0, seconds) : null;
}

/**
 * Seconds to sleep before the retry that follows `attempt` (0 for the first try).
 * The server's `Retry-After` wins, up to a minute; else exponential backoff
 * with jitter, so many clients failing together do not retry in lockstep.
 */
export function retryDelay(attempt: number, retryAfter: number | null, random: () => number = Math.random): number {
  if (retryAfter !== null) return Math.min(retryAfter, MAX_RETRY_AFTER_S);
  const backoff = Math.min(MAX_DELAY_S, INITIAL_DELAY_S * 2 ** attempt);
  return backoff * (0.5 + 0.5 * random());
}
