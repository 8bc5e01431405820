import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  Aurra,
  InvalidArgumentError,
  UnexpectedResponseError,
  type MessagesWriteResult,
  type WriteResult,
} from "../../src/index.js";
import { MockFetch, json, wireEvent, wireMemory, wireWrite } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch });
}

const USAGE = {
  model_calls: 1,
  input_tokens: 140,
  output_tokens: 85,
  cache_read_input_tokens: 5123,
  cache_creation_input_tokens: 0,
  latency_ms: 412,
  cost_usd: 0.0010773,
};
const READ_USAGE = {
  modelCalls: 1,
  inputTokens: 140,
  outputTokens: 85,
  cacheReadInputTokens: 5123,
  cacheCreationInputTokens: 0,
  latencyMs: 412,
  costUsd: 0.0010773,
};

describe("memories.add", () => {
  it("sends a fact in snake_case, metadata keys untouched, a Date as UTC RFC 3339", async () => {
    const mock = new MockFetch().reply(json(wireWrite(), 201));
    await client(mock).memories.add({
      content: "User uses Vim",
      topic: "preferences",
      userId: "alice",
      agentId: "support-bot",
      metadata: { sourceChannel: "chat", nested: { camelCase: 1 } },
      validFrom: new Date(Date.UTC(2026, 3, 1, 9, 30)),
      autoSupersede: true,
    });
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/memories");
    assert.equal(mock.last.headers["content-type"], "application/json");
    assert.deepEqual(mock.last.body, {
      content: "User uses Vim",
      topic: "preferences",
      user_id: "alice",
      agent_id: "support-bot",
      metadata: { sourceChannel: "chat", nested: { camelCase: 1 } },
      valid_from: "2026-04-01T09:30:00.000Z",
      auto_supersede: true,
    });
  });

  it("leaves out what was not given, sends a string time as is and autoSupersede null as null", async () => {
    const mock = new MockFetch().reply(json(wireWrite(), 201));
    await client(mock).memories.add({ content: "x", validFrom: "2026-04-01T00:00:00+02:00", autoSupersede: null });
    assert.deepEqual(mock.last.body, { content: "x", valid_from: "2026-04-01T00:00:00+02:00", auto_supersede: null });
  });

  it("reads the whole write result: decision, supersession, usage, scopes", async () => {
    const body = wireWrite({
      memory: wireMemory({
        id: "new",
        content: "User switched to Emacs",
        supersedes: "old",
        user_id: "alice",
        agent_id: "bot",
        extra_future_field: "ignored",
      }),
      auto_supersede: {
        ran: true,
        skipped_reason: null,
        candidates_examined: 3,
        decision: {
          candidate_id: "old",
          classifier: "contradicts",
          confidence: 0.92,
          reason: "replaces it",
          model: "claude-haiku-4-5-20251001",
          not_acted_reason: null,
        },
        supersession: {
          superseded_id: "old",
          classifier: "contradicts",
          confidence: 0.92,
          reason: "replaces it",
          model: "claude-haiku-4-5-20251001",
          audit_event_id: "ev1",
        },
        usage: USAGE,
      },
    });
    const mock = new MockFetch().reply(json(body, 201));
    const result: WriteResult = await client(mock).memories.add({ content: "User switched to Emacs" });
    assert.deepEqual(result, {
      created: true,
      memory: {
        id: "new",
        content: "User switched to Emacs",
        topic: "preferences",
        metadata: { source: "chat" },
        validFrom: "2026-04-01T00:00:00Z",
        validTo: null,
        supersededBy: null,
        supersedes: "old",
        recordedAt: "2026-04-01T00:00:00.123456Z",
        status: "current",
        userId: "alice",
        agentId: "bot",
        supersededEventId: null,
        source: null,
      },
      autoSupersede: {
        ran: true,
        skippedReason: null,
        candidatesExamined: 3,
        decision: {
          candidateId: "old",
          classifier: "contradicts",
          confidence: 0.92,
          reason: "replaces it",
          model: "claude-haiku-4-5-20251001",
          notActedReason: null,
        },
        supersession: {
          supersededId: "old",
          classifier: "contradicts",
          confidence: 0.92,
          reason: "replaces it",
          model: "claude-haiku-4-5-20251001",
          auditEventId: "ev1",
        },
        proposal: null,
        usage: READ_USAGE,
        status: null,
        jobId: null,
      },
      duplicateOf: null,
    });
  });

  it("reads a contradiction queued for review, and a receipt the provider left partly blank", async () => {
    const outcome = { superseded_id: "old", classifier: "contradicts", confidence: 0.7, reason: "maybe", model: "claude-haiku-4-5-20251001", audit_event_id: "proposal1" };
    const mock = new MockFetch().reply(
      json(
        wireWrite({
          auto_supersede: {
            ran: true,
            skipped_reason: null,
            candidates_examined: 1,
            decision: { candidate_id: "old", classifier: "contradicts", confidence: 0.7, reason: "maybe", model: "claude-haiku-4-5-20251001", not_acted_reason: "below_min_confidence" },
            supersession: null,
            proposal: outcome,
            usage: { model_calls: 1, input_tokens: null, output_tokens: null, latency_ms: 12, cost_usd: null },
          },
        }),
        201,
      ),
    );
    const { autoSupersede } = await client(mock).memories.add({ content: "x" });
    assert.equal(autoSupersede.supersession, null);
    assert.equal(autoSupersede.decision?.notActedReason, "below_min_confidence");
    assert.deepEqual(autoSupersede.proposal, {
      supersededId: "old",
      classifier: "contradicts",
      confidence: 0.7,
      reason: "maybe",
      model: "claude-haiku-4-5-20251001",
      auditEventId: "proposal1",
    });
    assert.deepEqual(autoSupersede.usage, {
      modelCalls: 1,
      inputTokens: null,
      outputTokens: null,
      cacheReadInputTokens: null,
      cacheCreationInputTokens: null,
      latencyMs: 12,
      costUsd: null,
    });
  });

  it("reads a decision not acted on, and a duplicate", async () => {
    const mock = new MockFetch().reply(
      json(
        wireWrite({
          created: false,
          duplicate_of: "m1",
          auto_supersede: {
            ran: true,
            skipped_reason: null,
            candidates_examined: 1,
            decision: { candidate_id: "m1", classifier: "contradicts", confidence: 0.6, reason: "r", model: "m", not_acted_reason: "below_min_confidence" },
            supersession: null,
            usage: null,
          },
        }),
      ),
    );
    const result = await client(mock).memories.add({ content: "x" });
    assert.equal(result.created, false);
    assert.equal(result.duplicateOf, "m1");
    assert.equal(result.autoSupersede.decision?.notActedReason, "below_min_confidence");
    assert.equal(result.autoSupersede.supersession, null);
  });

  it("sends messages and reads every fact and the extraction", async () => {
    const fact = wireWrite({ memory: wireMemory({ content: "User moved to Berlin", topic: "location", user_id: "alice" }) });
    const mock = new MockFetch().reply(
      json(
        {
          facts: [fact],
          extraction: { extractor: "anthropic", model: "claude-haiku-4-5-20251001", facts_found: 1, prompt_version: "v1", usage: USAGE },
        },
        201,
      ),
    );
    const result: MessagesWriteResult = await client(mock).memories.add({
      messages: [
        { role: "user", content: "I moved to Berlin last month.", createdAt: new Date("2026-05-01T12:00:00Z") },
        { role: "assistant", content: "Noted!" },
      ],
      userId: "alice",
      autoSupersede: true,
    });
    assert.deepEqual(mock.last.body, {
      messages: [
        { role: "user", content: "I moved to Berlin last month.", created_at: "2026-05-01T12:00:00.000Z" },
        { role: "assistant", content: "Noted!" },
      ],
      user_id: "alice",
      auto_supersede: true,
    });
    assert.equal(result.facts.length, 1);
    assert.equal(result.facts[0]?.memory.content, "User moved to Berlin");
    assert.equal(result.facts[0]?.memory.userId, "alice");
    assert.deepEqual(result.extraction, {
      extractor: "anthropic",
      model: "claude-haiku-4-5-20251001",
      factsFound: 1,
      promptVersion: "v1",
      usage: READ_USAGE,
      factsDropped: 0,
      conversationId: null,
    });
  });

  it("says how many facts were dropped beyond the cap", async () => {
    const mock = new MockFetch().reply(
      json(
        {
          facts: [wireWrite()],
          extraction: { extractor: "rules", model: "aurra-rules-extractor-v1", facts_found: 50, prompt_version: "rules-v1", usage: USAGE, facts_dropped: 7 },
        },
        201,
      ),
    );
    const result = await client(mock).memories.add({ messages: [{ role: "user", content: "I moved to Berlin." }] });
    assert.equal(result.extraction.factsFound, 50);
    assert.equal(result.extraction.factsDropped, 7);
  });

  it("refuses wrong arguments before sending anything", async () => {
    const mock = new MockFetch().reply(json(wireWrite(), 201));
    const memories = client(mock).memories;
    const wrong: unknown[] = [
      {},
      { content: "a", messages: [{ role: "user", content: "b" }] },
      { content: 42 },
      { messages: "hello" },
      { content: "a", validFrom: new Date("not a date") },
      { content: "a", metadata: ["x"] },
      { content: "a", idempotencyKey: "" },
      { content: "a", idempotencyKey: "k".repeat(129) },
    ];
    for (const params of wrong) {
      await assert.rejects(memories.add(params as never), InvalidArgumentError, JSON.stringify(params));
    }
    assert.equal(mock.requests.length, 0);
  });

  it("reports an answer that breaks the contract", async () => {
    const mock = new MockFetch().reply(json({ created: true, memory: { id: 1 } }, 201));
    await assert.rejects(client(mock).memories.add({ content: "x" }), (e: unknown) => {
      assert.ok(e instanceof UnexpectedResponseError);
      assert.match(e.message, /response\.memory\.id should be a string/);
      assert.equal(e.status, 201);
      return true;
    });
    const notJson = new MockFetch().reply(new Response("<html>", { status: 200 }));
    await assert.rejects(client(notJson).memories.add({ content: "x" }), UnexpectedResponseError);
  });
});

describe("memories reads", () => {
  it("get and history take asOf and knownAt, and escape the id", async () => {
    const mock = new MockFetch().reply(
      json(wireMemory({ status: "superseded", valid_to: "2026-05-03T10:00:00Z", superseded_by: "new", superseded_event_id: "ev1" })),
      json({
        memory_id: "a/b",
        chain: [wireMemory(), wireMemory({ id: "new" })],
        versions: [{ recorded_at: "2026-04-01T00:00:00Z", recorded_to: null, valid_from: "2026-04-01T00:00:00Z", valid_to: null, superseded_by: null, supersedes: null, status: "current" }],
      }),
    );
    const memories = client(mock).memories;
    const memory = await memories.get("a/b", { asOf: "2026-04-15T00:00:00Z", knownAt: new Date("2026-05-01T00:00:00Z") });
    assert.equal(mock.last.url.pathname, "/agent/memories/a%2Fb");
    assert.equal(mock.last.url.searchParams.get("as_of"), "2026-04-15T00:00:00Z");
    assert.equal(mock.last.url.searchParams.get("known_at"), "2026-05-01T00:00:00.000Z");
    assert.equal(memory.supersededEventId, "ev1");
    assert.equal(memory.validTo, "2026-05-03T10:00:00Z");
    assert.equal(memory.score, undefined);

    const history = await memories.history("a/b");
    assert.equal(mock.last.url.pathname, "/agent/memories/a%2Fb/history");
    assert.equal(mock.last.url.search, "");
    assert.deepEqual(history.chain.map((m) => m.id), [wireMemory()["id"], "new"]);
    assert.equal(history.versions[0]?.recordedTo, null);
    assert.equal(history.versions[0]?.status, "current");
    await assert.rejects(memories.get(""), InvalidArgumentError);
  });

  it("list and search send their filters in snake_case; search results carry a score and a relevance", async () => {
    const mock = new MockFetch().reply(json({ memories: [wireMemory({ score: 0.83, relevance: 0.024 })], next_cursor: null }));
    const memories = client(mock).memories;
    const found = await memories
      .search("which editor?", {
        topic: "preferences",
        userId: "alice",
        agentId: "bot",
        asOf: new Date("2026-04-15T00:00:00Z"),
        knownAt: "2026-04-16T00:00:00Z",
        includeSuperseded: true,
        limit: 5,
      })
      .toArray();
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), {
      q: "which editor?",
      topic: "preferences",
      user_id: "alice",
      agent_id: "bot",
      as_of: "2026-04-15T00:00:00.000Z",
      known_at: "2026-04-16T00:00:00Z",
      include_superseded: "true",
      limit: "5",
    });
    assert.equal(found[0]?.score, 0.83);
    assert.equal(found[0]?.relevance, 0.024);
    assert.throws(() => memories.search("  "), InvalidArgumentError);
    assert.throws(() => memories.list({ asOf: new Date(Number.NaN) }), InvalidArgumentError);
  });
});

describe("memories.supersede", () => {
  it("sends a new fact, or links an existing memory", async () => {
    const result = { memory: wireMemory({ id: "new", supersedes: "old" }), superseded: wireMemory({ id: "old", status: "superseded" }) };
    const mock = new MockFetch().reply(json(result, 201));
    const memories = client(mock).memories;
    const done = await memories.supersede("old", { content: "User uses Emacs", topic: "preferences", validFrom: new Date("2026-05-03T10:00:00Z"), metadata: { by: "hand" } });
    assert.equal(mock.last.url.pathname, "/agent/memories/old/supersede");
    assert.deepEqual(mock.last.body, { content: "User uses Emacs", topic: "preferences", valid_from: "2026-05-03T10:00:00.000Z", metadata: { by: "hand" } });
    assert.equal(done.superseded.status, "superseded");
    assert.equal(done.memory.supersedes, "old");

    await memories.supersede("old", { supersededBy: "new" });
    assert.deepEqual(mock.last.body, { superseded_by: "new" });
    assert.match(mock.last.headers["idempotency-key"] ?? "", /^[0-9a-f-]{36}$/);
  });

  it("refuses a mix of both shapes, or neither", async () => {
    const mock = new MockFetch().reply(json({}, 201));
    const memories = client(mock).memories;
    await assert.rejects(memories.supersede("old", { supersededBy: "new", content: "x" } as never), /not both: got content/);
    await assert.rejects(memories.supersede("old", {} as never), InvalidArgumentError);
    await assert.rejects(memories.supersede("old", { supersededBy: "" }), InvalidArgumentError);
    assert.equal(mock.requests.length, 0);
  });
});

describe("audit", () => {
  it("lists with filters, reads the proposal status, and gets one event", async () => {
    const mock = new MockFetch().reply(
      json({ events: [wireEvent({ type: "supersession_proposed", status: "open", confidence: 0.7 })], next_cursor: null }),
      json(wireEvent({ details: { some_key: 1 } })),
    );
    const audit = client(mock).audit;
    const queue = await audit
      .list({ type: "supersession_proposed", status: "open", userId: "alice", memoryId: "m1", since: new Date("2026-01-01T00:00:00Z"), until: "2026-12-31T00:00:00Z", limit: 10 })
      .toArray();
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), {
      memory_id: "m1",
      type: "supersession_proposed",
      user_id: "alice",
      status: "open",
      since: "2026-01-01T00:00:00.000Z",
      until: "2026-12-31T00:00:00Z",
      limit: "10",
    });
    assert.equal(queue[0]?.status, "open");
    assert.equal(queue[0]?.confidence, 0.7);
    const event = await audit.get("ev 1");
    assert.equal(mock.last.url.pathname, "/agent/audit/ev%201");
    assert.deepEqual(event.details, { some_key: 1 }, "details keep the server's keys");
    assert.equal(event.status, null);
    assert.equal(event.createdAt, "2026-05-03T10:00:00.5Z");
  });

  it("reverts, approves and dismisses, each with an Idempotency-Key", async () => {
    const mock = new MockFetch().reply(
      json({ event: wireEvent({ type: "revert" }), restored: wireMemory() }),
      json({ event: wireEvent({ type: "proposal_approved" }), memory: wireMemory({ id: "new" }), superseded: wireMemory({ id: "old", status: "superseded" }) }, 201),
      json({ event: wireEvent({ type: "proposal_dismissed" }) }),
    );
    const audit = client(mock).audit;
    const reverted = await audit.revert("ev1");
    assert.equal(mock.last.url.pathname, "/agent/audit/ev1/revert");
    assert.equal(reverted.event.type, "revert");
    assert.equal(reverted.restored.status, "current");
    const approved = await audit.approve("ev2", { idempotencyKey: "approve-ev2" });
    assert.equal(mock.last.url.pathname, "/agent/audit/ev2/approve");
    assert.equal(mock.last.headers["idempotency-key"], "approve-ev2");
    assert.equal(approved.event.type, "proposal_approved");
    assert.equal(approved.superseded.id, "old");
    const dismissed = await audit.dismiss("ev3");
    assert.equal(mock.last.url.pathname, "/agent/audit/ev3/dismiss");
    assert.equal(dismissed.event.type, "proposal_dismissed");
    const keys = mock.requests.map((r) => r.headers["idempotency-key"]);
    assert.equal(new Set(keys).size, 3);
    assert.ok(mock.requests.every((r) => r.method === "POST" && JSON.stringify(r.body) === "{}"));
  });
});

describe("memories.addBatch", () => {
  it("sends the facts in snake_case with one Idempotency-Key, and reads one result per fact", async () => {
    const mock = new MockFetch().reply(json({ results: [wireWrite(), wireWrite()] }, 201));
    const result = await client(mock).memories.addBatch({
      facts: [
        { content: "User uses Vim", topic: "preferences", userId: "alice", validFrom: new Date(Date.UTC(2021, 0, 1)) },
        { content: "User likes tea", agentId: "bot", metadata: { fromCrm: true } },
        {
          content: "User is in Paris",
          validTo: new Date(Date.UTC(2026, 5, 12)),
          source: { type: "calendar", id: "event-81", uri: "https://cal.example.com/e/81" },
        },
      ],
      autoSupersede: true,
      idempotencyKey: "batch-1",
    });
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/memories/batch");
    assert.equal(mock.last.headers["idempotency-key"], "batch-1");
    assert.deepEqual(mock.last.body, {
      facts: [
        { content: "User uses Vim", topic: "preferences", user_id: "alice", valid_from: "2021-01-01T00:00:00.000Z" },
        { content: "User likes tea", agent_id: "bot", metadata: { fromCrm: true } },
        {
          content: "User is in Paris",
          valid_to: "2026-06-12T00:00:00.000Z",
          source: { type: "calendar", id: "event-81", uri: "https://cal.example.com/e/81" },
        },
      ],
      auto_supersede: true,
    });
    assert.equal(result.results.length, 2);
    assert.equal(result.results[0]?.created, true);
  });

  it("refuses an empty batch, more than 100 facts, or a fact without content, before sending", async () => {
    const mock = new MockFetch();
    const memories = client(mock).memories;
    for (const facts of [[], Array.from({ length: 101 }, (_, i) => ({ content: `fact ${i}` })), [{ topic: "x" }]]) {
      await assert.rejects(
        memories.addBatch({ facts: facts as { content: string }[] }),
        InvalidArgumentError,
      );
    }
    assert.equal(mock.requests.length, 0);
  });
});

describe("asynchronous Level 2", () => {
  const PENDING = {
    ran: false,
    status: "pending",
    job_id: "0193a2b4-0000-7000-8000-0000000000j1",
    skipped_reason: null,
    candidates_examined: 0,
    decision: null,
    supersession: null,
  };

  it("asks for it with autoSupersede: \"async\" and reads the pending block and its job", async () => {
    const mock = new MockFetch().reply(json(wireWrite({ auto_supersede: PENDING }), 201));
    const result = await client(mock).memories.add({ content: "User switched to Emacs", autoSupersede: "async" });
    assert.equal((mock.last.body as Record<string, unknown>)["auto_supersede"], "async");
    assert.equal(result.autoSupersede.status, "pending");
    assert.equal(result.autoSupersede.jobId, PENDING.job_id);
    assert.equal(result.autoSupersede.ran, false);
    assert.equal(result.autoSupersede.supersession, null);
  });

  it("asks for it for a whole batch and for a conversation's facts", async () => {
    const mock = new MockFetch().reply(json({ results: [wireWrite({ auto_supersede: PENDING })] }, 201));
    const batch = await client(mock).memories.addBatch({ facts: [{ content: "User uses Vim" }], autoSupersede: "async" });
    assert.equal((mock.last.body as Record<string, unknown>)["auto_supersede"], "async");
    assert.equal(batch.results[0]?.autoSupersede.jobId, PENDING.job_id);

    const conversation = new MockFetch().reply(
      json({
        facts: [wireWrite({ auto_supersede: PENDING })],
        extraction: { extractor: "rules", model: null, facts_found: 1, prompt_version: null, usage: null },
      }),
    );
    const { facts } = await client(conversation).memories.add({ messages: [{ role: "user", content: "I use Emacs now" }], autoSupersede: "async" });
    assert.equal((conversation.last.body as Record<string, unknown>)["auto_supersede"], "async");
    assert.equal(facts[0]?.autoSupersede.status, "pending");
  });

  it("reads a synchronous write's block as having no status and no job", async () => {
    const mock = new MockFetch().reply(json(wireWrite(), 201));
    const { autoSupersede } = await client(mock).memories.add({ content: "User uses Vim" });
    assert.equal(autoSupersede.status, null);
    assert.equal(autoSupersede.jobId, null);
  });
});
