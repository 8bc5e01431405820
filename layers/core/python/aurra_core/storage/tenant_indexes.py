"""Large tenants' own HNSW indexes, kept by a scheduled job; their rows leave the shared one.

The shared HNSW index serves a tenant by filtering the whole graph to that tenant's rows,
and its recall falls as the tenant's share of the index falls (measured in bench/notes/tenant-indexes.md:
10 tenants of 10,000 in one index, recall@3 0.98 even at ef_search 800; the same tenants
with their own index, 1.000 at ef_search 200, in half the time). So each tenant with more
than `min_memories` current memories gets a partial HNSW index over only its current rows,
built with its own parameters (`m`, `ef_construction`: the settings `tenant_index_m` and
`tenant_index_ef_construction`, chosen for recall at a million memories in one tenant).
The index is over `l2_normalize(embedding)::halfvec(dim)`, not `embedding`: half precision
halves the graph (more of it stays in shared buffers, each distance reads half the bytes), so
inserts and searches are both cheaper, for a recall@3 measured unchanged at a million memories
(bench/notes/tenant-indexes.md); and only this index can serve an ORDER BY on that expression, so a search that
asks for it cannot fall back to another index. store.find_candidates asks for it (`nearest_sql`)
when `route` says the tenant's index is valid, and plans with the tenant id as a constant so
the index's predicate matches. The similarity it returns is still computed at full precision.

An own index of the full-precision kind (before half precision: `l2_normalize(embedding)` as
`vector`, under `FULL_PRECISION_PREFIX`) is served until the maintenance job has built its
replacement beside it, then dropped, so an upgrade never leaves a large tenant on exact reads.

One graph per insert: a tenant listed in `tenant_own_indexes` (migration 0010) has its rows
out of the shared index (`in_shared_index` false, set at insert by a trigger from that list),
so its writes enter its own graph only. Moving a tenant in: list it (its new rows leave the
shared index at once), flip its current rows' membership (a change of index membership, not
of a fact: only the table's owner may make it), then build its index, which so holds each
row once. Moving out: mark it leaving (new rows go to the shared index), drop its index, flip
its rows back (each re-enters the shared graph), unlist it. In between the candidate search
reads the tenant exactly (`route`): correct at any point, slower only while a build runs.

Not for every tenant: every index costs planning time on each query of the table, so at most
`limit` tenants, the largest, get one. A tenant holding the whole store gets one too: its
graph is then the only one with its rows, built with the own indexes' parameters. Tenants at
or under `min_memories` are searched exactly and need no index.

Built well, then inserted into cheaply: pgvector reads `ef_construction` from the index's
reloptions at each insert (and each VACUUM's repair of the graph), while `m` is fixed in the
index's metapage at the build. So the graph is built with `tenant_index_ef_construction` (a
good graph for the rows present) and then set to `tenant_index_insert_ef_construction` for the
rows written afterwards (by default 128, under the build's 160: lower values measured no
cheaper per insert, bench/notes/tenant-indexes.md "Own indexes: the insert's ef_construction"). The build's
parameters stay in the index's comment, since its reloptions say the insert's.
Each run sets every kept index whose reloption differs, so a change of the setting (or an
upgrade) reaches the indexes already built; the ALTER takes a moment's exclusive lock on the
index, under a short lock_timeout, so it never queues the table's queries behind a long
transaction (a run that times out leaves it to the next).
A change of the build parameters reaches them too: a kept index whose comment says other
parameters than the settings' is renamed to its retiring name (`RETIRING_PREFIX`, under the
same lock_timeout), its replacement built under the own index's name while the retiring one
serves (`route` reads either), then dropped; one replacement a run (`REPLACEMENTS_PER_RUN`).

Searched with its own ef_search: after each build, and once its tenant has doubled since, the
job calibrates the index (`calibrate`: one rung above the lowest ef_search of a ladder from 100
at which the service's own statement finds the exact top 3 of 200 of the tenant's memories at
recall@3 >= 0.995, or, when none does, one above the lowest with the best recall), stored with
the index's oid in `tenant_own_indexes` (migration 0013); `route` sets it in its one round
trip while that index is the tenant's, capped by the setting `candidate_ef_search`, which is
used where there is none. The memories are easier queries than new facts, so the ladder
starts at 100 with a rung of margin: at the default setting every own index walks 150, what
new facts needed at every size the bench measured (bench/notes/tenant-indexes.md).

Builds run CONCURRENTLY (writes go on), one job at a time (an advisory lock); a build that
died leaves an invalid index, which the next run drops and rebuilds, and a move that died
is finished by the next run.

Each build gets the memory its graph needs (`build_memory_kb`: the tenant's rows times what
pgvector's in-memory graph holds per row, with a margin), at most `tenant_index_build_memory_mb`.
pgvector builds the graph in `maintenance_work_mem` and, once it no longer fits, goes on
inserting on disk, far slower (100,000 rows: 1,152 s in 24 MB, 134 s in memory, the same
recall; bench/notes/tenant-indexes.md "Own indexes: the build's memory"); PostgreSQL gives a build parallel
workers only with 32 MB of it for each; and a parallel build reserves all of
`maintenance_work_mem` as shared memory up front, so a single large value would be reserved
by every small tenant's build too. The
server's default (64 MB in PostgreSQL; on Aurora a fraction of the instance's memory) holds
the graph of a few tens of thousands of rows at m 24, against ~1.7 GB for a tenant of 1M.
pgvector's NOTICE that the graph no longer fits is kept in the build's report.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from uuid import UUID

import psycopg
from psycopg import sql

from aurra_core.models import IndexingState
from aurra_core.storage.db import one_row

INDEX_PREFIX = "memory_versions_embedding_h_"  # + the tenant id in hex: 60 characters of 63
# The own indexes built before half precision (full-precision vectors): read until replaced.
FULL_PRECISION_PREFIX = "memory_versions_embedding_t_"
# An own index built with other parameters than the settings' (the settings changed, or an
# upgrade changed their defaults) takes this name while its replacement is built under the own
# index's; the search reads it meanwhile, and the job drops it once the replacement is valid.
RETIRING_PREFIX = "memory_versions_embedding_r_"
# Own indexes replaced in one run, the largest tenant's first: a build of a large tenant's
# graph takes minutes to tens of minutes, and the indexes being replaced serve meanwhile, so
# nothing is gained by crowding the replacements into one run (each run takes the next).
REPLACEMENTS_PER_RUN = 1
# The graph of a tenant's first own index after an announced import (migration 0026): the shared
# index's (0011), which its rows would otherwise have entered, built several times faster than
# the own indexes' settings at 100,000 rows (bench/notes/portability.md). Its comment says so,
# so the next run replaces it with the settings' graph while it serves.
IMPORT_BUILD = {"m": 16, "ef_construction": 64}
# The shared HNSW index (migration 0011) and what a query must say for the planner to use it.
SHARED_INDEX = "memory_versions_embedding_shared"
SHARED_INDEX_PREDICATE = "in_shared_index"
DEFAULT_LIMIT = 100
# An indexed tenant keeps its index until it shrinks under half the threshold (no churn
# around the threshold).
KEEP_FRACTION = 0.5
# Rows whose index membership one transaction changes (short row locks on a live table).
MOVE_BATCH = 5_000
# How many more of the half-precision walk's nearest are re-ranked at full precision. In the
# bench's stores the farthest of the true top 3 ranked at most 12th in half precision (600
# queries, bench/notes/tenant-indexes.md): 3 + 10 holds it, and a wider margin bought no recall.
RERANK_MARGIN = 10
# How long an ALTER INDEX of the job's (setting the insert ef_construction, renaming an index
# being replaced) may wait for its lock: every query of the table plans with the table's
# indexes, so they queue behind the waiting ALTER.
ALTER_INDEX_LOCK_TIMEOUT = "500ms"
# Calibration (`calibrate`): each own index's ef_search is the lowest of the ladder at which
# the index, searched with the service's own statement, finds the true top 3 of this many of
# its tenant's memories (each the query, itself excluded) at this recall@3 or better. 200
# samples: a miss moves recall@3 by 1/600, so 0.995 allows three.
CALIBRATION_SAMPLES = 200
CALIBRATION_RECALL = 0.995
# The ladder starts at 100 for every index: a memory used as the query is a node of the graph,
# its nearest one link away, so the walk finds them more easily than a new fact's. Calibrated
# from 40, the bench's indexes kept 60-80 and read as low as 0.987 on new facts at 10,000
# (0.987-0.998 a tenant) and 0.983-0.988 at 1M (0.994 at 100, 0.997 at 150), while their
# memories read 0.987-1.000 at 40 (bench/notes/tenant-indexes.md "Calibrated on what"). Queries built to be no
# node (a memory moved toward another) were measured too and tracked new facts at no size.
EF_SEARCH_LADDER = (100, 150, 200, 300, 400)
# Rungs above the lowest that reaches the target (or, when none does, the lowest with the best
# recall), for the same reason: with it the bench's tenants of 10,000 and 1M read 0.990-1.000 on
# new facts.
CALIBRATION_MARGIN_RUNGS = 1
# So no calibration with the default ladder keeps less; a stored value under it is from a version
# that chose lower, and is calibrated again.
LEAST_CALIBRATED_EF_SEARCH = EF_SEARCH_LADDER[CALIBRATION_MARGIN_RUNGS]
# Recalls closer than this are equal (float sums of thirds).
RECALL_EPSILON = 1e-9
# A kept index is calibrated again once its tenant holds this many times the memories it was
# calibrated at (a larger graph can need a longer candidate list; a smaller one never more).
RECALIBRATE_GROWTH = 2.0
# pgvector's in-memory graph per row, beyond its half-precision value (2 bytes a dimension):
# the bottom layer's 2 m neighbours at 16 bytes each (pointer, distance, flag), and the
# element with its upper layers, about 200 bytes. Measured at 384 dimensions and m 32: 24 MB
# filled after 12,624 rows, 1,993 bytes a row (this gives 1,992).
GRAPH_BYTES_PER_NEIGHBOUR = 16
GRAPH_BYTES_PER_ELEMENT = 200
# Rows written during the build, and the parallel build's own structures (3 MB).
BUILD_MEMORY_MARGIN = 1.25
BUILD_MEMORY_FIXED_KB = 8 * 1024
_LOCK = 0x41555252_49445831  # "AURRIDX1"
# One maintenance run at a time; migrations hold it too (migrate.py), so no build runs under them.
MAINTENANCE_LOCK = _LOCK
_CURRENT = "recorded_to IS NULL AND valid_to IS NULL"

# "own_full_precision": the tenant's index is still of the kind built before half precision.
Route = Literal["own", "own_full_precision", "shared", "exact"]


def index_name(tenant_id: UUID) -> str:
    return f"{INDEX_PREFIX}{tenant_id.hex}"


def full_precision_index_name(tenant_id: UUID) -> str:
    return f"{FULL_PRECISION_PREFIX}{tenant_id.hex}"


def retiring_index_name(tenant_id: UUID) -> str:
    return f"{RETIRING_PREFIX}{tenant_id.hex}"


def parameters_comment(m: int, ef_construction: int) -> str:
    """What an own index's comment says of its build (`build_parameters`)."""
    return f"built with m = {int(m)}, ef_construction = {int(ef_construction)}"


def indexed_expression(dim: int) -> str:
    """The key of a tenant's own index; a query orders by exactly this to use it."""
    return f"(l2_normalize(embedding)::halfvec({int(dim)}))"


def full_precision_expression(dim: int) -> str:
    """The key of an own index built before half precision."""
    return f"(l2_normalize(embedding)::vector({int(dim)}))"


def nearest_sql(route: Route, dim: int, columns: str, where: str, *, margin: int = RERANK_MARGIN) -> str:
    """The statement reading, through the route's HNSW index, the `%(limit)s` rows nearest to
    `%(q)s` (a `vector`) that `where` admits: `columns` and `distance` (cosine, at full
    precision), nearest first. For "shared", `where` must say `SHARED_INDEX_PREDICATE`.

    Half precision orders the graph's walk; the walk's nearest `margin` more than asked are
    re-ranked at full precision, so two memories whose distances differ by less than the
    rounding of halfvec come out in their true order."""
    if route == "own":
        return f"""SELECT * FROM (
                       SELECT {columns}, embedding <=> %(q)s AS distance FROM memory_versions
                       WHERE {where}
                       ORDER BY {indexed_expression(dim)} <=> %(q)s::halfvec({int(dim)})
                       LIMIT %(limit)s + {int(margin)}) AS nearest
                   ORDER BY distance, memory_id LIMIT %(limit)s"""
    if route == "own_full_precision":
        key = full_precision_expression(dim)
    elif route == "shared":
        key = "embedding"
    else:
        raise ValueError(f"no HNSW index serves the route {route!r}")
    return f"""SELECT {columns}, embedding <=> %(q)s AS distance FROM memory_versions
               WHERE {where} ORDER BY {key} <=> %(q)s LIMIT %(limit)s"""


def route(
    conn: psycopg.Connection, tenant_id: UUID, *, ef_search: int | None = None, calibrated: bool = False
) -> Route:
    """Which HNSW index holds the tenant's current rows: its own (built and valid; the one being
    replaced, or the full-precision kind, until its replacement is built), the shared one (not
    listed), or neither for sure (listed, its index not yet built or already dropped: a move
    under way), when only an exact scan finds them all. One round trip; with `ef_search`, the
    same statement also sets the HNSW scan for the rest of the transaction (strict order, that
    ef_search), which an exact scan ignores: the search that follows needs no round trip of its
    own for them. With `calibrated`, a tenant whose own index has an ef_search calibrated on it
    (`calibrate`) is searched with that where it is lower: `ef_search` is then the most any
    index is walked with, and the fallback for the shared index and an own index not calibrated
    (yet). Calibration only lowers it because its queries are the index's own rows, not new
    facts: on the bench's 10 tenants of 100,000 (rows stored many times over under the lexical
    embedder) it kept 300-400 for three indexes whose new facts all found their top 3 at 40
    (bench/notes/tenant-indexes.md), which cost their writes a wider walk for nothing."""
    params: dict[str, Any] = {
        "tenant": tenant_id,
        "own": index_name(tenant_id),
        "retiring": retiring_index_name(tenant_id),
        "full_precision": full_precision_index_name(tenant_id),
        "ef_search": None if ef_search is None else int(ef_search),
        "calibrated": calibrated,
    }
    settings = ""
    if ef_search is not None:
        # Row-level security keeps the calibration read to the tenant's own row.
        settings = """, set_config('hnsw.iterative_scan', 'strict_order', true),
                      set_config('hnsw.ef_search', (CASE WHEN %(calibrated)s AND found.valid
                          THEN least(found.calibrated_ef_search, %(ef_search)s)
                          ELSE %(ef_search)s END)::text, true)"""
    listed, valid, full_precision_valid, *_ = one_row(
        conn.execute(
            f"""SELECT found.listed, found.valid, found.full_precision_valid {settings}
                FROM (SELECT EXISTS (SELECT 1 FROM tenant_own_indexes WHERE tenant_id = %(tenant)s) AS listed,
                        coalesce((SELECT bool_or(indisvalid) FROM pg_index
                                  WHERE indexrelid IN (to_regclass(%(own)s), to_regclass(%(retiring)s))), false)
                            AS valid,
                        coalesce((SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%(full_precision)s)),
                            false) AS full_precision_valid,
                        (SELECT ef_search FROM tenant_own_indexes
                         WHERE tenant_id = %(tenant)s AND calibrated_index = to_regclass(%(own)s)::oid)
                            AS calibrated_ef_search) AS found""",
            params,
        ).fetchone()
    )
    # Every own index's predicate is the tenant's current rows, whichever graph they are in. An
    # index being replaced has the own index's key, so "own" reads whichever of the two is valid.
    if valid:
        return "own"
    if full_precision_valid:
        return "own_full_precision"
    return "exact" if listed else "shared"


def indexing_state(conn: psycopg.Connection, tenant_id: UUID) -> IndexingState:
    """Where the tenant's new rows are indexed (models.IndexingState), in the service's own
    transaction (row-level security shows it its tenant's listing only): "own" when its own
    index is valid (as `route` reads it), "building" while one is being built (an invalid own
    index: a build under way, or one that died, which the next maintenance run builds again),
    "deferred" when listed without one (its rows are read exactly), "shared" otherwise (a tenant
    leaving its own index is back in the shared one for new rows)."""
    leaving, present, valid = one_row(
        conn.execute(
            """SELECT (SELECT leaving FROM tenant_own_indexes WHERE tenant_id = %(tenant)s),
                      EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(%(own)s)),
                      coalesce((SELECT bool_or(indisvalid) FROM pg_index WHERE indexrelid IN
                                (to_regclass(%(own)s), to_regclass(%(retiring)s), to_regclass(%(full)s))), false)""",
            {
                "tenant": tenant_id,
                "own": index_name(tenant_id),
                "retiring": retiring_index_name(tenant_id),
                "full": full_precision_index_name(tenant_id),
            },
        ).fetchone()
    )
    if leaving is None or leaving:
        return "shared"
    if valid:
        return "own"
    return "building" if present else "deferred"


def defer_shared_index(conn: psycopg.Connection, max_listed: int) -> bool:
    """List the transaction's tenant, so its new rows enter no graph until its own index is
    built (migration 0026); at most `max_listed` tenants are listed. Whether it is listed."""
    return bool(one_row(conn.execute("SELECT aurra_defer_shared_index(%s)", (max_listed,)).fetchone())[0])


def build_memory_kb(memories: int, dim: int, m: int, cap_mb: int) -> int:
    """The maintenance_work_mem (kB) a build of `memories` rows needs to keep its graph in
    memory, at most `cap_mb`."""
    per_row = 2 * dim + 2 * m * GRAPH_BYTES_PER_NEIGHBOUR + GRAPH_BYTES_PER_ELEMENT
    needed = BUILD_MEMORY_FIXED_KB + math.ceil(memories * per_row * BUILD_MEMORY_MARGIN / 1024)
    return max(1024, min(needed, cap_mb * 1024))  # PostgreSQL's minimum is 1 MB


@dataclass
class MaintenanceReport:
    ran: bool = True
    # tenant_id, memories, moved, seconds, build_memory_mb, notices (pgvector's: the graph
    # outgrowing the build's memory is one)
    built: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)  # tenant_id, reason, moved
    kept: int = 0
    over_limit: list[str] = field(default_factory=list)
    # Indexes given the configured insert ef_construction (tenant_id, from, to), and those whose
    # lock was not had in time (the next run sets them).
    insert_ef_construction_set: list[dict[str, Any]] = field(default_factory=list)
    insert_ef_construction_deferred: list[str] = field(default_factory=list)
    # Indexes given an ef_search (`calibrate`: tenant_id, ef_search, recall, reached, ...), and
    # those left for the next run because this one ran out of time.
    calibrated: list[dict[str, Any]] = field(default_factory=list)
    calibration_deferred: list[str] = field(default_factory=list)
    # Indexes built with other parameters than the settings', left for a later run: beyond
    # REPLACEMENTS_PER_RUN, or their rename's lock not had in time.
    replacement_deferred: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def current_counts(conn: psycopg.Connection, above: int) -> dict[UUID, int]:
    """Current memories of each tenant holding more than `above`."""
    rows = conn.execute(
        f"SELECT tenant_id, count(*) FROM memory_versions WHERE {_CURRENT} GROUP BY tenant_id HAVING count(*) > %s",
        (above,),
    ).fetchall()
    return dict(rows)


def existing_indexes(conn: psycopg.Connection, prefix: str = INDEX_PREFIX) -> dict[UUID, bool]:
    """Tenant id -> whether its index (of the kind `prefix` names) is valid (an invalid one is
    a build that died)."""
    rows = conn.execute(
        """SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
           WHERE i.indrelid = 'memory_versions'::regclass AND starts_with(c.relname, %s)
             AND length(c.relname) = %s""",
        (prefix, len(prefix) + 32),
    ).fetchall()
    return {UUID(name[len(prefix) :]): valid for name, valid in rows}


def listed_tenants(conn: psycopg.Connection) -> dict[UUID, bool]:
    """Tenant id -> whether it is leaving, for the tenants whose rows are out of the shared index."""
    return dict(conn.execute("SELECT tenant_id, leaving FROM tenant_own_indexes").fetchall())


def choose(
    counts: dict[UUID, int], *, min_memories: int, limit: int, indexed: Iterable[UUID] = ()
) -> tuple[list[UUID], list[UUID]]:
    """The tenants that get their own index, largest first, and those over the limit: over
    `min_memories` current memories (or, already indexed, over half of it)."""
    indexed = set(indexed)
    keep_above = int(min_memories * KEEP_FRACTION)
    eligible = sorted(
        (
            (n, tenant)
            for tenant, n in counts.items()
            if n > (keep_above if tenant in indexed else min_memories)
        ),
        key=lambda item: (-item[0], str(item[1])),
    )
    return [tenant for _, tenant in eligible[:limit]], [tenant for _, tenant in eligible[limit:]]


def list_tenants(conn: psycopg.Connection, tenants: Iterable[UUID]) -> None:
    """Keep these tenants' new rows out of the shared index from now on (the first step of a
    move; `maintain` does the rest). A bulk load that knows its large tenants lists them first,
    so their rows arrive where the maintenance job would have moved them. (An announced import
    lists its tenant through `defer_shared_index`, its first index to be built as the import's.)"""
    conn.execute(
        """INSERT INTO tenant_own_indexes (tenant_id) SELECT unnest(%s::uuid[])
           ON CONFLICT (tenant_id) DO UPDATE SET leaving = false""",
        ([*tenants],),
    )


def import_builds(conn: psycopg.Connection) -> set[UUID]:
    """The listed tenants whose first own index is an import's (`IMPORT_BUILD`), still to build."""
    return {
        t for (t,) in conn.execute("SELECT tenant_id FROM tenant_own_indexes WHERE import_build").fetchall()
    }


def maintain(
    conninfo: str,
    *,
    min_memories: int | None = None,
    limit: int = DEFAULT_LIMIT,
    m: int | None = None,
    ef_construction: int | None = None,
    insert_ef_construction: int | None = None,
    build_memory_cap_mb: int | None = None,
    statement_timeout_s: int = 0,
    time_limit_s: float = 0,
    calibration_samples: int | None = None,
) -> MaintenanceReport:
    """Bring the tenants' own indexes in line with their sizes, as the table's owner. By
    default a tenant needs one once the candidate search takes it to HNSW, built with the
    configured `m` and `ef_construction` in the memory its graph needs (`build_memory_kb`, at
    most the configured `tenant_index_build_memory_mb`), and inserted into with the
    configured `insert_ef_construction` (set on the indexes already built too).

    `statement_timeout_s` (0: none) stops a build that would outlast the caller (the
    maintenance function's own timeout): the build fails cleanly and reports, and its
    invalid leftover is dropped and rebuilt by a later run, instead of the function being
    killed mid-statement with nothing logged. `time_limit_s` (0: none) is how long the run
    may take: calibrations (which come after every build) stop at it and are left to the
    next run, reported as deferred. `calibration_samples`: the memories each calibration
    queries with (default `CALIBRATION_SAMPLES`; 0: no calibration this run)."""
    from aurra_core.runtime.config import get_config
    from aurra_core.storage.store import HNSW_MIN_TENANT_MEMORIES

    config = get_config()
    build = {
        "m": config.tenant_index_m if m is None else m,
        "ef_construction": config.tenant_index_ef_construction
        if ef_construction is None
        else ef_construction,
        "insert_ef_construction": config.tenant_index_insert_ef_construction
        if insert_ef_construction is None
        else insert_ef_construction,
        "memory_cap_mb": config.tenant_index_build_memory_mb
        if build_memory_cap_mb is None
        else build_memory_cap_mb,
    }
    report = MaintenanceReport()
    deadline = time.monotonic() + time_limit_s if time_limit_s else None
    with psycopg.connect(conninfo, autocommit=True) as conn:
        if not one_row(conn.execute("SELECT pg_try_advisory_lock(%s)", (_LOCK,)).fetchone())[0]:
            report.ran = False  # another run is at it
            return report
        try:
            if statement_timeout_s:
                conn.execute(
                    sql.SQL("SET statement_timeout = {}").format(sql.Literal(f"{statement_timeout_s}s"))
                )
            wanted, counts, dim = _maintain(
                conn,
                report,
                min_memories=HNSW_MIN_TENANT_MEMORIES if min_memories is None else min_memories,
                limit=limit,
                build=build,
            )
            samples = CALIBRATION_SAMPLES if calibration_samples is None else calibration_samples
            if samples:
                _calibrate_wanted(conn, report, wanted, counts, dim, samples=samples, deadline=deadline)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK,))
    return report


def _maintain(
    conn: psycopg.Connection,
    report: MaintenanceReport,
    *,
    min_memories: int,
    limit: int,
    build: dict[str, int],
) -> tuple[list[UUID], dict[UUID, int], int]:
    """Builds, drops and keeps; the tenants that keep or got an index (largest first), the
    current memories of each, and the embedding's dimension."""
    counts = current_counts(conn, int(min_memories * KEEP_FRACTION))
    existing = existing_indexes(conn)
    listed = listed_tenants(conn)
    imported = import_builds(conn)

    full_precision = existing_indexes(conn, FULL_PRECISION_PREFIX)
    retiring = existing_indexes(conn, RETIRING_PREFIX)

    for tenant, valid in existing.items():
        if not valid:
            _drop(conn, index_name(tenant))
            report.dropped.append({"tenant_id": str(tenant), "reason": "invalid (an interrupted build)"})
    for tenant, valid in full_precision.items():
        if not valid:
            _drop(conn, full_precision_index_name(tenant))
            report.dropped.append({"tenant_id": str(tenant), "reason": "invalid (an interrupted build)"})
    indexed = {t for t, valid in existing.items() if valid}
    # Own indexes of the kind built before half precision, and those being replaced for their
    # build parameters (a run stopped before their replacement was valid): replaced below,
    # read until then. A retiring index is valid: it was renamed so.
    full_precision_valid = {t for t, valid in full_precision.items() if valid}
    to_replace = full_precision_valid | retiring.keys()
    in_place = {t for t in indexed if listed.get(t) is False}

    wanted_parameters = parameters_comment(build["m"], build["ef_construction"])
    replacements = 0
    wanted_list, over_limit = choose(
        counts, min_memories=min_memories, limit=limit, indexed=indexed | to_replace | listed.keys()
    )
    wanted = set(wanted_list)
    report.over_limit = [str(tenant) for tenant in over_limit]

    # Out first: a tenant over the limit makes room before another comes in.
    for tenant in sorted((indexed | to_replace | listed.keys()) - wanted, key=str):
        moved = _move_out(conn, tenant)
        if tenant in over_limit:
            reason = "over the limit"
        elif tenant in indexed:
            reason = "shrank under the threshold"
        else:
            reason = "an interrupted move, undone"
        report.dropped.append({"tenant_id": str(tenant), "reason": reason, "moved": moved})
    report.kept = len(in_place & wanted)
    dim = one_row(
        conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memory_versions'::regclass AND attname = 'embedding'"
        ).fetchone()
    )[0]
    for tenant in wanted_list:
        replaced = None
        if tenant in full_precision_valid:
            replaced = "full precision"
        elif tenant in retiring:  # its comment followed it through the rename
            replaced = _comment(conn, retiring_index_name(tenant)) or "unrecorded parameters"
        if tenant in in_place:
            if replaced is not None:  # replaced by a run that stopped before dropping it
                _drop_replaced(conn, tenant)
            built_with = build_parameters(conn, tenant)
            if built_with == wanted_parameters:
                _keep_insert_ef_construction(conn, report, tenant, build["insert_ef_construction"])
                continue
            if replacements >= REPLACEMENTS_PER_RUN or not _retire(conn, tenant):
                report.replacement_deferred.append(str(tenant))
                _keep_insert_ef_construction(conn, report, tenant, build["insert_ef_construction"])
                continue
            replaced = built_with or "unrecorded parameters"
            report.kept -= 1  # rebuilt, not kept
        if replaced is not None:
            replacements += 1
        started = time.perf_counter()
        graph = build
        if tenant in imported and replaced is None and tenant not in indexed:
            graph = {**build, **IMPORT_BUILD}
        memory_kb = build_memory_kb(counts[tenant], dim, graph["m"], graph["memory_cap_mb"])
        with _notices(conn) as notices:
            moved = _move_in(
                conn, tenant, dim, graph, rebuild=tenant in indexed - in_place, memory_kb=memory_kb
            )
        if tenant in imported:
            conn.execute("UPDATE tenant_own_indexes SET import_build = false WHERE tenant_id = %s", (tenant,))
        _keep_insert_ef_construction(conn, report, tenant, build["insert_ef_construction"])
        built: dict[str, Any] = {
            "tenant_id": str(tenant),
            "memories": counts[tenant],
            "moved": moved,
            "seconds": round(time.perf_counter() - started, 3),
            "build_memory_mb": round(memory_kb / 1024, 1),
            "notices": notices,
        }
        if graph is not build:
            built["import_build"] = parameters_comment(graph["m"], graph["ef_construction"])
        if replaced is not None:
            # Searches read the index being replaced until its replacement was valid.
            _drop_replaced(conn, tenant)
            built["replaced"] = replaced
        report.built.append(built)
    return wanted_list, counts, dim


class _OutOfTime(Exception):
    """The run's time limit passed during a calibration (left to the next run)."""


def _calibrate_wanted(
    conn: psycopg.Connection,
    report: MaintenanceReport,
    wanted: list[UUID],
    counts: dict[UUID, int],
    dim: int,
    *,
    samples: int,
    deadline: float | None,
) -> None:
    """Calibrate each wanted tenant's own index that has no ef_search measured on it (just
    built, rebuilt or replaced), one under the ladder's first rung (kept by an older ladder),
    or whose tenant has grown `RECALIBRATE_GROWTH`-fold since,
    largest tenant first, until `deadline` (the rest are the next run's)."""
    for tenant in wanted:
        state = conn.execute(
            """SELECT i.indexrelid::oid, t.calibrated_index, t.calibrated_rows, t.ef_search
               FROM tenant_own_indexes t JOIN pg_index i ON i.indexrelid = to_regclass(%s)
               WHERE t.tenant_id = %s AND NOT t.leaving AND i.indisvalid""",
            (index_name(tenant), tenant),
        ).fetchone()
        if state is None:
            continue  # no valid own index (a build that failed): nothing to calibrate
        index_oid, calibrated_index, calibrated_rows, ef_search = state
        rows = counts[tenant]
        if calibrated_index is None:
            reason = "not calibrated"
        elif calibrated_index != index_oid:
            reason = "index rebuilt"
        elif ef_search is not None and ef_search < LEAST_CALIBRATED_EF_SEARCH:
            # Kept by a version that chose lower: a ladder from 40, or no margin when no rung
            # reached the target (earlier versions).
            reason = f"calibrated at {ef_search}, under the least a calibration keeps, {LEAST_CALIBRATED_EF_SEARCH}"
        elif rows >= RECALIBRATE_GROWTH * calibrated_rows:
            reason = f"grew from {calibrated_rows} to {rows} memories"
        else:
            continue
        if deadline is not None and time.monotonic() >= deadline:
            report.calibration_deferred.append(str(tenant))
            continue
        try:
            result = calibrate(conn, tenant, dim, rows=rows, samples=samples, deadline=deadline)
        except _OutOfTime:
            report.calibration_deferred.append(str(tenant))
            continue
        report.calibrated.append({"tenant_id": str(tenant), "reason": reason, **result})


def calibrate(
    conn: psycopg.Connection,
    tenant: UUID,
    dim: int,
    *,
    rows: int,
    samples: int = CALIBRATION_SAMPLES,
    ladder: tuple[int, ...] | None = None,
    target: float = CALIBRATION_RECALL,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Measure and store the ef_search of the tenant's own index (`conn`: the owner's, in
    autocommit): `CALIBRATION_MARGIN_RUNGS` above the lowest of `ladder` at which recall@3 >=
    `target` (`lowest_reaching`), the ladder's top at most; when none reaches it, as many rungs
    above the lowest with the best recall measured (`reached` false: the index is searched as
    well as this job can make it, and the report says so). `rows`: the tenant's current
    memories now; `ladder` by default `EF_SEARCH_LADDER`.

    The queries: `samples` of the tenant's current memories, the same ones on every run over
    the same rows (the first by a hash of their version id), each one's embedding the query
    with its own row excluded. The truth: the exact top 3 by full-precision cosine, all the
    queries' in one pass over the tenant's rows (`exact_nearest`); a result as similar as the
    true third is a hit (ties: the same fact stored twice). The search:
    the candidate search's own statement (`nearest_sql`, the re-rank margin, strict-order
    iterative scan), planned with the tenant id as the service's is. Reads only: no row lock
    is held but the moment of the final UPDATE of the tenant's calibration row."""
    from pgvector import Vector
    from pgvector.psycopg import register_vector

    if samples < 1:
        raise ValueError("a calibration needs at least one sample")
    if ladder is None:
        ladder = EF_SEARCH_LADDER
    register_vector(conn)
    started = time.perf_counter()
    index_oid = one_row(conn.execute("SELECT to_regclass(%s)::oid", (index_name(tenant),)).fetchone())[0]
    queries = conn.execute(
        f"""SELECT version_id, embedding FROM memory_versions WHERE tenant_id = %s AND {_CURRENT}
            ORDER BY md5(version_id::text), version_id LIMIT %s""",
        (tenant, samples),
    ).fetchall()
    truths = exact_truths(conn, tenant, [(version_id, q.to_numpy()) for version_id, q in queries], deadline)
    exact_s = time.perf_counter() - started
    # What is measured is the index only if the planner takes it (it may not, for a tenant
    # just over the threshold or a table not analyzed: then the search is exact).
    through_index = not truths or index_name(tenant) in "\n".join(
        str(line)
        for (line,) in conn.execute(
            "EXPLAIN " + _calibration_statement(dim),
            {
                "q": Vector(truths[0].vector),
                "tenant_id": tenant,
                "query_version": truths[0].excluded,
                "limit": 3,
            },
            prepare=False,
        ).fetchall()
    )
    recall_by_ef: dict[int, float] = {}
    lowest: int | None = None  # the lowest rung that reaches the target
    for rung, ef in enumerate(ladder):
        recall_by_ef[ef] = recall_at_ef_search(conn, tenant, dim, truths, ef, deadline)
        # RECALL_EPSILON: hits are sums of thirds, so 597 of 600 adds up to just under 0.995.
        if lowest is None and recall_by_ef[ef] >= target - RECALL_EPSILON:
            lowest = ef
        if lowest is not None and rung >= ladder.index(lowest) + CALIBRATION_MARGIN_RUNGS:
            break
    if lowest is not None:
        # The margin's rung when the ladder has it, else its top.
        chosen = ef
    else:
        # None reached the target: the margin above the lowest with the best recall measured,
        # the ladder's top at most. The memories' misses no rung finds are rows the walk never
        # reaches, but new facts still gain from the margin: a 1M tenant whose memories read
        # 0.992 at every rung read 0.980 on new facts at 100 and 0.990 at 150 (bench/notes/tenant-indexes.md).
        best = max(recall_by_ef.values())
        best_rung = next(i for i, r in enumerate(recall_by_ef.values()) if r >= best - RECALL_EPSILON)
        chosen = ladder[min(best_rung + CALIBRATION_MARGIN_RUNGS, len(ladder) - 1)]
    recall = recall_by_ef[chosen]
    conn.execute(
        """UPDATE tenant_own_indexes SET ef_search = %s, calibrated_index = %s, calibrated_rows = %s,
               calibrated_recall = %s, calibrated_at = clock_timestamp()
           WHERE tenant_id = %s""",
        (chosen, index_oid, rows, recall, tenant),
    )
    return {
        "ef_search": chosen,
        "recall@3": round(recall, 4),
        "reached": lowest is not None,
        "lowest_reaching": lowest,
        "memories": rows,
        "samples": len(truths),
        "through_index": through_index,
        "recall_by_ef_search": {str(ef): round(r, 4) for ef, r in recall_by_ef.items()},
        "exact_seconds": round(exact_s, 3),
        "seconds": round(time.perf_counter() - started, 3),
    }


# Rows per block of the exact pass (a block's vectors and its distances to every query: about
# 20 MB at 384 dimensions and 200 queries, within the maintenance function's 512 MB).
EXACT_BLOCK_ROWS = 10_000
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


@dataclass(frozen=True)
class Truth:
    """A calibration query and its exact answer: `vector` (float32), the row it must not find
    (`excluded`: its own, for a query that is a memory; `NO_ROW` else), the cosine distance of
    its exact third nearest among the tenant's other current rows, and how many there are (at
    most 3)."""

    excluded: int
    vector: Any
    third: float
    count: int


NO_ROW = -1  # version ids are an identity from 1


def _calibration_statement(dim: int) -> str:
    """The candidate search's own statement (`nearest_sql`, the re-rank margin), for one
    tenant's own index, a query's own row excluded."""
    return nearest_sql(
        "own",
        dim,
        "memory_id",
        f"tenant_id = %(tenant_id)s AND {_CURRENT} AND version_id <> %(query_version)s",
    )


def recall_at_ef_search(
    conn: psycopg.Connection,
    tenant: UUID,
    dim: int,
    truths: list[Truth],
    ef_search: int,
    deadline: float | None = None,
) -> float:
    """Recall@3 of the tenant's own index at `ef_search` over `truths`, searched as the service
    searches (strict-order iterative scan, a plan with the tenant id as a constant), on `conn`
    with pgvector's types registered. A result as similar as the true third is a hit (ties:
    the same fact stored twice)."""
    from pgvector import Vector

    if not truths:
        return 1.0
    statement = _calibration_statement(dim)
    hits = 0.0
    with conn.transaction():
        conn.execute(
            "SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', %s, true)",
            (str(int(ef_search)),),
        )
        for truth in truths:
            _check(deadline)
            found = conn.execute(
                statement,
                {"q": Vector(truth.vector), "tenant_id": tenant, "query_version": truth.excluded, "limit": 3},
                prepare=False,  # a plan with the tenant id as a constant, as the service's
            ).fetchall()
            # 1e-6: the exact pass computes in float32 as pgvector does, not bit for bit.
            hits += (
                min(sum(1 for _, distance in found if distance <= truth.third + 1e-6), truth.count)
                / truth.count
            )
    return hits / len(truths)


def exact_truths(
    conn: psycopg.Connection, tenant: UUID, queries: list[tuple[int, Any]], deadline: float | None
) -> list[Truth]:
    """Each (excluded version id, vector) query's `Truth`; queries the tenant has no other row
    for are left out."""
    import numpy as np

    nearest, _ = exact_nearest(conn, tenant, queries, deadline)
    found = np.isfinite(nearest)
    return [
        Truth(excluded, np.asarray(vector, dtype=np.float32), float(row[ok].max()), int(ok.sum()))
        for (excluded, vector), row, ok in zip(queries, nearest, found, strict=True)
        if ok.any()
    ]


def exact_nearest(
    conn: psycopg.Connection,
    tenant: UUID,
    queries: list[tuple[int, Any]],
    deadline: float | None,
    *,
    k: int = 3,
) -> tuple[Any, Any]:
    """For each (excluded version id, vector) query: the cosine distances of its exact `k`
    nearest among the tenant's current rows, the excluded one left out, ascending (inf where
    there are fewer), and their version ids (`NO_ROW` there): queries x k arrays.

    One pass over the tenant's rows for all the queries, computed here, not a scan of the
    table per query: at 1M memories each exact scan takes seconds of database time (200 of
    them would outlast the maintenance function and load the writer that serves writes),
    while one binary COPY of the rows and a matrix product per block take a few seconds. The
    rows are fixed-size in COPY's binary format (a bigint and a vector of the column's
    dimension), so each block is read as one numpy array."""
    import numpy as np

    if not queries:
        return np.empty((0, k), dtype=np.float32), np.empty((0, k), dtype=np.int64)
    ids = np.array([excluded for excluded, _ in queries], dtype=np.int64)
    q = np.stack([np.asarray(vector, dtype=np.float32) for _, vector in queries])
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), np.float32(1e-30))
    dim = q.shape[1]
    record = np.dtype(
        [
            ("fields", ">i2"),
            ("id_len", ">i4"),
            ("id", ">i8"),
            ("vector_len", ">i4"),
            ("dim", ">i2"),
            ("unused", ">i2"),
            ("vector", ">f4", (dim,)),
        ]
    )
    nearest = np.full((len(queries), k), np.inf, dtype=np.float32)
    nearest_ids = np.full((len(queries), k), NO_ROW, dtype=np.int64)

    def take(block: np.ndarray) -> None:
        nonlocal nearest, nearest_ids
        if not len(block):
            return
        if (block["dim"] != dim).any() or (block["fields"] != 2).any():
            raise RuntimeError("unexpected row in the exact pass")
        vectors = block["vector"].astype(np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), np.float32(1e-30))
        distances = np.float32(1) - q @ vectors.T  # queries x rows
        block_ids = block["id"].astype(np.int64)
        distances[ids[:, None] == block_ids[None, :]] = np.inf  # the excluded
        together = np.concatenate([nearest, distances], axis=1)
        kept = np.argpartition(together, k - 1, axis=1)[:, :k]
        nearest = np.take_along_axis(together, kept, axis=1)
        together_ids = np.concatenate([nearest_ids, np.broadcast_to(block_ids, distances.shape)], axis=1)
        nearest_ids = np.take_along_axis(together_ids, kept, axis=1)

    buffer = bytearray()
    header = 0
    with (
        conn.cursor() as cur,
        cur.copy(
            sql.SQL(
                "COPY (SELECT version_id, embedding FROM memory_versions WHERE tenant_id = {} AND {}) "
                "TO STDOUT (FORMAT BINARY)"
            ).format(sql.Literal(tenant), sql.SQL(_CURRENT))
        ) as copy,
    ):
        for data in copy:
            buffer += data
            if not header and len(buffer) >= 19:
                if bytes(buffer[:11]) != _COPY_SIGNATURE:
                    raise RuntimeError("not COPY's binary format")
                header = 19 + int.from_bytes(buffer[15:19], "big")
            if header and len(buffer) - header >= EXACT_BLOCK_ROWS * record.itemsize:
                _check(deadline)
                whole = (len(buffer) - header) // record.itemsize * record.itemsize
                take(np.frombuffer(bytes(buffer[header : header + whole]), dtype=record))
                del buffer[header : header + whole]
    if bytes(buffer[-2:]) != b"\xff\xff" or (len(buffer) - 2 - header) % record.itemsize:
        raise RuntimeError("the exact pass ended mid-row")
    take(np.frombuffer(bytes(buffer[header:-2]), dtype=record))
    order = np.argsort(nearest, axis=1)
    ids_found = np.take_along_axis(nearest_ids, order, axis=1)
    distances_found = np.take_along_axis(nearest, order, axis=1)
    return distances_found, np.where(np.isfinite(distances_found), ids_found, NO_ROW)


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise _OutOfTime


def calibrations(conn: psycopg.Connection) -> dict[UUID, dict[str, Any]]:
    """Each listed tenant's calibration (ef_search, rows, recall@3, when), and whether it was
    measured on the tenant's current own index (`current`: only then does `route` use it)."""
    rows = conn.execute(
        """SELECT tenant_id, ef_search, calibrated_rows, calibrated_recall, calibrated_at,
                  calibrated_index IS NOT NULL
                  AND calibrated_index = to_regclass(%s || replace(tenant_id::text, '-', ''))::oid
           FROM tenant_own_indexes""",
        (INDEX_PREFIX,),
    ).fetchall()
    return {
        tenant: {"ef_search": ef, "memories": n, "recall@3": recall, "at": at, "current": bool(current)}
        for tenant, ef, n, recall, at, current in rows
    }


@contextmanager
def _notices(conn: psycopg.Connection) -> Iterator[list[str]]:
    """The server's notices to `conn` during the block (pgvector's about a build's memory)."""
    kept: list[str] = []

    def keep(diagnostic: psycopg.errors.Diagnostic) -> None:
        kept.append(str(diagnostic.message_primary))

    conn.add_notice_handler(keep)
    try:
        yield kept
    finally:
        conn.remove_notice_handler(keep)


def _move_in(
    conn: psycopg.Connection, tenant: UUID, dim: int, build: dict[str, int], *, rebuild: bool, memory_kb: int
) -> int:
    """List the tenant, take its rows out of the shared index, build its own in `memory_kb` of
    maintenance_work_mem; the rows moved."""
    list_tenants(conn, [tenant])
    if rebuild:
        # An index built before its tenant was listed: its rows would enter it a second time
        # as they move, one graph insert each; a new build is far cheaper.
        _drop(conn, index_name(tenant))
    moved = _set_membership(conn, tenant, in_shared_index=False)
    conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(f"{int(memory_kb)}kB")))
    try:
        build_index(conn, tenant, dim, m=build["m"], ef_construction=build["ef_construction"])
    finally:
        conn.execute("RESET maintenance_work_mem")
    # Rows inserted by writes that read the list before this tenant was on it (the build
    # waited for every such write to end): into its own index, out of the shared one.
    return moved + _set_membership(conn, tenant, in_shared_index=False)


def _retire(conn: psycopg.Connection, tenant: UUID) -> bool:
    """Rename the tenant's own index to its retiring name, so that its replacement can be built
    under the own index's name while it serves (`route` reads either); False when the rename's
    lock was not had in time (nothing changed)."""
    return _alter_index(
        conn,
        sql.SQL("ALTER INDEX {} RENAME TO {}").format(
            sql.Identifier(index_name(tenant)), sql.Identifier(retiring_index_name(tenant))
        ),
    )


def _alter_index(conn: psycopg.Connection, statement: sql.Composed) -> bool:
    """Run an ALTER INDEX (`conn` in autocommit) unless its lock is not had within
    ALTER_INDEX_LOCK_TIMEOUT; whether it ran."""
    try:
        with conn.transaction():
            conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(ALTER_INDEX_LOCK_TIMEOUT)))
            conn.execute(statement)
    except psycopg.errors.LockNotAvailable:
        return False
    return True


def _drop_replaced(conn: psycopg.Connection, tenant: UUID) -> None:
    _drop(conn, full_precision_index_name(tenant))
    _drop(conn, retiring_index_name(tenant))


def _keep_insert_ef_construction(
    conn: psycopg.Connection, report: MaintenanceReport, tenant: UUID, wanted: int
) -> None:
    """Set the tenant's index to insert with `wanted` unless it already does."""
    current = insert_ef_construction(conn, tenant)
    if current == wanted:
        return
    if set_insert_ef_construction(conn, tenant, wanted):
        report.insert_ef_construction_set.append({"tenant_id": str(tenant), "from": current, "to": wanted})
    else:
        report.insert_ef_construction_deferred.append(str(tenant))


def _move_out(conn: psycopg.Connection, tenant: UUID) -> int:
    """Send the tenant's rows back to the shared index and drop its own; the rows moved."""
    conn.execute("UPDATE tenant_own_indexes SET leaving = true WHERE tenant_id = %s", (tenant,))
    # DROP ... CONCURRENTLY waits for every transaction on the table, so no write that read
    # the list before `leaving` is still in flight when the rows are flipped back.
    _drop(conn, index_name(tenant))
    _drop_replaced(conn, tenant)
    moved = _set_membership(conn, tenant, in_shared_index=True)
    conn.execute("DELETE FROM tenant_own_indexes WHERE tenant_id = %s", (tenant,))
    return moved


def _set_membership(conn: psycopg.Connection, tenant: UUID, *, in_shared_index: bool) -> int:
    """Flip the index membership of the tenant's current rows, a batch per transaction (rows
    that are not current are in no HNSW index). The table's append-only trigger lets a change
    of membership alone through; the service role cannot make one (no UPDATE privilege on the
    column)."""
    moved = 0
    while True:
        batch = conn.execute(
            f"""UPDATE memory_versions SET in_shared_index = %(to)s WHERE version_id IN (
                    SELECT version_id FROM memory_versions
                    WHERE tenant_id = %(tenant)s AND {_CURRENT} AND in_shared_index <> %(to)s
                    LIMIT %(batch)s)""",
            {"to": in_shared_index, "tenant": tenant, "batch": MOVE_BATCH},
        ).rowcount
        moved += batch
        if batch < MOVE_BATCH:
            return moved


def build_index(conn: psycopg.Connection, tenant: UUID, dim: int, *, m: int, ef_construction: int) -> None:
    """The tenant's own index, CONCURRENTLY (`conn` in autocommit), its build parameters in its
    comment (`build_parameters`). Inserts then use `ef_construction` until
    `set_insert_ef_construction` changes it."""
    # The predicate is the tenant's current rows (whatever their membership): a candidate
    # search for the tenant (tenant_id = constant AND the current-row conditions) implies it.
    # The tenant id is a UUID, quoted as a literal: DDL takes no parameters.
    conn.execute(
        sql.SQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON memory_versions USING hnsw "
            "({} halfvec_cosine_ops) WITH (m = {}, ef_construction = {}) "
            "WHERE tenant_id = {} AND recorded_to IS NULL AND valid_to IS NULL"
        ).format(
            sql.Identifier(index_name(tenant)),
            sql.SQL(indexed_expression(dim)),
            sql.Literal(int(m)),
            sql.Literal(int(ef_construction)),
            sql.Literal(tenant),
        )
    )
    conn.execute(
        sql.SQL("COMMENT ON INDEX {} IS {}").format(
            sql.Identifier(index_name(tenant)), sql.Literal(parameters_comment(m, ef_construction))
        )
    )


def build_parameters(conn: psycopg.Connection, tenant: UUID) -> str | None:
    """How the tenant's own index was built ("built with m = .., ef_construction = .."), or None."""
    return _comment(conn, index_name(tenant))


def _comment(conn: psycopg.Connection, index: str) -> str | None:
    described = one_row(
        conn.execute("SELECT obj_description(to_regclass(%s), 'pg_class')", (index,)).fetchone()
    )[0]
    return None if described is None else str(described)


def insert_ef_construction(conn: psycopg.Connection, tenant: UUID) -> int | None:
    """The ef_construction the tenant's own index inserts with (its reloption), or None
    without an index or without the reloption (pgvector's default then, 64)."""
    row = conn.execute(
        """SELECT (SELECT split_part(option, '=', 2)::int FROM unnest(c.reloptions) AS option
                   WHERE starts_with(option, 'ef_construction='))
           FROM pg_class c WHERE c.oid = to_regclass(%s)""",
        (index_name(tenant),),
    ).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def set_insert_ef_construction(conn: psycopg.Connection, tenant: UUID, value: int) -> bool:
    """Make the tenant's own index insert with `value` (`conn` in autocommit); False when its
    exclusive lock was not had in time (nothing changed)."""
    return _alter_index(
        conn,
        sql.SQL("ALTER INDEX {} SET (ef_construction = {})").format(
            sql.Identifier(index_name(tenant)), sql.Literal(int(value))
        ),
    )


def _drop(conn: psycopg.Connection, name: str) -> None:
    conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
