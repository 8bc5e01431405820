import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, it } from "node:test";

import { Aurra, ConfigurationError, DEFAULT_BASE_URL, VERSION } from "../../src/index.js";
import { MockFetch, WIRE_SETTINGS, json } from "./mock-fetch.js";

describe("new Aurra()", () => {
  const saved = { key: process.env["AURRA_API_KEY"], url: process.env["AURRA_BASE_URL"] };
  beforeEach(() => {
    delete process.env["AURRA_API_KEY"];
    delete process.env["AURRA_BASE_URL"];
  });
  afterEach(() => {
    for (const [name, value] of [
      ["AURRA_API_KEY", saved.key],
      ["AURRA_BASE_URL", saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("defaults to the hosted API, 30 s and 2 retries", () => {
    const client = new Aurra({ apiKey: "aurra_k" });
    assert.equal(DEFAULT_BASE_URL, "https://api.aurra.us");
    assert.equal(client.baseURL, "https://api.aurra.us");
    assert.equal(client.timeout, 30_000);
    assert.equal(client.maxRetries, 2);
  });

  it("falls back to AURRA_API_KEY and AURRA_BASE_URL", async () => {
    process.env["AURRA_API_KEY"] = "aurra_from_env";
    process.env["AURRA_BASE_URL"] = "http://127.0.0.1:3999/";
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    const client = new Aurra({ fetch: mock.fetch });
    await client.settings.get();
    assert.equal(mock.last.url.href, "http://127.0.0.1:3999/agent/settings");
    assert.equal(mock.last.headers["authorization"], "Bearer aurra_from_env");
  });

  it("prefers explicit options to the environment", async () => {
    process.env["AURRA_API_KEY"] = "aurra_from_env";
    process.env["AURRA_BASE_URL"] = "http://env.invalid";
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    await new Aurra({ apiKey: "aurra_given", baseURL: "http://127.0.0.1:1", fetch: mock.fetch }).settings.get();
    assert.equal(mock.last.url.origin, "http://127.0.0.1:1");
    assert.equal(mock.last.headers["authorization"], "Bearer aurra_given");
  });

  it("refuses to start without a key", () => {
    assert.throws(() => new Aurra(), (e: unknown) => e instanceof ConfigurationError && /AURRA_API_KEY/.test(e.message));
    assert.throws(() => new Aurra({ apiKey: "" }), ConfigurationError);
  });

  it("refuses an unusable base URL, timeout or maxRetries", () => {
    for (const baseURL of ["api.aurra.us", "ftp://api.aurra.us", "http://", "https://api.aurra.us/?x=1"]) {
      assert.throws(() => new Aurra({ apiKey: "k", baseURL }), ConfigurationError, baseURL);
    }
    assert.throws(() => new Aurra({ apiKey: "k", timeout: 0 }), ConfigurationError);
    assert.throws(() => new Aurra({ apiKey: "k", maxRetries: -1 }), ConfigurationError);
    assert.throws(() => new Aurra({ apiKey: "k", maxRetries: 1.5 }), ConfigurationError);
  });

  it("keeps a path prefix such as an API Gateway stage", async () => {
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    await new Aurra({ apiKey: "k", baseURL: "https://x.execute-api.us-east-1.amazonaws.com/prod/", fetch: mock.fetch }).settings.get();
    assert.equal(mock.last.url.pathname, "/prod/agent/settings");
  });

  it("sends its version, JSON headers and no key in what it prints", async () => {
    const mock = new MockFetch().reply(json(WIRE_SETTINGS));
    const client = new Aurra({ apiKey: "aurra_secret_value", fetch: mock.fetch });
    await client.settings.get();
    assert.equal(mock.last.headers["user-agent"], `aurra-typescript/${VERSION}`);
    assert.equal(mock.last.headers["accept"], "application/json");
    assert.equal(mock.last.headers["content-type"], undefined, "a GET sends no body");
    assert.doesNotMatch(inspect(client, { depth: 10, showHidden: true }), /aurra_secret_value/);
    assert.doesNotMatch(JSON.stringify(client), /aurra_secret_value/);
  });

  it("has the version of package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
    assert.equal(VERSION, pkg.version);
  });
});
