import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, UnexpectedResponseError, type Memory, type MemoryPage } from "../../src/index.js";
import { MockFetch, json, wireEvent, wireMemory } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "k", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

function pages(mock: MockFetch): MockFetch {
  return mock.reply(
    json({ memories: [wireMemory({ id: "m1" }), wireMemory({ id: "m2" })], next_cursor: "c1" }),
    json({ memories: [wireMemory({ id: "m3" })], next_cursor: "c2" }),
    json({ memories: [], next_cursor: null }),
  );
}

describe("pagination", () => {
  it("for await walks every page, passing each next_cursor back with the same filters", async () => {
    const mock = pages(new MockFetch());
    const seen: string[] = [];
    const pager = client(mock).memories.list({ topic: "preferences", limit: 2 });
    assert.equal(mock.requests.length, 0, "nothing is fetched before iterating");
    for await (const memory of pager) seen.push(memory.id);
    assert.deepEqual(seen, ["m1", "m2", "m3"]);
    assert.deepEqual(
      mock.requests.map((r) => Object.fromEntries(r.url.searchParams)),
      [
        { topic: "preferences", limit: "2" },
        { topic: "preferences", limit: "2", cursor: "c1" },
        { topic: "preferences", limit: "2", cursor: "c2" },
      ],
    );
  });

  it("pages() yields the pages; breaking off stops fetching", async () => {
    const mock = pages(new MockFetch());
    const sizes: number[] = [];
    for await (const page of client(mock).memories.list().pages()) sizes.push(page.memories.length);
    assert.deepEqual(sizes, [2, 1, 0]);

    const partial = pages(new MockFetch());
    for await (const memory of client(partial).memories.list()) {
      assert.equal(memory.id, "m1");
      break;
    }
    assert.equal(partial.requests.length, 1);
  });

  it("each iteration starts again from the first page", async () => {
    const mock = new MockFetch().reply(json({ memories: [wireMemory({ id: "only" })], next_cursor: null }));
    const pager = client(mock).memories.list();
    const first: Memory[] = await pager.toArray();
    const second: Memory[] = await pager.toArray();
    assert.deepEqual([first.length, second.length], [1, 1]);
    assert.ok(mock.requests.every((r) => !r.url.searchParams.has("cursor")));
  });

  it("listPage fetches exactly one page at a cursor", async () => {
    const mock = new MockFetch().reply(json({ memories: [wireMemory()], next_cursor: "c9" }));
    const page: MemoryPage = await client(mock).memories.listPage({ limit: 1, cursor: "c8" });
    assert.equal(page.nextCursor, "c9");
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.last.url.searchParams.get("cursor"), "c8");
    await client(mock).memories.searchPage("editor", { cursor: null });
    assert.equal(mock.last.url.searchParams.get("q"), "editor");
    assert.equal(mock.last.url.searchParams.has("cursor"), false);
  });

  it("audit pages too, newest first as the server sends them", async () => {
    const mock = new MockFetch().reply(
      json({ events: [wireEvent({ id: "e2" })], next_cursor: "c1" }),
      json({ events: [wireEvent({ id: "e1" })], next_cursor: null }),
    );
    const ids = (await client(mock).audit.list({ limit: 1 }).toArray()).map((e) => e.id);
    assert.deepEqual(ids, ["e2", "e1"]);
    const page = await client(mock).audit.listPage({ cursor: "c1" });
    assert.equal(page.nextCursor, null);
  });

  it("refuses to loop on a server that repeats a cursor", async () => {
    const mock = new MockFetch().reply(json({ memories: [wireMemory()], next_cursor: "same" }));
    await assert.rejects(client(mock).memories.list().toArray(), UnexpectedResponseError);
    assert.equal(mock.requests.length, 2);
  });
});
