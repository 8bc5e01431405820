"""Aurra's benchmark suite: the write path, candidate search, search (GET ?q=), cold start, model calls per write
and write throughput, against targets. See BENCHMARKS.md.

    python bench/run.py [--quick|--full] [--only write,search,query,coldstart,calls,throughput]
                        [--out bench/results/<name>.json]

It starts its own embedded PostgreSQL with pgvector in a temp dir (never a developer's .aurra),
loads each store with COPY and builds the HNSW index after the load, and removes it all at the
end. --quick (the default) finishes in a few minutes on 2 cores; --full loads 10k, 100k and 1M
memories in three tenant shapes and takes far longer (mostly the 1M loads and index builds).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ROOT, Cluster, build_store, local_environment, log, make_keys

SECTIONS = ("write", "search", "query", "coldstart", "calls", "throughput")
PROFILES = {
    "quick": {
        "sizes": [10_000],
        "shapes": ["small", "one"],
        "writes": 200,
        "http_writes": 150,
        "queries": 100,
        "large_tenant_queries": 100,
        "keys": 20,
        "throughput_writes": 200,
        "clients": [1, 4, 16],
    },
    "full": {
        "sizes": [10_000, 100_000, 1_000_000],
        "shapes": ["small", "ten", "one"],
        "writes": 500,
        "http_writes": 300,
        "queries": 200,
        # Tenants of 100,000 and more: each query's exact truth and the exact probe take about
        # 0.6 s at 1M. 30 drew 0-3 of a 100k index's misses (0.967-1.000 from one index that reads
        # 0.993 on 300 queries, BENCHMARKS.md), too few for a 0.99 target; 100 cost about 1.5 min more a
        # 1M pass.
        "large_tenant_queries": 100,
        "keys": 50,
        "throughput_writes": 2000,
        "clients": [1, 4, 16],
    },
}
TARGET_SIZE = 1_000_000
# The write targets, defined at 1M memories: p50 <= 10 ms, p99 <= 30 ms; candidate recall@3 >= 0.99.
TARGET_P50_MS, TARGET_P99_MS, TARGET_RECALL = 10.0, 30.0, 0.99
SHAPE_NAMES = {"small": "many small tenants", "ten": "10 tenants", "one": "1 tenant"}


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument(
        "--quick",
        action="store_const",
        dest="profile",
        const="quick",
        help="10k memories, two tenant shapes (the default; a few minutes)",
    )
    profile.add_argument(
        "--full",
        action="store_const",
        dest="profile",
        const="full",
        help="10k, 100k and 1M memories in three tenant shapes (long)",
    )
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}"
    )
    parser.add_argument(
        "--out", type=Path, help="where to write the results as JSON (default bench/results/<profile>.json)"
    )
    parser.add_argument("--sizes", help="comma-separated subset of the profile's store sizes, e.g. 1000000")
    parser.add_argument("--shapes", help="comma-separated subset of small,ten,one")
    parser.add_argument(
        "--shared-buffers",
        help="PostgreSQL shared_buffers for the run, e.g. 4GB (default: the embedded server's 128MB)",
    )
    parser.add_argument(
        "--server-setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a PostgreSQL setting for the run's server, repeatable, e.g. full_page_writes=off (what "
        "Aurora's storage does without: it writes no full-page images); recorded in the results",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--no-tenant-indexes",
        action="store_true",
        help="skip large tenants' own HNSW indexes (to measure what they cost and gain)",
    )
    parser.add_argument(
        "--checkpoint-first",
        action="store_true",
        help="run a CHECKPOINT after each store is built, so its writes are measured after the build's "
        "checkpoint has passed rather than while it may still be under way",
    )
    parser.add_argument(
        "--passes",
        type=int,
        default=1,
        help="measure each store this many times in the run: the first right after its build (unless "
        "--checkpoint-first), each later one after a CHECKPOINT",
    )
    # Validation only: shrink the stores (and the write and query counts) of a profile.
    parser.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.server_settings = {}
    for item in args.server_setting:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            parser.error(f"--server-setting wants NAME=VALUE, got {item!r}")
        args.server_settings[name.strip()] = value.strip()
    args.profile = args.profile or "quick"
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(args.only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    return args


def profile_settings(name: str, scale: float, sizes: str | None = None, shapes: str | None = None) -> dict:
    p = dict(PROFILES[name])
    if sizes:
        p["sizes"] = [n for n in p["sizes"] if str(n) in sizes.split(",")]
    if shapes:
        p["shapes"] = [s for s in p["shapes"] if s in shapes.split(",")]
    if scale != 1.0:
        counts = max(scale, 0.1)
        p["sizes"] = [max(100, int(n * scale)) for n in p["sizes"]]
        for key in ("writes", "http_writes", "queries", "large_tenant_queries", "throughput_writes"):
            p[key] = max(20, int(p[key] * counts))
        p["keys"] = max(5, int(p["keys"] * counts))
    return p


def gap(value: float, limit: float) -> str:
    if value <= limit:
        return f"{value:.2f} <= {limit:g} (margin {limit - value:.2f})"
    return f"{value:.2f} > {limit:g} (+{value - limit:.2f}, {value / limit - 1:+.0%})"


# ---------------------------------------------------------------- the sections over stores


def run_stores(args, p: dict, cluster: Cluster, rng: random.Random, results: dict) -> None:
    from aurra_core.runtime.config import get_config

    want_write, want_search, want_query, want_tp = (
        ("write" in args.only),
        ("search" in args.only),
        ("query" in args.only),
        ("throughput" in args.only),
    )
    quick_size = p["sizes"][0]
    plan = []
    for size in p["sizes"]:
        for shape in p["shapes"]:
            if (
                want_write
                or want_search
                or want_query
                or (want_tp and shape == "small" and size == quick_size)
            ):
                plan.append((size, shape))
    for size, shape in plan:
        store = build_store(cluster, shape, size, rng, tenant_indexes=not args.no_tenant_indexes)
        log(
            f"\n## store: {store.label} = {size:,} memories (COPY {store.load_s:.1f} s, HNSW index {store.index_s:.1f} s, "
            f"{store.tenant_indexes} tenants' own indexes {store.tenant_index_s:.1f} s)"
        )
        results["stores"].append(
            {
                "shape": shape,
                "size": size,
                "label": store.label,
                "load_s": store.load_s,
                "index_s": store.index_s,
                "tenant_indexes": store.tenant_indexes,
                "tenant_index_s": store.tenant_index_s,
                "calibrated": store.calibrated,
            }
        )
        if store.calibrated:
            efs = [c["ef_search"] for c in store.calibrated]
            log(
                f"own indexes' calibrated ef_search: {min(efs)}-{max(efs)} "
                f"({', '.join(f'{ef}: {efs.count(ef)}' for ef in sorted(set(efs)))}); "
                f"recall@3 at it {min(c['recall@3'] for c in store.calibrated):.3f}-"
                f"{max(c['recall@3'] for c in store.calibrated):.3f}, "
                f"{sum(1 for c in store.calibrated if not c['reached'])} under target; "
                f"calibration {sum(c['seconds'] for c in store.calibrated):.1f} s "
                f"(exact top 3: {sum(c['exact_seconds'] for c in store.calibrated):.1f} s); "
                f"searched with at most the setting's {get_config().candidate_ef_search}"
            )
        make_keys(store, p["keys"], rng)
        results["stores"][-1].update(checkpoint_first=args.checkpoint_first, passes=args.passes)
        try:
            for pass_no in range(1, args.passes + 1):
                # Pass 1 right after the build (unless --checkpoint-first), every later pass
                # after a CHECKPOINT: the same store measured in both states, in one run.
                if pass_no > 1 or args.checkpoint_first:
                    checkpoint(store)
                if args.passes > 1:
                    after = (
                        "after a CHECKPOINT"
                        if pass_no > 1 or args.checkpoint_first
                        else "right after the build"
                    )
                    log(f"  pass {pass_no} of {args.passes} ({after})")
                measure_store(args, p, cluster, store, pass_no, rng, results)
        finally:
            cluster.drop(store.db_name)


def checkpoint(store) -> None:
    import psycopg

    started = time.perf_counter()
    with psycopg.connect(store.url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
    log(f"  CHECKPOINT before measuring: {time.perf_counter() - started:.1f} s")


def measure_store(
    args, p: dict, cluster: Cluster, store, pass_no: int, rng: random.Random, results: dict
) -> None:
    """One pass of the sections over one built store."""
    import memory_search
    import search
    import throughput
    import write_path

    shape, size, quick_size = store.shape, store.size, p["sizes"][0]
    want_write, want_search, want_query, want_tp = (
        s in args.only for s in ("write", "search", "query", "throughput")
    )

    if want_search:
        queries = p["queries"] if store.tenants[0][1] < 100_000 else p["large_tenant_queries"]
        log(f"  candidate search, {queries} queries per strategy (ground truth: exact scan)")
        log(f"    {'strategy':<50}{'p50 ms':>9}{'p95 ms':>9}{'recall@3':>10}{'hnsw/q':>8}{'own/q':>8}")
        r = search.run(store, queries, rng, log)
        r.update(shape_key=shape, measured_pass=pass_no)
        results["search"].append(r)
        log(
            f"    auto picks {r['auto_picked']} for tenants of {r['tenant_size']:,} (threshold "
            f"{r['threshold']:,}; tenant count costs {r['count_current_p50_ms']:.2f} ms p50); fastest service "
            f"strategy with recall >= 0.99: {r['best_service_strategy']} -> "
            f"{'right' if r['auto_right'] else 'WRONG'}"
        )
    if want_query:
        log(f"  GET /agent/memories?q=, {p['queries']} queries (ms per query, one transaction each)")
        log(f"    {'kind':<32}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
        r = memory_search.run(store, p["queries"], rng, log)
        r.update(shape_key=shape, measured_pass=pass_no)
        results["query"].append(r)
    if want_write:
        for level2 in (False, True):
            r = write_path.run_direct(store, p["writes"], level2, rng)
            r.update(
                shape=shape, size=size, label=store.label, level2=level2, via="direct", measured_pass=pass_no
            )
            # The floor in the same run, on the same store: the insert alone for Level 2
            # off, the top-3 query and the insert for Level 2 on.
            floor = write_path.run_floor(store, p["writes"], level2, rng)
            r["floor"] = floor
            r["ratio_p50"] = r["p50_ms"] / floor["p50_ms"]
            r["ratio_p99"] = r["p99_ms"] / floor["p99_ms"]
            results["write"].append(r)
            parts = "  ".join(f"{k} {v['mean_ms']:.2f} ({v['share']:.0%})" for k, v in r["parts"].items())
            log(
                f"  write direct, Level 2 {'on ' if level2 else 'off'}: p50 {r['p50_ms']:.2f}  p95 "
                f"{r['p95_ms']:.2f}  p99 {r['p99_ms']:.2f} ms  | mean ms: {parts}  | {r['outcomes']}"
            )
            log(
                f"  floor ({'top-3 query + ' if level2 else ''}insert, plain psycopg): p50 "
                f"{floor['p50_ms']:.2f}  p99 {floor['p99_ms']:.2f} ms  -> write / floor: p50 "
                f"{r['ratio_p50']:.2f}x  p99 {r['ratio_p99']:.2f}x"
            )
    # Over HTTP and throughput: once per store (they measure the server, not the store's state).
    if pass_no == 1 and size == quick_size and (want_write or (want_tp and shape == "small")):
        server = write_path.DevServerHandle(store.url, cluster.dir / f"dev-{shape}")
        try:
            write_path.warm_keys(server, store.callers)
            if want_write:
                for level2 in (False, True):
                    r = write_path.run_http(server, store, p["http_writes"], level2, rng)
                    r.update(shape=shape, size=size, label=store.label, level2=level2, via="http")
                    results["write"].append(r)
                    log(
                        f"  write over HTTP (aurra dev), Level 2 {'on ' if level2 else 'off'}: p50 "
                        f"{r['p50_ms']:.2f}  p95 {r['p95_ms']:.2f}  p99 {r['p99_ms']:.2f} ms (server side p50 "
                        f"{r['server_side']['p50_ms']:.2f}) {r['statuses']}"
                    )
            if want_tp and shape == "small":
                for clients in p["clients"]:
                    r = throughput.run(
                        server, store, clients, p["throughput_writes"], seed=args.seed + clients
                    )
                    r.update(label=store.label, size=size)
                    results["throughput"].append(r)
                    log(
                        f"  throughput, {clients:>2} clients: {r['writes_per_s']:.1f} writes/s ({r['ok']} ok "
                        f"in {r['wall_s']:.1f} s), latency p50 {r['latency']['p50_ms']:.1f} p95 "
                        f"{r['latency']['p95_ms']:.1f} p99 {r['latency']['p99_ms']:.1f} ms {r['statuses']}"
                        f"{', errors ' + str(r['errors']) if r['errors'] else ''}"
                    )
        finally:
            server.stop()


# ---------------------------------------------------------------- targets


def pass_of(r: dict) -> str:
    return f", pass {r['measured_pass']}" if r.get("measured_pass", 1) > 1 else ""


def targets(results: dict) -> list[dict]:
    out = []
    direct = [r for r in results["write"] if r["via"] == "direct"]
    if direct:
        largest = max(r["size"] for r in direct)
        note = (
            ""
            if largest >= TARGET_SIZE
            else f" [measured at {largest:,}, the target is at 1M: indicative only]"
        )
        for r in (r for r in direct if r["size"] == largest):
            name = f"write path p50/p99, {r['label']}, Level 2 {'on' if r['level2'] else 'off'}{pass_of(r)}"
            ok = r["p50_ms"] <= TARGET_P50_MS and r["p99_ms"] <= TARGET_P99_MS
            out.append(
                {
                    "target": name,
                    "pass": ok,
                    "indicative": largest < TARGET_SIZE,
                    "detail": f"p50 {gap(r['p50_ms'], TARGET_P50_MS)} ms; p99 {gap(r['p99_ms'], TARGET_P99_MS)} ms{note}",
                }
            )
    for r in results["search"]:
        auto = r["strategies"]["auto"]
        out.append(
            {
                "target": f"candidate recall@3 (service's choice: {r['auto_picked']}), {r['shape']}, {r['size']:,}"
                f"{pass_of(r)}",
                "pass": auto["recall@3"] >= TARGET_RECALL,
                "indicative": False,
                "detail": f"recall@3 {auto['recall@3']:.3f} vs >= {TARGET_RECALL} "
                f"({auto['recall@3'] - TARGET_RECALL:+.3f})",
            }
        )
    if results.get("coldstart"):
        loaders = [h for h, r in results["coldstart"].items() if r["anthropic_at_import"]]
        out.append(
            {
                "target": "no handler imports anthropic at module load",
                "pass": not loaders,
                "indicative": False,
                "detail": f"{len(results['coldstart'])} handlers checked (sys.modules after import); "
                + (f"imported by: {', '.join(loaders)}" if loaders else "none imports it"),
            }
        )
    if results.get("calls"):
        c = results["calls"]
        n = sum(
            v["writes"]
            for k, v in c["by_outcome"].items()
            if k in ("level_2_disabled_by_env", "auto_supersede_off", "excluded_category", "no_candidates")
        )
        out.append(
            {
                "target": "zero model calls for gated, disabled or candidate-less writes",
                "pass": c["calls_in_gated_disabled_or_candidateless_writes"] == 0,
                "indicative": False,
                "detail": f"{c['calls_in_gated_disabled_or_candidateless_writes']} calls in {n} such writes",
            }
        )
    return out


def main() -> int:
    args = parse_args()
    p = profile_settings(args.profile, args.scale, args.sizes, args.shapes)
    if not p["sizes"] or not p["shapes"]:
        raise SystemExit(
            f"--sizes/--shapes select nothing of --{args.profile}: {PROFILES[args.profile]['sizes']}, "
            f"{PROFILES[args.profile]['shapes']}"
        )
    local_environment()
    from embedders import machine_facts

    rng = random.Random(args.seed)
    started = time.perf_counter()
    log(
        f"# Aurra benchmarks: --{args.profile}{f' --scale {args.scale:g}' if args.scale != 1 else ''}"
        f"{' --no-tenant-indexes' if args.no_tenant_indexes else ''}, sections "
        f"{', '.join(args.only)}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    from aurra_core.runtime.config import get_config

    # The index settings the stores are built and searched with (AURRA_TENANT_INDEX_M etc.
    # in the environment override them, as in the service).
    config = get_config()
    index_settings = {
        "tenant_index_m": config.tenant_index_m,
        "tenant_index_ef_construction": config.tenant_index_ef_construction,
        "tenant_index_insert_ef_construction": config.tenant_index_insert_ef_construction,
        "tenant_index_limit": config.tenant_index_limit,
        "candidate_ef_search": config.candidate_ef_search,
    }
    log("index settings: " + ", ".join(f"{k} {v}" for k, v in index_settings.items()))
    if args.server_settings:
        log("server settings: " + ", ".join(f"{k} = {v}" for k, v in args.server_settings.items()))
    cluster = Cluster(shared_buffers=args.shared_buffers, settings=args.server_settings)
    results: dict = {
        "profile": args.profile,
        "scale": args.scale,
        "settings": p,
        "sections": args.only,
        "tenant_indexes": not args.no_tenant_indexes,
        "index_settings": index_settings,
        "started_at": datetime.now(UTC).isoformat(),
        "stores": [],
        "write": [],
        "search": [],
        "query": [],
        "throughput": [],
        "coldstart": {},
        "calls": {},
    }
    try:
        machine = {**machine_facts(), **cluster.facts(), "postgres_start_s": cluster.start_s}
        results["machine"] = machine
        log(
            f"machine: {machine['cpu']} ({machine['arch']}), {machine['cores']} cores, {machine['memory_gib']} GiB, "
            f"load average {machine['load_average']}"
        )
        log(
            f"software: python {machine['python']}, numpy {machine['numpy']} ({machine['blas']}), PostgreSQL "
            f"{machine['postgres']}, pgvector {machine['pgvector']} ({machine['postgres_settings']}); {machine['platform']}"
        )
        log(f"embedded PostgreSQL in {cluster.dir} (started in {cluster.start_s:.1f} s)")
        if {"write", "search", "query", "throughput"} & set(args.only):
            run_stores(args, p, cluster, rng, results)
        if "coldstart" in args.only:
            import cold_start

            log(
                "\n## cold start (fresh interpreter per run; first request through the imported lambda_handler)"
            )
            url = cluster.create("bench_coldstart")
            results["coldstart"] = cold_start.run(url, runs=3, tmp_dir=cluster.dir, log=log)
            for handler, r in results["coldstart"].items():
                heavy = ", ".join(f"{x['module']} {x['cumulative_ms']:.0f}" for x in r["heaviest_imports"])
                log(f"  {handler:<11} heaviest imports (cumulative ms): {heavy}")
        if "calls" in args.only:
            import model_calls

            log("\n## model calls per write (evals/cases.jsonl as a stream among distractors, six tenants)")
            url = cluster.create("bench_calls")
            c = results["calls"] = model_calls.run(url, seed=args.seed)
            t, cost = c["tokens_estimated"], c["cost_estimated_usd"]
            log(
                f"  {c['writes']} writes, {c['calls']} classifier calls: {c['share_reaching_classifier']:.1%} of writes reach "
                f"the classifier ({c['share_of_level2_eligible_reaching_classifier']:.1%} of Level-2-eligible writes); "
                f"{c['calls_per_write']:.3f} calls per write; at most {c['max_calls_in_one_write']} in one write"
            )
            for outcome, row in sorted(c["by_outcome"].items()):
                log(f"    {outcome:<26} {row['writes']:>5} writes {row['calls']:>5} calls")
            log(
                f"  ESTIMATED tokens per call ({t['method']}): input mean {t['input_per_call_mean']:.0f} (p95 "
                f"{t['input_per_call_p95']:.0f}; system prompt + tool {t['input_static_part']:.0f}), output mean "
                f"{t['output_per_call_mean']:.0f}"
            )
            log(f"  ESTIMATED cost at {cost['prices']}:")
            for model, by_cache in cost["per_call"].items():
                for cache, per_call in by_cache.items():
                    log(
                        f"    {model:<18} {cache:<24} ${per_call:.5f} per call, "
                        f"${cost['per_write'][model][cache]:.5f} per write of this stream, "
                        f"${cost['per_level2_eligible_write'][model][cache]:.5f} per Level-2-eligible write"
                    )
        results["targets"] = targets(results)
        log("\n## targets")
        for t in results["targets"]:
            mark = "PASS" if t["pass"] else "MISS"
            log(f"  {mark}{' (indicative)' if t['indicative'] else ''}  {t['target']}: {t['detail']}")
    finally:
        cluster.stop()
        results["finished_at"] = datetime.now(UTC).isoformat()
        results["elapsed_s"] = time.perf_counter() - started
        import os

        results["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
        out = args.out or ROOT / "bench" / "results" / (
            f"{args.profile}.json" if args.scale == 1 else f"{args.profile}-scale{args.scale:g}.json"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2, default=str))
        log(
            f"\nresults: {out} ({results['elapsed_s'] / 60:.1f} min; load average at end {results['load_average_at_end']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
