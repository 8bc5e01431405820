// The change stream (GET /agent/events): in commit order, oldest first, as the API and webhooks
// give it; "Load newer events" follows the cursor, so what committed since arrives at the bottom.

import { api } from "./api.js";
import { $, clear, formatTime, h } from "./util.js";

export const EVENT_TYPES = [
  "memory.created", "memory.superseded", "memory.reverted", "proposal.created", "proposal.resolved",
  "auto_supersede.completed", "budget.exhausted", "erasure.completed",
];
// Fields of `data` that name a memory: shown as links to it.
const MEMORY_FIELDS = new Set(["superseded_by", "supersedes", "was_superseded_by"]);
const PAGE = 50;

let ctx = null;
const stream = { seq: 0, cursor: null, shown: 0 };

function checkedTypes() {
  return [...document.querySelectorAll("#events-types input:checked")].map((input) => input.value);
}

function memoryLink(id, memory) {
  return h("a", { href: `#/memory/${encodeURIComponent(id)}` }, memory ? `"${memory.content}"` : h("code", {}, id));
}

function eventItem(event, memories) {
  const facts = [];
  const add = (term, ...value) => facts.push(h("dt", {}, term), h("dd", {}, ...value));
  if (event.user_id || event.agent_id) {
    add("User", event.user_id ?? "—");
    add("Agent", event.agent_id ?? "—");
  }
  for (const [name, value] of Object.entries(event.data ?? {})) {
    if (value === null || value === undefined) continue;
    if (MEMORY_FIELDS.has(name) && typeof value === "string") add(name, memoryLink(value, memories[value]));
    else add(name, h("code", {}, typeof value === "string" ? value : JSON.stringify(value)));
  }
  add("Event", h("code", {}, event.id));
  return h("li", { class: "event", dataset: { eventId: event.id, type: event.type } },
    h("div", { class: "event-head" },
      h("span", { class: "badge type" }, event.type),
      h("time", { datetime: event.created_at }, formatTime(event.created_at))),
    event.memory_id ? h("p", { class: "event-what" }, memoryLink(event.memory_id, memories[event.memory_id])) : null,
    h("dl", { class: "facts" }, facts));
}

async function loadEvents(append) {
  const seq = ++stream.seq;
  const types = checkedTypes();
  const params = { limit: PAGE, types: types.length ? types.join(",") : undefined, after: append ? stream.cursor : undefined };
  const region = $("#events-error");
  let page;
  let memories;
  try {
    page = await api.events(params);
    // The memories' content, where it can still be read (an erased one cannot): ids otherwise.
    const ids = new Set(page.events.flatMap((e) => [e.memory_id,
      ...[...MEMORY_FIELDS].map((name) => e.data?.[name])]).filter((id) => typeof id === "string"));
    memories = Object.fromEntries(await Promise.all([...ids].map(async (id) => [id, await ctx.memoryById(id)])));
  } catch (error) {
    if (seq !== stream.seq || ctx.handleAuth(error)) return;
    ctx.showError(region, error);
    return;
  }
  if (seq !== stream.seq) return;
  clear(region);
  stream.cursor = page.next_cursor;
  const list = append ? $("#events-list") : clear($("#events-list"));
  if (!append) stream.shown = 0;
  list.querySelector("li.empty")?.remove();
  for (const event of page.events) list.append(eventItem(event, memories));
  stream.shown += page.events.length;
  if (!stream.shown) list.append(h("li", { class: "empty" }, "No events yet."));
  $("#events-summary").textContent = append && !page.events.length
    ? `No newer events yet (${stream.shown} shown).`
    : `${stream.shown} event${stream.shown === 1 ? "" : "s"} shown, oldest first.`;
}

export function showEvents() {
  stream.cursor = null;
  loadEvents(false);
}

export function startEvents(context) {
  ctx = context;
  const box = $("#events-types");
  for (const type of EVENT_TYPES) {
    const id = `ev-${type.replace(/\W/g, "-")}`;
    box.append(h("span", { class: "field check" },
      h("input", { id, type: "checkbox", value: type }), h("label", { for: id }, h("code", {}, type))));
  }
  // A cursor belongs to its types: another set of types starts the walk again.
  $("#events-filters").addEventListener("change", showEvents);
  $("#events-filters").addEventListener("submit", (event) => event.preventDefault());
  $("#events-more").addEventListener("click", () => loadEvents(true));
}
