/**
 * `aurra/ai` end to end: the AI SDK's real tool loop (`generateText`), driven by a scripted local
 * model, calling Aurra's tools against `aurra dev` with Level 2 on. Uses the built package,
 * imported by its names, `aurra` and `aurra/ai`.
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { Aurra } from "aurra";
import { aurraTools } from "aurra/ai";

import { assistant } from "../../examples/ai-sdk.js";
import { ANSWER, run, scriptedModel } from "../scripted-model.js";
import { type DevServer, startDevServer } from "./dev-server.js";

const VIM = "User uses Vim as their editor";
const EMACS = "User has been using Emacs as their daily editor, having moved away from Vim";
const EDITOR = "which editor does the user use";
const ID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

let server: DevServer;
let keys: Promise<string[]>;

before(async () => {
  server = await startDevServer({ AURRA_LEVEL2_ENABLED: "true" });
  keys = server.createKeys(Array.from({ length: 5 }, () => `ai-${randomUUID().slice(0, 8)}`));
});

after(async () => {
  await server?.stop();
});

/** A fresh tenant: tests never see each other's memories. */
async function tenant(): Promise<{ client: Aurra; key: string }> {
  const key = (await keys).pop();
  if (!key) throw new Error("no tenant keys left: make more in before()");
  return { client: new Aurra({ apiKey: key, baseURL: server.baseURL }), key };
}

/** The one memory id a tool's answer names in `pattern`'s group. */
function idIn(text: string, pattern: RegExp): string {
  const match = pattern.exec(text);
  assert.ok(match?.[1], `${pattern} does not match: ${text}`);
  return match[1];
}

describe("aurra/ai in the AI SDK's tool loop, against aurra dev", () => {
  it("remembers Vim, then Emacs, which supersedes it; recalls Emacs now and Vim as of April 15", async () => {
    const { client } = await tenant();
    const tools = aurraTools({ client, userId: "alice", autoSupersede: true, topic: "preferences" });

    const { text, results } = await run(tools, [
      { tool: "remember", input: { content: VIM, validFrom: "2026-04-01" } },
      { tool: "remember", input: { content: EMACS, validFrom: "2026-05-03T10:00:00Z" } },
      ANSWER,
    ]);
    assert.equal(results.length, 2);
    const vimId = idIn(results[0]!, new RegExp(`^Remembered: ${VIM} \\(memory (${ID})\\)\\.$`));
    const emacsId = idIn(text, new RegExp(`^Remembered: ${EMACS} \\(memory (${ID})\\)\\. It replaced memory ${vimId}\\.$`));
    assert.equal(text, results[1], "the model answered with the last tool result");

    const now = await run(tools, [{ tool: "recall", input: { query: EDITOR } }, ANSWER]);
    assert.equal(now.text, `- ${EMACS} (valid from 2026-05-03; memory ${emacsId})`);

    const april = await run(tools, [{ tool: "recall", input: { query: EDITOR, asOf: "2026-04-15" } }, ANSWER]);
    assert.equal(april.text, `- ${VIM} (valid from 2026-04-01 to 2026-05-03; memory ${vimId})`);

    const history = await run(tools, [{ tool: "history", input: { memoryId: vimId } }, ANSWER]);
    assert.equal(
      history.text,
      `- ${VIM} (valid from 2026-04-01 to 2026-05-03, superseded; memory ${vimId})\n` +
        `- ${EMACS} (valid from 2026-05-03, current; memory ${emacsId})`,
    );

    // What the service holds agrees: written in alice's scope, on the topic given, Vim retired by Level 2.
    const stored = await client.memories.list({ userId: "alice" }).toArray();
    assert.deepEqual(stored.map((m) => [m.id, m.content, m.topic, m.userId]), [[emacsId, EMACS, "preferences", "alice"]]);
    const [event] = await client.audit.list({ memoryId: emacsId, type: "auto_supersede" }).toArray();
    assert.equal(event?.supersededId, vimId);
  });

  it("the model cannot reach another user's memory, even by its id", async () => {
    const { client } = await tenant();
    const bobs = await client.memories.add({ content: "User banks with Monzo", topic: "finance", userId: "bob" });
    const bobsId = bobs.memory.id;
    const alice = aurraTools({ client, userId: "alice" });

    const { results } = await run(alice, [
      { tool: "history", input: { memoryId: bobsId } },
      { tool: "forget", input: { memoryId: bobsId } },
      { tool: "recall", input: { query: "Which bank does the user use? Monzo" } },
      { tool: "history", input: { memoryId: "../settings" } },
      // The model names bob: the tools take no user, so the write is alice's all the same.
      { tool: "remember", input: { content: "User banks with Revolut", topic: "finance", userId: "bob" } },
      ANSWER,
    ]);
    assert.equal(results[0], `No memory ${bobsId} for this user.`);
    assert.equal(results[1], `No memory ${bobsId} for this user.`);
    assert.equal(results[2], "Nothing remembered about that.");
    assert.equal(results[3], "No memory ../settings for this user.");
    assert.match(results[4]!, /^Remembered: User banks with Revolut/);

    // Bob's memory is untouched and still his; alice has only what her tools wrote.
    const bob = await client.memories.list({ userId: "bob" }).toArray();
    assert.deepEqual(bob.map((m) => [m.id, m.content, m.status]), [[bobsId, "User banks with Monzo", "current"]]);
    const aliceNow = await client.memories.list({ userId: "alice" }).toArray();
    assert.deepEqual(aliceNow.map((m) => m.content), ["User banks with Revolut"]);

    // Bob's own tools do reach it, so the refusals above are about the user, not the id.
    const bobTools = aurraTools({ client, userId: "bob", forget: false });
    const own = await run(bobTools, [{ tool: "history", input: { memoryId: bobsId } }, ANSWER]);
    assert.equal(own.text, `- User banks with Monzo (valid from ${bobs.memory.validFrom.slice(0, 10)}, current; memory ${bobsId})`);

    // In another tenant, even a user called bob cannot reach it.
    const other = aurraTools({ client: (await tenant()).client, userId: "bob" });
    const across = await run(other, [{ tool: "forget", input: { memoryId: bobsId } }, ANSWER]);
    assert.equal(across.text, `No memory ${bobsId} for this user.`);
    assert.equal((await client.memories.get(bobsId)).content, "User banks with Monzo");
  });

  it("the README's example: an assistant remembers a switch and recalls it, in the user's scope", async () => {
    const { client } = await tenant();
    const model = scriptedModel([
      { tool: "remember", input: { content: VIM, validFrom: "2026-04-01" } },
      ANSWER,
      { tool: "remember", input: { content: EMACS, validFrom: "2026-05-03" } },
      { tool: "recall", input: { query: EDITOR } },
      ANSWER,
    ]);
    const chat = assistant(model, client, "dave");

    assert.match(await chat("I use Vim, since April 1."), new RegExp(`^Remembered: ${VIM} \\(memory ${ID}\\)\\.$`));
    const answer = await chat("I switched to Emacs on May 3. Which editor do I use?");
    assert.match(answer, new RegExp(`^- ${EMACS} \\(valid from 2026-05-03; memory ${ID}\\)$`));
    const [system] = model.doGenerateCalls[0]!.prompt;
    assert.equal(system?.role, "system");
    assert.match(String(system?.content), /long-term memory/);
    const dave = await client.memories.list({ userId: "dave", includeSuperseded: true }).toArray();
    assert.deepEqual(dave.map((m) => [m.content, m.status]).sort(), [[EMACS, "current"], [VIM, "superseded"]]);
  });

  it("forget erases the user's memory and its whole history", async (t) => {
    const { client, key } = await tenant();
    if (!(await hasErasures(key))) {
      return t.skip("this aurra dev answers 404 to POST /agent/erasures (no erasures yet): the forget tool cannot erase");
    }
    const tools = aurraTools({ client, userId: "carol", autoSupersede: true, topic: "preferences" });
    const { results } = await run(tools, [
      { tool: "remember", input: { content: VIM, validFrom: "2026-04-01" } },
      { tool: "remember", input: { content: EMACS, validFrom: "2026-05-03" } },
      ANSWER,
    ]);
    const emacsId = idIn(results[1]!, new RegExp(`^Remembered: ${EMACS} \\(memory (${ID})\\)\\. It replaced`));

    const { text } = await run(tools, [{ tool: "forget", input: { memoryId: emacsId } }, ANSWER]);
    const receiptId = idIn(text, new RegExp(`^Erased memory ${emacsId} and its history \\(receipt (${ID})\\)\\.$`));
    const receipt = await client.erasures.get(receiptId);
    assert.deepEqual(receipt.selector, { memory_id: emacsId }); // as the server wrote it
    assert.equal(receipt.counts.memories, 2, "the lineage: Emacs and the Vim it replaced");

    assert.deepEqual(await client.memories.list({ userId: "carol", includeSuperseded: true }).toArray(), []);
    const april = await run(tools, [{ tool: "recall", input: { query: EDITOR, asOf: "2026-04-15" } }, ANSWER]);
    assert.equal(april.text, "Nothing remembered about that as of 2026-04-15.");
    const again = await run(tools, [{ tool: "history", input: { memoryId: emacsId } }, ANSWER]);
    assert.equal(again.text, `No memory ${emacsId} for this user.`);
  });
});

/**
 * Whether the server has erasures: an empty selector is a 422 where the route exists and a 404
 * where it does not yet. The forget test runs, and must pass, on every server that has it.
 */
async function hasErasures(key: string): Promise<boolean> {
  const response = await fetch(`${server.baseURL}/agent/erasures`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: "{}",
  });
  if (response.status === 404) return false;
  assert.equal(response.status, 422, `POST /agent/erasures {} answered ${response.status}: ${await response.text()}`);
  return true;
}
