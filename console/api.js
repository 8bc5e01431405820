// The Aurra HTTP API from the browser: same origin, the key in the Authorization header only.

const KEY_STORAGE = "aurra.console.apiKey";

export function storedKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_STORAGE, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_STORAGE);
}

/** An answer of the API that is not a 2xx, carrying its error envelope. */
export class ApiError extends Error {
  constructor(status, code, message, details, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = Array.isArray(details) ? details : [];
    this.retryAfter = retryAfter;
  }

  /** What a person reads: the API's own message, then its status and code. */
  describe() {
    const head = `${this.message} (HTTP ${this.status}${this.code ? " " + this.code : ""})`;
    const wait = this.retryAfter ? ` Retry after ${this.retryAfter} s.` : "";
    return head + "." + wait;
  }
}

/** The API could not be reached at all. */
export class NetworkError extends Error {}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? "?" + text : "";
}

/** One request: the response's status and its parsed JSON (or its text, with `text`). */
async function send(method, path, { params, body, key, idempotent, text: asText } = {}) {
  const headers = { Accept: asText ? "application/x-ndjson" : "application/json",
    Authorization: `Bearer ${key ?? storedKey() ?? ""}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (idempotent) headers["Idempotency-Key"] = crypto.randomUUID();
  let response;
  try {
    response = await fetch(path + query(params), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      referrerPolicy: "no-referrer",
    });
  } catch (error) {
    throw new NetworkError(`Could not reach the Aurra API (${error.message}). Is the server running?`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const envelope = data && data.error;
    if (envelope && typeof envelope.message === "string") {
      throw new ApiError(response.status, envelope.code, envelope.message, envelope.details,
        response.headers.get("Retry-After"));
    }
    throw new ApiError(response.status, "", `The API answered ${response.status} ${response.statusText}`.trim(),
      [], response.headers.get("Retry-After"));
  }
  return { status: response.status, data: asText ? text : data };
}

export async function call(method, path, options) {
  return (await send(method, path, options)).data;
}

export const api = {
  settings: (key) => call("GET", "/agent/settings", { key }),
  updateSettings: (body) => call("PATCH", "/agent/settings", { body }),
  memories: (params) => call("GET", "/agent/memories", { params }),
  memory: (id, params) => call("GET", `/agent/memories/${encodeURIComponent(id)}`, { params }),
  history: (id, params) => call("GET", `/agent/memories/${encodeURIComponent(id)}/history`, { params }),
  audit: (params) => call("GET", "/agent/audit", { params }),
  revert: (id) => call("POST", `/agent/audit/${encodeURIComponent(id)}/revert`, { idempotent: true }),
  approve: (id) => call("POST", `/agent/audit/${encodeURIComponent(id)}/approve`, { idempotent: true }),
  dismiss: (id) => call("POST", `/agent/audit/${encodeURIComponent(id)}/dismiss`, { idempotent: true }),
  // The status tells a new erasure (201) from one already done (200, the receipt it had).
  erase: (selector) => send("POST", "/agent/erasures", { body: selector }),
  erasure: (id) => call("GET", `/agent/erasures/${encodeURIComponent(id)}`),
  events: (params) => call("GET", "/agent/events", { params }),
  jobs: (params) => call("GET", "/agent/jobs", { params }),
  /** One response of the export, as its NDJSON text. */
  exportPage: (params) => send("GET", "/agent/export", { params, text: true }).then((r) => r.data),
};
