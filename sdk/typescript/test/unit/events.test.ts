import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  Aurra,
  InvalidArgumentError,
  UnexpectedResponseError,
  type ChangeEvent,
  type ChangeEventType,
} from "../../src/index.js";
import { MockFetch, type RecordedRequest, apiError, json } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

const VIM = "0192f0c4-0000-7000-8000-000000000001";
const EMACS = "0192f0c4-0000-7000-8000-000000000002";
const AUDIT = "0192f0c4-0000-7000-8000-0000000000e1";

/** A change event as the server writes it. */
function wireChange(id: string, type: string, data: Record<string, unknown>, memoryId = VIM): Record<string, unknown> {
  return { id, type, created_at: "2026-05-03T10:00:00.123456Z", user_id: "alice", agent_id: null, memory_id: memoryId, data };
}

function page(events: Record<string, unknown>[], nextCursor: string): Response {
  return json({ events, next_cursor: nextCursor });
}

/** The change stream as the server serves it: the cursor is the number of events read so far. */
class StreamServer {
  constructor(readonly events: Record<string, unknown>[]) {}

  readonly reply = (request: RecordedRequest): Response => {
    const after = Number(request.url.searchParams.get("after") ?? 0);
    const limit = Number(request.url.searchParams.get("limit") ?? 100);
    const events = this.events.slice(after, after + limit);
    return page(events, String(after + events.length));
  };
}

describe("events", () => {
  it("reads every event type in camelCase, data included, and narrows data by type", async () => {
    const wire = [
      wireChange("ev-1", "memory.created", {}, VIM),
      wireChange("ev-2", "memory.created", { supersedes: VIM }, EMACS),
      wireChange("ev-3", "memory.superseded", { superseded_by: EMACS, event_id: AUDIT, by: "auto" }),
      wireChange("ev-4", "memory.reverted", { event_id: "rev", reverted_event_id: AUDIT, was_superseded_by: EMACS }),
      wireChange("ev-5", "proposal.created", { event_id: "prop", proposed_by: EMACS }),
      wireChange("ev-6", "proposal.resolved", { event_id: "dis", proposal_id: "prop", resolution: "dismissed" }),
      wireChange("ev-7", "auto_supersede.completed", { candidates_examined: 3 }, EMACS),
      wireChange("ev-8", "budget.exhausted", { api_key_id: "key-1" }, EMACS),
    ];
    const mock = new MockFetch().reply(page(wire, "c1"));
    const { events, nextCursor } = await client(mock).events.listPage();
    assert.equal(nextCursor, "c1");
    assert.deepEqual(events[2], {
      id: "ev-3",
      type: "memory.superseded",
      createdAt: "2026-05-03T10:00:00.123456Z",
      userId: "alice",
      agentId: null,
      memoryId: VIM,
      data: { supersededBy: EMACS, eventId: AUDIT, by: "auto" },
    });
    assert.deepEqual(
      events.map((e) => e.data),
      [
        {},
        { supersedes: VIM },
        { supersededBy: EMACS, eventId: AUDIT, by: "auto" },
        { eventId: "rev", revertedEventId: AUDIT, wasSupersededBy: EMACS },
        { eventId: "prop", proposedBy: EMACS },
        { eventId: "dis", proposalId: "prop", resolution: "dismissed" },
        { candidatesExamined: 3 },
        { apiKeyId: "key-1" },
      ],
    );
    // What a consumer writes: narrowing on `type` types `data` (this would not compile otherwise).
    const retired = events.flatMap((e: ChangeEvent) => (e.type === "memory.superseded" ? [e.data.supersededBy] : []));
    assert.deepEqual(retired, [EMACS]);
  });

  it("sends after, types and limit as the API reads them", async () => {
    const mock = new MockFetch().reply(page([], "c9"));
    const types: ChangeEventType[] = ["memory.superseded", "proposal.created"];
    await client(mock).events.listPage({ after: "c8", types, limit: 500 });
    assert.equal(mock.last.method, "GET");
    assert.equal(mock.last.url.pathname, "/agent/events");
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), {
      after: "c8",
      types: "memory.superseded,proposal.created",
      limit: "500",
    });
    await client(mock).events.listPage();
    assert.equal(mock.last.url.search, "", "no after: from the oldest event kept");
  });

  it("iterates page after page until a page comes back empty, and keeps the cursor to resume from", async () => {
    const server = new StreamServer([wireChange("ev-1", "memory.created", {}), wireChange("ev-2", "memory.created", {}, EMACS)]);
    const mock = new MockFetch().reply(server.reply);
    const stream = client(mock).events.list({ types: ["memory.created"], limit: 1 });
    assert.equal(mock.requests.length, 0, "nothing is fetched before iteration");
    assert.equal(stream.nextCursor, null);
    const ids = (await stream.toArray()).map((e) => e.id);
    assert.deepEqual(ids, ["ev-1", "ev-2"]);
    assert.equal(stream.nextCursor, "2");
    assert.deepEqual(
      mock.requests.map((r) => r.url.searchParams.get("after")),
      [null, "1", "2"],
    );
    assert.ok(mock.requests.every((r) => r.url.searchParams.get("types") === "memory.created"));

    // Later: the same stream goes on from where it stopped, with what committed since.
    server.events.push(wireChange("ev-3", "memory.created", {}));
    const more = [];
    for await (const event of stream) more.push(event.id);
    assert.deepEqual(more, ["ev-3"]);
    assert.equal(stream.nextCursor, "3");
    assert.deepEqual(
      mock.requests.slice(3).map((r) => r.url.searchParams.get("after")),
      ["2", "3"],
    );
  });

  it("starts from the after given, and a walk stopped in a page resumes from that page", async () => {
    const server = new StreamServer(["ev-1", "ev-2", "ev-3", "ev-4", "ev-5", "ev-6"].map((id) => wireChange(id, "memory.created", {})));
    const stream = client(new MockFetch().reply(server.reply)).events.list({ after: "4" });
    assert.equal(stream.nextCursor, "4");
    for await (const event of stream) {
      assert.equal(event.id, "ev-5");
      break;
    }
    assert.equal(stream.nextCursor, "4", "the page was not read whole: it is read again");
    assert.deepEqual((await stream.toArray()).map((e) => e.id), ["ev-5", "ev-6"]);
    assert.equal(stream.nextCursor, "6");
  });

  it("a page's error stops the walk at the cursor of that page", async () => {
    const mock = new MockFetch()
      .reply(page([wireChange("ev-1", "memory.created", {})], "c1"))
      .reply(apiError(422, "validation_error", "cursor does not belong to these types", [{ field: "cursor" }]));
    const stream = client(mock).events.list();
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const event of stream) seen.push(event.id);
    }, /cursor does not belong/);
    assert.deepEqual(seen, ["ev-1"]);
    assert.equal(stream.nextCursor, "c1");
  });

  it("refuses types that are not a non-empty array before sending, and an answer without next_cursor", async () => {
    const mock = new MockFetch().reply(json({ events: [] }));
    assert.throws(() => client(mock).events.list({ types: "memory.created" as unknown as ChangeEventType[] }), InvalidArgumentError);
    assert.throws(() => client(mock).events.list({ types: [] }), InvalidArgumentError);
    assert.equal(mock.requests.length, 0);
    await assert.rejects(client(mock).events.listPage(), UnexpectedResponseError);
  });
});

describe("webhooks.deliveries and webhooks.replay", () => {
  const DELIVERY = {
    id: "0192f0c4-0000-7000-8000-0000000000d1",
    event_id: "0192f0c4-0000-7000-8000-0000000000c1",
    event_type: "memory.superseded",
    memory_id: VIM,
    url: "https://hooks.example.com/aurra",
    status: "dead",
    attempts: 14,
    created_at: "2026-05-03T10:00:00.123456Z",
    next_attempt_at: null,
    last_attempt_at: "2026-05-04T10:00:00.123456Z",
    last_status: 500,
    last_error: "HTTP 500",
    delivered_at: null,
  };

  it("lists the deliveries with their filters and reads them in camelCase", async () => {
    const mock = new MockFetch().reply(json({ deliveries: [DELIVERY], next_cursor: null }));
    const page = await client(mock).webhooks.deliveries({ status: "dead", limit: 10 });
    assert.equal(mock.last.method, "GET");
    assert.equal(mock.last.url.pathname, "/agent/webhooks/deliveries");
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), { status: "dead", limit: "10" });
    assert.equal(page.nextCursor, null);
    assert.deepEqual(page.deliveries[0], {
      id: DELIVERY.id,
      eventId: DELIVERY.event_id,
      eventType: "memory.superseded",
      memoryId: VIM,
      url: "https://hooks.example.com/aurra",
      status: "dead",
      attempts: 14,
      createdAt: DELIVERY.created_at,
      nextAttemptAt: null,
      lastAttemptAt: DELIVERY.last_attempt_at,
      lastStatus: 500,
      lastError: "HTTP 500",
      deliveredAt: null,
    });
  });

  it("replays one by its id, escaped into the path", async () => {
    const mock = new MockFetch().reply(json({ ...DELIVERY, status: "pending", next_attempt_at: "2026-05-05T10:00:00Z" }, 202));
    const replayed = await client(mock).webhooks.replay(DELIVERY.id);
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, `/agent/webhooks/deliveries/${DELIVERY.id}/replay`);
    assert.equal(replayed.status, "pending");
    const other = new MockFetch();
    await assert.rejects(client(other).webhooks.replay(""), InvalidArgumentError);
    await assert.rejects(client(other).webhooks.replay("../settings"), (error: unknown) => error !== null);
    assert.ok(other.requests.every((r: RecordedRequest) => r.url.pathname.startsWith("/agent/webhooks/deliveries/")));
  });
});
