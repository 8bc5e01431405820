import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, InvalidArgumentError, NotFoundError, UnexpectedResponseError, type Erasure } from "../../src/index.js";
import { MockFetch, apiError, json } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch });
}

function wireReceipt(selector: Record<string, unknown>): Record<string, unknown> {
  return {
    id: "0193a000-0000-7000-8000-0000000000e5",
    selector,
    created_at: "2026-05-04T08:00:00.123456Z",
    counts: { memories: 2, versions: 3, audit_events: 1, proposals: 0, idempotency_records: 2 },
  };
}

describe("erasures", () => {
  it("erases a memory's lineage and reads the receipt in camelCase", async () => {
    const mock = new MockFetch().reply(json(wireReceipt({ memory_id: "m1" }), 201));
    const receipt: Erasure = await client(mock).erasures.create({ memoryId: "m1" });
    assert.equal(mock.last.method, "POST");
    assert.equal(mock.last.url.pathname, "/agent/erasures");
    assert.deepEqual(mock.last.body, { memory_id: "m1" });
    assert.deepEqual(receipt, {
      id: "0193a000-0000-7000-8000-0000000000e5",
      selector: { memoryId: "m1" },
      createdAt: "2026-05-04T08:00:00.123456Z",
      counts: { memories: 2, versions: 3, auditEvents: 1, proposals: 0, idempotencyRecords: 2 },
    });
  });

  it("sends each selector as the API names it", async () => {
    const mock = new MockFetch().reply(json(wireReceipt({}), 201));
    const erasures = client(mock).erasures;
    await erasures.create({ userId: "alice" });
    assert.deepEqual(mock.last.body, { user_id: "alice" });
    await erasures.create({ userId: "alice", agentId: "support-bot" });
    assert.deepEqual(mock.last.body, { user_id: "alice", agent_id: "support-bot" });
    await erasures.create({ conversationId: "conv-8812" });
    assert.deepEqual(mock.last.body, { conversation_id: "conv-8812" });
    await erasures.create({ sourceId: "crm-42" });
    assert.deepEqual(mock.last.body, { source_id: "crm-42" });
    await erasures.create({ tenant: true });
    assert.deepEqual(mock.last.body, { tenant: true });
  });

  it("keeps a selector key it does not know, and reads an older receipt's missing counts as 0", async () => {
    const { counts: _counts, ...rest } = wireReceipt({ user_id: "alice", future_key: 1 });
    const mock = new MockFetch().reply(json({ ...rest, counts: { memories: 1, versions: 1, audit_events: 0 } }));
    const receipt = await client(mock).erasures.create({ userId: "alice" });
    assert.deepEqual(receipt.selector, { userId: "alice", future_key: 1 });
    assert.equal(receipt.counts.proposals, 0);
    assert.equal(receipt.counts.idempotencyRecords, 0);
  });

  it("refuses anything but exactly one selector, before sending", async () => {
    const mock = new MockFetch().reply(json(wireReceipt({}), 201));
    const erasures = client(mock).erasures;
    for (const params of [
      {},
      { memoryId: "m1", userId: "alice" },
      { agentId: "support-bot" },
      { tenant: false },
      { memoryId: "" },
      { userId: 42 },
      null,
    ]) {
      await assert.rejects(erasures.create(params as never), InvalidArgumentError, JSON.stringify(params));
    }
    assert.equal(mock.requests.length, 0);
  });

  it("reads a receipt by id, and a broken one is an UnexpectedResponseError", async () => {
    const mock = new MockFetch().reply(json(wireReceipt({ tenant: true })), json({ id: "e1", selector: {} }));
    const receipt = await client(mock).erasures.get("e/1");
    assert.equal(mock.last.method, "GET");
    assert.equal(mock.last.url.pathname, "/agent/erasures/e%2F1");
    assert.deepEqual(receipt.selector, { tenant: true });
    await assert.rejects(client(mock).erasures.get("e1"), UnexpectedResponseError);
  });

  it("a memory not in this tenant is a NotFoundError", async () => {
    const mock = new MockFetch().reply(apiError(404, "not_found", "memory not found"));
    await assert.rejects(client(mock).erasures.create({ memoryId: "nope" }), NotFoundError);
  });
});
