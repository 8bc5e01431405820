"""Section "query": GET /agent/memories?q= on a loaded store, the fused ranking against vector
alone. Per query, in one transaction each (as the service runs them, tenant role included):

- vector, one page: what search ran before the fusion, the exact nearest 21 (a page of 20 and
  one to know there is more);
- vector list, depth 200, and word list, depth 200: the two lists the fusion reads;
- fused (service): store.search_memories, both lists and the fusion in Python;
- fused, a question: the same for a question about the same person ("Where does Kalo live?"),
  which adds the list of memories that could answer it;
- first page (service): queries.read_memory_page, which adds the query's embedding (local
  lexical embedder) and the short transaction that pins the snapshot;
- a later page: the same with the first page's cursor (every page re-ranks the snapshot).

Query texts: a new fact about one of the tenant's people, cut to its first four words ("Kalo
lives in Lisbon"), as a person types a search.
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import UTC, datetime

from common import summary


class Timed:
    """Milliseconds of a `with` block, appended to a list."""

    def __init__(self, into: list[float]) -> None:
        self.into = into

    def __enter__(self) -> None:
        self.started = time.perf_counter()

    def __exit__(self, *exc) -> None:
        self.into.append((time.perf_counter() - self.started) * 1000)


# A question's search adds the memories that could answer it (text_analysis/questions.py).
QUESTIONS = (
    "Where does {name} live?",
    "Where does {name} work?",
    "How many kids does {name} have?",
    "What time does {name} start work?",
)

KINDS = (
    "vector, one page (before)",
    "vector list, depth 200",
    "word list, depth 200",
    "fused (service)",
    "fused, a question (service)",
    "first page (service)",
    "a later page (service)",
)


def run(store, queries: int, rng: random.Random, log=print) -> dict:
    from candidate_search import NAMES, fact

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.models import MemoryListQuery
    from aurra_core.storage import queries as reads
    from aurra_core.storage import store as memory_store
    from aurra_core.storage.db import Database

    embedder = LexicalEmbedder(384)
    db = Database(store.url, max_size=1)
    timings: dict[str, list[float]] = {kind: [] for kind in KINDS}
    results_per_query: list[int] = []
    word_hits: list[int] = []
    depth = memory_store.SEARCH_DEPTH
    try:
        for i in range(queries + 5):
            caller, _ = rng.choice(store.callers)
            tenant_id = caller.tenant_id
            name = rng.choice(store.names_of.get(tenant_id) or NAMES)
            text = " ".join(fact(rng, name).split()[:4])
            vector = embedder.embed(text)
            question = rng.choice(QUESTIONS).format(name=name)
            question_vector = embedder.embed(question)
            now = datetime.now(UTC)
            where, params = memory_store.snapshot_filter(
                tenant_id,
                known_at=now,
                as_of=now,
                include_superseded=False,
                topic=None,
                user_id=None,
                agent_id=None,
            )
            with Timed(timings[KINDS[0]]), db.tenant_transaction(tenant_id) as conn:
                memory_store._vector_list(conn, tenant_id, vector, where, params, 21, "exact", 0)
            with Timed(timings[KINDS[1]]), db.tenant_transaction(tenant_id) as conn:
                memory_store._vector_list(conn, tenant_id, vector, where, params, depth, "exact", 0)
            with Timed(timings[KINDS[2]]), db.tenant_transaction(tenant_id) as conn:
                words = memory_store._word_list(conn, vector, text, where, params, depth, past_versions=True)
            with Timed(timings[KINDS[3]]), db.tenant_transaction(tenant_id) as conn:
                ranked = memory_store.search_memories(
                    conn,
                    tenant_id,
                    vector,
                    text,
                    known_at=now,
                    as_of=now,
                    include_superseded=False,
                    topic=None,
                )
            with Timed(timings[KINDS[4]]), db.tenant_transaction(tenant_id) as conn:
                memory_store.search_memories(
                    conn,
                    tenant_id,
                    question_vector,
                    question,
                    known_at=now,
                    as_of=now,
                    include_superseded=False,
                    topic=None,
                )
            with Timed(timings[KINDS[5]]):
                first = reads.read_memory_page(caller, MemoryListQuery(q=text), db, embedder)
            if first.next_cursor is not None:
                with Timed(timings[KINDS[6]]):
                    reads.read_memory_page(
                        caller, MemoryListQuery(q=text, cursor=first.next_cursor), db, embedder
                    )
            if i < 5:  # warm-up
                for values in timings.values():
                    values.clear()
            else:
                results_per_query.append(len(ranked))
                word_hits.append(len(words))
    finally:
        db.close()
    out = {
        "shape": store.label,
        "size": store.size,
        "queries": queries,
        "kinds": {kind: summary(values) for kind, values in timings.items()},
        "results_per_query_mean": statistics.fmean(results_per_query),
        "word_list_hits_mean": statistics.fmean(word_hits),
    }
    for kind, s in out["kinds"].items():
        if s["n"]:
            log(f"    {kind:<32}{s['p50_ms']:>9.2f}{s['p95_ms']:>9.2f}{s['p99_ms']:>9.2f}")
    log(
        f"    results ranked per query {out['results_per_query_mean']:.0f}, word-list hits "
        f"{out['word_list_hits_mean']:.0f} (of at most {memory_store.SEARCH_DEPTH})"
    )
    return out
