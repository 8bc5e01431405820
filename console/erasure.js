// Erasure: a confirmation that says what will go before it goes, then the receipt; the receipts
// of the tenant's erasures, and a lookup by id.

import { ApiError, api } from "./api.js";
import { $, clear, formatTime, h, shortId } from "./util.js";

// An export response holds at most 5000 records: counting reads at most this many of them.
const COUNT_PAGES = 20;
const EXPORT_LIMIT = 5000;

// What each count of a receipt is (docs/api.md, POST /agent/erasures).
export const COUNT_KINDS = [
  ["memories", "memories erased whole"],
  ["versions", "their recorded versions, each replaced by a content-free tombstone"],
  ["audit_events", "audit events about them made content-free (proposals aside)"],
  ["proposals", "proposals of the review queue about them made content-free"],
  ["idempotency_records", "stored responses of Idempotency-Key requests that held them, deleted"],
];

let ctx = null;
// The selector the dialog is open for, and what counting found.
const dialog = { selector: null, counted: null, seq: 0, expected: "" };
// The answer of the erasure just made, shown above its receipt.
let lastAnswer = null;

/** The selector in words, as text and elements (ids as code). */
export function describeSelector(selector) {
  if (!selector) return "";
  if (selector.memory_id) return ["memory ", h("code", {}, selector.memory_id), " and its whole lineage"];
  if (selector.user_id !== undefined) {
    return [`user "${selector.user_id}"`, selector.agent_id ? ` with agent "${selector.agent_id}"` : ", every agent"];
  }
  if (selector.conversation_id) return [`conversation "${selector.conversation_id}"`];
  if (selector.source_id) return [`source "${selector.source_id}"`];
  if (selector.tenant) return ["the whole tenant"];
  return [JSON.stringify(selector)];
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// ------------------------------------------------------------------ counting

/** The lineage of a memory, as an erasure of it selects it: its memories and their versions. */
async function countLineage(id) {
  const history = await api.history(id);
  const histories = await Promise.all(history.chain.map((m) => m.id === id ? history : api.history(m.id)));
  return {
    memories: history.chain.length,
    versions: histories.reduce((sum, each) => sum + each.versions.length, 0),
    complete: true,
  };
}

/**
 * A user's memories (of one agent, or of every agent) and their versions, read from the export:
 * the one read that returns every recorded version, expired and superseded ones included.
 */
async function countUser(userId, agentId) {
  const ids = new Set();
  let versions = 0;
  let cursor;
  for (let page = 0; page < COUNT_PAGES; page++) {
    const text = await api.exportPage({ user_id: userId, limit: EXPORT_LIMIT, cursor });
    let next = null;
    let versionsDone = false;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const record = JSON.parse(line);
      if (record.kind === "memory_version") {
        if (agentId && record.agent_id !== agentId) continue;
        ids.add(record.id);
        versions += 1;
      } else if (record.kind === "end") {
        next = record.next_cursor;
      } else {
        versionsDone = true; // every version comes before the first audit event
      }
    }
    if (versionsDone || !next) return { memories: ids.size, versions, complete: true };
    cursor = next;
  }
  return { memories: ids.size, versions, complete: false };
}

// ------------------------------------------------------------------ the dialog

function selectorNow() {
  if (dialog.selector.memory_id) return dialog.selector;
  const agent = $("#erase-agent").value.trim();
  return agent ? { user_id: dialog.selector.user_id, agent_id: agent } : { user_id: dialog.selector.user_id };
}

function confirmed() {
  return dialog.counted !== null && $("#erase-confirm").value.trim() === dialog.expected;
}

function updateButton() {
  $("#erase-go").disabled = !confirmed();
}

async function recount() {
  const seq = ++dialog.seq;
  const selector = selectorNow();
  const what = clear($("#erase-what"));
  dialog.counted = null;
  updateButton();
  what.append(h("p", {}, "Counting what this erasure selects…"));
  let counted;
  try {
    counted = selector.memory_id ? await countLineage(selector.memory_id)
      : await countUser(selector.user_id, selector.agent_id);
  } catch (error) {
    if (seq !== dialog.seq || ctx.handleAuth(error)) return;
    clear(what);
    ctx.showError($("#erase-error"), error, "Could not count what would be erased: ");
    return;
  }
  if (seq !== dialog.seq) return;
  dialog.counted = counted;
  clear($("#erase-error"));
  const atLeast = counted.complete ? "" : "at least ";
  const whose = describeSelector(selector);
  const lines = counted.memories === 0
    ? [h("p", {}, "Nothing of ", ...whose, " is stored now. Erasing records a receipt that there was nothing " +
      "to erase; a memory written later is not erased by it.")]
    : [
      h("p", { class: "erase-count" }, "This erases ", h("strong", {}, `${atLeast}${plural(counted.memories, "memory", "memories")}`),
        " (", h("strong", {}, `${atLeast}${plural(counted.versions, "recorded version", "recorded versions")}`),
        ") of ", ...whose, "."),
      h("p", {}, "Gone for good: their content, topic, metadata, embedding, source quote and URI, the reasons " +
        "of the audit events about them, and stored responses that held them. Each version leaves a " +
        "content-free tombstone (ids, times, scope); the audit trail keeps content-free events."),
    ];
  what.append(...lines, h("p", { class: "warning" }, h("strong", {}, "This cannot be undone.")));
  updateButton();
}

function openDialog(selector, title, expected, confirmLabel) {
  dialog.selector = selector;
  dialog.expected = expected;
  dialog.counted = null;
  $("#erase-title").textContent = title;
  $("#erase-agent-field").hidden = Boolean(selector.memory_id);
  $("#erase-agent").value = selector.agent_id ?? "";
  $("#erase-confirm-label").textContent = confirmLabel;
  const confirm = $("#erase-confirm");
  confirm.value = "";
  confirm.removeAttribute("aria-invalid");
  clear($("#erase-error"));
  $("#erase-cancel").disabled = false;
  $("#erase-dialog").showModal();
  confirm.focus();
  recount();
}

/** "Erase this memory": its whole lineage. */
export function eraseMemory(memory) {
  openDialog({ memory_id: memory.id }, "Erase this memory and its lineage",
    "erase", 'Type "erase" to confirm');
}

/** "Erase everything of this user", optionally of one agent only. */
export function eraseUser(userId, agentId) {
  openDialog({ user_id: userId, agent_id: agentId || undefined }, `Erase everything of user "${userId}"`,
    userId, `Type the user id "${userId}" to confirm`);
}

async function submitErasure(event) {
  event.preventDefault();
  const field = $("#erase-confirm");
  if (!confirmed()) {
    field.setAttribute("aria-invalid", "true");
    ctx.showError($("#erase-error"), new Error(dialog.counted === null
      ? "Wait until the count is shown." : `Type ${dialog.selector.memory_id ? '"erase"' : "the user id"} exactly to confirm.`));
    field.focus();
    return;
  }
  const go = $("#erase-go");
  go.disabled = true;
  $("#erase-cancel").disabled = true;
  let answer;
  try {
    answer = await api.erase(selectorNow());
  } catch (error) {
    $("#erase-cancel").disabled = false;
    updateButton();
    if (ctx.handleAuth(error)) {
      $("#erase-dialog").close();
      return;
    }
    ctx.showError($("#erase-error"), error, "Not erased: ");
    go.focus();
    return;
  }
  $("#erase-dialog").close();
  lastAnswer = answer;
  ctx.onErased();
  ctx.notice(answer.status === 201 ? `Erased: receipt ${answer.data.id}.`
    : answer.status === 202 ? `Erasing, still running: receipt ${answer.data.id}.`
      : `Already erased, nothing new matched: receipt ${answer.data.id}.`);
  location.hash = `#/erasures/${encodeURIComponent(answer.data.id)}`;
}

// ------------------------------------------------------------------ receipts

function showReceipt(receipt, answer) {
  const article = $("#receipt");
  article.hidden = false;
  $("#receipt-title").textContent = `Receipt ${receipt.id}`;
  $("#receipt-answer").textContent = receipt.status === "running"
    ? "Still running: a large erasure between its batches, with the counts so far. Erasing the same " +
      "selector again completes it (so does the hourly maintenance job)."
    : !answer ? ""
      : answer.status === 201 || answer.status === 202 ? "Erased just now. This receipt is kept for good."
        : "This selector was already erased and nothing new matched since: this is that erasure's receipt.";
  const facts = clear($("#receipt-facts"));
  const add = (term, ...value) => facts.append(h("dt", {}, term), h("dd", {}, ...value));
  add("Receipt id", h("code", {}, receipt.id));
  add("Selector", ...describeSelector(receipt.selector));
  add("Erased at", h("time", { datetime: receipt.created_at }, formatTime(receipt.created_at)));
  add("Status", h("span", { class: `badge ${receipt.status === "running" ? "open" : "erased"}` }, receipt.status ?? "completed"));
  const body = clear($("#receipt-counts tbody"));
  for (const [kind, meaning] of COUNT_KINDS) {
    body.append(h("tr", { dataset: { kind } },
      h("td", { dataset: { label: "Kind" } }, h("code", {}, kind)),
      h("td", { dataset: { label: "Erased" } }, String(receipt.counts?.[kind] ?? 0)),
      h("td", { dataset: { label: "What it is" } }, meaning)));
  }
}

const list = { seq: 0, cursor: null };

async function loadErasures(append) {
  const seq = ++list.seq;
  let page;
  try {
    page = await api.audit({ type: "erasure", limit: 20, cursor: append ? list.cursor : undefined });
  } catch (error) {
    if (seq !== list.seq || ctx.handleAuth(error)) return;
    ctx.showError($("#erasures-error"), error);
    return;
  }
  if (seq !== list.seq) return;
  list.cursor = page.next_cursor;
  const items = append ? $("#erasures-list") : clear($("#erasures-list"));
  for (const event of page.events) {
    const details = event.details ?? {};
    const counts = details.counts ?? {};
    const receiptId = details.erasure_id;
    items.append(h("li", { class: "event", dataset: { erasureId: receiptId ?? "" } },
      h("div", { class: "event-head" },
        h("span", { class: "badge type erasure" }, "erasure"),
        receiptId ? h("a", { href: `#/erasures/${encodeURIComponent(receiptId)}` }, `Receipt ${shortId(receiptId)}`) : null,
        h("time", { datetime: event.created_at }, formatTime(event.created_at))),
      h("p", { class: "event-what" }, ...describeSelector(details.selector), ": ",
        plural(counts.memories ?? 0, "memory", "memories"), ", ",
        plural(counts.versions ?? 0, "version", "versions"), ", ",
        plural(counts.audit_events ?? 0, "audit event", "audit events"), ".")));
  }
  if (!items.children.length) items.append(h("li", { class: "empty" }, "No erasures yet."));
  $("#erasures-more").hidden = !list.cursor;
}

/** The erasures view: the receipt `id` names (if any), and the tenant's erasures. */
export async function showErasures(id) {
  const region = $("#erasures-error");
  clear(region);
  list.cursor = null;
  loadErasures(false);
  const article = $("#receipt");
  if (!id) {
    article.hidden = true;
    lastAnswer = null;
    return;
  }
  $("#receipt-id").value = id;
  const answer = lastAnswer && lastAnswer.data.id === id ? lastAnswer : null;
  lastAnswer = null;
  if (answer) {
    showReceipt(answer.data, answer);
    $("#receipt-title").focus();
    return;
  }
  try {
    showReceipt(await api.erasure(id), null);
  } catch (error) {
    if (ctx.handleAuth(error)) return;
    article.hidden = true;
    ctx.showError(region, error instanceof ApiError && error.status === 404
      ? new Error(`No erasure of this tenant has the receipt id "${id}".`) : error);
  }
}

export function startErasures(context) {
  ctx = context;
  $("#erase-form").addEventListener("submit", submitErasure);
  $("#erase-cancel").addEventListener("click", () => $("#erase-dialog").close());
  $("#erase-confirm").addEventListener("input", () => {
    $("#erase-confirm").removeAttribute("aria-invalid");
    updateButton();
  });
  let timer = null;
  $("#erase-agent").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(recount, 300);
  });
  $("#erasures-more").addEventListener("click", () => loadErasures(true));
  $("#receipt-lookup").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = $("#receipt-id").value.trim();
    if (id) location.hash = `#/erasures/${encodeURIComponent(id)}`;
  });
}
