// DOM and time helpers. Content from the API is untrusted: it only ever becomes text nodes.

const SVG_NS = "http://www.w3.org/2000/svg";

function build(element, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

/** An HTML element: h("a", {href: "#"}, "text", child, ...). */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, same signature. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(element) {
  element.replaceChildren();
  return element;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** "2026-05-03 10:00 UTC" (seconds only when they are not zero). */
export function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const text = date.toISOString();
  const seconds = text.slice(17, 19) === "00" ? "" : text.slice(16, 19);
  return `${text.slice(0, 10)} ${text.slice(11, 16)}${seconds} UTC`;
}

export function formatDay(date) {
  return date.toISOString().slice(0, 10);
}

// A time typed as UTC: "2026-04-15", "2026-04-15 10:30", "2026-04-15T10:30:05.250Z", or an
// RFC 3339 time with another offset (converted). Never read in the browser's own time zone.
const UTC_INPUT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i;

/** Milliseconds since the epoch of a time typed as UTC; null when empty or not such a time. */
export function parseUtcInput(text) {
  const found = UTC_INPUT.exec(String(text ?? "").trim());
  if (!found) return null;
  const [, year, month, day, hour = "0", minute = "0", second = "0", fraction = "", zone = ""] = found;
  const parts = [month, day, hour, minute, second].map(Number);
  const date = new Date(0);
  date.setUTCFullYear(Number(year), parts[0] - 1, parts[1]);
  date.setUTCHours(parts[2], parts[3], parts[4], Number((fraction + "00").slice(0, 3)));
  // 2026-02-30 or 24:00 would roll over into another day: not a time anyone meant.
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== parts[0] - 1 ||
    date.getUTCDate() !== parts[1] || date.getUTCHours() !== parts[2] || date.getUTCMinutes() !== parts[3] ||
    date.getUTCSeconds() !== parts[4]) return null;
  let offset = 0;
  if (/^[+-]/.test(zone)) {
    const digits = zone.replace(":", "");
    const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
    if (Number(digits.slice(3, 5)) > 59 || minutes > 24 * 60) return null;
    offset = (zone[0] === "-" ? -1 : 1) * minutes * 60_000;
  }
  const ms = date.getTime() - offset;
  return Number.isNaN(ms) ? null : ms;
}

/** How a UTC time input shows a time: "2026-04-15 00:00:00" (milliseconds when there are some). */
export function formatUtcInput(ms) {
  if (ms === null || ms === undefined) return "";
  const text = new Date(ms).toISOString();
  const millis = text.slice(20, 23) === "000" ? "" : text.slice(19, 23);
  return `${text.slice(0, 10)} ${text.slice(11, 19)}${millis}`;
}

export const DAY_MS = 86_400_000;

export function startOfUtcDay(ms) {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

export function shortId(id) {
  return id ? String(id).slice(0, 8) + "…" + String(id).slice(-4) : "";
}

export function percent(confidence) {
  return typeof confidence === "number" ? confidence.toFixed(2) : "";
}
