"""Which queries calibrate an own index's ef_search to the recall new facts get.

    python -m bench.experiments.calibration_queries --shape one --size 100000 --writes 1000 --queries 400

Builds the store as `bench/run.py` does (`--shape one`: one tenant of `--size`; `ten`: ten
tenants of a tenth; each listed tenant's own index built and calibrated by the maintenance job),
writes `--writes` new facts into each listed tenant (rows its graph gained after the build, as
`bench/run.py`'s second pass finds it), then measures, for each listed tenant, recall@3 of the
calibration's own statement (`tenant_indexes.recall_at_ef_search`: the service's own-index
search, strict-order iterative scan) at ef_search 40 to 400, over `--queries` queries of
each kind:

- `new fact`: new facts about the tenant's people, embedded: what the service is asked, and the
  recall the calibration is meant to predict;
- `memory`: the tenant's memories, each excluded from its own answer (the calibration's
  queries): nodes of the graph, their neighbours one link away;
- `mix, half`: each sampled memory `a` moved toward the next sampled memory `c` (`a + w c`,
  normalized) until its distance from `a` is half `a`'s distance to its own nearest: no node of
  the graph, nearer `a` than any memory is, its other features another memory's;
- `near`: `a` moved toward one of its own 2nd to 10th nearest as far as `a` is from its nearest
  (a point inside `a`'s neighbourhood);
- `near, half`: the same moved half as far.

In every kind "nearest" leaves out the same memory stored again.

For each kind it prints the rung the calibration's rule (one rung above the lowest at 0.995)
picks from it on the former ladder (from 40) and on today's (from 100), and the new facts'
recall@3 at that rung.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the suite's modules

from common import Cluster, build_store, insert_memory, local_environment, log, new_fact_for
from embedders import machine

KINDS = ("new fact", "memory", "mix, half", "near", "near, half")
# Measured at the calibration's former ladder (from 40), so the rungs under today's show.
MEASURED_EF_SEARCH = (40, 60, 80, 100, 150, 200, 300, 400)
SAME_MEMORY_DISTANCE = 1e-6  # nearer than this: the same memory stored again
NEAR = 10  # "near" moves a toward one of its 2nd to 10th nearest


def moved_toward(a, c, distances):
    """Each row of `a` moved toward the same row of `c` (`a + w c`, normalized; both unit
    rows) until its cosine distance from `a` is that row's of `distances` (or as far as `c`
    allows: the result tends to `c` as `w` grows): float32 rows."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    target = 1.0 - np.asarray(distances, dtype=np.float64)
    cosine = np.einsum("ij,ij->i", a, c)
    lo, hi = np.zeros(len(a)), np.full(len(a), 64.0)
    for _ in range(60):  # bisection: cos(a, a + w c) falls as w grows
        w = (lo + hi) / 2
        moved_cosine = (1 + w * cosine) / np.sqrt(1 + 2 * w * cosine + w * w)
        further = moved_cosine > target
        lo, hi = np.where(further, w, lo), np.where(further, hi, w)
    moved = a + lo[:, None] * c
    return (moved / np.linalg.norm(moved, axis=1, keepdims=True)).astype(np.float32)


def kinds_of_queries(conn, store, tenant_id, count: int, rng: random.Random) -> dict:
    """Each kind's (excluded version id, unit vector) queries for one tenant."""
    import numpy as np
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage import tenant_indexes

    register_vector(conn)
    rows = conn.execute(
        """SELECT version_id, embedding FROM memory_versions
           WHERE tenant_id = %s AND recorded_to IS NULL AND valid_to IS NULL
           ORDER BY md5(version_id::text || %s), version_id LIMIT %s""",
        (tenant_id, str(rng.random()), count),
    ).fetchall()
    ids = [version_id for version_id, _ in rows]
    memories = np.stack([v.to_numpy() for _, v in rows]).astype(np.float32)
    memories /= np.linalg.norm(memories, axis=1, keepdims=True)
    distances, neighbours = tenant_indexes.exact_nearest(
        conn, tenant_id, list(zip(ids, memories, strict=True)), None, k=NEAR
    )
    # The nearest that is not the same memory stored again, and one of the others after it.
    distinct = np.isfinite(distances) & (distances > SAME_MEMORY_DISTANCE)
    nearest, picked = [], []
    for row_distances, row_ids, ok in zip(distances, neighbours, distinct, strict=True):
        found = np.flatnonzero(ok)
        nearest.append(float(row_distances[found[0]]) if len(found) else 0.0)
        picked.append(int(row_ids[rng.choice(found[1:].tolist() or found.tolist() or [0])]))
    nearest = np.array(nearest)
    others = memories[np.roll(np.arange(len(ids)), 1)]  # another sampled memory: unrelated, as a rule
    vectors = dict(
        conn.execute(
            "SELECT version_id, embedding FROM memory_versions WHERE version_id = ANY(%s)", (picked,)
        ).fetchall()
    )
    near_ones = np.stack([vectors[version_id].to_numpy() for version_id in picked]).astype(np.float32)
    near_ones /= np.linalg.norm(near_ones, axis=1, keepdims=True)
    embedder = LexicalEmbedder(memories.shape[1])
    facts = [embedder.embed(new_fact_for(store, tenant_id, rng)) for _ in range(count)]
    none = tenant_indexes.NO_ROW
    return {
        "new fact": [(none, np.asarray(f.to_numpy(), dtype=np.float32)) for f in facts],
        "memory": list(zip(ids, memories, strict=True)),
        "mix, half": [(none, q) for q in moved_toward(memories, others, nearest / 2)],
        "near": [(none, q) for q in moved_toward(memories, near_ones, nearest)],
        "near, half": [(none, q) for q in moved_toward(memories, near_ones, nearest / 2)],
    }


def write_new_facts(store, tenant_id, how_many: int, rng: random.Random) -> None:
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder

    embedder = LexicalEmbedder(384)
    with psycopg.connect(store.url) as conn:
        register_vector(conn)
        for start in range(0, how_many, 100):
            with conn.transaction():
                for _ in range(min(100, how_many - start)):
                    text = new_fact_for(store, tenant_id, rng)
                    insert_memory(conn, tenant_id, text, embedder.embed(text))


def chosen_rung(recall_by_ef: dict[int, float], ladder: tuple[int, ...]) -> int | None:
    """What `tenant_indexes.calibrate`'s rule picks from these recalls on `ladder`: the lowest
    rung at the target, plus its margin's rungs (the ladder's top at most); None when no rung
    reaches it."""
    from aurra_core.storage import tenant_indexes

    target = tenant_indexes.CALIBRATION_RECALL - tenant_indexes.RECALL_EPSILON
    for rung, ef in enumerate(ladder):
        if recall_by_ef[ef] >= target:
            return ladder[min(rung + tenant_indexes.CALIBRATION_MARGIN_RUNGS, len(ladder) - 1)]
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=("one", "ten"), default="one")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument(
        "--writes", type=int, default=1_000, help="new facts written into each tenant after the build"
    )
    parser.add_argument("--queries", type=int, default=400, help="queries of each kind per tenant")
    parser.add_argument("--shared-buffers", default="2GB")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    local_environment()
    import psycopg

    from aurra_core.runtime.config import get_config
    from aurra_core.storage import tenant_indexes

    print(machine(), flush=True)
    rng = random.Random(args.seed)
    measured = MEASURED_EF_SEARCH
    config = get_config()
    cluster = Cluster(shared_buffers=args.shared_buffers)
    try:
        store = build_store(cluster, args.shape, args.size, rng)
        log(
            f"# {store.label}: own indexes at m {config.tenant_index_m} / ef_construction "
            f"{config.tenant_index_ef_construction}, {args.writes} new facts written into each after the "
            f"build, {args.queries} queries of each kind per tenant"
        )
        for c in store.calibrated:
            log(
                f"  the job calibrated {c['tenant_id'][:8]}: ef_search {c['ef_search']} {c['recall_by_ef_search']}"
            )
        with psycopg.connect(store.url, autocommit=True) as conn:
            listed = [t for t, _ in store.tenants if tenant_indexes.route(conn, t) == "own"]
        totals = {kind: dict.fromkeys(measured, 0.0) for kind in KINDS}
        for tenant_id in listed:
            write_new_facts(store, tenant_id, args.writes, rng)
        with psycopg.connect(store.url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE memory_versions")
            for tenant_id in listed:
                queries = kinds_of_queries(conn, store, tenant_id, args.queries, rng)
                recalls = {}
                for kind in KINDS:
                    truths = tenant_indexes.exact_truths(conn, tenant_id, queries[kind], None)
                    recalls[kind] = {
                        ef: tenant_indexes.recall_at_ef_search(conn, tenant_id, 384, truths, ef)
                        for ef in measured
                    }
                    for ef in measured:
                        totals[kind][ef] += recalls[kind][ef] / len(listed)
                report(f"tenant {str(tenant_id)[:8]}", recalls)
        if len(listed) > 1:
            report(f"mean of {len(listed)} tenants", totals)
    finally:
        cluster.stop()


def report(title: str, recalls: dict) -> None:
    """Each kind's recall@3 by ef_search, the rung the calibration's rule picks from it on the
    former ladder (from 40) and on today's (`tenant_indexes.EF_SEARCH_LADDER`), and the new
    facts' recall@3 at that rung."""
    from aurra_core.storage import tenant_indexes

    ladders = {"from 40": MEASURED_EF_SEARCH, "today's": tenant_indexes.EF_SEARCH_LADDER}
    log(f"## {title}: recall@3 by ef_search")
    log(
        "  "
        + f"{'':<12}"
        + "".join(f"{ef:>7}" for ef in MEASURED_EF_SEARCH)
        + "".join(f"   {name:>7} ladder (new facts)" for name in ladders)
    )
    for kind in KINDS:
        picks = []
        for ladder in ladders.values():
            picked = chosen_rung(recalls[kind], ladder)
            there = f"{recalls['new fact'][picked]:.3f}" if picked else "-"
            picks.append(f"{picked or 'none':>14} ({there:>5})")
        log(
            "  "
            + f"{kind:<12}"
            + "".join(f"{recalls[kind][ef]:7.3f}" for ef in MEASURED_EF_SEARCH)
            + "   "
            + "   ".join(picks)
        )


if __name__ == "__main__":
    main()
