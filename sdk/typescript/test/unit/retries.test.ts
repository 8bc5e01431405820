import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Transport } from "../../src/core/transport.js";
import { MAX_DELAY_S, parseRetryAfter, retryDelay } from "../../src/core/retry.js";
import { APIConnectionError, APITimeoutError, Aurra, ConflictError, RateLimitError, ServerError, type WriteResult } from "../../src/index.js";
import { MockFetch, WIRE_SETTINGS, apiError, json, wireEvent, wireWrite } from "./mock-fetch.js";

/** A transport whose sleeps are recorded (in seconds) instead of slept. */
function transport(mock: MockFetch, maxRetries = 2, random = () => 0.5) {
  const slept: number[] = [];
  const t = new Transport({
    apiKey: "k",
    baseURL: "http://aurra.test",
    timeout: 1000,
    maxRetries,
    fetch: mock.fetch,
    sleep: async (ms) => {
      slept.push(ms / 1000);
    },
    random,
  });
  return { t, slept };
}

const getSettings = { method: "GET" as const, path: "/agent/settings", parse: (d: unknown) => d };

function client(mock: MockFetch, maxRetries = 2): Aurra {
  return new Aurra({ apiKey: "k", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries });
}

describe("retries", () => {
  it("retries 429 and 5xx, then returns the answer", async () => {
    const mock = new MockFetch().reply(apiError(503, "unavailable", "busy"), apiError(429, "rate_limited", "slow"), json(WIRE_SETTINGS));
    const { t, slept } = transport(mock);
    assert.deepEqual(await t.send(getSettings), WIRE_SETTINGS);
    assert.equal(mock.requests.length, 3);
    assert.equal(slept.length, 2);
  });

  it("backs off exponentially with jitter, capped", async () => {
    const mock = new MockFetch().reply(apiError(500, "internal", "boom"));
    const { t, slept } = transport(mock, 6, () => 0.999999);
    await assert.rejects(t.send(getSettings), ServerError);
    assert.equal(mock.requests.length, 7);
    assert.deepEqual(
      slept.map((s) => Math.round(s * 100) / 100),
      [0.5, 1, 2, 4, 8, 8],
    );
    const low = transport(new MockFetch().reply(apiError(500, "internal", "boom")), 3, () => 0);
    await assert.rejects(low.t.send(getSettings), ServerError);
    assert.deepEqual(low.slept, [0.25, 0.5, 1]);
    for (let attempt = 0; attempt < 10; attempt++) {
      const delay = retryDelay(attempt, null);
      const cap = Math.min(MAX_DELAY_S, 0.5 * 2 ** attempt);
      assert.ok(delay >= cap / 2 && delay <= cap, `${attempt}: ${delay}`);
    }
  });

  it("waits what Retry-After says, up to a minute", async () => {
    const mock = new MockFetch().reply(
      apiError(429, "rate_limited", "slow", [], { "retry-after": "3" }),
      apiError(503, "unavailable", "busy", [], { "retry-after": "3600" }),
      json(WIRE_SETTINGS),
    );
    const { t, slept } = transport(mock);
    await t.send(getSettings);
    assert.deepEqual(slept, [3, 60]);
    assert.equal(parseRetryAfter("1.5"), 1.5);
    assert.equal(parseRetryAfter("-4"), 0);
    assert.equal(parseRetryAfter("soon"), null);
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:50 GMT")), 10);
  });

  it("throws the last error once retries are spent", async () => {
    const mock = new MockFetch().reply(apiError(429, "rate_limited", "slow", [], { "retry-after": "0" }));
    await assert.rejects(client(mock, 2).settings.get(), (e: unknown) => e instanceof RateLimitError && e.retryAfter === 0);
    assert.equal(mock.requests.length, 3);
  });

  it("never retries other 4xx answers", async () => {
    const mock = new MockFetch().reply(apiError(409, "conflict", "already superseded"));
    await assert.rejects(client(mock).memories.supersede("m1", { supersededBy: "m2" }), ConflictError);
    assert.equal(mock.requests.length, 1);
  });

  it("retries connection failures and timeouts", async () => {
    const mock = new MockFetch().reply(new TypeError("fetch failed"), json(WIRE_SETTINGS));
    const { t, slept } = transport(mock);
    await t.send(getSettings);
    assert.equal(mock.requests.length, 2);
    assert.equal(slept.length, 1);

    const down = new MockFetch().reply(new TypeError("fetch failed"));
    const spent = transport(down, 2);
    await assert.rejects(spent.t.send(getSettings), APIConnectionError);
    assert.equal(down.requests.length, 3);

    let calls = 0;
    const slowThenFast = new MockFetch().reply((_r, init) => {
      calls++;
      if (calls > 1) return json(WIRE_SETTINGS);
      return new Promise<Response>((_, reject) => init.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    const fast = new Aurra({ apiKey: "k", baseURL: "http://aurra.test", fetch: slowThenFast.fetch, timeout: 20 });
    assert.equal((await fast.settings.get()).minConfidence, 0.85);
    assert.equal(calls, 2);
    await assert.rejects(
      new Aurra({ apiKey: "k", baseURL: "http://aurra.test", fetch: new MockFetch().reply((_r, init) => new Promise<Response>((_, reject) => init.signal.addEventListener("abort", () => reject(new Error("aborted"))))).fetch, timeout: 5, maxRetries: 1 }).settings.get(),
      APITimeoutError,
    );
  });

  it("takes maxRetries per call, and 0 turns retries off", async () => {
    const mock = new MockFetch().reply(apiError(500, "internal", "boom", [], { "retry-after": "0" }));
    await assert.rejects(client(mock, 0).settings.get(), ServerError);
    assert.equal(mock.requests.length, 1);
    await assert.rejects(client(mock, 0).settings.get({ maxRetries: 3 }), ServerError);
    assert.equal(mock.requests.length, 5);
  });
});

describe("idempotency keys", () => {
  it("sends one key per write, the same on each of its retries", async () => {
    const mock = new MockFetch().reply(
      apiError(503, "unavailable", "busy", [], { "retry-after": "0" }),
      new TypeError("fetch failed"),
      json(wireWrite(), 201),
      json(wireWrite(), 201),
    );
    const aurra = client(mock, 3);
    const first: WriteResult = await aurra.memories.add({ content: "User uses Vim" });
    assert.equal(first.created, true);
    const second = await aurra.memories.add({ content: "User uses Vim" });
    assert.equal(second.created, true);
    const keys = mock.requests.map((r) => r.headers["idempotency-key"]);
    assert.equal(keys.length, 4);
    assert.ok(keys[0] && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(keys[0]), keys[0]);
    assert.equal(keys[1], keys[0]);
    assert.equal(keys[2], keys[0]);
    assert.notEqual(keys[3], keys[0]);
    assert.deepEqual(mock.requests[0]?.body, mock.requests[2]?.body, "every retry sends the same body");
  });

  it("uses the caller's key when given, for writes, supersede and revert", async () => {
    const busy = () => apiError(500, "internal", "boom", [], { "retry-after": "0" });
    const memory = wireWrite()["memory"];
    const mock = new MockFetch().reply(
      busy(),
      json(wireWrite(), 201),
      busy(),
      json({ memory, superseded: memory }, 201),
      busy(),
      json({ event: wireEvent({ type: "revert" }), restored: memory }),
    );
    const aurra = client(mock);
    await aurra.memories.add({ content: "x", idempotencyKey: "order-42" });
    await aurra.memories.supersede("m1", { supersededBy: "m2", idempotencyKey: "link-m1" });
    await aurra.audit.revert("ev1", { idempotencyKey: "undo-ev1" });
    assert.deepEqual(
      mock.requests.map((r) => r.headers["idempotency-key"]),
      ["order-42", "order-42", "link-m1", "link-m1", "undo-ev1", "undo-ev1"],
    );
  });

  it("retries a 409 while the server may still be running a write whose answer was lost", async () => {
    const inProgress = () => apiError(409, "conflict", "a request with this Idempotency-Key is still in progress; retry shortly");
    const mock = new MockFetch().reply(new TypeError("fetch failed"), inProgress(), json(wireWrite(), 201));
    const { t, slept } = transport(mock, 3);
    const call = { method: "POST" as const, path: "/agent/memories", body: { content: "x" }, idempotencyKey: "k1", parse: (d: unknown) => d };
    assert.deepEqual(await t.send(call), wireWrite());
    assert.equal(mock.requests.length, 3);
    assert.equal(slept.length, 2);

    // A 409 to a first try is the server's real answer: never retried.
    const first = new MockFetch().reply(inProgress(), json(wireWrite(), 201));
    await assert.rejects(transport(first, 3).t.send(call), ConflictError);
    assert.equal(first.requests.length, 1);
    // Nor is one to a call without a key.
    const unkeyed = new MockFetch().reply(new TypeError("fetch failed"), inProgress());
    const { idempotencyKey: _key, ...unkeyedCall } = call;
    await assert.rejects(transport(unkeyed, 3).t.send(unkeyedCall), ConflictError);
    assert.equal(unkeyed.requests.length, 2);
  });

  it("sends no key on reads", async () => {
    const mock = new MockFetch().reply(json({ memories: [], next_cursor: null }));
    await client(mock).memories.listPage();
    assert.equal(mock.last.headers["idempotency-key"], undefined);
  });
});
