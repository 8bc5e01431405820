/**
 * The package as npm publishes it: `npm pack`'s tarball holds only the build,
 * README and LICENSE, and installs into a fresh project where both
 * `import { Aurra } from "aurra"` and `require("aurra")` work, types included,
 * without the optional peers `ai` and `zod`; with them installed, `aurra/ai` works too.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SDK = fileURLToPath(new URL("../../", import.meta.url));
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

let work: string;
let project: string;
let files: string[];

before(async () => {
  work = mkdtempSync(join(tmpdir(), "aurra-pack-"));
  const { stdout } = await run(NPM, ["pack", "--json", "--pack-destination", work], { cwd: SDK });
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  files = packed.files.map((f) => f.path).sort();
  project = join(work, "project");
  await run("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
  await run(NPM, ["install", "--no-audit", "--no-fund", "--offline", join(work, packed.filename)], { cwd: project });
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A consumer's script: a client with a stand-in fetch, one call, and an error class. */
const SCRIPT = (load: string) => `
${load}
const settings = {auto_supersede_default: false, excluded_categories: ["health_medical"], min_confidence: 0.85,
                  classifier_model: "claude-haiku-4-5-20251001", proposal_min_confidence: 0.5, daily_model_calls_limit: null};
const client = new Aurra({ apiKey: "aurra_k", fetch: async (url) => new Response(JSON.stringify(settings), { status: url.endsWith("/agent/settings") ? 200 : 404 }) });
client.settings.get().then((s) => {
  console.log(JSON.stringify({ base: client.baseURL, minConfidence: s.minConfidence, notFound: new NotFoundError("x", { status: 404 }) instanceof AurraError }));
});
`;

describe("npm pack", () => {
  it("packs only the build, README, LICENSE and package.json", () => {
    const stray = files.filter((f) => !/^dist\/(esm|cjs)\/.+\.(js|d\.ts|json)$/.test(f) && !["README.md", "LICENSE", "package.json"].includes(f));
    assert.deepEqual(stray, []);
    for (const needed of [
      "README.md",
      "LICENSE",
      "dist/esm/index.js",
      "dist/esm/index.d.ts",
      "dist/cjs/index.js",
      "dist/cjs/index.d.ts",
      "dist/cjs/package.json",
      "dist/esm/ai.js",
      "dist/esm/ai.d.ts",
      "dist/cjs/ai.js",
      "dist/cjs/ai.d.ts",
      "dist/esm/webhooks.js",
      "dist/esm/webhooks.d.ts",
      "dist/cjs/webhooks.js",
      "dist/cjs/webhooks.d.ts",
    ]) {
      assert.ok(files.includes(needed), `${needed} is missing from ${files.join(", ")}`);
    }
  });

  it("import { Aurra } from 'aurra' works in a fresh project", async () => {
    writeFileSync(join(project, "esm.mjs"), SCRIPT(`import { Aurra, AurraError, NotFoundError } from "aurra";`));
    const { stdout } = await run(process.execPath, ["esm.mjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), { base: "https://api.aurra.us", minConfidence: 0.85, notFound: true });
  });

  it("require('aurra') works in a fresh project", async () => {
    writeFileSync(join(project, "cjs.cjs"), SCRIPT(`const { Aurra, AurraError, NotFoundError } = require("aurra");`));
    const { stdout } = await run(process.execPath, ["cjs.cjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), { base: "https://api.aurra.us", minConfidence: 0.85, notFound: true });
  });

  it("its types work for an ES module and a CommonJS consumer", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "ES2022", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true, skipLibCheck: false },
        files: ["consumer.mts", "consumer.cts"],
      }),
    );
    const body = `
const client = new Aurra({ apiKey: "aurra_k", maxRetries: 1 });
async function main(): Promise<Memory[]> {
  const result = await client.memories.add({ content: "User uses Vim", userId: "alice", autoSupersede: true });
  const skipped: string | null = result.autoSupersede.skippedReason;
  void skipped;
  return client.memories.list({ asOf: new Date() }).toArray();
}
void main;
`;
    writeFileSync(join(project, "consumer.mts"), `import { Aurra, type Memory } from "aurra";\n${body}`);
    writeFileSync(join(project, "consumer.cts"), `import aurra = require("aurra");\nconst { Aurra } = aurra;\ntype Memory = aurra.Memory;\n${body}`);
    const tsc = join(SDK, "node_modules", ".bin", "tsc");
    await run(tsc, ["-p", "tsconfig.json"], { cwd: project }).catch((error: { stdout?: string }) => {
      assert.fail(`the packed types do not compile for a consumer:\n${error.stdout}`);
    });
    // And a type error is caught, so the check above can fail.
    writeFileSync(join(project, "consumer.mts"), `import { Aurra } from "aurra";\nnew Aurra({ apiKey: 42 });\n`);
    await assert.rejects(run(tsc, ["-p", "tsconfig.json"], { cwd: project }));
  });

  it("the main entry loads nothing but its own files: no ai, no zod, no dependency at all", () => {
    assert.equal(existsSync(join(project, "node_modules", "ai")), false, "the optional peer ai was installed");
    assert.equal(existsSync(join(project, "node_modules", "zod")), false, "the optional peer zod was installed");
    const installed = join(project, "node_modules", "aurra");
    for (const entry of ["dist/esm/index.js", "dist/cjs/index.js", "dist/esm/index.d.ts", "dist/cjs/index.d.ts"]) {
      const external = [...moduleGraph(join(installed, entry))].filter((specifier) => !specifier.startsWith("."));
      assert.deepEqual(external, [], `${entry} loads ${external.join(", ")}`);
    }
    // And the check can fail: the ai entry's graph does load ai and zod.
    assert.deepEqual([...moduleGraph(join(installed, "dist/esm/ai.js"))].filter((s) => !s.startsWith(".")).sort(), ["ai", "zod/v4"]);
  });
});

describe("aurra/webhooks", () => {
  // A delivery signed as Aurra signs it (the Standard Webhooks test vector's secret), checked at its own time.
  const WEBHOOK_SCRIPT = (load: string) => `
${load}
const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = JSON.stringify({ id: "ev1", type: "memory.superseded", created_at: "2026-05-03T10:00:00Z", user_id: "alice",
                              agent_id: null, memory_id: "m1", data: { superseded_by: "m2", event_id: "a1", by: "auto" } });
const headers = { "webhook-id": "ev1", "webhook-timestamp": "1780000000", "webhook-signature": signWebhook(secret, "ev1", 1780000000, body) };
const event = verifyWebhook(Buffer.from(body), headers, secret, { now: new Date(1780000000 * 1000) });
let refused = false;
try { verifyWebhook(body.replace("m2", "m3"), headers, secret, { now: new Date(1780000000 * 1000) }); } catch (e) { refused = e instanceof WebhookVerificationError && e instanceof AurraError; }
console.log(JSON.stringify({ supersededBy: event.data.supersededBy, refused }));
`;
  const EXPECTED = { supersededBy: "m2", refused: true };

  it("import { verifyWebhook } from 'aurra/webhooks' works, and its error is an AurraError", async () => {
    writeFileSync(
      join(project, "hook.mjs"),
      WEBHOOK_SCRIPT(`import { AurraError } from "aurra";\nimport { signWebhook, verifyWebhook, WebhookVerificationError } from "aurra/webhooks";`),
    );
    const { stdout } = await run(process.execPath, ["hook.mjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), EXPECTED);
  });

  it("require('aurra/webhooks') works", async () => {
    writeFileSync(
      join(project, "hook.cjs"),
      WEBHOOK_SCRIPT(`const { AurraError } = require("aurra");\nconst { signWebhook, verifyWebhook, WebhookVerificationError } = require("aurra/webhooks");`),
    );
    const { stdout } = await run(process.execPath, ["hook.cjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), EXPECTED);
  });

  it("its types compile for a consumer without Node's declarations, and it loads only node:crypto", async () => {
    writeFileSync(
      join(project, "tsconfig.webhooks.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "ES2022", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true, skipLibCheck: false },
        files: ["hook.mts"],
      }),
    );
    const body = `
export function handle(body: string, headers: Headers): string | null {
  const event = verifyWebhook(body, headers, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  return event.type === "memory.superseded" ? event.data.supersededBy : null;
}
`;
    writeFileSync(join(project, "hook.mts"), `import { verifyWebhook } from "aurra/webhooks";\n${body}`);
    const tsc = join(SDK, "node_modules", ".bin", "tsc");
    await run(tsc, ["-p", "tsconfig.webhooks.json"], { cwd: project }).catch((error: { stdout?: string }) => {
      assert.fail(`aurra/webhooks' packed types do not compile for a consumer:\n${error.stdout}`);
    });
    const installed = join(project, "node_modules", "aurra");
    for (const entry of ["dist/esm/webhooks.js", "dist/cjs/webhooks.js"]) {
      assert.deepEqual([...moduleGraph(join(installed, entry))].filter((s) => !s.startsWith(".")), ["node:crypto"]);
    }
  });
});

describe("aurra/ai, with the optional peers ai and zod installed", () => {
  before(async () => {
    // The versions this package is tested with, as `npm ci` installed them for the SDK, linked
    // into the consumer: no registry and no npm cache is needed, so a fresh machine runs this too.
    for (const name of ["ai", "zod"]) {
      symlinkSync(join(SDK, "node_modules", name), join(project, "node_modules", name), "dir");
    }
  });

  /** A consumer's script: the tools over a client with a stand-in fetch, and one tool call. */
  const TOOLS_SCRIPT = (load: string) => `
${load}
const memory = {id: "m1", content: "User uses Vim", topic: "preferences", metadata: {}, valid_from: "2026-04-01T00:00:00Z",
                valid_to: null, superseded_by: null, supersedes: null, recorded_at: "2026-04-01T00:00:00Z", status: "current",
                user_id: "alice", agent_id: null, superseded_event_id: null};
const fetch = async (url) => new Response(JSON.stringify({ memories: [memory], next_cursor: null }), { status: new URL(url).searchParams.get("user_id") === "alice" ? 200 : 400 });
const tools = aurraTools({ client: new Aurra({ apiKey: "aurra_k", baseURL: "http://aurra.test", fetch }), userId: "alice" });
Promise.resolve(tools.recall.execute({ query: "editor" }, { toolCallId: "c1", messages: [], context: {} })).then((answer) => {
  console.log(JSON.stringify({ tools: Object.keys(tools), answer }));
});
`;
  const EXPECTED = { tools: ["remember", "recall", "history", "forget"], answer: "- User uses Vim (valid from 2026-04-01; memory m1)" };

  it("import { aurraTools } from 'aurra/ai' works", async () => {
    writeFileSync(join(project, "tools.mjs"), TOOLS_SCRIPT(`import { Aurra } from "aurra";\nimport { aurraTools } from "aurra/ai";`));
    const { stdout } = await run(process.execPath, ["tools.mjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), EXPECTED);
  });

  it("require('aurra/ai') works", async () => {
    writeFileSync(join(project, "tools.cjs"), TOOLS_SCRIPT(`const { Aurra } = require("aurra");\nconst { aurraTools } = require("aurra/ai");`));
    const { stdout } = await run(process.execPath, ["tools.cjs"], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), EXPECTED);
  });

  it("its types fit generateText for an ES module and a CommonJS consumer", async () => {
    // skipLibCheck: the declarations `ai` publishes do not pass a strict library check by themselves.
    writeFileSync(
      join(project, "tsconfig.ai.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "ES2022", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true, skipLibCheck: true },
        files: ["agent.mts", "agent.cts"],
      }),
    );
    const body = `
async function main(model: LanguageModel): Promise<string> {
  const tools = aurraTools({ client: new Aurra({ apiKey: "aurra_k" }), userId: "alice", autoSupersede: true });
  const result = await generateText({ model, tools, stopWhen: isStepCount(5), prompt: "I switched to Emacs" });
  const answer: string = await tools.recall.execute({ query: "editor", asOf: "2026-04-15" }, { toolCallId: "c1", messages: [], context: {} });
  const readOnly = aurraTools({ client: new Aurra({ apiKey: "aurra_k" }), userId: "alice", forget: false });
  // @ts-expect-error forget: false leaves the forget tool out
  void readOnly.forget;
  return result.text + answer;
}
void main;
`;
    writeFileSync(join(project, "agent.mts"), `import { generateText, isStepCount, type LanguageModel } from "ai";\nimport { Aurra } from "aurra";\nimport { aurraTools } from "aurra/ai";\n${body}`);
    writeFileSync(
      join(project, "agent.cts"),
      `import ai = require("ai");\nimport aurra = require("aurra");\nimport aurraAi = require("aurra/ai");\nconst { generateText, isStepCount } = ai;\nconst { Aurra } = aurra;\nconst { aurraTools } = aurraAi;\ntype LanguageModel = ai.LanguageModel;\n${body}`,
    );
    const tsc = join(SDK, "node_modules", ".bin", "tsc");
    await run(tsc, ["-p", "tsconfig.ai.json"], { cwd: project }).catch((error: { stdout?: string }) => {
      assert.fail(`aurra/ai's packed types do not compile for a consumer:\n${error.stdout}`);
    });
    // And a type error is caught: the tools take no user from the model.
    writeFileSync(join(project, "agent.mts"), `import { Aurra } from "aurra";\nimport { aurraTools } from "aurra/ai";\nconst tools = aurraTools({ client: new Aurra({ apiKey: "k" }), userId: "alice" });\nvoid tools.remember.execute({ content: "x", userId: "bob" }, { toolCallId: "c", messages: [], context: {} });\n`);
    await assert.rejects(run(tsc, ["-p", "tsconfig.ai.json"], { cwd: project }), (error: { stdout?: string }) => {
      assert.match(error.stdout ?? "", /^agent\.mts[\s\S]*'userId' does not exist in type 'RememberInput'/);
      return true;
    });
  });
});

/** Every module specifier a built file loads, following the relative ones through the package. */
function moduleGraph(entry: string, seen = new Set<string>(), specifiers = new Set<string>()): Set<string> {
  if (seen.has(entry)) return specifiers;
  seen.add(entry);
  // Without comments: the docs in them show imports that the code does not make.
  const source = readFileSync(entry, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  for (const match of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)) {
    const specifier = match[1]!;
    specifiers.add(specifier);
    if (!specifier.startsWith(".")) continue;
    const next = join(dirname(entry), specifier);
    const declaration = entry.endsWith(".d.ts");
    const file = declaration ? next.replace(/\.js$/, ".d.ts") : next;
    if (existsSync(file)) moduleGraph(file, seen, specifiers);
  }
  return specifiers;
}
