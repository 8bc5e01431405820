import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Aurra, InvalidArgumentError, ValidationError, type Settings } from "../../src/index.js";
import { MockFetch, WIRE_SETTINGS, apiError, json } from "./mock-fetch.js";

function client(mock: MockFetch): Aurra {
  return new Aurra({ apiKey: "aurra_test", baseURL: "http://aurra.test", fetch: mock.fetch });
}

describe("settings", () => {
  it("reads every setting in camelCase", async () => {
    const mock = new MockFetch().reply(
      json({
        ...WIRE_SETTINGS,
        daily_model_calls_limit: 1000,
        daily_model_cost_limit_usd: 2.5,
        history_retention_days: 30,
        memory_retention_days: null,
        auto_supersede_mode: "async",
        webhooks: [{ url: "https://hooks.example.com/aurra", events: ["memory.superseded"], secret_set: true }],
      }),
    );
    const settings: Settings = await client(mock).settings.get();
    assert.deepEqual(settings, {
      autoSupersedeDefault: false,
      excludedCategories: ["health_medical", "legal_status"],
      minConfidence: 0.85,
      classifierModel: "claude-haiku-4-5-20251001",
      proposalMinConfidence: 0.5,
      dailyModelCallsLimit: 1000,
      secrets: "redact",
      dailyModelCostLimitUsd: 2.5,
      historyRetentionDays: 30,
      memoryRetentionDays: null,
      autoSupersedeMode: "async",
      webhooks: [{ url: "https://hooks.example.com/aurra", events: ["memory.superseded"], secretSet: true }],
    });
  });

  it("reads a server without proposals or budgets as having neither", async () => {
    const { proposal_min_confidence: _p, daily_model_calls_limit: _d, secrets: _s, ...older } = WIRE_SETTINGS;
    const mock = new MockFetch().reply(json(older));
    const settings = await client(mock).settings.get();
    assert.equal(settings.proposalMinConfidence, null);
    assert.equal(settings.dailyModelCallsLimit, null);
    assert.equal(settings.dailyModelCostLimitUsd, null);
    assert.equal(settings.secrets, "redact");
    assert.equal(settings.autoSupersedeMode, "sync");
    assert.deepEqual(settings.webhooks, []);
  });

  it("sends webhooks with their write-only secret, and the asynchronous mode", async () => {
    const read = { url: "https://hooks.example.com/aurra", events: ["memory.superseded", "proposal.created"], secret_set: true };
    const mock = new MockFetch().reply(json({ ...WIRE_SETTINGS, auto_supersede_mode: "async", webhooks: [read] }));
    const secret = "whsec_" + Buffer.from("a".repeat(32)).toString("base64");
    const settings = await client(mock).settings.update({
      autoSupersedeMode: "async",
      webhooks: [{ url: read.url, events: ["memory.superseded", "proposal.created"], secret }],
    });
    assert.deepEqual(mock.last.body, {
      auto_supersede_mode: "async",
      webhooks: [{ url: read.url, events: ["memory.superseded", "proposal.created"], secret }],
    });
    assert.equal(settings.autoSupersedeMode, "async");
    assert.deepEqual(settings.webhooks, [{ url: read.url, events: ["memory.superseded", "proposal.created"], secretSet: true }]);
    assert.ok(!JSON.stringify(settings).includes(secret));

    // A URL the key already has keeps its secret: none is sent. [] removes every webhook.
    await client(mock).settings.update({ webhooks: [{ url: read.url, events: ["memory.reverted"] }] });
    assert.deepEqual(mock.last.body, { webhooks: [{ url: read.url, events: ["memory.reverted"] }] });
    await client(mock).settings.update({ webhooks: [] });
    assert.deepEqual(mock.last.body, { webhooks: [] });
  });

  it("refuses webhooks that are not a list of { url, events } before sending", async () => {
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    const hook = { url: "https://hooks.example.com/aurra", events: ["memory.superseded"] };
    await assert.rejects(client(mock).settings.update({ webhooks: hook as never }), InvalidArgumentError);
    await assert.rejects(client(mock).settings.update({ webhooks: [{ ...hook, events: "memory.superseded" as never }] }), InvalidArgumentError);
    assert.equal(mock.requests.length, 0);
  });

  it("sends and reads the secrets setting", async () => {
    const mock = new MockFetch().reply(json({ ...WIRE_SETTINGS, secrets: "refuse" }));
    const settings = await client(mock).settings.update({ secrets: "refuse" });
    assert.deepEqual(mock.last.body, { secrets: "refuse" });
    assert.equal(settings.secrets, "refuse");
  });

  it("sends only what changes, with null where null means off", async () => {
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    const settings = client(mock).settings;
    await settings.update({ autoSupersedeDefault: true, excludedCategories: ["financial"], minConfidence: 0.92, classifierModel: "claude-x" });
    assert.equal(mock.last.method, "PATCH");
    assert.equal(mock.last.url.pathname, "/agent/settings");
    assert.deepEqual(mock.last.body, {
      auto_supersede_default: true,
      excluded_categories: ["financial"],
      min_confidence: 0.92,
      classifier_model: "claude-x",
    });
    await settings.update({ proposalMinConfidence: null, dailyModelCallsLimit: null });
    assert.deepEqual(mock.last.body, { proposal_min_confidence: null, daily_model_calls_limit: null });
    await settings.update({ proposalMinConfidence: 0.6, dailyModelCallsLimit: 500 });
    assert.deepEqual(mock.last.body, { proposal_min_confidence: 0.6, daily_model_calls_limit: 500 });
    await settings.update({ dailyModelCostLimitUsd: 12.5 });
    assert.deepEqual(mock.last.body, { daily_model_cost_limit_usd: 12.5 });
    await settings.update({ dailyModelCostLimitUsd: null });
    assert.deepEqual(mock.last.body, { daily_model_cost_limit_usd: null });
    assert.equal(mock.last.headers["idempotency-key"], undefined, "a PATCH is idempotent by itself");
  });

  it("refuses an empty update or a string of categories before sending", async () => {
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    await assert.rejects(client(mock).settings.update({}), InvalidArgumentError);
    await assert.rejects(client(mock).settings.update({ excludedCategories: "financial" as never }), InvalidArgumentError);
    assert.equal(mock.requests.length, 0);
  });

  it("hands back the server's validation details", async () => {
    const details = [{ field: "min_confidence", problem: "must be >= 0.85" }];
    const mock = new MockFetch().reply(apiError(422, "validation_error", "min_confidence must be >= 0.85", details));
    await assert.rejects(client(mock).settings.update({ minConfidence: 0.5 }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.message, "min_confidence must be >= 0.85");
      assert.deepEqual(e.details, details);
      assert.equal(e.details[0]?.field, "min_confidence");
      return true;
    });
    assert.equal(mock.requests.length, 1, "a 422 is never retried");
  });
});
