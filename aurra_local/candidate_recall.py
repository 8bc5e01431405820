"""`aurra eval --candidate-recall`: how often candidate search puts the memory a new fact is
about among the 3 the classifier sees.

Every case's target memory, its own hard distractors and a background of generic ones live in
one tenant; each case's query (the new fact) then searches that tenant as a write would. Cases
come from `evals/candidates.jsonl` (targets that share meaning but not words, distractors that
share words but not meaning) and from the labeled pairs of the classifier sets whose label says
the old fact matters to the new one (everything but `new_fact`).
"""

from __future__ import annotations

import json
import random
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GATED_TOPICS = {"health_medical", "legal_status"}
RETRIEVALS = ("vector", "hybrid")


@dataclass(frozen=True)
class RecallCase:
    id: str
    category: str
    target: dict[str, str]
    query: dict[str, str]
    distractors: list[dict[str, str]] = field(default_factory=list)


def load_recall_cases(path: Path) -> list[RecallCase]:
    """Cases of either format: the candidate set's (target, query, distractors) or a labeled
    pair set's (old, new, label), of which the pairs that should reach the classifier."""
    cases = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        if "target" in raw:
            cases.append(
                RecallCase(
                    raw["id"], raw["category"], raw["target"], raw["query"], raw.get("distractors", [])
                )
            )
        elif raw["label"] != "new_fact" and raw["old"].get("topic") not in GATED_TOPICS:
            cases.append(
                RecallCase(f"{path.stem}:{raw['id']}", f"pairs:{raw['category']}", raw["old"], raw["new"])
            )
    return cases


_SUBJECTS = (
    "User",
    "The customer",
    "alice",
    "bob",
    "Priya",
    "Marco",
    "Acme Corp",
    "the team",
    "Kenji",
    "Fatima",
)
_TOPICS = ("preferences", "work", "travel", "family", "devices", "billing", "projects", "food")
_TEMPLATES = (
    "{s} mentioned a meeting on {d}",
    "{s} likes {x}",
    "{s} asked about {x}",
    "{s} visited {p} last year",
    "{s} prefers {x} over {y}",
    "{s} has a call with {p} on {d}",
    "{s} bought {x} from {p}",
    "{s} reads about {x}",
)
_WORDS = (
    "jazz sushi hiking Python kayaks spreadsheets tea podcasts chess Lisbon Kyoto invoices "
    "sneakers gardening the-roadmap quarterly-goals a-standing-desk"
).split()
_DAYS = ("Monday", "Tuesday", "Thursday", "the 14th", "next week")
_PLACES = ("Berlin", "Nairobi", "Denver", "Osaka", "the vendor", "IT", "finance")


def background_distractors(count: int, seed: int = 11) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [
        {
            "content": rng.choice(_TEMPLATES).format(
                s=rng.choice(_SUBJECTS),
                x=rng.choice(_WORDS).replace("-", " "),
                y=rng.choice(_WORDS).replace("-", " "),
                d=rng.choice(_DAYS),
                p=rng.choice(_PLACES),
            ),
            "topic": rng.choice(_TOPICS),
        }
        for _ in range(count)
    ]


def measure(
    cases: list[RecallCase], background: int, database_url: str, embedder_names: list[str] | None = None
) -> dict[str, Any]:
    """Recall@3 overall and per category, for each embedder and each retrieval (vector alone,
    and hybrid), each embedder in a tenant of its own."""
    from aurra_core.embedders import create_embedder
    from aurra_core.runtime.config import get_config

    config = get_config()
    names = embedder_names or [config.embedder]
    results = {}
    for name in names:
        embedder_config = config.model_copy(update={"embedder": name})
        embedder = create_embedder(embedder_config)
        results[name] = _measure_embedder(
            cases,
            background,
            database_url,
            embedder,
            embedder_config.candidate_floor,
        )
    return {"cases": len(cases), "memories_in_tenant": _pool_size(cases, background), "embedders": results}


def _pool_size(cases: list[RecallCase], background: int) -> int:
    facts = [case.target for case in cases] + [d for case in cases for d in case.distractors]
    facts += background_distractors(background)
    return len({(fact["content"], fact.get("topic", "general")) for fact in facts})


def _measure_embedder(
    cases: list[RecallCase],
    background: int,
    database_url: str,
    embedder: Any,
    floor: float,
) -> dict[str, Any]:
    from aurra_core.access import keys
    from aurra_core.runtime.config import CANDIDATE_LIMIT, DEFAULT_EXCLUDED_CATEGORIES
    from aurra_core.storage import store
    from aurra_core.storage.db import Database
    from aurra_core.storage.ids import new_id

    db = Database(database_url)
    target_ids: dict[str, uuid.UUID] = {}
    started = time.perf_counter()
    with db.transaction() as conn:
        caller, _ = keys.create_key(conn, f"recall-{uuid.uuid4().hex[:8]}")
        now = store.write_clock(conn)

        stored: dict[tuple[str, str], uuid.UUID] = {}

        def put(fact: dict[str, str]) -> uuid.UUID:
            # Several labeled pairs share an old fact word for word: it is stored once, and is
            # the target of each (a copy of the target would be a right candidate, yet count
            # as a miss).
            key = (fact["content"], fact.get("topic", "general"))
            if key in stored:
                return stored[key]
            memory_id = stored[key] = new_id()
            store.insert_version(
                conn,
                memory_id=memory_id,
                tenant_id=caller.tenant_id,
                content=fact["content"],
                topic=fact.get("topic", "general"),
                metadata={},
                embedding=embedder.embed(fact["content"]),
                valid_from=now,
                valid_to=None,
                superseded_by=None,
                supersedes=None,
                recorded_at=now,
            )
            return memory_id

        for case in cases:
            target_ids[case.id] = put(case.target)
            for distractor in case.distractors:
                put(distractor)
        for distractor in background_distractors(background):
            put(distractor)
    embed_ms = (time.perf_counter() - started) * 1000 / max(1, len(stored))

    found: dict[str, dict[str, list[bool]]] = {mode: defaultdict(list) for mode in RETRIEVALS}
    search_ms: dict[str, list[float]] = {mode: [] for mode in RETRIEVALS}
    with db.transaction() as conn:
        for case in cases:
            query_vector = embedder.embed(case.query["content"])
            for mode in RETRIEVALS:
                begun = time.perf_counter()
                hits = store.find_candidates(
                    conn,
                    caller.tenant_id,
                    query_vector,
                    scope=store.UNSCOPED,
                    excluded_topics=list(DEFAULT_EXCLUDED_CATEGORIES),
                    limit=CANDIDATE_LIMIT,
                    min_similarity=floor,
                    text=case.query["content"] if mode == "hybrid" else None,
                    topic=case.query.get("topic") if mode == "hybrid" else None,
                )
                search_ms[mode].append((time.perf_counter() - begun) * 1000)
                found[mode][case.category].append(target_ids[case.id] in {row.memory_id for row, _ in hits})
    db.close()
    report: dict[str, Any] = {
        "min_similarity": floor,
        "store_ms_per_fact": round(embed_ms, 2),
    }
    for mode in RETRIEVALS:
        every = [hit for hits in found[mode].values() for hit in hits]
        pairs = [hit for c, hits in found[mode].items() if c.startswith("pairs:") for hit in hits]
        grouped = [hit for c, hits in found[mode].items() if not c.startswith("pairs:") for hit in hits]
        report[mode] = {
            "recall_at_3": round(sum(every) / len(every), 4) if every else 0.0,
            "candidate_cases": _share(grouped),
            "labeled_pairs": _share(pairs),
            "search_ms_p50": round(sorted(search_ms[mode])[len(search_ms[mode]) // 2], 2) if every else 0.0,
            "by_category": {
                category: round(sum(hits) / len(hits), 4) for category, hits in sorted(found[mode].items())
            },
        }
    return report


def _share(hits: list[bool]) -> float | None:
    return round(sum(hits) / len(hits), 4) if hits else None


def format_report(result: dict[str, Any]) -> str:
    lines = [
        f"candidate recall@3: {result['cases']} cases, {result['memories_in_tenant']} memories in the tenant"
    ]
    for name, report in result["embedders"].items():
        lines.append(
            f"\nembedder {name} (floor {report['min_similarity']}, "
            f"{report['store_ms_per_fact']} ms to embed and store each memory)"
        )
        lines.append(f"  {'category':<32} {'vector':>8} {'hybrid':>8}")
        categories = sorted({c for mode in RETRIEVALS for c in report[mode]["by_category"]})
        grouped = [c for c in categories if not c.startswith("pairs:")]
        for category in grouped:
            lines.append(
                f"  {category:<32} {report['vector']['by_category'].get(category, 0):>8.3f} "
                f"{report['hybrid']['by_category'].get(category, 0):>8.3f}"
            )
        if grouped and report["vector"].get("candidate_cases") is not None:
            lines.append(
                f"  {'candidate cases, all':<32} {report['vector']['candidate_cases']:>8.3f} "
                f"{report['hybrid']['candidate_cases']:>8.3f}"
            )
        pairs = [c for c in categories if c.startswith("pairs:")]
        if pairs:
            lines.append(
                f"  {'labeled pairs (' + str(len(pairs)) + ' categories)':<32} "
                f"{_mean_of(report['vector'], pairs):>8.3f} {_mean_of(report['hybrid'], pairs):>8.3f}"
            )
            lines.append(
                f"  {'labeled pairs, all':<32} {report['vector']['labeled_pairs']:>8.3f} "
                f"{report['hybrid']['labeled_pairs']:>8.3f}"
            )
        lines.append(
            f"  {'all':<32} {report['vector']['recall_at_3']:>8.3f} {report['hybrid']['recall_at_3']:>8.3f}"
        )
        lines.append(
            f"  {'search p50 ms':<32} {report['vector']['search_ms_p50']:>8.2f} {report['hybrid']['search_ms_p50']:>8.2f}"
        )
    return "\n".join(lines)


def _mean_of(mode_report: dict[str, Any], categories: list[str]) -> float:
    values = [mode_report["by_category"][c] for c in categories if c in mode_report["by_category"]]
    return sum(values) / len(values) if values else 0.0
