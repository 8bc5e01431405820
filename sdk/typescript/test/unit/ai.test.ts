/**
 * `aurra/ai` on a mock fetch, inside the AI SDK's real tool loop (`generateText`) driven by a
 * scripted model: what each tool sends, what it answers the model, and that every call is bound
 * to the user given to `aurraTools`, whatever the model names.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { DESCRIPTIONS, aurraTools } from "../../src/ai.js";
import { Aurra, InvalidArgumentError } from "../../src/index.js";
import { ANSWER, run } from "../scripted-model.js";
import { MockFetch, apiError, json, wireMemory, wireWrite } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

const VIM = wireMemory({ id: "m-vim", content: "User uses Vim", user_id: "alice", valid_from: "2026-04-01T00:00:00Z" });

describe("aurraTools", () => {
  it("offers the model four tools, with their descriptions and input schemas", async () => {
    const tools = aurraTools({ client: client(new MockFetch()), userId: "alice" });
    assert.deepEqual(Object.keys(tools), ["remember", "recall", "history", "forget"]);
    const { model } = await run(tools, [ANSWER]);
    const offered = model.doGenerateCalls[0]!.tools ?? [];
    const byName = Object.fromEntries(offered.map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(byName).sort(), ["forget", "history", "recall", "remember"]);
    const schema = (name: string) => (byName[name] as { inputSchema: { properties: object; required: string[] } }).inputSchema;
    assert.deepEqual(Object.keys(schema("remember").properties), ["content", "topic", "validFrom"]);
    assert.deepEqual(schema("remember").required, ["content"]);
    assert.deepEqual(Object.keys(schema("recall").properties), ["query", "asOf"]);
    assert.deepEqual(schema("history").required, ["memoryId"]);
    assert.equal((byName["forget"] as { description: string }).description, DESCRIPTIONS.forget);
    // No tool takes a user: the model cannot name one.
    for (const t of offered) assert.ok(!JSON.stringify(t).includes("userId"), t.name);
  });

  it("the README shows examples/ai-sdk.ts as it is (which the end-to-end tests run)", () => {
    const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
    assert.ok(read("README.md").includes(`\`\`\`ts\n${read("examples/ai-sdk.ts").trim()}\n\`\`\``));
  });

  it("forget: false leaves erasure out", () => {
    const tools = aurraTools({ client: client(new MockFetch()), userId: "alice", forget: false });
    assert.deepEqual(Object.keys(tools), ["remember", "recall", "history"]);
  });

  it("refuses to be built without a client or a user", () => {
    const mock = new MockFetch();
    assert.throws(() => aurraTools({ client: client(mock), userId: "" }), InvalidArgumentError);
    assert.throws(() => aurraTools({ client: undefined as never, userId: "alice" }), InvalidArgumentError);
    assert.throws(() => aurraTools({ client: client(mock), userId: "alice", agentId: "" }), InvalidArgumentError);
    assert.throws(() => aurraTools({ client: client(mock), userId: "alice", topic: "Not A Topic" }), InvalidArgumentError);
  });
});

describe("remember", () => {
  it("writes in the bound scope, with the configured autoSupersede and topic, and says what it replaced", async () => {
    const emacs = wireMemory({ id: "m-emacs", content: "User switched to Emacs", supersedes: "m-vim", user_id: "alice", agent_id: "bot" });
    const supersession = { superseded_id: "m-vim", classifier: "contradicts", confidence: 0.93, reason: "r", model: null, audit_event_id: "e1" };
    const mock = new MockFetch().reply(
      json(wireWrite({ memory: emacs, auto_supersede: { ran: true, skipped_reason: null, candidates_examined: 1, decision: null, supersession } }), 201),
    );
    const tools = aurraTools({ client: client(mock), userId: "alice", agentId: "bot", autoSupersede: true, topic: "preferences" });
    // The model names another user: the schema drops it, and the write stays in alice's scope.
    const { text } = await run(tools, [
      { tool: "remember", input: { content: "User switched to Emacs", validFrom: "2026-05-03", userId: "mallory" } },
      ANSWER,
    ]);
    assert.equal(text, "Remembered: User switched to Emacs (memory m-emacs). It replaced memory m-vim.");
    assert.deepEqual(mock.last.body, {
      content: "User switched to Emacs",
      topic: "preferences",
      user_id: "alice",
      agent_id: "bot",
      valid_from: "2026-05-03T00:00:00Z",
      auto_supersede: true,
    });
  });

  it("leaves autoSupersede to the key's default and takes the model's topic and zoned time", async () => {
    const mock = new MockFetch().reply(json(wireWrite({ memory: VIM }), 201));
    const tools = aurraTools({ client: client(mock), userId: "alice", topic: "general" });
    const { text } = await run(tools, [
      { tool: "remember", input: { content: "User uses Vim", topic: "preferences", validFrom: "2026-04-01T09:30:00+02:00" } },
      ANSWER,
    ]);
    assert.equal(text, "Remembered: User uses Vim (memory m-vim).");
    assert.deepEqual(mock.last.body, { content: "User uses Vim", topic: "preferences", user_id: "alice", valid_from: "2026-04-01T09:30:00+02:00" });
  });

  it("says when the fact was already remembered", async () => {
    const mock = new MockFetch().reply(json(wireWrite({ created: false, memory: VIM, duplicate_of: "m-vim" }), 200));
    const { text } = await run(aurraTools({ client: client(mock), userId: "alice" }), [
      { tool: "remember", input: { content: "User uses Vim" } },
      ANSWER,
    ]);
    assert.equal(text, "Already remembered (memory m-vim).");
  });

  it("a time without its zone or a bad topic goes back to the model as an error, and nothing is sent", async () => {
    const mock = new MockFetch().reply(json(wireWrite(), 201));
    const tools = aurraTools({ client: client(mock), userId: "alice" });
    const { text } = await run(tools, [{ tool: "remember", input: { content: "x", validFrom: "2026-05-03T10:00:00" } }, ANSWER]);
    assert.match(text, /validFrom/);
    assert.match(text, /a date such as 2026-04-15/);
    const topic = await run(tools, [{ tool: "remember", input: { content: "x", topic: "My Topic" } }, ANSWER]);
    assert.match(topic.text, /lowercase letters, digits and _ only/);
    assert.equal(mock.requests.length, 0);
  });
});

describe("recall", () => {
  it("searches the bound scope, as of a date, and answers one line per memory", async () => {
    const old = wireMemory({ id: "m-vim", content: "User uses Vim", valid_from: "2026-04-01T00:00:00Z", valid_to: "2026-05-03T10:00:00+00:00", status: "superseded" });
    const mock = new MockFetch().reply(json({ memories: [old, wireMemory({ id: "m-2", content: "User likes tea", valid_from: "2026-03-31T23:30:00-02:00" })], next_cursor: "c" }));
    const tools = aurraTools({ client: client(mock), userId: "alice", agentId: "bot" });
    const { text } = await run(tools, [{ tool: "recall", input: { query: "which editor", asOf: "2026-04-15" } }, ANSWER]);
    assert.equal(
      text,
      "- User uses Vim (valid from 2026-04-01 to 2026-05-03; memory m-vim)\n" +
        "- User likes tea (valid from 2026-04-01; memory m-2)",
    );
    assert.equal(mock.last.url.pathname, "/agent/memories");
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), {
      q: "which editor",
      user_id: "alice",
      agent_id: "bot",
      as_of: "2026-04-15T00:00:00Z",
      limit: "5",
    });
  });

  it("says when nothing is remembered, now or then", async () => {
    const mock = new MockFetch().reply(json({ memories: [], next_cursor: null }));
    const tools = aurraTools({ client: client(mock), userId: "alice" });
    assert.equal((await run(tools, [{ tool: "recall", input: { query: "pets" } }, ANSWER])).text, "Nothing remembered about that.");
    assert.equal(mock.last.url.searchParams.get("as_of"), null);
    const then = await run(tools, [{ tool: "recall", input: { query: "pets", asOf: "2026-04-15T00:00:00Z" } }, ANSWER]);
    assert.equal(then.text, "Nothing remembered about that as of 2026-04-15T00:00:00Z.");
  });
});

describe("history and forget", () => {
  const BOBS = wireMemory({ id: "m-bob", content: "User banks with Monzo", user_id: "bob" });

  it("history answers the lineage, oldest first, with each memory's status", async () => {
    const emacs = wireMemory({ id: "m-emacs", content: "User uses Emacs", user_id: "alice", valid_from: "2026-05-03T10:00:00Z", supersedes: "m-vim" });
    const vim = { ...VIM, valid_to: "2026-05-03T10:00:00Z", status: "superseded", superseded_by: "m-emacs" };
    const mock = new MockFetch().reply(json(VIM), json({ memory_id: "m-vim", chain: [vim, emacs], versions: [] }));
    const { text } = await run(aurraTools({ client: client(mock), userId: "alice" }), [{ tool: "history", input: { memoryId: "m-vim" } }, ANSWER]);
    assert.equal(
      text,
      "- User uses Vim (valid from 2026-04-01 to 2026-05-03, superseded; memory m-vim)\n" +
        "- User uses Emacs (valid from 2026-05-03, current; memory m-emacs)",
    );
    assert.deepEqual(mock.requests.map((r) => r.url.pathname), ["/agent/memories/m-vim", "/agent/memories/m-vim/history"]);
  });

  it("forget reads the memory, then erases it by id", async () => {
    const receipt = { id: "er-1", selector: { memory_id: "m-vim" }, created_at: "2026-05-04T00:00:00Z", counts: { memories: 1, versions: 1, audit_events: 0, proposals: 0, idempotency_records: 0 } };
    const mock = new MockFetch().reply(json(VIM), json(receipt, 201));
    const { text } = await run(aurraTools({ client: client(mock), userId: "alice" }), [{ tool: "forget", input: { memoryId: "m-vim" } }, ANSWER]);
    assert.equal(text, "Erased memory m-vim and its history (receipt er-1).");
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/erasures");
    assert.deepEqual(mock.last.body, { memory_id: "m-vim" });
  });

  for (const tool of ["history", "forget"]) {
    it(`${tool} refuses another user's memory, another agent's, and one that is not there, without touching it`, async () => {
      const mock = new MockFetch().reply(json(BOBS));
      const alice = aurraTools({ client: client(mock), userId: "alice" });
      const refused = await run(alice, [{ tool, input: { memoryId: "m-bob" } }, ANSWER]);
      assert.equal(refused.text, "No memory m-bob for this user.");

      const otherAgent = new MockFetch().reply(json({ ...VIM, agent_id: "other-bot" }));
      const bound = aurraTools({ client: client(otherAgent), userId: "alice", agentId: "bot" });
      assert.equal((await run(bound, [{ tool, input: { memoryId: "m-vim" } }, ANSWER])).text, "No memory m-vim for this user.");

      const missing = new MockFetch().reply(apiError(404, "not_found", "memory not found"));
      const gone = aurraTools({ client: client(missing), userId: "alice" });
      assert.equal((await run(gone, [{ tool, input: { memoryId: "m-x" } }, ANSWER])).text, "No memory m-x for this user.");

      for (const m of [mock, otherAgent, missing]) {
        assert.deepEqual(m.requests.map((r) => r.method), ["GET"], "only the read that refused");
      }
    });
  }

  it("an error of the service goes back to the model as the tool's error", async () => {
    const mock = new MockFetch().reply(apiError(500, "internal", "database unavailable"));
    const { text } = await run(aurraTools({ client: client(mock), userId: "alice" }), [{ tool: "forget", input: { memoryId: "m-vim" } }, ANSWER]);
    assert.match(text, /database unavailable/);
  });
});
