// Pending decisions: GET /agent/jobs?status=pending, read again while shown.

import { api } from "./api.js";
import { $, clear, h } from "./util.js";

const REFRESH_MS = 5000;
let ctx = null;
const view = { seq: 0, timer: null };

/** How long a job has waited ("3 min"). */
function age(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`;
}

async function loadJobs() {
  const seq = ++view.seq;
  const region = $("#jobs-error");
  let jobs;
  let memories;
  try {
    jobs = (await api.jobs({ status: "pending", limit: 100 })).jobs;
    memories = await Promise.all(jobs.map((job) => ctx.memoryById(job.memory_id)));
  } catch (error) {
    if (seq !== view.seq || ctx.handleAuth(error)) return;
    ctx.showError(region, error);
    return;
  }
  if (seq !== view.seq) return;
  clear(region);
  const body = clear($("#jobs-table tbody"));
  jobs.forEach((job, i) => {
    const memory = memories[i];
    const cell = (label, ...children) => h("td", { dataset: { label } }, ...children);
    body.append(h("tr", { dataset: { jobId: job.id, memoryId: job.memory_id } },
      cell("Memory", h("a", { href: `#/memory/${encodeURIComponent(job.memory_id)}`, class: "content" },
        memory ? memory.content : h("code", {}, job.memory_id))),
      cell("User", job.user_id ?? "—"),
      cell("Agent", job.agent_id ?? "—"),
      cell("Status", h("span", { class: `badge ${job.status}` }, job.status)),
      cell("Waiting", h("time", { datetime: job.created_at, title: job.id }, age(job.created_at))),
      cell("Attempts", String(job.attempts))));
  });
  $("#jobs-table").hidden = !jobs.length;
  $("#jobs-summary").textContent = jobs.length ? `${jobs.length} pending, newest first.` : "No Level 2 decision is pending.";
}

export function showJobs() {
  stopJobs();
  loadJobs();
  view.timer = setInterval(() => {
    if (!document.hidden) loadJobs();
  }, REFRESH_MS);
}

export function stopJobs() {
  clearInterval(view.timer);
  view.timer = null;
}

export function startJobs(context) {
  ctx = context;
  $("#jobs-refresh").addEventListener("click", loadJobs);
}

/** The memory's job still to be decided, if any. */
export async function pendingFor(memoryId) {
  const page = await api.jobs({ status: "pending", memory_id: memoryId, limit: 1 });
  return page.jobs[0] ?? null;
}
