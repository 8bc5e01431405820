import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, NotFoundError, type Job } from "../../src/index.js";
import { MockFetch, apiError, json } from "./mock-fetch.js";

const JOB_ID = "0193a2b4-0000-7000-8000-0000000000a1";
const OTHER_JOB_ID = "0193a2b4-0000-7000-8000-0000000000a2";
const MEMORY_ID = "0193a2b4-0000-7000-8000-0000000000c1";
const AUDIT_ID = "0193a2b4-0000-7000-8000-0000000000e1";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch, maxRetries: 0 });
}

function wireJob(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: JOB_ID,
    memory_id: MEMORY_ID,
    user_id: "alice",
    agent_id: null,
    status: "pending",
    attempts: 0,
    created_at: "2026-12-03T10:00:00.123456Z",
    completed_at: null,
    outcome: null,
    audit_event_id: null,
    ...overrides,
  };
}

describe("jobs", () => {
  it("reads one job, camelCase", async () => {
    const done = wireJob({
      status: "done",
      attempts: 1,
      completed_at: "2026-12-03T10:00:01Z",
      outcome: "superseded",
      audit_event_id: AUDIT_ID,
    });
    const mock = new MockFetch().reply(json(done));
    const job: Job = await client(mock).jobs.get(JOB_ID);
    assert.equal(mock.last.method, "GET");
    assert.equal(mock.last.url.pathname, `/agent/jobs/${JOB_ID}`);
    assert.deepEqual(job, {
      id: JOB_ID,
      memoryId: MEMORY_ID,
      userId: "alice",
      agentId: null,
      status: "done",
      attempts: 1,
      createdAt: "2026-12-03T10:00:00.123456Z",
      completedAt: "2026-12-03T10:00:01Z",
      outcome: "superseded",
      auditEventId: AUDIT_ID,
    });
  });

  it("throws NotFoundError for a job that is not the tenant's", async () => {
    const mock = new MockFetch().reply(apiError(404, "not_found", "job not found"));
    await assert.rejects(client(mock).jobs.get(JOB_ID), NotFoundError);
  });

  it("lists with the filters, following the cursor", async () => {
    const mock = new MockFetch().reply(
      json({ jobs: [wireJob()], next_cursor: "c1" }),
      json({ jobs: [wireJob({ id: OTHER_JOB_ID, status: "running", attempts: 1 })], next_cursor: null }),
    );
    const jobs = await client(mock)
      .jobs.list({ status: "pending", userId: "alice", memoryId: MEMORY_ID, limit: 1 })
      .toArray();
    assert.deepEqual(
      jobs.map((j) => [j.id, j.status]),
      [
        [JOB_ID, "pending"],
        [OTHER_JOB_ID, "running"],
      ],
    );
    const [first, second] = mock.requests.map((r) => Object.fromEntries(r.url.searchParams));
    assert.deepEqual(first, { status: "pending", memory_id: MEMORY_ID, user_id: "alice", limit: "1" });
    assert.deepEqual(second, { ...first, cursor: "c1" });
    assert.ok(mock.requests.every((r) => r.url.pathname === "/agent/jobs"));
  });

  it("reads one page with listPage", async () => {
    const mock = new MockFetch().reply(json({ jobs: [], next_cursor: null }));
    const page = await client(mock).jobs.listPage({ status: "done", cursor: "c9" });
    assert.deepEqual(page, { jobs: [], nextCursor: null });
    assert.deepEqual(Object.fromEntries(mock.last.url.searchParams), { status: "done", cursor: "c9" });
  });
});
