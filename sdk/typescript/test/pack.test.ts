/**
 * The package as npm publishes it: `npm pack`'s tarball holds only the build,
 * README and LICENSE, and installs into a fresh project where both
 * `import { Aurra } from "aurra"` and `require("aurra")` work, types included.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    for (const needed of ["README.md", "LICENSE", "dist/esm/index.js", "dist/esm/index.d.ts", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/cjs/package.json"]) {
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
});
