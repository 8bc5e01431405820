// Runs every compiled *.test.js under build/test (or under the folders given) with node's test runner.
// Node 20 takes directories and Node 22 takes globs; listing the files works on both.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function testFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return testFiles(path);
      return name.endsWith(".test.js") ? [path] : [];
    });
}

const roots = process.argv.slice(2);
const files = (roots.length ? roots : ["build/test"]).flatMap(testFiles);
if (files.length === 0) {
  console.error("no test files found: run `npm run build:test` first");
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
