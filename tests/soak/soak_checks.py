"""The end-of-run checks of the soak: what the clients were told against what the database
holds (read directly, as the owner), the supersession/audit invariants, the bi-temporal
invariants, time-travel answers asked again, and every HTTP status the clients saw."""

from __future__ import annotations

import itertools
import json
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
from psycopg.rows import dict_row
from soak_run import EXCLUDED, RunResult

EXCLUDED_TOPICS = set(EXCLUDED)
SUPERSESSIONS = ("auto_supersede", "manual_supersede", "proposal_approved")

# What each operation may be answered (besides client-side timeouts). 503 only near a DB fault.
ALLOWED = {
    "write_auto": {200, 201, 409, 503},
    "write_async": {201, 409, 503},
    "write_plain": {200, 201, 503},
    "write_no_auto": {201, 409, 503},
    "write_excluded": {201, 409, 503},
    "write_backdated": {200, 201, 409, 503},
    "duplicate_send": {200, 201, 409, 503},
    "supersede": {201, 409, 503},
    "supersede_link": {201, 409, 422, 503},
    "revert": {200, 409, 503},
    "approve": {201, 409, 503},
    "events_list": {200, 503},
    "audit_list": {200, 503},
    "read_list": {200, 503},
    "read_get": {200, 404, 503},
    "read_history": {200, 404, 503},
}
# How long after a database fault a 503 still counts as caused by it (the pool reconnects with
# backoff after a restart; a terminated backend only fails what was running on it).
GRACE_S = {"db_restart": 20.0, "pg_terminate_backend": 5.0}


@dataclass
class Findings:
    violations: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def fail(self, text: str) -> None:
        self.violations.append(text)


def _short(value: Any, n: int = 240) -> str:
    text = json.dumps(value, default=str, sort_keys=True) if not isinstance(value, str) else value
    return text if len(text) <= n else text[:n] + "..."


# ---------------------------------------------------------------------------- HTTP statuses


def check_statuses(result: RunResult, findings: Findings) -> None:
    ledger = result.ledger
    windows = [(f.start - 0.5, f.end + GRACE_S.get(f.kind, 5.0)) for f in ledger.faults]
    bad_503 = 0
    for a in ledger.attempts:
        if isinstance(a.status, str):
            continue
        if a.status >= 500 and a.status != 503:
            findings.fail(f"{a.op} {a.method} {a.path} answered {a.status}: {a.detail}")
        elif a.status == 503:
            if not any(a.t0 <= end and a.t1 >= start for start, end in windows):
                bad_503 += 1
                if bad_503 <= 5:
                    findings.fail(f"{a.op} answered 503 away from any database fault: {a.detail}")
            if not a.retry_after or not a.retry_after.strip().isdigit():
                findings.fail(f"{a.op} answered 503 without a usable Retry-After ({a.retry_after!r})")
            if a.error_code != "unavailable":
                findings.fail(f"{a.op} answered 503 with code {a.error_code!r}")
        elif a.status not in ALLOWED.get(a.op, set()) and a.status >= 300:
            findings.fail(f"{a.op} {a.method} {a.path} answered {a.status} ({a.error_code}: {a.detail})")
        if a.status >= 300 and not a.envelope_ok:
            findings.fail(f"{a.op} answered {a.status} without the error envelope: {a.detail}")
        if a.status == 409 and "different request body" in a.detail:
            findings.fail(f"{a.op}: a retry with the same body was refused as a different body")
    if bad_503 > 5:
        findings.fail(f"... {bad_503} answers of 503 away from database faults in all")
    # Once a key was answered, its request is no longer in progress: a retry gets that answer.
    answered_at: dict[str, float] = {}
    for a in ledger.attempts:
        if a.key and a.status in (200, 201):
            answered_at[a.key] = min(a.t1, answered_at.get(a.key, a.t1))
    for a in ledger.attempts:
        if (
            a.key in answered_at
            and a.status == 409
            and "in progress" in a.detail
            and a.t0 > answered_at[a.key]
        ):
            findings.fail(f"{a.op}: key {a.key} was answered, then a retry was told it is still in progress")
            break
    for op, first, second in ledger.duplicate_sends:
        if first and second and first[0] in (200, 201) and second[0] in (200, 201) and first != second:
            findings.fail(
                f"{op}: the same Idempotency-Key got two different answers: "
                f"{_short(first)} / {_short(second)}"
            )
    findings.violations.extend(f"client saw: {text}" for text in ledger.anomalies)
    # While the database was down, the service answered 503 + Retry-After + envelope (or waited).
    if result.db_faults_done.count("restart") and not ledger.probes:
        findings.fail("nobody asked the service anything while the database was down")
    for probe in ledger.probes:
        status = probe["status"]
        if status == 200:
            continue
        body = probe.get("body")
        envelope = isinstance(body, dict) and isinstance(body.get("error"), dict)
        if status != 503 or not envelope or not str(probe.get("retry_after") or "").isdigit():
            findings.fail(
                f"while the database was down the service answered {status} "
                f"(Retry-After {probe.get('retry_after')!r}): {_short(body)}"
            )


# ---------------------------------------------------------------------------- the database


def _load(conn: psycopg.Connection, tenant_ids: list[str]) -> tuple[list[dict], list[dict]]:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT version_id, memory_id::text AS memory_id, tenant_id::text AS tenant_id, topic, content,
                      metadata->>'soak_token' AS token, valid_from, valid_to,
                      superseded_by::text AS superseded_by, supersedes::text AS supersedes, recorded_at, recorded_to
               FROM memory_versions WHERE tenant_id::text = ANY(%s)
               ORDER BY memory_id, recorded_at, version_id""",
            (tenant_ids,),
        )
        versions = cur.fetchall()
        cur.execute(
            """SELECT id::text AS id, tenant_id::text AS tenant_id, type, created_at, memory_id::text AS memory_id,
                      superseded_id::text AS superseded_id, reverts_event_id::text AS reverts_event_id,
                      resolves_event_id::text AS resolves_event_id, details
               FROM audit_events WHERE tenant_id::text = ANY(%s)""",
            (tenant_ids,),
        )
        events = cur.fetchall()
    return versions, events


def check_database(conn: psycopg.Connection, result: RunResult, findings: Findings) -> None:
    ledger = result.ledger
    tenant_ids = [t.tenant_id for t in result.tenants]
    tenant_of_index = {t.index: t.tenant_id for t in result.tenants}
    versions, events = _load(conn, tenant_ids)

    by_memory: dict[str, list[dict]] = defaultdict(list)
    for v in versions:
        by_memory[v["memory_id"]].append(v)
    believed = {}
    for memory_id, vs in by_memory.items():
        open_versions = [v for v in vs if v["recorded_to"] is None]
        if len(open_versions) != 1:
            findings.fail(f"memory {memory_id} has {len(open_versions)} believed versions")
        else:
            believed[memory_id] = open_versions[0]
        # Transaction time of one memory: contiguous, never overlapping.
        for a, b in itertools.pairwise(vs):
            if a["recorded_to"] != b["recorded_at"]:
                findings.fail(
                    f"memory {memory_id}: version recorded {a['recorded_at']}..{a['recorded_to']} "
                    f"is followed by one recorded at {b['recorded_at']}"
                )
        if len({(v["tenant_id"], v["content"], v["topic"], v["token"]) for v in vs}) != 1:
            findings.fail(f"memory {memory_id}: versions disagree on tenant, content, topic or metadata")
    events_by_id = {e["id"]: e for e in events}
    rejected = {
        (e["tenant_id"], e["memory_id"], (e["details"] or {}).get("content"))
        for e in events
        if e["type"] == "duplicate_rejected"
    }
    manual = {
        (e["tenant_id"], e["memory_id"], e["superseded_id"])
        for e in events
        if e["type"] == "manual_supersede"
    }

    # ------------------------------------------------ every token at most once; acknowledged ones exactly once
    memories_of_token: dict[str, set[str]] = defaultdict(set)
    for memory_id, vs in by_memory.items():
        token = vs[0]["token"]
        if token is None:
            findings.fail(f"memory {memory_id} carries no soak token: nobody here wrote it")
            continue
        memories_of_token[token].add(memory_id)
        sent_by = ledger.sent_tokens.get(token)
        if sent_by is None:
            findings.fail(f"memory {memory_id} has a token no client sent: {token}")
        elif tenant_of_index[sent_by] != vs[0]["tenant_id"]:
            findings.fail(f"memory {memory_id} landed in another tenant than its writer's")
    for token, ids in memories_of_token.items():
        if len(ids) > 1:
            findings.fail(f"token {token} was written {len(ids)} times: {sorted(ids)}")

    lost: list[str] = []
    acked = Counter()
    for ack in ledger.acks:
        tenant_id = tenant_of_index[ack.tenant]
        acked[f"{ack.kind} {ack.status}"] += 1
        if ack.kind == "write" and ack.status == 201:
            memory_id = ack.body["memory"]["id"]
            if memories_of_token.get(ack.token) != {memory_id}:
                lost.append(
                    f"write {ack.token}: answered 201 as {memory_id}, database has "
                    f"{sorted(memories_of_token.get(ack.token, ()))}"
                )
            supersession = (ack.body.get("auto_supersede") or {}).get("supersession")
            if supersession:
                event = events_by_id.get(supersession["audit_event_id"])
                if (
                    event is None
                    or event["type"] != "auto_supersede"
                    or event["tenant_id"] != tenant_id
                    or event["superseded_id"] != supersession["superseded_id"]
                    or memory_id not in (event["memory_id"], event["superseded_id"])
                ):
                    lost.append(
                        f"write {ack.token}: reported supersession has no matching audit event: "
                        f"{_short(supersession)} / {_short(event)}"
                    )
        elif ack.kind == "write" and ack.status == 200:
            duplicate_of = ack.body.get("duplicate_of")
            if duplicate_of not in by_memory or by_memory[duplicate_of][0]["tenant_id"] != tenant_id:
                lost.append(
                    f"write {ack.token}: 200 duplicate of {duplicate_of}, which is not this tenant's memory"
                )
            if memories_of_token.get(ack.token):
                findings.fail(f"write {ack.token}: answered 200 duplicate, yet it was stored")
            if (tenant_id, duplicate_of, ack.request["content"]) not in rejected:
                lost.append(f"write {ack.token}: 200 duplicate without its duplicate_rejected audit event")
        elif ack.kind == "supersede":
            new_id, old_id = ack.body["memory"]["id"], ack.body["superseded"]["id"]
            if ack.token is not None and memories_of_token.get(ack.token) != {new_id}:
                lost.append(
                    f"supersede {ack.token}: answered 201 as {new_id}, database has "
                    f"{sorted(memories_of_token.get(ack.token, ()))}"
                )
            if (tenant_id, new_id, old_id) not in manual:
                lost.append(f"supersede {old_id} -> {new_id}: answered 201, no manual_supersede event")
        elif ack.kind == "approve":
            event = events_by_id.get(ack.body["event"]["id"])
            if (
                event is None
                or event["type"] != "proposal_approved"
                or event["resolves_event_id"] != ack.request["proposal_id"]
                or event["memory_id"] != ack.body["memory"]["id"]
                or event["superseded_id"] != ack.body["superseded"]["id"]
            ):
                lost.append(
                    f"approval of {ack.request['proposal_id']}: answered 201, database has {_short(event)}"
                )
        elif ack.kind == "revert":
            event = events_by_id.get(ack.body["event"]["id"])
            if (
                event is None
                or event["type"] != "revert"
                or event["reverts_event_id"] != ack.request["event_id"]
                or event["memory_id"] != ack.body["restored"]["id"]
            ):
                lost.append(
                    f"revert of {ack.request['event_id']}: answered 200, database has {_short(event)}"
                )
    findings.violations.extend(f"lost: {text}" for text in lost)
    findings.stats["acknowledged"] = dict(acked)
    findings.stats["acknowledged_writes"] = sum(n for k, n in acked.items() if k.startswith("write"))
    findings.stats["acknowledged_changes"] = sum(acked.values())
    findings.stats["lost_writes"] = len(lost)
    unacked = ledger.unacked_tokens
    # A keyed write that was stored is answered to its retries: they are not told "in progress"
    # until the client gives up (its key would be stuck so: run_once records a committed call's
    # answer even when the database went away just after the commit).
    last_attempt: dict[str, Any] = {}
    for a in sorted(ledger.attempts, key=lambda a: a.t0):
        if a.key and a.key[2:] in unacked and memories_of_token.get(a.key[2:]):
            last_attempt[a.key] = a
    for key, a in last_attempt.items():
        if a.status == 409 and "in progress" in a.detail:
            findings.fail(
                f"{a.op} {key}: stored, yet its retries were told it was in progress until the client gave up"
            )
    findings.stats["unacknowledged_writes"] = len(unacked)
    findings.stats["unacknowledged_but_stored"] = sum(1 for t in unacked if memories_of_token.get(t))

    # ------------------------------------------------ every supersession has its audit event, and vice versa
    expected: Counter = Counter()
    for memory_id, vs in by_memory.items():
        previous = None
        for v in vs:
            now = v["superseded_by"]
            if now != previous:
                if previous is None:
                    expected[("supersede", memory_id, now, v["recorded_at"])] += 1
                elif now is None:
                    expected[("revert", memory_id, previous, v["recorded_at"])] += 1
                else:
                    findings.fail(
                        f"memory {memory_id}: superseded_by changed {previous} -> {now} without a revert"
                    )
            previous = now
    actual: Counter = Counter()
    for e in events:
        if e["type"] in SUPERSESSIONS:
            actual[("supersede", e["superseded_id"], e["memory_id"], e["created_at"])] += 1
        elif e["type"] == "revert":
            actual[("revert", e["memory_id"], e["superseded_id"], e["created_at"])] += 1
            reverted = events_by_id.get(e["reverts_event_id"] or "")
            if (
                reverted is None
                or reverted["type"] not in SUPERSESSIONS
                or (reverted["superseded_id"], reverted["memory_id"]) != (e["memory_id"], e["superseded_id"])
                or reverted["created_at"] >= e["created_at"]
            ):
                findings.fail(
                    f"revert event {e['id']} does not undo the event it names ({e['reverts_event_id']})"
                )
    for item in expected - actual:
        findings.fail(f"a supersession change without its audit event: {item}")
    for item in actual - expected:
        findings.fail(f"an audit event without its supersession change: {item}")
    findings.stats["supersessions"] = sum(1 for e in events if e["type"] in SUPERSESSIONS)
    findings.stats["events_by_type"] = dict(Counter(e["type"] for e in events))

    # ------------------------------------------------ tenants, excluded topics
    for e in events:
        for memory_id in (e["memory_id"], e["superseded_id"]):
            if memory_id and (
                memory_id not in by_memory or by_memory[memory_id][0]["tenant_id"] != e["tenant_id"]
            ):
                findings.fail(f"audit event {e['id']} names memory {memory_id} outside its tenant")
        if e["type"] in ("auto_supersede", "duplicate_rejected"):
            topics = {
                by_memory[m][0]["topic"] for m in (e["memory_id"], e["superseded_id"]) if m in by_memory
            }
            if topics & EXCLUDED_TOPICS:
                findings.fail(f"{e['type']} event {e['id']} touched an excluded category: {topics}")
    if result.excluded_seen_by_model:
        findings.fail(f"the model was shown excluded-topic facts {result.excluded_seen_by_model} times")

    # ------------------------------------------------ lineages (believed now): one current, no overlap
    parent = {m: m for m in believed}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for memory_id, v in believed.items():
        for other in (v["superseded_by"], v["supersedes"]):
            if other is None:
                continue
            if other not in believed or believed[other]["tenant_id"] != v["tenant_id"]:
                findings.fail(f"memory {memory_id} links to {other}, not a memory of its tenant")
                continue
            parent[find(memory_id)] = find(other)
        if v["superseded_by"] is not None:
            successor = believed.get(v["superseded_by"])
            if successor is not None:
                if v["valid_to"] != successor["valid_from"]:
                    findings.fail(
                        f"memory {memory_id}: valid_to {v['valid_to']} is not its successor's "
                        f"valid_from {successor['valid_from']}"
                    )
                if successor["supersedes"] != memory_id:
                    findings.fail(
                        f"memory {memory_id} is superseded by {v['superseded_by']}, which does not "
                        f"say it supersedes it ({successor['supersedes']})"
                    )
            if v["valid_to"] is None:
                findings.fail(f"memory {memory_id} is superseded yet still valid")
        if (
            v["supersedes"] is not None
            and believed.get(v["supersedes"], {}).get("superseded_by") != memory_id
        ):
            findings.fail(
                f"memory {memory_id} says it supersedes {v['supersedes']}, which is not superseded by it"
            )
    lineages: dict[str, list[dict]] = defaultdict(list)
    for memory_id, v in believed.items():
        lineages[find(memory_id)].append(v)
    longest = 0
    for members in lineages.values():
        longest = max(longest, len(members))
        current = [v for v in members if v["valid_to"] is None and v["superseded_by"] is None]
        if len(members) > 1 and len(current) > 1:
            findings.fail(
                f"a lineage has {len(current)} current memories: {[v['memory_id'] for v in current]}"
            )
        spans = sorted((v["valid_from"], v["valid_to"]) for v in members)
        for (a_from, a_to), (b_from, _) in itertools.pairwise(spans):
            if a_to is None or a_to > b_from:
                findings.fail(
                    f"overlapping validity in a lineage of {len(members)}: "
                    f"[{a_from}, {a_to}) and from {b_from}"
                )
                break
    findings.stats["lineages"] = sum(1 for m in lineages.values() if len(m) > 1)
    findings.stats["longest_lineage"] = longest
    findings.stats["memories"] = len(by_memory)
    findings.stats["versions"] = len(versions)


# ---------------------------------------------------------------------------- asynchronous Level 2

# A job's decision is one audit event of these types (its details name the job).
DECISIONS = ("auto_supersede", "supersession_proposed", "auto_supersede_completed")
# What a job may end as (migration 0020, write_path/deferred.py): an outcome, or a skipped reason.
JOB_OUTCOMES = {
    "superseded",
    "proposed",
    "not_acted",
    "candidate_changed",
    "memory_changed",
    "failed",
    "no_candidates",
    "excluded_category",
    "level_2_disabled_by_env",
    "budget_exhausted",
    "classifier_error",
}


def check_jobs(conn: psycopg.Connection, result: RunResult, findings: Findings) -> None:
    """Every asynchronous write's job decided exactly once, after the service went quiet: done,
    with one decision audit event that is the job's own, and the write kept whatever the
    classifier did; no job for anything but a stored async write of an allowed topic."""
    ledger = result.ledger
    tenant_ids = [t.tenant_id for t in result.tenants]
    tenant_of_index = {t.index: t.tenant_id for t in result.tenants}
    versions, events = _load(conn, tenant_ids)
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT id::text AS id, tenant_id::text AS tenant_id, memory_id::text AS memory_id, status,
                      attempts, outcome, audit_event_id::text AS audit_event_id, lease_until,
                      lease_until < clock_timestamp() AS lease_passed
               FROM level2_jobs WHERE tenant_id::text = ANY(%s)""",
            (tenant_ids,),
        )
        jobs = {j["id"]: j for j in cur.fetchall()}
    first: dict[str, dict] = {}
    believed: set[str] = set()
    for v in versions:
        first.setdefault(v["memory_id"], v)
        if v["recorded_to"] is None:
            believed.add(v["memory_id"])
    decisions: dict[str, list[dict]] = defaultdict(list)
    for e in events:
        job_id = (e["details"] or {}).get("job_id")
        if job_id is None or e["type"] not in DECISIONS:
            continue
        decisions[job_id].append(e)
        if job_id not in jobs:
            findings.fail(f"{e['type']} event {e['id']} names job {job_id}, which does not exist")

    jobs_of_memory = Counter(j["memory_id"] for j in jobs.values())
    for job in jobs.values():
        where = f"job {job['id']} (memory {job['memory_id']})"
        memory = first.get(job["memory_id"])
        if memory is None or memory["tenant_id"] != job["tenant_id"]:
            findings.fail(f"{where}: no memory of its tenant")
            continue
        if memory["token"] not in ledger.async_tokens:
            findings.fail(f"{where}: a job for a write that did not ask for async ({memory['token']})")
        if memory["topic"] in EXCLUDED_TOPICS:
            findings.fail(f"{where}: a job for an excluded topic ({memory['topic']})")
        if memory["memory_id"] not in believed:
            findings.fail(f"{where}: its memory has no believed version")
        if job["status"] != "done":
            findings.fail(
                f"{where} still {job['status']} once the service was quiet: attempts {job['attempts']}, "
                f"lease until {job['lease_until']} (passed: {job['lease_passed']})"
            )
            continue
        if job["outcome"] not in JOB_OUTCOMES:
            findings.fail(f"{where}: done with an unknown outcome {job['outcome']!r}")
        found = decisions.get(job["id"], [])
        if len(found) != 1:
            findings.fail(f"{where}: decided {len(found)} times: {[(e['type'], e['id']) for e in found]}")
            continue
        event = found[0]
        expected_type = {"superseded": "auto_supersede", "proposed": "supersession_proposed"}.get(
            job["outcome"], "auto_supersede_completed"
        )
        details = event["details"] or {}
        if (
            event["id"] != job["audit_event_id"]
            or event["type"] != expected_type
            or details.get("mode") != "async"
            or job["memory_id"] not in (event["memory_id"], event["superseded_id"])
            or (expected_type == "auto_supersede_completed" and details.get("outcome") != job["outcome"])
        ):
            findings.fail(f"{where}: outcome {job['outcome']} recorded by {_short(event)}")
    for memory_id, n in jobs_of_memory.items():
        if n > 1:
            findings.fail(f"memory {memory_id} has {n} jobs: one write, one job")
    # A stored async write of an allowed topic has its job: it committed with the memory.
    for memory_id, v in first.items():
        if (
            v["token"] in ledger.async_tokens
            and v["topic"] not in EXCLUDED_TOPICS
            and not jobs_of_memory[memory_id]
        ):
            findings.fail(f"memory {memory_id} was written async ({v['token']}) and has no job")

    acked_async: set[str] = set()
    for ack in ledger.acks:
        if ack.kind != "write" or ack.status != 201 or ack.request.get("auto_supersede") != "async":
            continue
        job_id = (ack.body.get("auto_supersede") or {}).get("job_id")
        if ack.request.get("topic") in EXCLUDED_TOPICS:
            continue
        acked_async.add(ack.token or "")
        job = jobs.get(job_id or "")
        if (
            job is None
            or job["memory_id"] != ack.body["memory"]["id"]
            or job["tenant_id"] != tenant_of_index[ack.tenant]
        ):
            findings.fail(
                f"write {ack.token}: answered pending with job {job_id}, database has {_short(job)}"
            )
    findings.stats["async_writes_acknowledged"] = len(acked_async)
    # Acknowledged only after a timeout, a 503 or a 409 "in progress": written through a fault.
    faulted = {
        a.key[2:]
        for a in ledger.attempts
        if a.key and a.key[2:] in ledger.async_tokens and a.status not in (200, 201)
    }
    findings.stats["async_writes_acknowledged_after_a_fault"] = len(acked_async & faulted)
    # The writes sent while the database was down (by writers numbered after the clients).
    while_down = {
        ack.token
        for ack in ledger.acks
        if ack.token in acked_async and ack.request["metadata"]["client"] >= ledger.profile.clients
    }
    if result.db_faults_done.count("restart") and len(while_down) != len(result.tenants):
        findings.fail(
            f"of {len(result.tenants)} async writes sent while the database was down, "
            f"{len(while_down)} were stored once it was back"
        )
    findings.stats["jobs"] = len(jobs)
    findings.stats["job_outcomes"] = dict(Counter(j["outcome"] or j["status"] for j in jobs.values()))
    findings.stats["jobs_claimed_again"] = sum(1 for j in jobs.values() if j["attempts"] > 1)


# ---------------------------------------------------------------------------- the change stream

TOKEN = re.compile(r"s[0-9a-f]{6}c\d+n\d+")
# The change event an audit event gives (migrations 0019, 0024; deferred.py): its type, and
# which memory it is about.
CHANGE_OF_AUDIT = {
    "auto_supersede": ("memory.superseded", "superseded_id"),
    "manual_supersede": ("memory.superseded", "superseded_id"),
    "proposal_approved": ("memory.superseded", "superseded_id"),
    "revert": ("memory.reverted", "memory_id"),
    "supersession_proposed": ("proposal.created", "superseded_id"),
    "dependency_proposed": ("proposal.created", "memory_id"),
    "proposal_dismissed": ("proposal.resolved", None),
    "auto_supersede_completed": ("auto_supersede.completed", "memory_id"),
}


def _walk(http: httpx.Client, key: str, after: str | None, limit: int) -> tuple[list[dict], str]:
    """GET /agent/events page after page from `after` until a page comes back empty (the
    service is quiet): the events, and what went wrong (empty when nothing)."""
    seen: list[dict] = []
    cursor = after
    for _ in range(1000):
        params = {"limit": str(limit), **({"after": cursor} if cursor else {})}
        response = http.get("/agent/events", params=params, headers={"Authorization": f"Bearer {key}"})
        if response.status_code != 200:
            return seen, f"answered {response.status_code}: {response.text[:200]}"
        body = response.json()
        if not body.get("next_cursor"):
            return seen, f"gave a page without next_cursor: {_short(body)}"
        cursor = body["next_cursor"]
        if not body["events"]:
            return seen, ""
        seen.extend(body["events"])
    return seen, "did not end"


def check_change_stream(
    conn: psycopg.Connection, base_url: str | None, result: RunResult, findings: Findings
) -> None:
    """Per tenant, the outbox read as the owner: numbered 1..N in commit order, one
    memory.created per memory, one change event per audit event that changes something (and
    none without one), no content in any event. Then the same stream over HTTP: a walk from the
    start, and the walk the clients made during the run carried on to the end, give exactly the
    table's events in its order. `base_url` None: the service is not answering (reported)."""
    tenant_ids = [t.tenant_id for t in result.tenants]
    versions, audit = _load(conn, tenant_ids)
    first: dict[str, dict] = {}  # memory id -> its first version
    for v in versions:
        first.setdefault(v["memory_id"], v)
    tokens = set(result.ledger.sent_tokens)
    counted: Counter = Counter()
    for tenant in result.tenants:
        where = f"tenant {tenant.index}"
        with conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                """SELECT id::text AS id, seq, type, created_at, user_id, agent_id, memory_id::text AS memory_id, data
                   FROM change_events WHERE tenant_id = %s ORDER BY seq NULLS FIRST, id""",
                (tenant.tenant_id,),
            )
            rows = cur.fetchall()
            last = conn.execute(
                "SELECT last_seq FROM change_event_counters WHERE tenant_id = %s", (tenant.tenant_id,)
            ).fetchone()
        counted.update(r["type"] for r in rows)
        seqs = [r["seq"] for r in rows]
        if seqs != list(range(1, len(rows) + 1)):
            expected = set(range(1, len(rows) + 1))
            missing = sorted(expected - set(seqs))[:10]
            beyond = sorted(n for n in set(seqs) - expected if n is not None)[:10]
            repeated = [n for n, c in Counter(seqs).items() if c > 1][:10]
            findings.fail(
                f"{where}: change event numbers are not 1..{len(rows)}: missing {missing}, "
                f"beyond {beyond}, repeated {repeated}, unnumbered {seqs.count(None)}"
            )
        if (last[0] if last else 0) != len(rows):
            findings.fail(f"{where}: the counter says {last} events, the table holds {len(rows)}")
        for a, b in itertools.pairwise(rows):
            if a["created_at"] > b["created_at"]:
                findings.fail(f"{where}: event {b['seq']} committed before event {a['seq']}")
                break
        memories = {m for m, v in first.items() if v["tenant_id"] == tenant.tenant_id}
        created = Counter(r["memory_id"] for r in rows if r["type"] == "memory.created")
        for memory_id in memories | set(created):
            if created[memory_id] != 1:
                findings.fail(f"{where}: memory {memory_id} has {created[memory_id]} memory.created events")
        created_at_seq: dict[str, int] = {}
        for r in rows:
            v = first.get(r["memory_id"])
            if r["type"] != "memory.created" or v is None:
                continue
            created_at_seq.setdefault(r["memory_id"], r["seq"])
            if (r["data"].get("supersedes"), r["data"].get("superseded_by")) != (
                v["supersedes"],
                v["superseded_by"],
            ):
                findings.fail(f"{where}: memory.created of {r['memory_id']} says {_short(r['data'])}")
        by_audit: dict[tuple[str, str], list[dict]] = defaultdict(list)
        completed_of_memory: Counter = Counter()
        for r in rows:
            text = json.dumps(r["data"])
            leaked = [t for t in TOKEN.findall(text) if t in tokens]
            if leaked or "(ref " in text:
                findings.fail(
                    f"{where}: {r['type']} event {r['seq']} carries memory content: {_short(r['data'])}"
                )
            if r["memory_id"] is not None:
                if r["memory_id"] not in memories:
                    findings.fail(
                        f"{where}: {r['type']} event {r['seq']} names memory {r['memory_id']}, not its tenant's"
                    )
                elif created_at_seq.get(r["memory_id"], r["seq"] + 1) > r["seq"]:
                    findings.fail(
                        f"{where}: {r['type']} event {r['seq']} comes before its memory's memory.created"
                    )
            if r["type"] == "auto_supersede.completed":
                completed_of_memory[r["memory_id"]] += 1
            if r["data"].get("event_id"):
                by_audit[(r["type"], r["data"]["event_id"])].append(r)
        for memory_id, n in completed_of_memory.items():
            if n > 1:
                findings.fail(f"{where}: memory {memory_id} was decided {n} times (auto_supersede.completed)")
        matched: set[str] = set()
        for e in audit:
            if e["tenant_id"] != tenant.tenant_id or e["type"] not in CHANGE_OF_AUDIT:
                continue
            change_type, subject = CHANGE_OF_AUDIT[e["type"]]
            wanted = [(change_type, subject)] + (
                [("proposal.resolved", None)] if e["type"] == "proposal_approved" else []
            )
            for change_type, subject in wanted:
                found = by_audit.get((change_type, e["id"]), [])
                if len(found) != 1:
                    findings.fail(
                        f"{where}: {e['type']} event {e['id']} has {len(found)} {change_type} events"
                    )
                    continue
                change = found[0]
                matched.add(change["id"])
                if subject is not None and change["memory_id"] != e[subject]:
                    findings.fail(
                        f"{where}: {change_type} of {e['type']} {e['id']} names memory {change['memory_id']}, "
                        f"not {e[subject]}"
                    )
                if (
                    change_type == "memory.superseded"
                    and change["data"].get("superseded_by") != e["memory_id"]
                ):
                    findings.fail(
                        f"{where}: {change_type} of {e['id']} says superseded by {_short(change['data'])}"
                    )
                if (
                    change_type == "memory.reverted"
                    and change["data"].get("reverted_event_id") != e["reverts_event_id"]
                ):
                    findings.fail(f"{where}: {change_type} of {e['id']} reverts {_short(change['data'])}")
        for r in rows:
            if r["data"].get("event_id") and r["id"] not in matched:
                findings.fail(
                    f"{where}: {r['type']} event {r['seq']} names no audit event of its kind: {_short(r['data'])}"
                )

        if base_url is None:
            continue
        table = [(r["id"], r["type"], r["memory_id"], r["data"]) for r in rows]
        with httpx.Client(base_url=base_url, trust_env=False, timeout=30) as http:
            walked, problem = _walk(http, tenant.key, None, 97)
            if problem:
                findings.fail(f"{where}: GET /agent/events from the start {problem}")
            over_http = [(e["id"], e["type"], e["memory_id"], e["data"]) for e in walked]
            if over_http != table:
                findings.fail(
                    f"{where}: GET /agent/events gave {len(over_http)} events, the table {len(table)}; "
                    f"first difference at {_first_index(over_http, table)}"
                )
            # The walk made during the run, through the faults: a prefix, then the rest from its cursor.
            ids = [r["id"] for r in rows]
            during = list(tenant.stream_seen)
            if during != ids[: len(during)]:
                findings.fail(
                    f"{where}: the walk during the run saw {len(during)} events, not the table's first "
                    f"{len(during)}; first difference at {_first_index(during, ids)}"
                )
            rest, problem = _walk(http, tenant.key, tenant.stream_cursor, 500)
            if problem:
                findings.fail(f"{where}: GET /agent/events from the run's cursor {problem}")
            if during + [e["id"] for e in rest] != ids:
                findings.fail(
                    f"{where}: the run's walk carried on gives {len(during)} + {len(rest)} events, "
                    f"the table {len(ids)}"
                )
        findings.stats.setdefault("events_walked_during_run", {})[tenant.index] = len(during)
    findings.stats["change_events"] = dict(counted)


def _first_index(a: list, b: list) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


# ---------------------------------------------------------------------------- time travel, asked again


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key, "<absent>") != b.get(key, "<absent>"):
                return _first_difference(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items, now {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: {_short(a, 120)} -> {_short(b, 120)}"


def recheck_observations(base_url: str, result: RunResult, findings: Findings) -> None:
    observations = list(result.ledger.observations)
    limit = result.ledger.profile.max_observations
    if len(observations) > limit:
        observations = random.Random(result.ledger.profile.seed).sample(observations, limit)
    keys = {t.index: t.key for t in result.tenants}
    changed = 0
    with httpx.Client(base_url=base_url, trust_env=False, timeout=30) as http:
        for o in observations:
            response = http.get(
                o.path, params=o.params, headers={"Authorization": f"Bearer {keys[o.tenant]}"}
            )
            body = (
                response.json()
                if response.headers.get("content-type", "").startswith("application/json")
                else None
            )
            if response.status_code != o.status or body != o.body:
                changed += 1
                if changed <= 5:
                    findings.fail(
                        f"time travel changed: GET {o.path} {o.params}: was {o.status}, now "
                        f"{response.status_code}; {_first_difference(o.body, body)}"
                    )
    if changed > 5:
        findings.fail(f"... {changed} of {len(observations)} time-travel answers changed in all")
    findings.stats["observations_rechecked"] = len(observations)


# ---------------------------------------------------------------------------- the summary


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summarize(result: RunResult, findings: Findings) -> str:
    ledger = result.ledger
    statuses = Counter(str(a.status) for a in ledger.attempts)
    windows = [(f.start, f.end + GRACE_S.get(f.kind, 5.0)) for f in ledger.faults]
    done = [a for a in ledger.attempts if isinstance(a.status, int)]
    latencies = [(a.t1 - a.t0) * 1000 for a in done]
    under_db = [(a.t1 - a.t0) * 1000 for a in done if any(a.t0 <= e and a.t1 >= s for s, e in windows)]
    db_faults = Counter(f.kind for f in ledger.faults)
    model_faults = {mode: n for mode, n in result.model_requests.items() if mode != "ok"}
    findings.stats.update(
        {
            "requests": len(ledger.attempts),
            "calls": ledger.started,
            "statuses": dict(statuses),
            "p50_ms": round(_percentile(latencies, 50), 1),
            "p99_ms": round(_percentile(latencies, 99), 1),
            "p50_ms_db_faults": round(_percentile(under_db, 50), 1),
            "p99_ms_db_faults": round(_percentile(under_db, 99), 1),
        }
    )
    s = findings.stats
    lines = [
        f"soak profile {ledger.profile.name}: {result.seconds:.1f}s, {ledger.profile.clients} clients, "
        f"{len(result.tenants)} tenants",
        f"  requests {s['requests']} (calls {s['calls']}); by status: "
        + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())),
        f"  faults: database {dict(db_faults)}; model requests answered with a fault {model_faults} "
        f"(garbage kinds {dict(result.garbage_kinds)}); model mode switches {sum(result.model_switches.values())}",
        f"  database down: probes {[(p['status'], p['seconds']) for p in ledger.probes]}; "
        f"first 200 after the restart in {ledger.notes.get('recovery_ms', -1)} ms",
        f"  acknowledged writes {s.get('acknowledged_writes')} (changes in all {s.get('acknowledged_changes')}: "
        f"{s.get('acknowledged')}); lost {s.get('lost_writes')}; "
        f"unacknowledged {s.get('unacknowledged_writes')} (of which stored {s.get('unacknowledged_but_stored')})",
        f"  database: {s.get('memories')} memories, {s.get('versions')} versions, {s.get('supersessions')} "
        f"supersessions, events {s.get('events_by_type')}, lineages {s.get('lineages')} (longest {s.get('longest_lineage')})",
        f"  level 2 jobs {s.get('jobs')} (async writes acknowledged {s.get('async_writes_acknowledged')}): "
        f"outcomes {s.get('job_outcomes')}, claimed again {s.get('jobs_claimed_again')}, "
        f"acknowledged after a fault {s.get('async_writes_acknowledged_after_a_fault')}",
        f"  change stream {s.get('change_events')}; events walked during the run {s.get('events_walked_during_run')}",
        f"  time travel re-checked {s.get('observations_rechecked')}; latency p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms; "
        f"around database faults p50 {s['p50_ms_db_faults']} ms, p99 {s['p99_ms_db_faults']} ms",
        f"  client notes {dict(ledger.notes)}",
        f"  violations {len(findings.violations)}",
    ]
    lines += [f"    - {v}" for v in findings.violations[:40]]
    return "\n".join(lines)
