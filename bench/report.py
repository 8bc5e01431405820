"""Markdown tables of a results file, as BENCHMARKS.md shows them.

python bench/report.py bench/results/full.json [more.json ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _ms(value: float) -> str:
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def stores(results: dict) -> list[str]:
    out = [
        "| store | memories | COPY s | shared HNSW index s | tenants' own indexes (build s) |",
        "|---|---|---|---|---|",
    ]
    for s in results["stores"]:
        out.append(
            f"| {s['label']} | {s['size']:,} | {s['load_s']:.1f} | {s['index_s']:.1f} | "
            f"{s.get('tenant_indexes', 0)} ({s.get('tenant_index_s', 0):.1f}) |"
        )
    return out


def writes(results: dict) -> list[str]:
    out = [
        "| store | via | Level 2 | p50 | p95 | p99 | embed | candidate search | classifier | transaction (rest) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for w in results["write"]:
        parts = w.get("parts") or {}
        cells = [
            f"{parts[k]['mean_ms']:.2f}" if k in parts and parts[k]["mean_ms"] else "—"
            for k in ("embed", "search", "classify", "transaction")
        ]
        out.append(
            f"| {w['label']} | {w['via']} | {'on' if w['level2'] else 'off'} | {_ms(w['p50_ms'])} | "
            f"{_ms(w['p95_ms'])} | {_ms(w['p99_ms'])} | " + " | ".join(cells) + " |"
        )
    return out


def searches(results: dict) -> list[str]:
    out = [
        "| store | service's choice | p50 ms | p95 ms | recall@3 | own index scans/q | exact p50 ms | "
        "shared index only, ef 200: p50 ms / recall@3 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results["search"]:
        auto, exact = r["strategies"]["auto"], r["strategies"]["exact"]
        shared = r["strategies"].get("hnsw_forced:200")
        shared_cell = f"{_ms(shared['p50_ms'])} / {shared['recall@3']:.3f}" if shared else "—"
        out.append(
            f"| {r['shape']} ({r['size']:,}) | {r['auto_picked']} | {_ms(auto['p50_ms'])} | {_ms(auto['p95_ms'])} | "
            f"{auto['recall@3']:.3f} | {auto.get('tenant_index_scans_per_query', 0):.2f} | {_ms(exact['p50_ms'])} | "
            f"{shared_cell} |"
        )
    return out


def main() -> None:
    for path in sys.argv[1:]:
        results = json.loads(Path(path).read_text())
        print(
            f"## {path}: --{results['profile']}, started {results['started_at'][:16]}, "
            f"{results['elapsed_s'] / 60:.1f} min, shared_buffers {results['machine']['postgres_settings']['shared_buffers']}\n"
        )
        for key, table in (("stores", stores), ("write", writes), ("search", searches)):
            if results[key]:
                print("\n".join(table(results)) + "\n")


if __name__ == "__main__":
    main()
