"""The end-of-run checks of the soak: what the clients were told against what the database
holds (read directly, as the owner), the supersession/audit invariants, the bi-temporal
invariants, time-travel answers asked again, and every HTTP status the clients saw."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx
import psycopg
from psycopg.rows import dict_row
from soak_run import EXCLUDED, RunResult

EXCLUDED_TOPICS = set(EXCLUDED)
SUPERSESSIONS = ("auto_supersede", "manual_supersede")

# What each operation may be answered (besides client-side timeouts). 503 only near a DB fault.
ALLOWED = {
    "write_auto": {200, 201, 409, 503},
    "write_plain": {200, 201, 503},
    "write_no_auto": {201, 409, 503},
    "write_excluded": {201, 409, 503},
    "write_backdated": {200, 201, 409, 503},
    "duplicate_send": {200, 201, 409, 503},
    "supersede": {201, 409, 503},
    "supersede_link": {201, 409, 422, 503},
    "revert": {200, 409, 503},
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
                      superseded_id::text AS superseded_id, reverts_event_id::text AS reverts_event_id, details
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
        f"  time travel re-checked {s.get('observations_rechecked')}; latency p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms; "
        f"around database faults p50 {s['p50_ms_db_faults']} ms, p99 {s['p99_ms_db_faults']} ms",
        f"  client notes {dict(ledger.notes)}",
        f"  violations {len(findings.violations)}",
    ]
    lines += [f"    - {v}" for v in findings.violations[:40]]
    return "\n".join(lines)
