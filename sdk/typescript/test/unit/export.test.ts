import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { APIConnectionError, Aurra, UnexpectedResponseError } from "../../src/index.js";
import { MockFetch } from "./mock-fetch.js";

function ndjson(lines: unknown[]): Response {
  return new Response(lines.map((line) => JSON.stringify(line)).join("\n") + "\n", {
    status: 200,
    headers: { "content-type": "application/x-ndjson" },
  });
}

function client(mock: MockFetch, maxRetries = 2): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries });
}

/** A response whose body stops mid-way, as a proxy closing the connection leaves it. */
function cut(lines: unknown[], keep: number): Response {
  const text = lines.map((line) => JSON.stringify(line)).join("\n");
  return new Response(text.slice(0, keep), { status: 200, headers: { "content-type": "application/x-ndjson" } });
}

describe("export", () => {
  it("follows next_cursor from response to response and yields the records, not the end lines", async () => {
    const mock = new MockFetch()
      .reply(ndjson([{ kind: "memory_version", id: "m1" }, { kind: "end", next_cursor: "c1" }]))
      .reply(ndjson([{ kind: "audit_event", id: "e1" }, { kind: "end", next_cursor: null }]));
    const records = [];
    for await (const record of client(mock).export({ userId: "alice", limit: 1 })) records.push(record);
    assert.deepEqual(records, [
      { kind: "memory_version", id: "m1" },
      { kind: "audit_event", id: "e1" },
    ]);
    assert.equal(mock.requests.length, 2);
    assert.equal(mock.requests[0]?.url.pathname, "/agent/export");
    assert.equal(mock.requests[0]?.url.searchParams.get("user_id"), "alice");
    assert.equal(mock.requests[0]?.url.searchParams.get("cursor"), null);
    assert.equal(mock.requests[1]?.url.searchParams.get("cursor"), "c1");
  });

  it("refuses a response cut short (no end line, or a last line not whole) once retries are spent", async () => {
    const mock = new MockFetch().reply(ndjson([{ kind: "memory_version", id: "m1" }]));
    await assert.rejects(client(mock, 0).exportPage(), (e: unknown) => e instanceof UnexpectedResponseError && /cut short/.test(e.message));
    const half = new MockFetch().reply(cut([{ kind: "memory_version", id: "m1" }, { kind: "end", next_cursor: null }], 40));
    await assert.rejects(client(half, 0).exportPage(), (e: unknown) => e instanceof UnexpectedResponseError && /cut short/.test(e.message));
    assert.equal(mock.requests.length + half.requests.length, 2, "maxRetries 0: asked once each");
  });

  it("asks again with the same cursor for a response cut short, and yields each record once", async () => {
    const first = [{ kind: "memory_version", id: "m1" }, { kind: "memory_version", id: "m2" }, { kind: "end", next_cursor: "c1" }];
    const second = [{ kind: "audit_event", id: "e1" }, { kind: "end", next_cursor: null }];
    const mock = new MockFetch().reply(
      cut(first, 30), // mid-line
      ndjson(first.slice(0, 2)), // whole lines, no end line
      ndjson(first),
      cut(second, 50),
      ndjson(second),
    );
    const stream = client(mock).export();
    const ids: unknown[] = [];
    for await (const record of stream) ids.push(record["id"]);
    assert.deepEqual(ids, ["m1", "m2", "e1"]);
    assert.deepEqual(
      mock.requests.map((r) => r.url.searchParams.get("cursor")),
      [null, null, null, "c1", "c1"],
    );
    assert.equal(stream.done, true);
  });

  it("resumes from the response it was reading after the connection broke for good", async () => {
    const broken = new TypeError("fetch failed", { cause: new Error("ECONNRESET") });
    const mock = new MockFetch().reply(
      ndjson([{ kind: "memory_version", id: "m1" }, { kind: "end", next_cursor: "c1" }]),
      broken,
      ndjson([{ kind: "audit_event", id: "e1" }, { kind: "end", next_cursor: "c2" }]),
      ndjson([{ kind: "audit_event", id: "e2" }, { kind: "end", next_cursor: null }]),
    );
    const stream = client(mock, 0).export({ userId: "alice" });
    const ids: unknown[] = [];
    await assert.rejects(async () => {
      for await (const record of stream) ids.push(record["id"]);
    }, APIConnectionError);
    assert.deepEqual([...ids], ["m1"]);
    assert.equal(stream.cursor, "c1");
    assert.equal(stream.done, false);

    // The same stream again, or a new one from its cursor: the rest, nothing twice.
    for await (const record of stream) ids.push(record["id"]);
    assert.deepEqual(ids, ["m1", "e1", "e2"]);
    assert.deepEqual(
      mock.requests.map((r) => [r.url.searchParams.get("cursor"), r.url.searchParams.get("user_id")]),
      [[null, "alice"], ["c1", "alice"], ["c1", "alice"], ["c2", "alice"]],
    );
    assert.equal(stream.done, true);
    const again = [];
    for await (const record of stream) again.push(record);
    assert.deepEqual(again, [], "a finished export stays finished");
  });

  it("a broken connection is retried by the client itself, with the same cursor", async () => {
    const mock = new MockFetch().reply(
      new TypeError("fetch failed"),
      ndjson([{ kind: "memory_version", id: "m1" }, { kind: "end", next_cursor: null }]),
    );
    const records = [];
    for await (const record of client(mock, 1).export({ cursor: "c7" })) records.push(record);
    assert.deepEqual(records, [{ kind: "memory_version", id: "m1" }]);
    assert.deepEqual(mock.requests.map((r) => r.url.searchParams.get("cursor")), ["c7", "c7"]);
  });

  it("never asks again for a write's answer cut short: a write is not a read", async () => {
    const mock = new MockFetch().reply(new Response('{"created": true, "mem', { status: 201 }));
    await assert.rejects(client(mock).memories.add({ content: "User uses Vim" }), UnexpectedResponseError);
    assert.equal(mock.requests.length, 1);
  });
});
