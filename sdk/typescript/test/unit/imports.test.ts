import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, InvalidArgumentError, NotFoundError, type ImportIndexing } from "../../src/index.js";
import { MockFetch, apiError, json } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

describe("imports", () => {
  it("announces an import, auto_supersede false unless asked, and reads the answer", async () => {
    const mock = new MockFetch().reply(
      json({ indexing: "deferred", reason: "a large import: indexed once, at its end" }),
      json({ indexing: "shared", reason: "Level 2 reads the index as the facts arrive" }),
    );
    const aurra = client(mock);
    const deferred: ImportIndexing = await aurra.imports.announce(50_000);
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/imports");
    assert.deepEqual(mock.last.body, { facts: 50_000, auto_supersede: false });
    assert.equal(mock.last.headers["idempotency-key"], undefined, "announcing again answers the same");
    assert.deepEqual(deferred, { indexing: "deferred", reason: "a large import: indexed once, at its end" });

    const shared = await aurra.imports.announce(50_000, { autoSupersede: true });
    assert.deepEqual(mock.last.body, { facts: 50_000, auto_supersede: true });
    assert.deepEqual(shared, { indexing: "shared", reason: "Level 2 reads the index as the facts arrive" });
  });

  it("sends the largest scope only when given, and only from 1 to facts", async () => {
    const mock = new MockFetch().reply(json({ indexing: "deferred", reason: "no scope needs an index" }));
    const aurra = client(mock);
    for (const largestScope of [0, -2, 11, 2.5, "4", true, null]) {
      await assert.rejects(
        aurra.imports.announce(10, { autoSupersede: true, largestScope: largestScope as never }),
        InvalidArgumentError,
        `largestScope ${String(largestScope)}`,
      );
    }
    assert.equal(mock.requests.length, 0);
    await aurra.imports.announce(20_000, { autoSupersede: true, largestScope: 20 });
    assert.deepEqual(mock.last.body, { facts: 20_000, auto_supersede: true, largest_scope: 20 });
  });

  it("asks for the index to be built, 202 while there is one to build, 200 when there is none", async () => {
    const mock = new MockFetch().reply(
      json({ indexing: "building", reason: "the tenant's own index is being built" }, 202),
      json({ indexing: "own", reason: "the tenant's own index is built" }, 200),
    );
    const aurra = client(mock);
    const building = await aurra.imports.buildIndex();
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/imports/index");
    assert.deepEqual(mock.last.body, {});
    assert.equal(mock.last.headers["idempotency-key"], undefined);
    assert.deepEqual(building, { indexing: "building", reason: "the tenant's own index is being built" });
    const own = await aurra.imports.buildIndex();
    assert.deepEqual(own, { indexing: "own", reason: "the tenant's own index is built" });
  });

  it("reads where new memories are indexed now", async () => {
    const mock = new MockFetch().reply(json({ indexing: "deferred", reason: "waiting for buildIndex", extra: 1 }));
    const state = await client(mock).imports.indexing();
    assert.equal(mock.last.method, "GET");
    assert.equal(mock.last.url.pathname, "/agent/imports/index");
    assert.equal(mock.last.url.search, "");
    assert.equal(mock.last.body, undefined);
    assert.deepEqual(state, { indexing: "deferred", reason: "waiting for buildIndex" });
  });

  it("refuses anything but a positive whole number of facts before sending anything", async () => {
    const mock = new MockFetch().reply(json({ indexing: "shared", reason: "small" }));
    const aurra = client(mock);
    for (const facts of [0, -1, 1.5, "10", Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true]) {
      await assert.rejects(aurra.imports.announce(facts as never), InvalidArgumentError, `facts ${String(facts)}`);
    }
    await assert.rejects(aurra.imports.announce(10, { autoSupersede: "yes" } as never), InvalidArgumentError);
    await assert.rejects(aurra.imports.announce(10, null as never), InvalidArgumentError);
    assert.equal(mock.requests.length, 0);
    await aurra.imports.announce(1);
    assert.deepEqual(mock.last.body, { facts: 1, auto_supersede: false });
  });

  it("throws NotFoundError against a server without the routes", async () => {
    const mock = new MockFetch().reply(apiError(404, "not_found", "not found"));
    await assert.rejects(client(mock).imports.indexing(), NotFoundError);
  });
});
