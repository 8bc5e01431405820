// A memory's lineage on a time axis: one row per version, a bar over its valid time, ▼ where Aurra
// recorded it, an arrow for each supersession labelled with verdict, confidence and reason.

import { DAY_MS, formatDay, formatTime, percent, s } from "./util.js";

const WIDTH = 960;
const GUTTER = 230; // the version labels
const RIGHT = 24;
const TOP = 34; // the axis
const ROW = 92;
const BAR = 18;

function truncate(text, length) {
  return text.length > length ? text.slice(0, length - 1) + "…" : text;
}

function ticks(start, end) {
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

/**
 * chain: memories oldest first; links: [{from, to, event}]; recorded: Map(id -> [iso, ...]);
 * asOf: ms or null (now); now: ms; selected: the memory the view is about.
 */
export function drawTimeline({ chain, links, recorded, asOf, now, selected }) {
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
  const rowY = (i) => TOP + 26 + i * ROW;
  const height = rowY(chain.length - 1) + BAR + 40;
  const index = new Map(chain.map((memory, i) => [memory.id, i]));

  const summary = chain
    .map((memory, i) => `Version ${i + 1}, "${memory.content}", true from ${formatTime(memory.valid_from)}` +
      (memory.valid_to ? ` to ${formatTime(memory.valid_to)}` : " until now") +
      `, recorded ${formatTime(memory.recorded_at)}.`)
    .join(" ");
  const svg = s("svg", {
    viewBox: `0 0 ${WIDTH} ${height}`, role: "img", class: "tl", "aria-labelledby": "tl-title tl-desc",
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
  for (const [t, label] of ticks(start, end)) {
    axis.append(s("line", { class: "tl-grid", x1: x(t), x2: x(t), y1: TOP, y2: height - 20 }),
      s("text", { x: x(t), y: TOP - 8, "text-anchor": "middle" }, label));
  }
  svg.append(axis);

  // Reference lines: now, and the as_of the view is looking at.
  const nowX = x(now);
  svg.append(s("g", { class: "tl-now" }, s("line", { x1: nowX, x2: nowX, y1: TOP, y2: height - 20 }),
    s("text", { x: nowX, y: height - 6, "text-anchor": "end" }, "now")));
  if (asOf !== null) {
    const ax = x(asOf);
    svg.append(s("g", { class: "tl-asof" }, s("line", { x1: ax, x2: ax, y1: TOP, y2: height - 20 }),
      s("text", { x: ax + 4, y: height - 6 }, `as of ${formatDay(new Date(asOf))}`)));
  }

  chain.forEach((memory, i) => {
    const y = rowY(i);
    const from = Date.parse(memory.valid_from);
    const to = memory.valid_to ? Date.parse(memory.valid_to) : null;
    const x1 = x(from);
    const x2 = to === null ? WIDTH - RIGHT : Math.max(x(to), x1 + 2);
    const row = s("g", { class: `tl-row tl-${memory.status}${memory.id === selected ? " tl-selected" : ""}`,
      dataset: { memoryId: memory.id } });
    row.append(
      s("line", { class: "tl-track", x1: GUTTER, x2: WIDTH - RIGHT, y1: y + BAR / 2, y2: y + BAR / 2 }),
      s("text", { class: "tl-label", x: 8, y: y + 5 }, `v${i + 1} · ${truncate(memory.content, 30)}`),
      s("text", { class: "tl-sub", x: 8, y: y + 22 },
        [memory.status, memory.topic, memory.user_id].filter(Boolean).join(" · ")),
      s("rect", { class: to === null ? "tl-bar tl-bar-open" : "tl-bar", x: x1, y, width: x2 - x1, height: BAR,
        rx: 3 },
      s("title", {}, `"${memory.content}": valid ${formatTime(memory.valid_from)} → ` +
          (to === null ? "still true" : formatTime(memory.valid_to)))),
      s("text", { class: "tl-when", x: x1, y: y + BAR + 14 },
        `${formatDay(new Date(from))} → ${to === null ? "still true" : formatDay(new Date(to))}`));
    const marks = [...new Set([...(recorded.get(memory.id) || []), memory.recorded_at])].sort();
    marks.forEach((at, k) => {
      const mx = x(Date.parse(at));
      row.append(s("g", { class: "tl-recorded" },
        s("path", { d: `M${mx - 6},${y - 10} L${mx + 6},${y - 10} L${mx},${y - 1} z` }),
        k === 0 ? s("text", { x: mx - 9, y: y - 2, "text-anchor": "end" }, "recorded") : null,
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
    const rightSide = xb < WIDTH - 320;
    svg.append(s("g", { class: "tl-link", dataset: { from: link.from, to: link.to } },
      s("path", { d: `M${xa},${ya} C${xa},${mid} ${xb},${mid} ${xb},${yb - 1}`, "marker-end": "url(#tl-arrowhead)" }),
      s("text", { class: "tl-link-label", x: rightSide ? Math.max(xa, xb) + 10 : Math.min(xa, xb) - 10, y: mid + 14,
        "text-anchor": rightSide ? "start" : "end" }, truncate(text, 64)),
      s("title", {}, `Superseded: ${text}` + (event ? ` (model ${event.model || "none"})` : ""))));
  }
  return svg;
}
