/** A `fetch` double: answers from a queue and records every request it was sent. */

import type { Fetch, FetchInit } from "../../src/index.js";

export interface RecordedRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

export type Reply = Response | Error | ((request: RecordedRequest, init: FetchInit) => Response | Promise<Response>);

export class MockFetch {
  readonly requests: RecordedRequest[] = [];
  readonly #replies: Reply[] = [];

  /** Queue answers, used in order; the last one repeats when the queue runs out. */
  reply(...replies: Reply[]): this {
    this.#replies.push(...replies);
    return this;
  }

  readonly fetch: Fetch = async (url, init) => {
    const request: RecordedRequest = {
      url: new URL(url),
      method: init.method,
      headers: Object.fromEntries(Object.entries(init.headers).map(([k, v]) => [k.toLowerCase(), v])),
      body: init.body === undefined ? undefined : JSON.parse(init.body),
    };
    this.requests.push(request);
    const reply = this.#replies.length > 1 ? this.#replies.shift()! : this.#replies[0];
    if (reply === undefined) throw new Error("MockFetch: no reply queued");
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(request, init);
    return reply.clone();
  };

  get last(): RecordedRequest {
    const request = this.requests.at(-1);
    if (!request) throw new Error("MockFetch: no request was sent");
    return request;
  }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function apiError(
  status: number,
  code: string,
  message: string,
  details: unknown = [],
  headers: Record<string, string> = {},
): Response {
  return json({ error: { code, message, details } }, status, headers);
}

/** A memory as the server writes it, snake_case, with overrides. */
export function wireMemory(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "0192f0c4-0000-7000-8000-000000000001",
    content: "User uses Vim",
    topic: "preferences",
    metadata: { source: "chat" },
    valid_from: "2026-04-01T00:00:00Z",
    valid_to: null,
    superseded_by: null,
    supersedes: null,
    recorded_at: "2026-04-01T00:00:00.123456Z",
    status: "current",
    user_id: null,
    agent_id: null,
    superseded_event_id: null,
    ...overrides,
  };
}

export function wireWrite(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    created: true,
    memory: wireMemory(),
    auto_supersede: { ran: false, skipped_reason: "auto_supersede_off", candidates_examined: 0, decision: null, supersession: null },
    ...overrides,
  };
}

export function wireEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "0192f0c4-0000-7000-8000-0000000000e1",
    type: "auto_supersede",
    created_at: "2026-05-03T10:00:00.5Z",
    api_key_id: "0192f0c4-0000-7000-8000-0000000000k1",
    memory_id: "0192f0c4-0000-7000-8000-000000000002",
    superseded_id: "0192f0c4-0000-7000-8000-000000000001",
    classifier: "contradicts",
    confidence: 0.92,
    reason: "The new fact replaces the editor preference.",
    model: "claude-haiku-4-5-20251001",
    candidates_examined: 3,
    details: {},
    ...overrides,
  };
}

export const WIRE_SETTINGS = {
  auto_supersede_default: false,
  excluded_categories: ["health_medical", "legal_status"],
  min_confidence: 0.85,
  classifier_model: "claude-haiku-4-5-20251001",
  proposal_min_confidence: 0.5,
  daily_model_calls_limit: null,
  secrets: "redact",
  daily_model_cost_limit_usd: null,
};
