// The Aurra console: sign in with a key, browse memories on both time axes, read a memory's
// timeline and provenance, review the audit feed (revert, approve, dismiss), follow the change
// stream and the pending Level 2 decisions, erase with a receipt, and edit the key's settings.

import { ApiError, api, forgetKey, storeKey, storedKey } from "./api.js";
import { eraseMemory, eraseUser, showErasures, startErasures } from "./erasure.js";
import { pendingFor, showJobs, startJobs, stopJobs } from "./jobs.js";
import { showEvents, startEvents } from "./stream.js";
import { drawTimeline, fitText } from "./timeline.js";
import {
  $, DAY_MS, clear, debounce, formatTime, formatUtcInput, h, parseUtcInput, percent,
  shortId, startOfUtcDay,
} from "./util.js";

const VIEWS = ["signin", "memories", "memory", "audit", "events", "jobs", "erasures", "settings"];
// Events whose supersession a revert undoes.
const SUPERSESSIONS = new Set(["auto_supersede", "manual_supersede", "proposal_approved"]);

// ------------------------------------------------------------------ messages

function describe(error) {
  return error instanceof ApiError ? error.describe() : error.message;
}

/** Show an error of the API in a view's alert region, with the envelope's details. */
function showError(region, error, prefix = "") {
  clear(region);
  if (!error) return;
  region.append(h("p", {}, prefix + describe(error)));
  if (error instanceof ApiError && error.details.length) {
    region.append(h("ul", {}, error.details.map((d) =>
      h("li", {}, d.field ? `${d.field}: ${d.problem ?? JSON.stringify(d)}` : JSON.stringify(d)))));
  }
}

let noticeTimer = null;
function notice(text) {
  const region = $("#notice");
  region.textContent = text;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { region.textContent = ""; }, 8000);
}

/** A refused key while signed in: back to the sign-in form, saying why. */
function handleAuth(error) {
  if (error instanceof ApiError && error.status === 401 && storedKey()) {
    forgetKey();
    signedOut(`Your API key was refused: ${describe(error)} Sign in again.`);
    return true;
  }
  return false;
}

// ------------------------------------------------------------------ time controls

/**
 * One time axis control: a day slider for scrubbing, a precise UTC input, and "now". The input is
 * text in UTC (YYYY-MM-DD HH:MM:SS), shown and read the same whatever the browser's time zone
 * and locale: a date picker would show the browser's own format, and a UTC label on it lies.
 */
class Clock {
  constructor(name, onChange) {
    this.name = name;
    this.range = $(`#${name}-range`);
    this.input = $(`#${name}-input`);
    this.output = $(`#${name}-out`);
    this.error = $(`#${name}-error`);
    this.value = null; // null is "now"
    this.onChange = onChange;
    this.range.addEventListener("input", () => {
      const v = Number(this.range.value);
      this.set(v >= Number(this.range.max) ? null : clocks.start + v * DAY_MS, "range");
    });
    this.input.addEventListener("input", () => this.typed(false));
    this.input.addEventListener("change", () => this.typed(true));
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") this.typed(true);
    });
    $(`#${name}-now`).addEventListener("click", () => this.set(null, "button"));
    this.render();
  }

  /** The text input: applied as soon as it reads as a whole time; called wrong once committed. */
  typed(committed) {
    const text = this.input.value.trim();
    const value = text === "" ? null : parseUtcInput(text);
    if (text !== "" && value === null) {
      if (committed) {
        this.input.setAttribute("aria-invalid", "true");
        this.error.textContent = `"${text}" is not a time in UTC: write YYYY-MM-DD HH:MM:SS, ` +
          "e.g. 2026-04-15 00:00:00, or leave it empty for now.";
      }
      return;
    }
    this.input.removeAttribute("aria-invalid");
    this.error.textContent = "";
    this.set(value, committed ? "commit" : "input");
  }

  iso() {
    return this.value === null ? undefined : new Date(this.value).toISOString().replace(".000Z", "Z");
  }

  set(value, source) {
    if (value === this.value) {
      if (source === "commit") this.render(source); // shown again in its one format
      return;
    }
    this.value = value;
    this.render(source);
    this.onChange();
  }

  render(source) {
    const text = this.value === null ? "now" : formatTime(new Date(this.value).toISOString());
    this.output.value = text;
    this.output.textContent = text;
    const max = Math.round((startOfUtcDay(Date.now()) - clocks.start) / DAY_MS) + 1;
    this.range.max = String(max);
    if (source !== "range") {
      this.range.value = String(this.value === null ? max
        : Math.max(0, Math.min(max - 1, Math.round((this.value - clocks.start) / DAY_MS))));
    }
    this.range.setAttribute("aria-valuetext", text);
    if (source !== "input") {
      // The text shows the value in its one format again: whatever was wrong in it is gone.
      this.input.value = formatUtcInput(this.value);
      this.input.removeAttribute("aria-invalid");
      this.error.textContent = "";
    }
  }
}

const clocks = {
  // The sliders' first day: a year back, or earlier once older facts are seen.
  start: startOfUtcDay(Date.now()) - 365 * DAY_MS,
  widen(times) {
    const earliest = Math.min(...times.map((t) => Date.parse(t)).filter((t) => !Number.isNaN(t)));
    const day = startOfUtcDay(earliest) - 7 * DAY_MS;
    if (day < this.start) {
      this.start = day;
      this.as_of.render();
      this.known_at.render();
    }
  },
};

function timeChanged() {
  const route = currentRoute();
  if (route.view === "memories") reloadMemories();
  if (route.view === "memory") loadMemory(route.id);
}

// ------------------------------------------------------------------ routing

function currentRoute() {
  const [, view = "memories", id] = location.hash.replace(/^#/, "").split("/");
  if (view === "memory" && id) return { view, id: decodeURIComponent(id) };
  if (view === "erasures") return { view, id: id ? decodeURIComponent(id) : undefined };
  return { view: ["audit", "events", "jobs", "settings"].includes(view) ? view : "memories" };
}

function show(view, focus) {
  for (const name of VIEWS) $(`#view-${name}`).hidden = name !== view;
  $("#clocks").hidden = !(view === "memories" || view === "memory");
  for (const link of document.querySelectorAll("#nav a")) {
    const active = link.dataset.section === view || (view === "memory" && link.dataset.section === "memories");
    if (active) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (focus) $(`#view-${view} h2`).focus();
}

function route(focus = true) {
  if (!storedKey()) {
    signedOut();
    return;
  }
  $("#nav").hidden = false;
  $("#sign-out").hidden = false;
  const target = currentRoute();
  show(target.view, focus);
  if (target.view === "memories") reloadMemories();
  if (target.view === "memory") loadMemory(target.id);
  if (target.view === "audit") reloadAudit();
  if (target.view === "events") showEvents();
  if (target.view === "jobs") showJobs();
  else stopJobs();
  if (target.view === "erasures") showErasures(target.id);
  if (target.view === "settings") loadSettings();
}

// ------------------------------------------------------------------ sign in

function signedOut(message) {
  stopJobs();
  $("#nav").hidden = true;
  $("#sign-out").hidden = true;
  show("signin", false);
  showError($("#signin-error"), message ? new Error(message) : null);
  $("#api-key").focus();
}

async function signIn(event) {
  event.preventDefault();
  const field = $("#api-key");
  const key = field.value.trim();
  const region = $("#signin-error");
  if (!key) {
    showError(region, new Error("Paste an API key first."));
    field.setAttribute("aria-invalid", "true");
    field.focus();
    return;
  }
  const button = $("#signin-form button");
  button.disabled = true;
  try {
    await api.settings(key);
  } catch (error) {
    field.setAttribute("aria-invalid", "true");
    if (error instanceof ApiError && error.status === 401) {
      showError(region, new Error(`That API key was refused: ${describe(error)} ` +
        "Check that you pasted the whole key that `aurra dev` printed, or create one with `aurra keys create`."));
    } else {
      showError(region, error, "Could not sign in: ");
    }
    field.focus();
    return;
  } finally {
    button.disabled = false;
  }
  field.value = "";
  field.removeAttribute("aria-invalid");
  clear(region);
  storeKey(key);
  notice("Signed in.");
  route(true);
}

// ------------------------------------------------------------------ memories

const memories = { seq: 0, cursor: null };

function memoryFilters() {
  const form = $("#memory-filters");
  return {
    q: form.q.value.trim(),
    user_id: form.user_id.value.trim(),
    agent_id: form.agent_id.value.trim(),
    topic: form.topic.value.trim(),
    conversation_id: form.conversation_id.value.trim(),
    source_id: form.source_id.value.trim(),
    include_superseded: form.include_superseded.checked ? "true" : undefined,
    as_of: clocks.as_of.iso(),
    known_at: clocks.known_at.iso(),
  };
}

function reloadMemories() {
  memories.cursor = null;
  const user = $("#memory-filters").user_id.value.trim();
  $("#user-actions").hidden = !user;
  $("#erase-user").textContent = `Erase everything of user "${user}"…`;
  memories.applied = filterKey($("#memory-filters"));
  loadMemories(false);
}

/** The form's filters as a string: a change that leaves it the same sends no new query. */
function filterKey(form) {
  return JSON.stringify([...form.elements].filter((el) => el.name)
    .map((el) => [el.name, el.type === "checkbox" ? el.checked : el.value.trim()]));
}

/**
 * Filters apply as they are typed (debounced), at once on Enter, and on a change (a select, a
 * checkbox, a field left); each distinct set of filters is queried once.
 */
function liveFilters(form, state, reload) {
  const apply = (force) => {
    if (force === true || filterKey(form) !== state.applied) reload();
  };
  const soon = debounce(apply, 250);
  form.addEventListener("input", () => soon());
  form.addEventListener("change", () => apply());
  form.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
      event.preventDefault();
      apply(true);
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    apply(true);
  });
}

/** A table cell that names its column, for the narrow layout where rows become cards. */
function cell(column, ...children) {
  return h("td", { dataset: { label: column } }, ...children);
}

function statusBadge(status) {
  return h("span", { class: `badge ${status}` }, status);
}

/** The end of a memory's validity: "still true", its expiry while ahead, or when it ended. */
function validTo(memory) {
  if (!memory.valid_to) return "still true";
  const ahead = Date.parse(memory.valid_to) > Date.now() && !memory.superseded_by;
  return ahead ? `expires ${formatTime(memory.valid_to)}` : formatTime(memory.valid_to);
}

/** A link for a source's URI only when it is http(s): anything else (javascript:, data:) is text. */
function sourceUri(uri) {
  let url = null;
  try {
    url = new URL(uri);
  } catch {
    url = null;
  }
  if (url && (url.protocol === "https:" || url.protocol === "http:")) {
    return h("a", { href: url.href, rel: "noopener noreferrer", target: "_blank" }, uri);
  }
  return h("code", {}, uri);
}

/** The rows of a memory's provenance (docs/api.md, Provenance: source). */
function sourceRows(source) {
  if (!source) return [["Source", "none: the write named no source"]];
  const rows = [["Type", source.type], ["Source id", source.id ? h("code", {}, source.id) : "—"]];
  if (source.conversation_id) {
    rows.push(["Conversation", h("code", {}, source.conversation_id), " ", h("button", {
      type: "button", class: "quiet small", onclick: () => {
        const form = $("#memory-filters");
        form.reset();
        form.conversation_id.value = source.conversation_id;
        location.hash = "#/memories";
      },
    }, "List this conversation's memories")]);
  }
  if (Array.isArray(source.message_indexes) && source.message_indexes.length) {
    rows.push(["Messages", source.message_indexes.join(", ")]);
  }
  if (source.quote !== null && source.quote !== undefined) rows.push(["Quote", h("blockquote", { class: "quote" }, source.quote)]);
  if (source.uri) rows.push(["URI", sourceUri(source.uri)]);
  return rows;
}

async function loadMemories(append) {
  const seq = ++memories.seq;
  const params = { ...memoryFilters(), limit: 25, cursor: append ? memories.cursor : undefined };
  const region = $("#memories-error");
  let page;
  try {
    page = await api.memories(params);
  } catch (error) {
    if (seq !== memories.seq || handleAuth(error)) return;
    showError(region, error);
    if (!append) clear($("#memories-table tbody"));
    $("#memories-summary").textContent = "";
    $("#memories-more").hidden = true;
    return;
  }
  if (seq !== memories.seq) return; // a newer query has been sent since
  clear(region);
  memories.cursor = page.next_cursor;
  const body = $("#memories-table tbody");
  if (!append) clear(body);
  for (const memory of page.memories) {
    body.append(h("tr", { dataset: { memoryId: memory.id } },
      cell("Content", h("a", { href: `#/memory/${encodeURIComponent(memory.id)}`, class: "content" },
        memory.content),
      memory.score !== undefined ? h("span", { class: "score" }, ` score ${percent(memory.score)}`) : null),
      cell("Topic", memory.topic),
      cell("User", memory.user_id ?? "—"),
      cell("Agent", memory.agent_id ?? "—"),
      cell("Valid from", formatTime(memory.valid_from)),
      cell("Valid to", validTo(memory)),
      cell("Status", statusBadge(memory.status)),
      cell("Recorded", formatTime(memory.recorded_at))));
  }
  clocks.widen(page.memories.map((m) => m.valid_from));
  const count = body.children.length;
  const when = `true as of ${params.as_of ? formatTime(params.as_of) : "now"}, as known ${
    params.known_at ? "at " + formatTime(params.known_at) : "now"}`;
  $("#memories-summary").textContent = count
    ? `${count}${memories.cursor ? "+" : ""} memor${count === 1 ? "y" : "ies"} ${when}.`
    : `No memories ${when}.`;
  $("#memories-more").hidden = !memories.cursor;
}

// ------------------------------------------------------------------ one memory

const memoryCache = new Map();

async function memoryById(id) {
  if (!id) return null;
  if (!memoryCache.has(id)) {
    memoryCache.set(id, api.memory(id).catch(() => null));
  }
  return memoryCache.get(id);
}

const memoryView = { seq: 0, timeline: null, width: 0, memory: null };

/** The width the timeline has to be drawn in: the figure's, inside its padding (0 while hidden). */
function timelineWidth() {
  const figure = $("#timeline");
  const style = getComputedStyle(figure);
  return Math.floor(figure.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
}

/** The timeline at the width the figure has now: drawn again when that width changes. */
function renderTimeline() {
  const figure = $("#timeline");
  const width = timelineWidth();
  if (!memoryView.timeline || width <= 0) return;
  memoryView.width = width;
  const { caption, ...drawing } = memoryView.timeline;
  const svg = drawTimeline({ ...drawing, width });
  clear(figure).append(svg, h("figcaption", {}, caption));
  fitText(svg);
}

async function loadMemory(id) {
  const seq = ++memoryView.seq;
  const region = $("#memory-error");
  const knownAt = clocks.known_at.iso();
  let history;
  let events;
  let histories;
  let pending;
  try {
    history = await api.history(id, { known_at: knownAt });
    const ids = history.chain.map((m) => m.id);
    [events, histories, pending] = await Promise.all([
      Promise.all(ids.map((memoryId) => api.audit({ memory_id: memoryId, limit: 100 }))),
      Promise.all(ids.map((memoryId) => memoryId === id ? history : api.history(memoryId, { known_at: knownAt }))),
      pendingFor(id),
    ]);
  } catch (error) {
    if (seq !== memoryView.seq || handleAuth(error)) return;
    memoryView.memory = null;
    if (error instanceof ApiError && error.status === 410) {
      // Erased: the documented answer, not an error. The details name the erasure's receipt.
      clear(region);
      const receipt = error.details.find((d) => d.erasure_id)?.erasure_id;
      $("#memory-title").textContent = "Erased memory";
      $("#memory-erased-receipt").href = receipt ? `#/erasures/${encodeURIComponent(receipt)}` : "#/erasures";
      $("#memory-erased").hidden = false;
      $("#memory-body").hidden = true;
      return;
    }
    showError(region, error);
    clear($("#timeline"));
    clear($("#timeline-links"));
    clear($("#memory-facts"));
    clear($("#versions-table tbody"));
    return;
  }
  if (seq !== memoryView.seq) return;
  clear(region);
  $("#memory-erased").hidden = true;
  $("#memory-body").hidden = false;
  $("#memory-pending").hidden = !pending;
  $("#memory-pending-age").textContent = pending ? ` since ${formatTime(pending.created_at)} (${pending.status}).` : "";
  const chain = history.chain;
  const byId = new Map();
  for (const page of events) for (const event of page.events) byId.set(event.id, event);
  const allEvents = [...byId.values()];
  const reverted = revertedIds(allEvents);
  const links = [];
  for (const memory of chain) {
    if (!memory.supersedes) continue;
    const event = allEvents.find((e) => e.memory_id === memory.id && e.superseded_id === memory.supersedes &&
      SUPERSESSIONS.has(e.type) && !reverted.has(e.id));
    links.push({ from: memory.supersedes, to: memory.id, event: event ?? null });
  }
  const recorded = new Map(chain.map((m, i) => [m.id, histories[i].versions.map((v) => v.recorded_at)]));
  const self = chain.find((m) => m.id === id);
  clocks.widen(chain.map((m) => m.valid_from));

  $("#memory-title").textContent = self ? self.content : "Memory";
  const facts = clear($("#memory-facts"));
  if (self) {
    const rows = [
      ["Status", statusBadge(self.status)],
      ["Topic", self.topic],
      ["User", self.user_id ?? "—"],
      ["Agent", self.agent_id ?? "—"],
      ["Valid", `${formatTime(self.valid_from)} → ${validTo(self)}`],
      ["Recorded", formatTime(self.recorded_at)],
      ["Id", h("code", {}, self.id)],
    ];
    for (const [term, value] of rows) facts.append(h("dt", {}, term), h("dd", {}, value));
  }
  memoryView.memory = self ?? null;
  const source = clear($("#memory-source"));
  for (const [term, ...value] of self ? sourceRows(self.source) : []) {
    source.append(h("dt", {}, term), h("dd", {}, ...value));
  }
  $("#erase-memory").hidden = !self;
  memoryView.timeline = {
    chain, links, recorded, now: Date.now(), selected: id, asOf: clocks.as_of.value,
    caption: `${chain.length} version${chain.length === 1 ? "" : "s"} in this lineage` +
      (knownAt ? `, as Aurra knew it at ${formatTime(knownAt)}` : "") + ".",
  };
  renderTimeline();

  const list = clear($("#timeline-links"));
  if (!links.length) list.append(h("li", { class: "empty" }, "No supersession in this lineage."));
  for (const link of links) {
    const [from, to] = [chain.find((m) => m.id === link.from), chain.find((m) => m.id === link.to)];
    list.append(link.event
      ? eventItem(link.event, revertedIds(allEvents, { [from.id]: from, [to.id]: to }),
        { [from.id]: from, [to.id]: to }, () => loadMemory(id))
      : h("li", { class: "event" }, `"${to.content}" superseded "${from.content}" (no audit event visible).`));
  }

  const body = clear($("#versions-table tbody"));
  for (const version of history.versions) {
    body.append(h("tr", {},
      cell("Valid from", formatTime(version.valid_from)),
      cell("Valid to", version.valid_to ? formatTime(version.valid_to) : "still true"),
      cell("Status", statusBadge(version.status)),
      cell("Recorded from", formatTime(version.recorded_at)),
      cell("Recorded to", version.recorded_to ? formatTime(version.recorded_to) : "still believed")));
  }
}

// ------------------------------------------------------------------ audit feed

// Supersessions reverted from this tab: their Revert goes at once, whatever a feed shows next.
const revertedHere = new Set();

/**
 * The supersession events among `events` that were reverted. A revert event names the one it
 * undid, but a filtered feed (by type, by user) may not hold it; the superseded memory tells as
 * well: while a supersession stands, that memory's superseded_event_id is the event's id.
 */
function revertedIds(events, memoriesById = {}) {
  const reverted = new Set(revertedHere);
  for (const event of events) {
    if (event.type === "revert" && event.details && event.details.reverted_event_id) {
      reverted.add(event.details.reverted_event_id);
    }
    const superseded = SUPERSESSIONS.has(event.type) ? memoriesById[event.superseded_id] : null;
    if (superseded && superseded.superseded_event_id !== event.id) reverted.add(event.id);
  }
  return reverted;
}

/** Two-step confirmation inside the item: the action's button becomes "Yes" and "Cancel". */
function confirmInline(container, question, confirmLabel, action) {
  const previous = [...container.childNodes];
  const yes = h("button", { type: "button", class: "danger" }, confirmLabel);
  const no = h("button", { type: "button", class: "quiet" }, "Cancel");
  const restore = () => {
    container.replaceChildren(...previous);
    container.querySelector("button")?.focus();
  };
  yes.addEventListener("click", async () => {
    yes.disabled = true;
    no.disabled = true;
    await action();
  });
  no.addEventListener("click", restore);
  container.replaceChildren(h("span", { class: "question" }, question), yes, no);
  yes.focus();
}

function eventItem(event, reverted, memoriesById, refresh) {
  const label = (id) => {
    const memory = memoriesById[id];
    return memory ? `"${memory.content}"` : id ? h("code", { title: id }, shortId(id)) : "";
  };
  const link = (id) => id ? h("a", { href: `#/memory/${encodeURIComponent(id)}` }, label(id)) : null;
  const status = event.status ?? (event.type === "supersession_proposed" ? "open" : null);
  const isReverted = reverted.has(event.id);
  const head = h("div", { class: "event-head" },
    h("span", { class: `badge type ${event.type}` }, event.type),
    status ? h("span", { class: `badge status ${status}` }, status) : null,
    isReverted ? h("span", { class: "badge status reverted" }, "reverted") : null,
    h("time", { datetime: event.created_at }, formatTime(event.created_at)));
  let what = null;
  if (event.memory_id && event.superseded_id) {
    const verb = event.type === "supersession_proposed" ? "would supersede"
      : event.type === "revert" ? "no longer supersedes"
        : event.type === "proposal_dismissed" ? "was not to supersede"
          : event.type === "duplicate_rejected" ? "duplicates" : "superseded";
    what = h("p", { class: "event-what" }, link(event.memory_id), ` ${verb} `, link(event.superseded_id));
  } else if (event.memory_id) {
    what = h("p", { class: "event-what" }, link(event.memory_id));
  }
  const facts = [];
  const add = (term, value) => {
    if (value !== null && value !== undefined && value !== "") facts.push(h("dt", {}, term), h("dd", {}, value));
  };
  // The scope of the event's memory (the audit route's user_id filter reads the same memory).
  const subject = memoriesById[event.memory_id];
  if (subject && (subject.user_id || subject.agent_id)) {
    add("User", subject.user_id ?? "—");
    add("Agent", subject.agent_id ?? "—");
  }
  add("Verdict", event.classifier);
  add("Confidence", percent(event.confidence));
  add("Reason", event.reason);
  add("Model", event.model);
  add("Prompt version", event.details?.prompt_version ?? event.prompt_version);
  add("Candidates examined", event.candidates_examined);
  if (event.type === "settings_updated" && event.details?.changes) {
    add("Changes", JSON.stringify(event.details.changes));
  }
  add("Event", h("code", {}, event.id));

  const actions = h("div", { class: "actions" });
  const act = async (run, done) => {
    const region = $(".event-error", item);
    try {
      const result = await run(event.id);
      notice(done(result));
      await refresh();
    } catch (error) {
      if (handleAuth(error)) return;
      actions.replaceChildren(...buttons());
      showError(region, error);
      actions.querySelector("button")?.focus();
    }
  };
  const buttons = () => {
    const out = [];
    if (SUPERSESSIONS.has(event.type) && !isReverted) {
      out.push(h("button", {
        type: "button", "aria-label": `Revert this supersession (${event.type}, ${formatTime(event.created_at)})`,
        onclick: () => confirmInline(actions, "Make the superseded memory current again?", "Yes, revert",
          () => act(async (id) => {
            const result = await api.revert(id);
            revertedHere.add(id);
            return result;
          }, (r) => `Reverted: "${r.restored.content}" is current again.`)),
      }, "Revert"));
    }
    if (event.type === "supersession_proposed" && status === "open") {
      out.push(h("button", {
        type: "button", "aria-label": `Approve this proposal (${formatTime(event.created_at)})`,
        onclick: () => confirmInline(actions, "Apply this supersession?", "Yes, approve",
          () => act(api.approve, (r) => `Approved: "${r.memory.content}" now supersedes "${r.superseded.content}".`)),
      }, "Approve"), h("button", {
        type: "button", class: "quiet", "aria-label": `Dismiss this proposal (${formatTime(event.created_at)})`,
        onclick: () => act(api.dismiss, () => "Dismissed: both memories stay current."),
      }, "Dismiss"));
    }
    return out;
  };
  actions.append(...buttons());
  const item = h("li", { class: "event", dataset: { eventId: event.id, type: event.type } },
    head, what, h("dl", { class: "facts" }, facts), actions, h("div", { class: "event-error error", role: "alert" }));
  return item;
}

const audit = { seq: 0, cursor: null, events: [], memories: {}, applied: null };

function reloadAudit() {
  audit.cursor = null;
  audit.events = [];
  audit.memories = {};
  const form = $("#audit-filters");
  if (form.open.checked) form.type.value = "supersession_proposed";
  audit.applied = filterKey(form);
  // Read the memories afresh: whether a supersession stands is theirs to say.
  memoryCache.clear();
  loadAudit(false);
}

async function loadAudit(append) {
  const seq = ++audit.seq;
  const form = $("#audit-filters");
  const open = form.open.checked;
  if (open) form.type.value = "supersession_proposed";
  const params = {
    type: form.type.value || undefined,
    status: open ? "open" : undefined,
    memory_id: form.memory_id.value.trim() || undefined,
    user_id: form.user_id.value.trim() || undefined,
    limit: 20,
    cursor: append ? audit.cursor : undefined,
  };
  const region = $("#audit-error");
  let page;
  let contents;
  try {
    page = await api.audit(params);
    const ids = new Set(page.events.flatMap((e) => [e.memory_id, e.superseded_id]).filter(Boolean));
    contents = await Promise.all([...ids].map(async (id) => [id, await memoryById(id)]));
  } catch (error) {
    if (seq !== audit.seq || handleAuth(error)) return;
    showError(region, error);
    if (!append) clear($("#audit-events"));
    $("#audit-more").hidden = true;
    return;
  }
  if (seq !== audit.seq) return;
  clear(region);
  audit.cursor = page.next_cursor;
  audit.events = append ? audit.events.concat(page.events) : page.events;
  Object.assign(audit.memories, Object.fromEntries(contents.filter(([, m]) => m)));
  const byId = audit.memories;
  const reverted = revertedIds(audit.events, byId);
  const list = clear($("#audit-events"));
  for (const event of audit.events) {
    list.append(eventItem(event, reverted, byId, async () => reloadAudit()));
  }
  if (!audit.events.length) list.append(h("li", { class: "empty" }, open ? "The review queue is empty." : "No events."));
  $("#audit-more").hidden = !audit.cursor;
}

// ------------------------------------------------------------------ settings

// What the console knows about each setting; unknown ones are shown read-only as the API sent them.
const SETTINGS = {
  auto_supersede_default: { label: "Automatic supersession by default", kind: "bool",
    help: "Used when a write does not say auto_supersede." },
  min_confidence: { label: "Minimum confidence to act", kind: "number", step: "0.01",
    help: "A contradicts verdict at or above this supersedes. The server's floor is 0.85." },
  proposal_min_confidence: { label: "Minimum confidence to propose", kind: "number", step: "0.01", nullable: true,
    help: "Below min_confidence but at or above this, a proposal joins the review queue. Empty: no proposals." },
  excluded_categories: { label: "Excluded topics", kind: "list",
    help: "Comma-separated topics never superseded automatically." },
  classifier_model: { label: "Classifier model", kind: "text", help: "An Anthropic model id (claude-…)." },
  daily_model_calls_limit: { label: "Daily model calls limit", kind: "integer", nullable: true,
    help: "Model calls per UTC day for this key. Empty: no limit." },
  secrets: { label: "Credentials in writes", kind: "text",
    help: "redact: each is stored as [REDACTED:kind], never sent to a model. refuse: such a write is refused (422)." },
};

let currentSettings = null;

function settingsField(name, value) {
  const spec = SETTINGS[name];
  const id = `s-${name}`;
  const help = h("small", { id: `${id}-help` }, spec ? spec.help : "Shown as the API sent it.");
  if (!spec) {
    return h("div", { class: "field" }, h("label", { for: id }, name),
      h("input", { id, type: "text", readonly: true, value: JSON.stringify(value), "aria-describedby": `${id}-help` }),
      help);
  }
  if (spec.kind === "bool") {
    return h("div", { class: "field check" },
      h("input", { id, name, type: "checkbox", checked: value === true, "aria-describedby": `${id}-help` }),
      h("label", { for: id }, spec.label, " ", h("code", {}, name)), help);
  }
  const text = value === null || value === undefined ? "" : Array.isArray(value) ? value.join(", ") : String(value);
  const type = spec.kind === "number" || spec.kind === "integer" ? "number" : "text";
  return h("div", { class: "field" },
    h("label", { for: id }, spec.label, " ", h("code", {}, name)),
    h("input", { id, name, type, value: text, step: spec.step ?? (spec.kind === "integer" ? "1" : null),
      inputmode: type === "number" ? "decimal" : null, spellcheck: "false", "aria-describedby": `${id}-help` }),
    help);
}

function renderSettings(settings) {
  currentSettings = settings;
  const form = clear($("#settings-form"));
  for (const [name, value] of Object.entries(settings)) form.append(settingsField(name, value));
  form.append(h("div", { class: "actions" }, h("button", { type: "submit" }, "Save settings"),
    h("button", { type: "button", class: "quiet", onclick: loadSettings }, "Reload")));
}

function settingsPatch() {
  const form = $("#settings-form");
  const patch = {};
  for (const [name, spec] of Object.entries(SETTINGS)) {
    if (!(name in currentSettings)) continue;
    const input = form.elements[name];
    let value;
    if (spec.kind === "bool") value = input.checked;
    else if (spec.kind === "list") value = input.value.split(",").map((t) => t.trim()).filter(Boolean);
    else if (input.value.trim() === "") value = spec.nullable ? null : "";
    else if (spec.kind === "number" || spec.kind === "integer") value = Number(input.value);
    else value = input.value.trim();
    if (JSON.stringify(value) !== JSON.stringify(currentSettings[name])) patch[name] = value;
  }
  return patch;
}

async function loadSettings() {
  const region = $("#settings-error");
  try {
    renderSettings(await api.settings());
    clear(region);
  } catch (error) {
    if (!handleAuth(error)) showError(region, error);
  }
}

async function saveSettings(event) {
  event.preventDefault();
  const region = $("#settings-error");
  const patch = settingsPatch();
  if (!Object.keys(patch).length) {
    notice("Nothing changed.");
    return;
  }
  try {
    const answer = await api.updateSettings(patch);
    clear(region);
    renderSettings(answer);
    $("#settings-json").textContent = JSON.stringify(answer, null, 2);
    $("#settings-answer").hidden = false;
    notice(`Saved ${Object.keys(patch).join(", ")}.`);
  } catch (error) {
    if (handleAuth(error)) return;
    showError(region, error, "Not saved: ");
    const field = error instanceof ApiError && error.details[0]?.field;
    const input = field ? $(`#s-${field}`) : null;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-errormessage", "settings-error");
      input.focus();
    }
  }
}

// ------------------------------------------------------------------ start

function start() {
  clocks.as_of = new Clock("as_of", debounce(timeChanged, 150));
  clocks.known_at = new Clock("known_at", debounce(timeChanged, 150));
  $("#signin-form").addEventListener("submit", signIn);
  const context = {
    showError, handleAuth, notice, memoryById,
    // Whatever was read before may hold erased content: read afresh.
    onErased: () => memoryCache.clear(),
  };
  startErasures(context);
  startEvents(context);
  startJobs(context);
  $("#erase-memory").addEventListener("click", () => {
    if (memoryView.memory) eraseMemory(memoryView.memory);
  });
  $("#erase-user").addEventListener("click", () => {
    const form = $("#memory-filters");
    const user = form.user_id.value.trim();
    if (user) eraseUser(user, form.agent_id.value.trim());
  });
  $("#sign-out").addEventListener("click", () => {
    forgetKey();
    memoryCache.clear();
    revertedHere.clear();
    location.hash = "";
    signedOut();
    notice("Signed out: the key is gone from this tab.");
  });
  liveFilters($("#memory-filters"), memories, reloadMemories);
  $("#memories-more").addEventListener("click", () => loadMemories(true));
  liveFilters($("#audit-filters"), audit, reloadAudit);
  $("#audit-more").addEventListener("click", () => loadAudit(true));
  new ResizeObserver(() => {
    const width = timelineWidth();
    if (width > 0 && width !== memoryView.width) renderTimeline();
  }).observe($("#timeline"));
  $("#settings-form").addEventListener("submit", saveSettings);
  window.addEventListener("hashchange", () => route(true));
  route(false);
}

start();
