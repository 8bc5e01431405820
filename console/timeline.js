// A memory's lineage on a time axis: one row per version, a bar over its valid time, ▼ where Aurra
// recorded it, an arrow for each supersession labelled with verdict, confidence and reason.
//
// Drawn at the width it is shown at (one SVG unit a CSS pixel), so its text keeps its size on a
// phone as on a desktop. Wide, the versions' labels sit in a gutter left of the bars; narrow,
// each label sits above its bar and each arrow's label on a line of its own.

import { DAY_MS, formatDay, formatTime, percent, s } from "./util.js";

const DEFAULT_WIDTH = 960;
const MIN_WIDTH = 280;
const NARROW = 640; // below this the labels go above the bars
const RIGHT = 24;
const TOP = 34; // the axis
const BAR = 18;
const CHAR = 7; // a character of the 12-13px labels, roughly, to keep text inside the picture
const THIN = 5; // the narrowest character on average: texts are cut at most this short, then fitted
const TICK_SPACING = 64; // the least room between two tick labels

function truncate(text, length) {
  return text.length > length ? text.slice(0, length - 1) + "…" : text;
}

function allTicks(start, end) {
  const span = end - start;
  const out = [];
  if (span <= 20 * DAY_MS) {
    const step = span <= 8 * DAY_MS ? DAY_MS : 7 * DAY_MS;
    for (let t = Math.ceil(start / step) * step; t <= end; t += step) out.push([t, formatDay(new Date(t)).slice(5)]);
    return out;
  }
  const months = span <= 250 * DAY_MS ? 1 : span <= 800 * DAY_MS ? 3 : 12;
  const date = new Date(start);
  let year = date.getUTCFullYear();
  let month = date.getUTCMonth() + 1;
  month = Math.ceil(month / months) * months;
  for (;;) {
    year += Math.floor(month / 12);
    month %= 12;
    const t = Date.UTC(year, month, 1);
    if (t > end) break;
    if (t >= start) {
      const name = new Date(t).toLocaleString("en", { month: "short", timeZone: "UTC" });
      out.push([t, month === 0 || months === 12 ? `${name} ${year}` : name]);
    }
    month += months;
  }
  return out;
}

/** The ticks of the axis, thinned so that their labels never run into each other. */
function ticks(start, end, pixels) {
  const all = allTicks(start, end);
  const room = Math.max(1, Math.floor(pixels / TICK_SPACING));
  const every = Math.ceil(all.length / room);
  return all.filter((_, i) => i % every === 0);
}

/**
 * Shorten, with "…", each text of a drawn timeline (in the document, so it can be measured)
 * that is wider than its data-fit pixels: a guess by characters cannot know the font.
 */
export function fitText(svg) {
  for (const text of svg.querySelectorAll("text[data-fit]")) {
    const room = Number(text.dataset.fit);
    const full = text.textContent;
    if (text.getComputedTextLength() <= room) continue;
    let [low, high] = [0, full.length];
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      text.textContent = full.slice(0, mid) + "…";
      if (text.getComputedTextLength() <= room) low = mid;
      else high = mid - 1;
    }
    text.textContent = full.slice(0, low) + "…";
  }
}

/** Where a text of `length` characters starting at `x` stays inside [left, right]. */
function within(x, length, left, right) {
  return Math.max(left, Math.min(x, right - length * CHAR));
}

/**
 * chain: memories oldest first; links: [{from, to, event}]; recorded: Map(id -> [iso, ...]);
 * asOf: ms or null (now); now: ms; selected: the memory the view is about; width: CSS pixels.
 */
export function drawTimeline({ chain, links, recorded, asOf, now, selected, width: shown }) {
  const WIDTH = Math.max(MIN_WIDTH, Math.round(shown || DEFAULT_WIDTH));
  const narrow = WIDTH < NARROW;
  const GUTTER = narrow ? 10 : Math.min(230, Math.round(WIDTH * 0.26)); // the version labels, when wide
  const labelChars = Math.floor(((narrow ? WIDTH : GUTTER) - 16) / THIN);
  // A row: wide, the bar with its label beside it; narrow, the label, status and topic, and
  // scope, then the bar, its dates and the label of the arrow leaving it.
  const ROW = narrow ? 140 : 92;
  const BAR_TOP = narrow ? 58 : 0;
  const times = [now];
  if (asOf !== null) times.push(asOf);
  for (const memory of chain) {
    times.push(Date.parse(memory.valid_from), Date.parse(memory.recorded_at));
    if (memory.valid_to) times.push(Date.parse(memory.valid_to));
    for (const at of recorded.get(memory.id) || []) times.push(Date.parse(at));
  }
  let start = Math.min(...times);
  let end = Math.max(...times);
  const pad = Math.max((end - start) * 0.04, DAY_MS);
  start -= pad;
  end += pad;
  const x = (t) => GUTTER + ((t - start) / (end - start)) * (WIDTH - GUTTER - RIGHT);
  const rowTop = (i) => TOP + 26 + i * ROW;
  const rowY = (i) => rowTop(i) + BAR_TOP; // the bar's top
  const height = rowY(chain.length - 1) + BAR + (narrow ? 56 : 40);
  const index = new Map(chain.map((memory, i) => [memory.id, i]));

  const summary = chain
    .map((memory, i) => `Version ${i + 1}, "${memory.content}", true from ${formatTime(memory.valid_from)}` +
      (memory.valid_to ? ` to ${formatTime(memory.valid_to)}` : " until now") +
      `, recorded ${formatTime(memory.recorded_at)}.`)
    .join(" ");
  const svg = s("svg", {
    viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: "img",
    class: narrow ? "tl tl-narrow" : "tl", "aria-labelledby": "tl-title tl-desc",
  },
  s("title", { id: "tl-title" }, `Timeline of ${chain.length} version${chain.length === 1 ? "" : "s"}`),
  s("desc", { id: "tl-desc" }, summary),
  s("defs", {},
    s("marker", { id: "tl-arrowhead", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7",
      markerHeight: "7", orient: "auto-start-reverse" }, s("path", { d: "M0,0 L10,5 L0,10 z", class: "tl-head" })),
    s("linearGradient", { id: "tl-open" }, s("stop", { offset: "0.75", class: "tl-open-a" }),
      s("stop", { offset: "1", class: "tl-open-b" }))));

  // The axis and its grid.
  const axis = s("g", { class: "tl-axis" });
  axis.append(s("line", { x1: GUTTER, x2: WIDTH - RIGHT, y1: TOP, y2: TOP }));
  for (const [t, label] of ticks(start, end, WIDTH - GUTTER - RIGHT)) {
    axis.append(s("line", { class: "tl-grid", x1: x(t), x2: x(t), y1: TOP, y2: height - 20 }),
      s("text", { x: Math.min(Math.max(x(t), (label.length * CHAR) / 2), WIDTH - (label.length * CHAR) / 2),
        y: TOP - 8, "text-anchor": "middle" }, label));
  }
  svg.append(axis);

  // Reference lines: now, and the as_of the view is looking at (its label on the last line,
  // "now" on the line above it when narrow, so the two never overlap).
  const nowX = x(now);
  const nowY = narrow ? height - 22 : height - 6;
  svg.append(s("g", { class: "tl-now" }, s("line", { x1: nowX, x2: nowX, y1: TOP, y2: nowY - 14 }),
    s("text", { x: nowX, y: nowY, "text-anchor": "end" }, "now")));
  if (asOf !== null) {
    const ax = x(asOf);
    const text = `as of ${formatDay(new Date(asOf))}`;
    const fits = ax + 4 + text.length * CHAR <= WIDTH;
    svg.append(s("g", { class: "tl-asof" }, s("line", { x1: ax, x2: ax, y1: TOP, y2: height - 20 }),
      s("text", { x: fits ? ax + 4 : ax - 4, y: height - 6, "text-anchor": fits ? "start" : "end" }, text)));
  }

  chain.forEach((memory, i) => {
    const y = rowY(i);
    const from = Date.parse(memory.valid_from);
    const to = memory.valid_to ? Date.parse(memory.valid_to) : null;
    const x1 = x(from);
    const x2 = to === null ? WIDTH - RIGHT : Math.max(x(to), x1 + 2);
    const row = s("g", { class: `tl-row tl-${memory.status}${memory.id === selected ? " tl-selected" : ""}`,
      dataset: { memoryId: memory.id } });
    const scope = [memory.user_id && `user ${memory.user_id}`, memory.agent_id && `agent ${memory.agent_id}`]
      .filter(Boolean).join(" · ");
    const fit = { fit: (narrow ? WIDTH : GUTTER) - 16 };
    const labelY = narrow ? rowTop(i) + 4 : y + 5;
    const when = `${formatDay(new Date(from))} → ${to === null ? "still true" : formatDay(new Date(to))}`;
    row.append(
      s("line", { class: "tl-track", x1: GUTTER, x2: WIDTH - RIGHT, y1: y + BAR / 2, y2: y + BAR / 2 }),
      s("text", { class: "tl-label", x: 8, y: labelY, dataset: fit },
        `v${i + 1} · ${truncate(memory.content, labelChars - 5)}`),
      s("text", { class: "tl-sub", x: 8, y: labelY + 17, dataset: fit }, `${memory.status} · ${memory.topic}`),
      scope ? s("text", { class: "tl-sub tl-scope", x: 8, y: labelY + 32, dataset: fit }, truncate(scope, labelChars))
        : null,
      s("rect", { class: to === null ? "tl-bar tl-bar-open" : "tl-bar", x: x1, y, width: x2 - x1, height: BAR,
        rx: 3 },
      s("title", {}, `"${memory.content}": valid ${formatTime(memory.valid_from)} → ` +
          (to === null ? "still true" : formatTime(memory.valid_to)))),
      s("text", { class: "tl-when", x: within(x1, when.length, narrow ? 8 : GUTTER, WIDTH - 4), y: y + BAR + 14 },
        when));
    const marks = [...new Set([...(recorded.get(memory.id) || []), memory.recorded_at])].sort();
    marks.forEach((at, k) => {
      const mx = x(Date.parse(at));
      // "recorded" left of the first ▼, or right of it when the left has no room.
      const left = mx - 9 - 8 * CHAR >= (narrow ? 0 : GUTTER);
      row.append(s("g", { class: "tl-recorded" },
        s("path", { d: `M${mx - 6},${y - 10} L${mx + 6},${y - 10} L${mx},${y - 1} z` }),
        k === 0 ? s("text", { x: left ? mx - 9 : mx + 9, y: y - 2, "text-anchor": left ? "end" : "start" },
          "recorded") : null,
        s("title", {}, `${k === 0 ? "Recorded" : "Changed"} ${formatTime(at)}`)));
    });
    svg.append(row);
  });

  for (const link of links) {
    const i = index.get(link.from);
    const j = index.get(link.to);
    if (i === undefined || j === undefined) continue;
    const old = chain[i];
    const fresh = chain[j];
    const xa = x(Date.parse(old.valid_to || fresh.valid_from));
    const xb = x(Date.parse(fresh.valid_from));
    const ya = rowY(i) + BAR;
    const yb = rowY(j);
    const mid = (ya + yb) / 2;
    const event = link.event;
    const verdict = event ? (event.classifier || event.type.replace("_", " ")) : "superseded";
    const reason = event && event.reason ? event.reason : event ? "no reason given (manual)" : "";
    const text = [verdict, event && event.confidence !== null && event.confidence !== undefined
      ? percent(event.confidence) : null, reason].filter(Boolean).join(" · ");
    let label;
    if (narrow) {
      // Its own line, under the dates of the version it retires.
      label = { x: 8, y: ya + 32, "text-anchor": "start", room: WIDTH - 16 };
    } else {
      const rightSide = xb < WIDTH - 320;
      const lx = rightSide ? Math.max(xa, xb) + 10 : Math.min(xa, xb) - 10;
      label = { x: lx, y: mid + 14, "text-anchor": rightSide ? "start" : "end",
        room: rightSide ? WIDTH - 4 - lx : lx - GUTTER };
    }
    svg.append(s("g", { class: "tl-link", dataset: { from: link.from, to: link.to } },
      s("path", { d: `M${xa},${ya} C${xa},${mid} ${xb},${mid} ${xb},${yb - 1}`, "marker-end": "url(#tl-arrowhead)" }),
      s("text", { class: "tl-link-label", x: label.x, y: label.y, "text-anchor": label["text-anchor"],
        dataset: { fit: Math.max(90, label.room) } }, truncate(text, Math.max(12, Math.floor(label.room / THIN)))),
      s("title", {}, `Superseded: ${text}` + (event ? ` (model ${event.model || "none"})` : ""))));
  }
  return svg;
}
