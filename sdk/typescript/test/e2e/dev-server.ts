/**
 * `aurra dev` started as a user would, in a child process: `--port 0`, its own
 * data directory, and the dev key it prints.
 *
 * The Python that runs it is `AURRA_PYTHON`, else the repository's `.venv`,
 * else `python3`. With `AURRA_DATABASE_URL` set (as the repository's pytest run
 * sets it) the server uses that database; else it starts an embedded
 * PostgreSQL in its data directory.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The repository root: this file is compiled to sdk/typescript/build/test/e2e/. */
export const REPO = fileURLToPath(new URL("../../../../../", import.meta.url));
/** The SDK's folder, sdk/typescript. */
export const SDK = fileURLToPath(new URL("../../../", import.meta.url));

export function python(): string {
  const given = process.env["AURRA_PYTHON"];
  if (given) return given;
  const venv = join(REPO, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

export interface DevServer {
  baseURL: string;
  devKey: string;
  /** Keys of new tenants, one each, made with `aurra keys create` in one Python process. */
  createKeys(tenants: string[]): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startDevServer(env: Record<string, string> = {}): Promise<DevServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "aurra-dev-"));
  const environment = { ...process.env, ...env };
  const child = spawn(python(), ["-m", "aurra_local.cli", "dev", "--port", "0", "--data-dir", dataDir], {
    cwd: REPO,
    env: environment,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: string[] = [];
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const started = new Promise<{ baseURL: string; devKey: string }>((resolve, reject) => {
    let devKey: string | null = null;
    const timer = setTimeout(() => reject(new Error(`aurra dev did not start in 90 s:\n${stderr.join("")}`)), 90_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const key = /dev API key: (\S+)/.exec(line);
      if (key) devKey = key[1]!;
      const listening = /listening on (http:\/\/\S+)/.exec(line);
      if (listening && devKey) {
        clearTimeout(timer);
        resolve({ baseURL: listening[1]!, devKey });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`aurra dev exited with ${code}:\n${stderr.join("")}`));
    });
  });

  let info: { baseURL: string; devKey: string };
  try {
    info = await started;
  } catch (error) {
    await stop(child, exited);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  return {
    ...info,
    async createKeys(tenants: string[]): Promise<string[]> {
      // `aurra keys create --tenant T` once per tenant, through the CLI's own entry point, in one
      // interpreter: starting Python for each key would cost more than the tests that use them.
      const script = [
        "import sys",
        "from aurra_local.cli import main",
        "data_dir, *tenants = sys.argv[1:]",
        "for tenant in tenants:",
        "    assert main(['keys', 'create', '--tenant', tenant, '--data-dir', data_dir]) == 0",
      ].join("\n");
      const { stdout } = await promisify(execFile)(python(), ["-c", script, dataDir, ...tenants], {
        cwd: REPO,
        env: environment,
      });
      // Each key is the line after its "created key ... shown once:" line.
      const lines = stdout.split("\n");
      const keys = lines.flatMap((line, i) => (line.startsWith("created key ") ? [lines[i + 1]!.trim()] : []));
      if (keys.length !== tenants.length) throw new Error(`aurra keys create printed:\n${stdout}`);
      return keys;
    },
    async stop(): Promise<void> {
      await stop(child, exited);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM, which `aurra dev` handles by stopping its embedded PostgreSQL too; SIGKILL after 20 s. */
async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  await exited;
  clearTimeout(timer);
}
