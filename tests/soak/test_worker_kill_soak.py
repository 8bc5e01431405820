"""Asynchronous Level 2 under worker kills: no job lost, none applied twice.

The soak's own embedded PostgreSQL (conftest.py), `aurra dev` with its Level 2 thread off
(`AURRA_LEVEL2_WORKER=false`) and two `aurra worker` processes against the same database,
with Level 2 on and the Claude classifier pointed at the soak's fake Messages API
(fake_model.py), which here waits 300-800 ms before each answer so that jobs are mid-flight
at any moment. Leases are short (3 s) and the workers sweep every 0.5 s, so a job whose
worker died is claimed again within the test.

Concurrent clients write facts with `"auto_supersede": "async"` over three tenants and a few
users each ("<user> <attribute> is <value> (ref <token>)"): most contradict an earlier fact of
the same user (a supersession), others add another attribute (supplements) or repeat a value
(a duplicate, reported and kept). Meanwhile a killer SIGKILLs a worker that has model calls in
flight, every 1-2 s (or as soon as one has, after that), and starts a new one. Each worker
reaches the fake under a path of its own, so the fake knows which jobs (by their fact's token)
the killed worker was waiting on: a call still unanswered once the process is dead, of a job
still pending, is a job cut off mid-decision.

Checks at the end (the workers drained, a bounded wait; a direct connection as the owner):

- every write answered 201 pending with a job; its memory exists exactly once (by its token),
  with one believed version; no memory nobody wrote;
- every job of the run is the job of an acknowledged write, `done`, with its outcome and
  audit event; none left pending; `failed` only past AURRA_LEVEL2_MAX_ATTEMPTS claims;
- each job has exactly one decision event (`auto_supersede`, `supersession_proposed` or
  `auto_supersede_completed` naming its `details.job_id`), the one the job row names, of the
  type its outcome says;
- every change of a memory's `superseded_by` is one `auto_supersede` event at the same
  instant and vice versa; no memory is superseded twice; believed links agree on both ends;
  a lineage has at most one current memory and no overlapping validity;
- the change stream holds exactly one `memory.superseded` per supersession event, one
  `proposal.created` per proposal and one `auto_supersede.completed` per completed decision;
- every job cut off by a kill was claimed again (attempts > 1) and decided once; at least
  three kills cut jobs off (else the run proved nothing), and supersessions happened.

It prints a summary (writes, jobs, outcomes, kills, jobs cut off) and keeps the logs of
`aurra dev` and of every worker in the test's temporary directory.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_model import NEW_FACT, FakeMessagesAPI
from psycopg.rows import dict_row
from soak_infra import REPO, SoakPostgres, start_service

pytestmark = pytest.mark.integration

TENANTS = 3
CLIENTS = 4
USERS = ("ana", "ben", "cy")
ATTRIBUTES = {"editor": ("vim", "emacs"), "city": ("lisbon", "porto", "braga"), "plan": ("free", "pro")}
WRITE_FOR_S = 22.0
# A loaded host starts workers slowly, so fewer kills land mid-job: writing and killing go on
# past WRITE_FOR_S until MID_JOB_KILLS have, up to this long.
WRITE_FOR_AT_MOST_S = 90.0
MID_JOB_KILLS = 3
KILL_EVERY_S = (1.0, 2.0)
MODEL_DELAY_S = (0.3, 0.8)
LEASE_S = 3.0
SWEEP_EVERY_S = 0.5
# The same jobs are cut off again and again (a fresh worker takes the oldest first, and is the
# busy one to kill): well above the kills a job can meet here, so none is given up.
MAX_ATTEMPTS = 20
DRAIN_WITHIN_S = 30.0
TOKEN = re.compile(r"\(ref (\S+?)\)")
DECISIONS = ("auto_supersede", "supersession_proposed", "auto_supersede_completed")


class SlowFakeModel(FakeMessagesAPI):
    """The soak's fake Messages API, answering each call after 300-800 ms, and knowing which
    calls of which worker (the first segment of the path: each worker's own base URL) have
    not been answered yet, by the token of the fact they classify."""

    def __init__(self) -> None:
        super().__init__(seed=11)
        self.waiting: dict[str, dict[int, str]] = defaultdict(dict)
        self._ids = itertools.count()
        self._delays = random.Random(11)

    def _serve(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        worker = handler.path.strip("/").split("/")[0]
        try:
            new_fact = NEW_FACT.search(body["messages"][0]["content"])
        except (KeyError, IndexError, TypeError):
            new_fact = None
        found = TOKEN.search(new_fact.group(1)) if new_fact else None
        call = next(self._ids)
        with self._lock:
            delay = self._delays.uniform(*MODEL_DELAY_S)
            self.waiting[worker][call] = found.group(1) if found else "?"
        try:
            if self._closing.wait(delay):
                return
        finally:
            with self._lock:
                self.waiting[worker].pop(call, None)
        super()._serve(handler, body)

    def unanswered(self, worker: str) -> set[str]:
        with self._lock:
            return set(self.waiting[worker].values())


@dataclass
class WorkerProcess:
    name: str
    process: subprocess.Popen
    log_path: Path


@dataclass
class Workers:
    """The `aurra worker` processes: started, killed mid-job and replaced."""

    pg: SoakPostgres
    fake: SlowFakeModel
    log_dir: Path
    running: list[WorkerProcess] = field(default_factory=list)
    started: int = 0
    kills: list[dict[str, Any]] = field(default_factory=list)

    def start(self) -> WorkerProcess:
        self.started += 1
        name = f"w{self.started}"
        env = {
            **os.environ,
            "AURRA_DATABASE_URL": self.pg.url,
            "AURRA_LEVEL2_ENABLED": "true",
            "AURRA_CLASSIFIER": "anthropic",
            # The worker's own path: the fake knows whose calls are unanswered.
            "ANTHROPIC_BASE_URL": f"{self.fake.url}/{name}",
            "ANTHROPIC_API_KEY": "sk-test",
            "AURRA_CLASSIFIER_TIMEOUT_S": "2",
            "AURRA_LEVEL2_LEASE_S": str(LEASE_S),
            "AURRA_LEVEL2_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
        for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            env.pop(proxy, None)
        log_path = self.log_dir / f"aurra-worker-{name}.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "aurra_local.cli", "worker", "--interval", str(SWEEP_EVERY_S)],
                cwd=REPO,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        worker = WorkerProcess(name, process, log_path)
        self.running.append(worker)
        return worker

    def kill_one_mid_job(self) -> bool:
        """SIGKILL a worker with model calls in flight, and start another; whether one had any."""
        busy = [w for w in self.running if w.process.poll() is None and self.fake.unanswered(w.name)]
        if not busy:
            return False
        victim = random.choice(busy)
        victim.process.send_signal(signal.SIGKILL)
        victim.process.wait(10)
        self.running.remove(victim)
        # Calls still unanswered now the process is dead: it never got these answers. Their jobs
        # still pending were cut off mid-decision (on a loaded machine a call may reach the
        # fake after its worker gave up on it and recorded a classifier error: done, not cut).
        unanswered = sorted(self.fake.unanswered(victim.name))
        with self.pg.connect() as conn:
            rows = conn.execute(
                """SELECT j.id::text FROM level2_jobs j JOIN memory_versions v
                     ON v.tenant_id = j.tenant_id AND v.memory_id = j.memory_id AND v.recorded_to IS NULL
                   WHERE j.status = 'pending' AND v.metadata->>'soak_token' = ANY(%s)""",
                (unanswered,),
            ).fetchall()
        self.kills.append({"worker": victim.name, "unanswered": unanswered, "cut_off": [r[0] for r in rows]})
        self.start()
        return True

    def stop(self) -> None:
        for worker in self.running:
            if worker.process.poll() is None:
                worker.process.terminate()
        for worker in self.running:
            try:
                worker.process.wait(15)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait(5)

    def exited(self) -> list[str]:
        return [f"{w.name}: {w.process.returncode}" for w in self.running if w.process.poll() is not None]


@dataclass
class Ledger:
    lock: threading.Lock = field(default_factory=threading.Lock)
    sent: dict[str, int] = field(default_factory=dict)  # token -> tenant index
    acked: dict[str, dict[str, Any]] = field(default_factory=dict)  # token -> 201 body
    refused: list[str] = field(default_factory=list)


def _writer(
    index: int, base_url: str, keys: list[str], ledger: Ledger, stop: threading.Event, run: str
) -> None:
    """Writes, pacing itself: each fact a user's attribute, most often a new value of one the
    user already has (a contradiction of an earlier fact), else another attribute or the
    same value again."""
    rng = random.Random(index)
    clients = [
        httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {k}"}, trust_env=False, timeout=30)
        for k in keys
    ]
    try:
        for n in itertools.count():
            if stop.is_set():
                return
            tenant = rng.randrange(len(keys))
            user = rng.choice(USERS)
            attribute = rng.choice(list(ATTRIBUTES))
            token = f"k{run}c{index}n{n}"
            body = {
                "content": f"{user} {attribute} is {rng.choice(ATTRIBUTES[attribute])} (ref {token})",
                "topic": "preferences",
                "user_id": user,
                "metadata": {"soak_token": token},
                "auto_supersede": "async",
            }
            with ledger.lock:
                ledger.sent[token] = tenant
            try:
                response = clients[tenant].post("/agent/memories", json=body)
            except httpx.HTTPError as exc:
                with ledger.lock:
                    ledger.refused.append(f"{token}: {type(exc).__name__}")
                continue
            with ledger.lock:
                if response.status_code == 201:
                    ledger.acked[token] = response.json()
                else:
                    ledger.refused.append(f"{token}: {response.status_code} {response.text[:200]}")
            stop.wait(rng.uniform(0.25, 0.55))
    finally:
        for client in clients:
            client.close()


def _killer(workers: Workers, stop: threading.Event, errors: list[BaseException]) -> None:
    rng = random.Random(5)
    try:
        while not stop.wait(rng.uniform(*KILL_EVERY_S)):
            # Wait for a worker to be waiting on the model (the others may still be starting,
            # seconds on a loaded host): a kill then is mid-job.
            while not stop.is_set() and not workers.kill_one_mid_job():
                time.sleep(0.05)
    except BaseException as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


def _drain(pg: SoakPostgres, tenant_ids: list[str]) -> int:
    """Until no job of the run is pending (bounded); how many still are."""
    deadline = time.monotonic() + DRAIN_WITHIN_S
    while True:
        with pg.connect() as conn:
            row = conn.execute(
                "SELECT count(*) FROM level2_jobs WHERE status = 'pending' AND tenant_id::text = ANY(%s)",
                (tenant_ids,),
            ).fetchone()
        pending = int(row[0]) if row else 0
        if pending == 0 or time.monotonic() > deadline:
            return pending
        time.sleep(0.5)


def _check(pg: SoakPostgres, tenant_ids: list[str], ledger: Ledger, workers: Workers) -> dict[str, Any]:
    """Every violation found (in `violations`) and the run's figures."""
    violations: list[str] = []
    fail = violations.append
    with pg.connect() as conn, conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            """SELECT memory_id::text AS memory_id, metadata->>'soak_token' AS token, valid_from, valid_to,
                      superseded_by::text AS superseded_by, supersedes::text AS supersedes,
                      recorded_at, recorded_to
               FROM memory_versions WHERE tenant_id::text = ANY(%s)
               ORDER BY memory_id, recorded_at, version_id""",
            (tenant_ids,),
        )
        versions = cur.fetchall()
        cur.execute(
            """SELECT id::text AS id, memory_id::text AS memory_id, status, attempts, outcome,
                      audit_event_id::text AS audit_event_id
               FROM level2_jobs WHERE tenant_id::text = ANY(%s)""",
            (tenant_ids,),
        )
        jobs = {j["id"]: j for j in cur.fetchall()}
        cur.execute(
            """SELECT id::text AS id, type, created_at, memory_id::text AS memory_id,
                      superseded_id::text AS superseded_id, details
               FROM audit_events WHERE tenant_id::text = ANY(%s)""",
            (tenant_ids,),
        )
        audit = cur.fetchall()
        cur.execute(
            """SELECT type, data->>'event_id' AS event_id FROM change_events
               WHERE tenant_id::text = ANY(%s)""",
            (tenant_ids,),
        )
        changes = cur.fetchall()

    # ------------------------------------------------ every acknowledged write, exactly once
    by_memory: dict[str, list[dict]] = defaultdict(list)
    for v in versions:
        by_memory[v["memory_id"]].append(v)
    memories_of_token: dict[str, set[str]] = defaultdict(set)
    believed: dict[str, dict] = {}
    for memory_id, vs in by_memory.items():
        memories_of_token[vs[0]["token"]].add(memory_id)
        if vs[0]["token"] not in ledger.sent:
            fail(f"memory {memory_id} has a token nobody sent: {vs[0]['token']}")
        open_versions = [v for v in vs if v["recorded_to"] is None]
        if len(open_versions) != 1:
            fail(f"memory {memory_id} has {len(open_versions)} believed versions")
        else:
            believed[memory_id] = open_versions[0]
        for a, b in itertools.pairwise(vs):
            if a["recorded_to"] != b["recorded_at"]:
                fail(f"memory {memory_id}: transaction time is not contiguous")
    job_of_ack: dict[str, str] = {}
    for token, answer in ledger.acked.items():
        memory_id = answer["memory"]["id"]
        block = answer.get("auto_supersede") or {}
        if memories_of_token.get(token) != {memory_id}:
            fail(f"write {token}: answered 201 as {memory_id}, stored as {sorted(memories_of_token[token])}")
        if block.get("status") != "pending" or not block.get("job_id"):
            fail(f"write {token}: answered without a pending job: {block}")
            continue
        job_of_ack[block["job_id"]] = memory_id
    for token, ids in memories_of_token.items():
        if len(ids) > 1:
            fail(f"token {token} stored {len(ids)} times")

    # ------------------------------------------------ every job done, none lost, none foreign
    for job_id, memory_id in job_of_ack.items():
        job = jobs.get(job_id)
        if job is None:
            fail(f"job {job_id} of memory {memory_id} (answered pending) does not exist")
        elif job["memory_id"] != memory_id:
            fail(f"job {job_id} decides about {job['memory_id']}, its write stored {memory_id}")
    for job_id, job in jobs.items():
        if job_id not in job_of_ack:
            fail(f"job {job_id} belongs to no acknowledged write")
        if job["status"] != "done" or job["outcome"] is None or job["audit_event_id"] is None:
            fail(f"job {job_id} is not done: {job}")
        if job["outcome"] == "failed" and job["attempts"] <= MAX_ATTEMPTS:
            fail(f"job {job_id} given up after {job['attempts']} claims (at most {MAX_ATTEMPTS} allowed)")

    # ------------------------------------------------ one decision event per job, the one it names
    decisions: dict[str, list[dict]] = defaultdict(list)
    for e in audit:
        if e["type"] in DECISIONS:
            job_id = (e["details"] or {}).get("job_id")
            if job_id is None:
                fail(f"{e['type']} event {e['id']} names no job (every write here was async)")
            decisions[job_id].append(e)
    expected_type = {"superseded": "auto_supersede", "proposed": "supersession_proposed"}
    for job_id, job in jobs.items():
        found = decisions.get(job_id, [])
        if len(found) != 1:
            fail(f"job {job_id} has {len(found)} decision events: {[(e['type'], e['id']) for e in found]}")
            continue
        event = found[0]
        if event["id"] != job["audit_event_id"]:
            fail(f"job {job_id} names event {job['audit_event_id']}, its decision is {event['id']}")
        if event["type"] != expected_type.get(job["outcome"], "auto_supersede_completed"):
            fail(f"job {job_id}: outcome {job['outcome']} recorded as a {event['type']} event")
        if event["type"] == "auto_supersede_completed" and event["details"].get("outcome") != job["outcome"]:
            fail(f"job {job_id}: outcome {job['outcome']}, its event says {event['details'].get('outcome')}")
    for job_id in decisions.keys() - jobs.keys():
        fail(f"decision events of a job that does not exist: {job_id}")

    # ------------------------------------------------ supersessions and their audit events, one for one
    changed: Counter = Counter()
    for memory_id, vs in by_memory.items():
        previous = None
        for v in vs:
            if v["superseded_by"] != previous:
                if previous is not None:
                    fail(f"memory {memory_id}: superseded_by {previous} -> {v['superseded_by']} (twice)")
                else:
                    changed[(memory_id, v["superseded_by"], v["recorded_at"])] += 1
            previous = v["superseded_by"]
    supersessions = [e for e in audit if e["type"] in ("auto_supersede", "manual_supersede")]
    recorded = Counter((e["superseded_id"], e["memory_id"], e["created_at"]) for e in supersessions)
    for item in changed - recorded:
        fail(f"a supersession without its audit event: {item}")
    for item in recorded - changed:
        fail(f"an audit event without its supersession (or applied twice): {item}")
    for memory_id, n in Counter(e["superseded_id"] for e in supersessions).items():
        if n > 1:
            fail(f"memory {memory_id} superseded {n} times")

    # ------------------------------------------------ lineages: links on both ends, one current
    parent = {m: m for m in believed}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for memory_id, v in believed.items():
        successor = believed.get(v["superseded_by"] or "")
        predecessor = believed.get(v["supersedes"] or "")
        if v["superseded_by"] is not None:
            if successor is None or successor["supersedes"] != memory_id:
                fail(f"memory {memory_id} is superseded by {v['superseded_by']}, which does not say so")
            elif v["valid_to"] != successor["valid_from"]:
                fail(f"memory {memory_id}: valid_to is not its successor's valid_from")
            if successor is not None:
                parent[root(memory_id)] = root(v["superseded_by"])
        if v["supersedes"] is not None and (predecessor is None or predecessor["superseded_by"] != memory_id):
            fail(f"memory {memory_id} says it supersedes {v['supersedes']}, which does not say so")
    lineages: dict[str, list[dict]] = defaultdict(list)
    for memory_id, v in believed.items():
        lineages[root(memory_id)].append(v)
    for members in lineages.values():
        current = [v["memory_id"] for v in members if v["superseded_by"] is None and v["valid_to"] is None]
        if len(current) > 1:
            fail(f"a lineage has {len(current)} current memories: {current}")
        spans = sorted((v["valid_from"], v["valid_to"]) for v in members)
        for (_, a_to), (b_from, _) in itertools.pairwise(spans):
            if a_to is None or a_to > b_from:
                fail(f"overlapping validity in a lineage of {len(members)}")
                break

    # ------------------------------------------------ the change stream: one event per decision
    streamed = Counter((c["type"], c["event_id"]) for c in changes)
    stream_of = {
        "auto_supersede": "memory.superseded",
        "supersession_proposed": "proposal.created",
        "auto_supersede_completed": "auto_supersede.completed",
    }
    for e in audit:
        kind = stream_of.get(e["type"])
        if kind is not None and streamed[(kind, e["id"])] != 1:
            fail(f"{e['type']} event {e['id']} has {streamed[(kind, e['id'])]} {kind} change events")
    audit_ids = {e["id"] for e in audit}
    for (kind, event_id), n in streamed.items():
        if kind in stream_of.values() and event_id not in audit_ids:
            fail(f"{n} {kind} change events of no audit event ({event_id})")

    # ------------------------------------------------ the jobs cut off by a kill: claimed again, decided once
    cut_off = {job_id for kill in workers.kills for job_id in kill["cut_off"]}
    mid_job_kills = sum(1 for kill in workers.kills if kill["cut_off"])
    for job_id in cut_off:
        job = jobs.get(job_id)
        if job is None or job["attempts"] < 2 or job["status"] != "done":
            fail(f"job {job_id} was cut off by a kill, yet is {job}")

    return {
        "violations": violations,
        "writes_sent": len(ledger.sent),
        "writes_acknowledged": len(ledger.acked),
        "jobs": len(jobs),
        "outcomes": dict(Counter(j["outcome"] for j in jobs.values())),
        "attempts": dict(sorted(Counter(j["attempts"] for j in jobs.values()).items())),
        "jobs_claimed_again": sum(1 for j in jobs.values() if j["attempts"] > 1),
        "kills": len(workers.kills),
        "mid_job_kills": mid_job_kills,
        "jobs_cut_off": len(cut_off),
        "supersessions": len(supersessions),
        "model_calls": workers.fake.requests,
        "classifier_errors": [
            e["details"].get("error") or e["details"]
            for e in audit
            if e["type"] == "auto_supersede_completed" and e["details"].get("outcome") == "classifier_error"
        ],
    }


def test_workers_killed_mid_job_lose_no_job_and_apply_none_twice(
    soak_pg: SoakPostgres, new_key, db, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    run = uuid.uuid4().hex[:6]
    keys, tenant_ids = [], []
    for index in range(TENANTS):
        caller, raw = new_key(f"worker-kill-{run}-{index}")
        keys.append(raw)
        tenant_ids.append(str(caller.tenant_id))
    db.close()

    started = time.monotonic()
    fake = SlowFakeModel()
    service = start_service(
        soak_pg.url,
        tmp_path / "aurra",
        tmp_path / "aurra-dev.log",
        AURRA_LEVEL2_ENABLED="true",
        AURRA_LEVEL2_WORKER="false",  # only the `aurra worker` processes decide
        AURRA_CLASSIFIER="anthropic",
        ANTHROPIC_BASE_URL=f"{fake.url}/dev",
        ANTHROPIC_API_KEY="sk-test",
    )
    workers = Workers(soak_pg, fake, tmp_path)
    ledger = Ledger()
    stop_writing, stop_killing = threading.Event(), threading.Event()
    errors: list[BaseException] = []
    try:
        workers.start()
        workers.start()
        writers = [
            threading.Thread(
                target=_writer, args=(i, service.base_url, keys, ledger, stop_writing, run), daemon=True
            )
            for i in range(CLIENTS)
        ]
        killer = threading.Thread(target=_killer, args=(workers, stop_killing, errors), daemon=True)
        for thread in writers:
            thread.start()
        killer.start()
        time.sleep(WRITE_FOR_S)
        until = time.monotonic() + WRITE_FOR_AT_MOST_S - WRITE_FOR_S
        while time.monotonic() < until and (
            sum(1 for kill in list(workers.kills) if kill["cut_off"]) < MID_JOB_KILLS
            or sum(len(kill["cut_off"]) for kill in list(workers.kills)) < MID_JOB_KILLS
        ):
            time.sleep(0.5)
        stop_killing.set()
        killer.join(15)
        stop_writing.set()
        for thread in writers:
            thread.join(35)
        still_pending = _drain(soak_pg, tenant_ids)
        exited = workers.exited()
        report = _check(soak_pg, tenant_ids, ledger, workers)
    finally:
        workers.stop()
        service.stop()
        fake.close()
    report["seconds"] = round(time.monotonic() - started, 1)
    report["still_pending_after_drain"] = still_pending
    (tmp_path / "worker-kill-summary.json").write_text(
        json.dumps({**report, "kill_log": workers.kills}, indent=2, default=str)
    )
    with capsys.disabled():
        print("\nworker-kill soak: " + json.dumps({k: v for k, v in report.items() if k != "violations"}))

    logs = "\n".join(
        f"--- {path.name}\n" + "\n".join(path.read_text(errors="replace").splitlines()[-15:])
        for path in sorted(tmp_path.glob("aurra-worker-*.log"))
    )
    assert not errors, f"the killer failed: {errors!r}"
    assert not exited, f"workers exited by themselves: {exited}\n{logs}"
    assert not ledger.refused, f"writes not acknowledged: {ledger.refused[:10]}\n{service.log_tail()}"
    assert not report["violations"], "\n".join(report["violations"][:40]) + "\n" + logs
    assert still_pending == 0, report
    # A run that killed nobody mid-job, or superseded nothing, proves nothing.
    assert report["mid_job_kills"] >= MID_JOB_KILLS, report
    assert report["jobs_cut_off"] >= MID_JOB_KILLS and report["supersessions"] >= 10, report
