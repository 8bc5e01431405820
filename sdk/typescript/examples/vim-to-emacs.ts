// Vim, then Emacs: Aurra supersedes the old fact, and time travel still finds it.
// Run against a server with Level 2 on (`AURRA_LEVEL2_ENABLED=true make dev` in the Aurra repository).
import { Aurra } from "aurra";

const client = new Aurra();
await client.settings.update({ autoSupersedeDefault: true });

const vim = await client.memories.add({
  content: "User uses Vim",
  topic: "preferences",
  validFrom: "2026-04-01T00:00:00Z",
});
const emacs = await client.memories.add({
  content: "User has been using Emacs as their daily editor, having moved away from Vim",
  topic: "preferences",
  validFrom: new Date("2026-05-03T10:00:00Z"),
});
const { decision, supersession } = emacs.autoSupersede;
console.log(decision?.classifier, supersession?.supersededId === vim.memory.id);

for await (const memory of client.memories.list()) {
  console.log("now:", memory.content);
}
// Valid time: what was true on April 15?
for await (const memory of client.memories.list({ asOf: "2026-04-15T00:00:00Z" })) {
  console.log("April 15:", memory.content);
}
// Transaction time: what did we believe right after the Vim write?
const before = await client.memories.get(vim.memory.id, { knownAt: vim.memory.recordedAt });
console.log("known then:", before.content, before.status);

const { chain } = await client.memories.history(vim.memory.id);
console.log(chain.map((memory) => `${memory.status}: ${memory.content}`));

// Why it happened, and how to undo it.
const [event] = await client.audit.list({ memoryId: emacs.memory.id, type: "auto_supersede" }).toArray();
console.log(event?.type, event?.classifier, event?.confidence, event?.reason);
const { restored } = await client.audit.revert(event!.id);
console.log("restored:", restored.content, restored.status);
