import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, GoneError, InvalidArgumentError, NotFoundError, type ErasureReceipt } from "../../src/index.js";
import { MockFetch, WIRE_SETTINGS, apiError, json, wireMemory } from "./mock-fetch.js";

const ERASURE_ID = "0193a2b4-0000-7000-8000-0000000000f1";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

function wireReceipt(selector: Record<string, unknown> = { user_id: "alice" }): Record<string, unknown> {
  return {
    id: ERASURE_ID,
    selector,
    created_at: "2026-12-03T10:00:00.123456Z",
    counts: { memories: 3, versions: 5, audit_events: 4, proposals: 1, idempotency_records: 2 },
  };
}

describe("erasures", () => {
  it("posts exactly the selector and says whether this call erased", async () => {
    const mock = new MockFetch().reply(json(wireReceipt(), 201), json(wireReceipt(), 200));
    const first: ErasureReceipt = await client(mock).erasures.create({ userId: "alice" });
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/erasures");
    assert.deepEqual(mock.last.body, { user_id: "alice" });
    assert.equal(mock.last.headers["idempotency-key"], undefined, "idempotent by itself");
    assert.deepEqual(first, {
      id: ERASURE_ID,
      selector: { user_id: "alice" },
      createdAt: "2026-12-03T10:00:00.123456Z",
      counts: { memories: 3, versions: 5, auditEvents: 4, proposals: 1, idempotencyRecords: 2 },
      status: "completed",
      created: true,
    });
    const again = await client(mock).erasures.create({ userId: "alice" });
    assert.equal(again.created, false);
  });

  it("says a large erasure still running was created, and goes on when called again", async () => {
    const mock = new MockFetch().reply(
      json({ ...wireReceipt(), status: "running" }, 202),
      json({ ...wireReceipt(), status: "completed" }, 201),
    );
    const running = await client(mock).erasures.create({ userId: "alice" });
    const done = await client(mock).erasures.create({ userId: "alice" });
    assert.deepEqual([running.status, running.created], ["running", true]);
    assert.deepEqual([done.status, done.created], ["completed", true]);
    assert.deepEqual(mock.requests.map((r) => r.body), [{ user_id: "alice" }, { user_id: "alice" }]);
  });

  it("sends every selector as the API reads it", async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ memoryId: "m-1" }, { memory_id: "m-1" }],
      [{ userId: "alice", agentId: "planner" }, { user_id: "alice", agent_id: "planner" }],
      [{ conversationId: "conv-1" }, { conversation_id: "conv-1" }],
      [{ sourceId: "doc-9" }, { source_id: "doc-9" }],
      [{ tenant: true }, { tenant: true }],
    ];
    for (const [params, body] of cases) {
      const mock = new MockFetch().reply(json(wireReceipt(body), 201));
      const receipt = await client(mock).erasures.create(params);
      assert.deepEqual(mock.last.body, body);
      assert.deepEqual(receipt.selector, body);
    }
  });

  it("refuses another shape before sending anything", async () => {
    const mock = new MockFetch().reply(json(wireReceipt(), 201));
    for (const params of [{}, { userId: "a", tenant: true }, { agentId: "planner" }, { tenant: false }, { memoryId: "m", sourceId: "s" }]) {
      await assert.rejects(client(mock).erasures.create(params as never), InvalidArgumentError);
    }
    assert.equal(mock.requests.length, 0);
  });

  it("reads a receipt back, and a stranger's is not found", async () => {
    const mock = new MockFetch().reply(json(wireReceipt()), apiError(404, "not_found", "erasure not found"));
    const receipt = await client(mock).erasures.get(ERASURE_ID);
    assert.equal(mock.last.url.pathname, `/agent/erasures/${ERASURE_ID}`);
    assert.equal(receipt.created, null);
    await assert.rejects(client(mock).erasures.get(ERASURE_ID), NotFoundError);
  });

  it("throws GoneError naming the erasure for an erased memory", async () => {
    const details = [{ field: "id", problem: "erased", erasure_id: ERASURE_ID }];
    const mock = new MockFetch().reply(apiError(410, "gone", "memory was erased", details));
    const error = await client(mock).memories.get("m-1").catch((e: unknown) => e);
    assert.ok(error instanceof GoneError);
    assert.equal(error.status, 410);
    assert.equal(error.code, "gone");
    assert.equal(error.erasureId, ERASURE_ID);
  });
});

describe("provenance, expiry and retention", () => {
  it("sends source, conversationId and validTo, and reads source back", async () => {
    const source = { type: "conversation", id: "c-1", conversation_id: "c-1", message_indexes: [0], quote: "I use Emacs", uri: null };
    const mock = new MockFetch().reply(
      json({ created: true, memory: wireMemory({ source }), auto_supersede: { ran: false, skipped_reason: "auto_supersede_off" } }, 201),
    );
    const written = await client(mock).memories.add({
      content: "User uses Emacs",
      source: { type: "email", id: "m-1", uri: "https://mail.test/m-1" },
      validTo: new Date("2026-06-01T00:00:00Z"),
    });
    assert.deepEqual(mock.last.body, {
      content: "User uses Emacs",
      valid_to: "2026-06-01T00:00:00.000Z",
      source: { type: "email", id: "m-1", uri: "https://mail.test/m-1" },
    });
    assert.deepEqual(written.memory.source, {
      type: "conversation",
      id: "c-1",
      conversationId: "c-1",
      messageIndexes: [0],
      quote: "I use Emacs",
      uri: null,
    });
    await assert.rejects(client(mock).memories.add({ content: "x", conversationId: "c" } as never), InvalidArgumentError);
    await assert.rejects(
      client(mock).memories.add({ messages: [{ role: "user", content: "y" }], source: { type: "t", id: "i" } } as never),
      InvalidArgumentError,
    );
  });

  it("filters lists, searches and the audit trail by conversation and source", async () => {
    const mock = new MockFetch().reply(json({ memories: [], next_cursor: null }), json({ memories: [], next_cursor: null }), json({ events: [], next_cursor: null }));
    const aurra = client(mock);
    await aurra.memories.listPage({ conversationId: "conv-1" });
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), { conversation_id: "conv-1" });
    await aurra.memories.searchPage("editor", { sourceId: "doc-9" });
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), { q: "editor", source_id: "doc-9" });
    await aurra.audit.listPage({ conversationId: "conv-1", sourceId: "doc-9" });
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), { conversation_id: "conv-1", source_id: "doc-9" });
  });

  it("updates retention periods, null meaning for ever", async () => {
    const mock = new MockFetch().reply(json({ ...WIRE_SETTINGS, history_retention_days: 30, memory_retention_days: null }));
    const settings = await client(mock).settings.update({ historyRetentionDays: 30, memoryRetentionDays: null });
    assert.deepEqual(mock.last.body, { history_retention_days: 30, memory_retention_days: null });
    assert.equal(settings.historyRetentionDays, 30);
    assert.equal(settings.memoryRetentionDays, null);
  });
});
