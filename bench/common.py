"""What the sections of bench/run.py share: the local environment, an embedded PostgreSQL of
the suite's own (in a temp dir), stores bulk-loaded in the three tenant shapes, the machine,
percentiles and the timing wrappers around the parts of the write path."""

from __future__ import annotations

import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
for path in (str(BENCH), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)

# The service's settings as `aurra dev` runs them, whatever the developer's shell says: local
# embedder and its floor, rules classifier, Powertools quiet. Set before aurra_core is imported.
SERVICE_ENV = {
    "AURRA_EMBEDDER": "local",
    "AURRA_CLASSIFIER": "rules",
    "AURRA_EMBEDDING_DIM": "384",
    "AURRA_FLAG_SOURCE": "env",
    "AURRA_STAGE": "local",
}
CLEARED_ENV = (
    "AURRA_CANDIDATE_MIN_SIMILARITY",
    "AURRA_DB_POOL_MAX",
    "AURRA_LEVEL2_ENABLED",
    "ANTHROPIC_BASE_URL",
)


def local_environment() -> None:
    os.environ.update(SERVICE_ENV)
    for name in CLEARED_ENV:
        os.environ.pop(name, None)
    from aurra_local.environment import apply_local_defaults

    apply_local_defaults()


def pct(values: list[float], p: float) -> float:
    from embedders import pct as nearest_rank

    return nearest_rank(values, p) if values else float("nan")


def summary(values_ms: list[float]) -> dict:
    if not values_ms:
        return {"n": 0}
    return {
        "n": len(values_ms),
        "p50_ms": pct(values_ms, 50),
        "p95_ms": pct(values_ms, 95),
        "p99_ms": pct(values_ms, 99),
        "mean_ms": statistics.fmean(values_ms),
        "max_ms": max(values_ms),
    }


def log(message: str) -> None:
    print(message, flush=True)


# ---------------------------------------------------------------- PostgreSQL


class Cluster:
    """One embedded PostgreSQL with pgvector in a temp dir (never a developer's .aurra), one
    database per store, each prepared by the service's own migrations."""

    def __init__(self, shared_buffers: str | None = None, settings: dict[str, str] | None = None) -> None:
        import warnings

        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")  # the server's runtime dir: harmless
        import psycopg
        from psycopg import sql

        from aurra_local.embedded_postgres import EmbeddedPostgres

        self.dir = Path(tempfile.mkdtemp(prefix="aurra-bench-"))
        started = time.perf_counter()
        self._pg = EmbeddedPostgres(self.dir / "pgdata")
        self.start_s = time.perf_counter() - started
        # The embedded server's 128MB cannot hold a 1M-memory HNSW index (~2 GB): its pages
        # would come from the OS cache at every search. A database sized for the store holds it.
        wanted = {**({"shared_buffers": shared_buffers} if shared_buffers else {}), **(settings or {})}
        self.settings = wanted
        if wanted:
            with psycopg.connect(self._pg.url, autocommit=True) as conn:
                for name, value in wanted.items():
                    conn.execute(
                        sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
                    )
            self._pg.stop()
            self._pg = EmbeddedPostgres(self.dir / "pgdata")
        self.url = self._pg.url

    def url_of(self, name: str) -> str:
        from psycopg.conninfo import make_conninfo

        return make_conninfo(self.url, dbname=name)

    def create(self, name: str) -> str:
        import psycopg

        from aurra_core.storage.migrate import apply_migrations

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        url = self.url_of(name)
        apply_migrations(url, 384)
        return url

    def drop(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def facts(self) -> dict:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            pgvector = conn.execute(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
            settings = {
                name: conn.execute(f"SHOW {name}").fetchone()[0]
                for name in (
                    "shared_buffers",
                    "work_mem",
                    "max_parallel_maintenance_workers",
                    "full_page_writes",
                    "wal_compression",
                    *self.settings,
                )
            }
        return {
            "postgres": version,
            "pgvector": pgvector[0] if pgvector else None,
            "postgres_settings": settings,
        }

    def stop(self) -> None:
        try:
            self._pg.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------- stores in tenant shapes


SHAPES = ("small", "ten", "one")


def shape_tenants(shape: str, size: int) -> list[tuple[uuid.UUID, int]]:
    """small: about 100 memories a tenant (the tenant count scales with the store); ten: 10
    tenants of size/10; one: a single tenant holding the whole store."""
    if shape == "small":
        count = max(1, round(size / 100))
        per = [size // count + (1 if i < size % count else 0) for i in range(count)]
    elif shape == "ten":
        per = [size // 10 + (1 if i < size % 10 else 0) for i in range(10)]
    else:
        per = [size]
    return [(uuid.uuid4(), n) for n in per]


def shape_label(shape: str, size: int) -> str:
    tenants = shape_tenants(shape, size) if shape != "small" else None
    if shape == "small":
        count = max(1, round(size / 100))
        return f"{count:,} tenants x ~{size // count:,}"
    return f"{len(tenants)} tenant{'s' if len(tenants) > 1 else ''} x {tenants[0][1]:,}"


@dataclass
class Store:
    shape: str
    size: int
    label: str
    db_name: str
    url: str
    tenants: list[tuple[uuid.UUID, int]]
    names_of: dict
    load_s: float
    index_s: float
    tenant_indexes: int = 0  # tenants given their own HNSW index (aurra_core.storage.tenant_indexes)
    tenant_index_s: float = 0.0
    # Each own index's calibration by the maintenance job (tenant_indexes.calibrate): its
    # ef_search, recall@3, seconds (in tenant_index_s).
    calibrated: list = field(default_factory=list)
    callers: list = field(default_factory=list)  # (Caller, raw key) for the tenants written to


def create_shared_index(conn, m: int | None = None, ef_construction: int | None = None) -> None:
    """The shared HNSW index as migration 0011 makes it (pgvector's default build parameters,
    unless given): over the current rows of tenants without an index of their own."""
    from aurra_core.storage.tenant_indexes import SHARED_INDEX, SHARED_INDEX_PREDICATE

    params = (
        f" WITH (m = {int(m)}, ef_construction = {int(ef_construction)})" if m and ef_construction else ""
    )
    conn.execute(
        f"CREATE INDEX {SHARED_INDEX} ON memory_versions USING hnsw (embedding vector_cosine_ops){params} "
        f"WHERE {SHARED_INDEX_PREDICATE} AND recorded_to IS NULL AND valid_to IS NULL"
    )


def build_store(
    cluster: Cluster,
    shape: str,
    size: int,
    rng: random.Random,
    *,
    tenant_indexes: bool = True,
    build_own_indexes: bool = True,
    tenants: list[tuple[uuid.UUID, int]] | None = None,
) -> Store:
    """The store as production would have it at this size, loaded in bulk: the tenants the
        maintenance job would give their own index (aurra_core.storage.tenant_indexes.choose, unless told
        not to) listed before their memories arrive, so those rows are out of the shared index as
        the job would have moved them; COPY; the shared HNSW index built after the load (over the
        other tenants' rows); the listed tenants' own indexes built by the job itself
        (tenant_indexes.maintain, with the configured build parameters); then VACUUM ANALYZE (what
        autovacuum would have done by then) so the planner sees the real shape. Without
    `build_own_indexes` the listed tenants are left without their index (for a caller that
    builds its own). `tenants` (id, memories) replaces the shape's."""
    import psycopg
    from candidate_search import load
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.runtime.config import get_config
    from aurra_core.storage import tenant_indexes as own_indexes
    from aurra_core.storage.store import HNSW_MIN_TENANT_MEMORIES

    label = shape_label(shape, size)
    if tenants:
        label = f"{len(tenants)} tenant{'s' if len(tenants) > 1 else ''} x {tenants[0][1]:,}"
    name = f"bench_{shape}_{size}" if not tenants else f"bench_{len(tenants)}x{tenants[0][1]}"
    url = cluster.create(name)
    tenants = tenants or shape_tenants(shape, size)
    listed: list = []
    if tenant_indexes:
        listed, _ = own_indexes.choose(
            dict(tenants), min_memories=HNSW_MIN_TENANT_MEMORIES, limit=get_config().tenant_index_limit
        )
    with psycopg.connect(url) as conn:
        register_vector(conn)
        conn.execute(f"DROP INDEX {own_indexes.SHARED_INDEX}")
        conn.commit()
        started = time.perf_counter()
        names_of = load(
            conn,
            tenants,
            LexicalEmbedder(384),
            rng,
            after_tenants=lambda c: own_indexes.list_tenants(c, listed),
        )
        load_s = time.perf_counter() - started
        conn.execute("SET maintenance_work_mem = '4GB'")
        started = time.perf_counter()
        create_shared_index(conn)
        conn.commit()
        index_s = time.perf_counter() - started
    # What the scheduled maintenance function then does: the listed tenants' own indexes.
    started = time.perf_counter()
    # The job calibrates each index it builds (its ef_search), as the scheduled run does.
    maintained = own_indexes.maintain(url) if tenant_indexes and build_own_indexes else None
    built = len(maintained.built) if maintained else 0
    calibrated = maintained.calibrated if maintained else []
    tenant_index_s = time.perf_counter() - started
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE memory_versions")
        conn.execute("VACUUM ANALYZE tenants")
    return Store(
        shape,
        size,
        label,
        name,
        url,
        tenants,
        names_of,
        load_s,
        index_s,
        tenant_indexes=built,
        tenant_index_s=tenant_index_s,
        calibrated=calibrated,
    )


def build_one_tenant(cluster: Cluster, size: int, rng: random.Random) -> Store:
    """A store of one tenant of `size` (`build_store`'s "one" shape), saying how long it took and
    how the maintenance job calibrated the tenant's own index."""
    started = time.perf_counter()
    store = build_store(cluster, "one", size, rng)
    print(
        f"built {store.label} in {time.perf_counter() - started:.0f} s; calibration: {store.calibrated}",
        flush=True,
    )
    return store


def make_keys(store: Store, how_many: int, rng: random.Random) -> list:
    """A key (and its settings) for `how_many` of the store's tenants, through the service's
    own keys.create_key (bulk-loaded tenants are named bench-<id>, which it finds)."""
    from aurra_core.access import keys
    from aurra_core.storage.db import Database

    chosen = store.tenants if len(store.tenants) <= how_many else rng.sample(store.tenants, how_many)
    db = Database(store.url, max_size=1)
    try:
        with db.transaction() as conn:
            store.callers = [keys.create_key(conn, f"bench-{tenant_id}") for tenant_id, _ in chosen]
    finally:
        db.close()
    return store.callers


def new_fact_for(store: Store, tenant_id, rng: random.Random) -> str:
    from candidate_search import NAMES, fact

    return fact(rng, rng.choice(store.names_of.get(tenant_id) or NAMES))


# ---------------------------------------------------------------- the top 3, its recall, one insert


def top3(conn, tenant_id, q, strategy: str, **tuning) -> list:
    """The service's candidate search for a tenant's top 3 with no floor, scope or excluded
    topic: (row, similarity) pairs. `strategy="exact"` is the ground truth; `tuning` takes
    find_candidates' own (ef_search)."""
    from aurra_core.storage import store

    return store.find_candidates(
        conn,
        tenant_id,
        q,
        scope=store.UNSCOPED,
        excluded_topics=[],
        limit=3,
        min_similarity=-1,
        strategy=strategy,
        **tuning,
    )


def recall_at_3(similarities: list[float], truth: list[float]) -> float:
    """Recall@3 of a search's similarities against the exact top 3's. Ties are common (the same
    fact stated twice), so a hit is any result at least as similar as the true third: recall by
    similarity, not by id."""
    bar = min(truth) - 1e-6 if truth else 1.0
    return min(sum(1 for s in similarities if s >= bar), len(truth)) / max(len(truth), 1)


def insert_memory(conn, tenant_id, text: str, vector, memory_id: uuid.UUID | None = None) -> None:
    """One memory written as the write path writes it (store.insert_version, topic general,
    valid and recorded from now), in the caller's transaction."""
    from aurra_core.storage import store

    now = datetime.now(UTC)
    store.insert_version(
        conn,
        memory_id=memory_id or uuid.uuid4(),
        tenant_id=tenant_id,
        content=text,
        topic="general",
        metadata={},
        embedding=vector,
        valid_from=now,
        valid_to=None,
        superseded_by=None,
        supersedes=None,
        recorded_at=now,
    )


# ---------------------------------------------------------------- timing the write path's parts


class PartTimer:
    """Seconds spent per part during one write (reset before each)."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}

    def reset(self) -> None:
        self.parts = {}

    def add(self, part: str, seconds: float) -> None:
        self.parts[part] = self.parts.get(part, 0.0) + seconds


class TimedEmbedder:
    def __init__(self, inner, timer: PartTimer) -> None:
        self._inner, self._timer = inner, timer
        self.dim = inner.dim
        self.name = getattr(inner, "name", type(inner).__name__)

    def embed(self, text: str):
        started = time.perf_counter()
        try:
            return self._inner.embed(text)
        finally:
            self._timer.add("embed", time.perf_counter() - started)


class TimedClassifier:
    """Times and counts calls; `on_call` sees each call's arguments (for token estimates)."""

    def __init__(
        self,
        inner,
        timer: PartTimer | None = None,
        on_call: Callable[[str, str, list, str], None] | None = None,
    ) -> None:
        self._inner, self._timer, self._on_call = inner, timer, on_call
        self.calls = 0

    def classify(self, new_content, new_topic, candidates, model):
        self.calls += 1
        if self._on_call:
            self._on_call(new_content, new_topic, list(candidates), model)
        started = time.perf_counter()
        try:
            return self._inner.classify(new_content, new_topic, candidates, model)
        finally:
            if self._timer:
                self._timer.add("classify", time.perf_counter() - started)


class TimedFindCandidates:
    """A thin wrapper around store.find_candidates for the duration of a `with` block (the
    write pipeline calls it through the module, so this is what it runs)."""

    def __init__(self, timer: PartTimer) -> None:
        self._timer = timer

    def __enter__(self):
        from aurra_core.storage import store

        self._original = original = store.find_candidates
        timer = self._timer

        def wrapped(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                timer.add("search", time.perf_counter() - started)

        store.find_candidates = wrapped
        return self

    def __exit__(self, *exc) -> None:
        from aurra_core.storage import store

        store.find_candidates = self._original
