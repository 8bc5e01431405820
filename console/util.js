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

/** A datetime-local value, read as UTC, to RFC 3339 with a zone; null when empty or invalid. */
export function localInputToIso(value) {
  if (!value) return null;
  const withSeconds = value.length === 16 ? value + ":00" : value;
  const date = new Date(withSeconds + "Z");
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace(".000Z", "Z");
}

export function isoToLocalInput(iso) {
  return iso ? new Date(iso).toISOString().slice(0, 19) : "";
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
