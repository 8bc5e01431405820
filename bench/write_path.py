"""Section 1: the write path without the model (rules classifier, local lexical embedder).

Directly: aurra_core.write_path.pipeline.write_memory with WriteDependencies, as the integration
tests build them (tests/integration/pipeline_support.py), with the embedder and classifier
wrapped to time them and store.find_candidates wrapped the same way; what remains of a
write's time is its transactions (the key settings read, the insert or supersession and its
audit event, the commits) and Python around them.

Over HTTP: the same writes through `aurra dev` (authorizer, API Gateway event, handler).
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from urllib.parse import urlsplit

from common import PartTimer, TimedClassifier, TimedEmbedder, TimedFindCandidates, new_fact_for, summary

PARTS = ("embed", "search", "classify", "transaction")


def timed_dependencies(store, level2: bool, timer: PartTimer):
    """The write pipeline's dependencies as this section runs it (rules classifier, local
    lexical embedder, the server flag `level2`), the embedder and classifier timed into `timer`,
    over a pool of its own on the store: the caller closes `deps.db`."""
    from aurra_core.classifiers.rules import RulesClassifier
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.storage.db import Database
    from aurra_core.write_path.pipeline import WriteDependencies

    classifier = TimedClassifier(RulesClassifier(), timer)
    return WriteDependencies(
        db=Database(store.url, max_size=2),
        embedder=TimedEmbedder(LexicalEmbedder(384), timer),
        classifier_factory=lambda: classifier,
        flags=EnvFlagSource(level2),
    )


def run_direct(store, writes: int, level2: bool, rng: random.Random, warmup: int = 10) -> dict:
    from aurra_core.models import WriteRequest
    from aurra_core.runtime.observability import metrics
    from aurra_core.write_path.pipeline import write_memory

    timer = PartTimer()
    deps = timed_dependencies(store, level2, timer)
    db = deps.db
    totals: list[float] = []
    parts: dict[str, list[float]] = {p: [] for p in PARTS}
    outcomes = {"classified": 0, "superseded": 0, "duplicates": 0, "no_candidates": 0, "other_skips": 0}
    try:
        with TimedFindCandidates(timer):
            for i in range(warmup + writes):
                caller, _ = rng.choice(store.callers)
                request = WriteRequest(
                    content=new_fact_for(store, caller.tenant_id, rng), topic="general", auto_supersede=True
                )
                timer.reset()
                started = time.perf_counter()
                outcome = write_memory(caller, request, deps)
                total = time.perf_counter() - started
                metrics.clear_metrics()  # what the handler's log_metrics does after each invocation
                if i < warmup:
                    continue
                totals.append(total * 1000)
                known = 0.0
                for part in ("embed", "search", "classify"):
                    parts[part].append(timer.parts.get(part, 0.0) * 1000)
                    known += timer.parts.get(part, 0.0)
                parts["transaction"].append((total - known) * 1000)
                a = outcome.result.auto_supersede
                outcomes["classified"] += bool(a.ran)
                outcomes["superseded"] += a.supersession is not None
                outcomes["duplicates"] += not outcome.result.created
                outcomes["no_candidates"] += a.skipped_reason == "no_candidates"
                outcomes["other_skips"] += a.skipped_reason not in (None, "no_candidates")
    finally:
        db.close()
    mean_total = statistics.fmean(totals)
    return {
        **summary(totals),
        "parts": {
            p: {
                "p50_ms": statistics.median(v),
                "mean_ms": statistics.fmean(v),
                "share": statistics.fmean(v) / mean_total,
            }
            for p, v in parts.items()
        },
        "outcomes": outcomes,
    }


# ---------------------------------------------------------------- the floor


def run_floor(store, writes: int, search: bool, rng: random.Random, warmup: int = 10) -> dict:
    """The floor under a write: one plain psycopg transaction per write on the same store, with
    only what a write must do: insert the row and its vector (into the same table, so the same
    indexes: the tenant's own HNSW graph if it has one, else the shared one, as the insert
    trigger decides for every insert; an own graph with the insert ef_construction the
    maintenance job set on it); with `search`, first the top-3 vector query of the
    candidate step (the same statement through the same index, tenant_indexes.nearest_sql,
    the same ef_search: the index's calibrated one where lower than the setting, the strategy the service would choose for the tenant, decided once
    before timing); the candidate step's
    topic and full-text rankings are not part of the floor. No key settings read, no
    row-level security role, no audit event, no Python around it. Embedding is outside the
    timed part (the service's writes report it as its own part)."""
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.runtime.config import get_config
    from aurra_core.storage import store as memory_store
    from aurra_core.storage import tenant_indexes
    from aurra_core.storage.ids import new_id

    embedder = LexicalEmbedder(384)
    conn = psycopg.connect(store.url)
    register_vector(conn)
    try:
        strategies: dict = {}
        ef_search_of: dict = {}
        for caller, _ in store.callers:
            size = memory_store.count_current(
                conn,
                caller.tenant_id,
                scope=memory_store.UNSCOPED,
                at_most=memory_store.HNSW_MIN_TENANT_MEMORIES + 1,
            )
            # The ef_search the service walks this tenant's index with (its calibrated one,
            # capped by the setting), read from what route sets for the transaction.
            route = tenant_indexes.route(
                conn, caller.tenant_id, ef_search=get_config().candidate_ef_search, calibrated=True
            )
            ef_search_of[caller.tenant_id] = conn.execute(
                "SELECT current_setting('hnsw.ef_search')"
            ).fetchone()[0]
            conn.rollback()
            if size <= memory_store.HNSW_MIN_TENANT_MEMORIES or route == "exact":
                strategies[caller.tenant_id] = None
            else:
                predicate = f"AND {tenant_indexes.SHARED_INDEX_PREDICATE}" if route == "shared" else ""
                strategies[caller.tenant_id] = tenant_indexes.nearest_sql(
                    route,
                    384,
                    "memory_id",
                    f"tenant_id = %(t)s AND recorded_to IS NULL AND valid_to IS NULL {predicate}",
                )
        conn.commit()
        totals: list[float] = []
        for i in range(warmup + writes):
            caller, _ = rng.choice(store.callers)
            content = new_fact_for(store, caller.tenant_id, rng)
            vector = embedder.embed(content)
            hnsw = strategies[caller.tenant_id]
            now = datetime.now(UTC)
            started = time.perf_counter()
            with conn.transaction():
                if search:
                    if hnsw:
                        conn.execute(
                            "SELECT set_config('hnsw.iterative_scan', 'strict_order', true), "
                            "set_config('hnsw.ef_search', %s, true)",
                            (ef_search_of[caller.tenant_id],),
                        )
                        nearest = hnsw
                    else:
                        nearest = """SELECT memory_id, embedding <=> %(q)s FROM memory_versions
                                     WHERE tenant_id = %(t)s AND recorded_to IS NULL AND valid_to IS NULL
                                     ORDER BY (embedding <=> %(q)s) + 0 LIMIT %(limit)s"""
                    conn.execute(
                        nearest, {"t": caller.tenant_id, "q": vector, "limit": 3}, prepare=False
                    ).fetchall()
                conn.execute(
                    """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, metadata,
                           embedding, valid_from, recorded_at)
                       VALUES (%s, %s, %s, 'general', '{}', %s, %s, %s)""",
                    (new_id(), caller.tenant_id, content, vector, now, now),
                )
            if i >= warmup:
                totals.append((time.perf_counter() - started) * 1000)
    finally:
        conn.close()
    return summary(totals)


# ---------------------------------------------------------------- over HTTP (aurra dev)


class DevServerHandle:
    """`aurra dev` in a subprocess on 127.0.0.1, port 0, against the given database
    (tests/e2e/dev_server.py's start_dev_server: AURRA_LEVEL2_ENABLED=true)."""

    def __init__(self, url: str, data_dir, **env: str) -> None:
        import importlib.util

        from common import ROOT

        spec = importlib.util.spec_from_file_location(
            "aurra_bench_dev_server", ROOT / "tests" / "e2e" / "dev_server.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        data_dir.mkdir(parents=True, exist_ok=True)
        self.server = module.start_dev_server(url, data_dir, **env)
        parts = urlsplit(self.server.base_url)
        self.host, self.port = parts.hostname, parts.port
        assert self.host == "127.0.0.1", self.server.base_url

    def stop(self) -> None:
        process = self.server.process
        process.terminate()
        try:
            process.wait(timeout=20)
        except Exception:  # noqa: BLE001 - it would not stop by itself
            process.kill()
            process.wait(timeout=10)


class Client:
    """One keep-alive HTTP/1.1 connection, as an SDK client holds one."""

    def __init__(self, host: str, port: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=60)

    def request(
        self, method: str, path: str, key: str, body: dict | None = None
    ) -> tuple[int, dict, float, float]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        started = time.perf_counter()
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        payload = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        server_ms = float(response.getheader("X-Aurra-Latency-Ms") or "nan")
        return response.status, (json.loads(payload) if payload else {}), elapsed, server_ms

    def close(self) -> None:
        self.conn.close()


def warm_keys(server: DevServerHandle, callers) -> None:
    """The authorizer verifies each key once per process and window: pay it before timing."""
    client = Client(server.host, server.port)
    try:
        for _, raw in callers:
            status, *_ = client.request("GET", "/agent/settings", raw)
            assert status == 200, status
    finally:
        client.close()


def run_http(
    server: DevServerHandle, store, writes: int, level2: bool, rng: random.Random, warmup: int = 10
) -> dict:
    """Level 2 off here is the request's `auto_supersede: false` (the server flag is on)."""
    client = Client(server.host, server.port)
    client_ms, server_ms, statuses = [], [], {}
    try:
        for i in range(warmup + writes):
            caller, raw = rng.choice(store.callers)
            body = {
                "content": new_fact_for(store, caller.tenant_id, rng),
                "topic": "general",
                "auto_supersede": level2,
            }
            status, _, elapsed, on_server = client.request("POST", "/agent/memories", raw, body)
            if i < warmup:
                continue
            statuses[status] = statuses.get(status, 0) + 1
            client_ms.append(elapsed)
            server_ms.append(on_server)
    finally:
        client.close()
    return {**summary(client_ms), "server_side": summary(server_ms), "statuses": statuses}
