import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, UnexpectedResponseError } from "../../src/index.js";
import { MockFetch } from "./mock-fetch.js";

function ndjson(lines: unknown[]): Response {
  return new Response(lines.map((line) => JSON.stringify(line)).join("\n") + "\n", {
    status: 200,
    headers: { "content-type": "application/x-ndjson" },
  });
}

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch });
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

  it("refuses a response cut short (no end line)", async () => {
    const mock = new MockFetch().reply(ndjson([{ kind: "memory_version", id: "m1" }]));
    await assert.rejects(client(mock).exportPage(), UnexpectedResponseError);
  });
});
