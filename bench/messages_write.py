"""The messages write path: conversations in, facts out, per user.

A tenant of `--size` memories (default 10,000) spread over `--users` end users (each memory in
one user's scope), on an embedded PostgreSQL of its own. Each measured request is a messages
write (aurra_core.write_path.pipeline.write_messages) for one user: 1 to 3 first-person statements
(an editor, a city, a pet...), some of which replace what that user's memories say. The rules
extractor and the rules classifier stand in for the models, wrapped to count their calls, so
the figures are the service's own cost: extraction, topic gate, embedding, the scoped candidate
search, classification and the one transaction.

Model calls per write are counted as a model-backed service would make them: 1 extraction call
(the rules extractor makes none; a model extractor makes exactly one) plus 1 classification
call per fact that reaches the classifier. The alternative, one classification call for all of
a request's facts, is costed on the same stream: its input is the static prompt once plus
every fact's candidates, where one call per fact repeats the static prompt per fact. Tokens
and cost are ESTIMATED by bench/model_cost.py (characters / 3.6, ASSUMED list prices): per
write, the extraction call (its prompt and the facts it answered, uncached) plus each
classification call, uncached, as the first call in five minutes and in the steady state.

Then `--explain-size` (default 100,000): a single tenant of that size, the same users, and
EXPLAIN of the scoped candidate query a write runs, to show which index serves it.

    python bench/messages_write.py [--size 10000] [--users 100] [--writes 300] [--explain-size 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Cluster, local_environment, log, summary
from model_cost import (
    CACHE_STATES,
    CHARS_PER_TOKEN,
    MODELS,
    call_cost,
    classification_tokens,
    extraction_tokens,
    mean_tokens,
)

EDITORS = "Vim Emacs Helix Zed Sublime Nano".split()
CITIES = "Berlin Paris Lisbon Tokyo Austin Oslo Lima Accra Porto Quito".split()
PETS = "dog cat parrot rabbit".split()
PET_NAMES = "Rex Luna Max Bella Coco Miso".split()
DRINKS = "tea coffee matcha juice".split()
EMPLOYERS = "Acme Globex Initech Umbrella Hooli Stark".split()


def user_facts(rng: random.Random) -> list[str]:
    """What a user's memories say about them (third person, as extracted facts read)."""
    return [
        f"User uses {rng.choice(EDITORS)} as their editor",
        f"User lives in {rng.choice(CITIES)}",
        f"User works at {rng.choice(EMPLOYERS)}",
        f"User drinks {rng.choice(DRINKS)} in the morning",
        f"User has a {rng.choice(PETS)} named {rng.choice(PET_NAMES)}",
    ]


def statement(rng: random.Random) -> str:
    """One first-person sentence of a conversation; "now" marks the ones that replace."""
    return rng.choice(
        [
            f"I use {rng.choice(EDITORS)} now.",
            f"I live in {rng.choice(CITIES)} now.",
            f"I moved to {rng.choice(CITIES)} last month.",
            f"I work at {rng.choice(EMPLOYERS)} now.",
            f"I drink {rng.choice(DRINKS)} in the morning now.",
            f"I adopted a {rng.choice(PETS)} named {rng.choice(PET_NAMES)}.",
            "I'm thinking about learning Japanese.",
            f"My sister lives in {rng.choice(CITIES)}.",
        ]
    )


def conversation(rng: random.Random) -> list[dict[str, str]]:
    sentences = " ".join(statement(rng) for _ in range(rng.randint(1, 3)))
    return [
        {"role": "user", "content": f"Hi! {sentences}"},
        {"role": "assistant", "content": "Noted, thanks!"},
        {"role": "user", "content": "Can you remind me what we discussed?"},
    ]


def load_tenant(url: str, tenant_id: uuid.UUID, size: int, users: int, rng: random.Random) -> None:
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder

    embedder = LexicalEmbedder(384)
    now = datetime.now(UTC)
    profiles = {u: user_facts(rng) for u in range(users)}
    with psycopg.connect(url) as conn:
        register_vector(conn)
        conn.execute("INSERT INTO tenants (id, name) VALUES (%s, %s)", (tenant_id, f"bench-{tenant_id}"))
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from, recorded_at, "
                "user_id) FROM STDIN WITH (FORMAT BINARY)"
            ) as copy,
        ):
            copy.set_types(["uuid", "uuid", "text", "text", "vector", "timestamptz", "timestamptz", "text"])
            for i in range(size):
                user = i % users
                facts = profiles[user]
                # A user's profile first, then other things they said (distractors of their scope).
                k = i // users
                text = facts[k] if k < len(facts) else f"User mentioned {rng.choice(CITIES)} on call {k}"
                copy.write_row(
                    (uuid.uuid4(), tenant_id, text, "general", embedder.embed(text), now, now, f"user-{user}")
                )
        conn.commit()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE memory_versions")


class CountingExtractor:
    """Counts calls and keeps the last one's conversation and facts (what a model would be sent
    and would answer)."""

    def __init__(self, inner) -> None:
        self._inner, self.calls = inner, 0
        self.name = inner.name
        self.last: tuple[list, list] = ([], [])

    def extract(self, messages, model, relations=()):
        self.calls += 1
        extraction = self._inner.extract(messages, model)
        self.last = (list(messages), list(extraction.facts))
        return extraction


class CountingClassifier:
    """Counts calls and keeps, per request, what each call would send a model and the
    stand-in's verdicts (the labels and confidences the model's answer would carry)."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.calls: list[list] = []

    def classify(self, new_content, new_topic, candidates, model):
        call = [new_content, new_topic, list(candidates), None]
        self.calls.append(call)
        out = self._inner.classify(new_content, new_topic, candidates, model)
        call[3] = out.verdicts
        return out


def prompt_tokens(calls: list[list]) -> tuple[float, float]:
    """(one call per fact, one call for all facts): estimated input tokens of one request."""
    from aurra_core.classifiers.prompt import SYSTEM_PROMPT, TOOL, user_message

    if not calls:
        return 0.0, 0.0
    static = len(SYSTEM_PROMPT) + len(json.dumps(TOOL))
    dynamic = [len(user_message(content, topic, candidates)) for content, topic, candidates, _ in calls]
    per_fact = sum(static + d for d in dynamic)
    batched = static + sum(dynamic)
    return per_fact / CHARS_PER_TOKEN, batched / CHARS_PER_TOKEN


def run_writes(url: str, tenant_id: uuid.UUID, users: int, writes: int, rng: random.Random) -> dict:
    from aurra_core.access import keys
    from aurra_core.classifiers.rules import RulesClassifier
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.extractors.rules import RulesExtractor
    from aurra_core.models import MessagesWriteRequest
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.runtime.observability import metrics
    from aurra_core.storage.db import Database
    from aurra_core.write_path.pipeline import WriteDependencies, write_messages

    db = Database(url, max_size=2)
    with db.transaction() as conn:
        caller, _ = keys.create_key(conn, f"bench-{tenant_id}")
    extractor = CountingExtractor(RulesExtractor())
    classifier = CountingClassifier(RulesClassifier())
    deps = WriteDependencies(
        db=db,
        embedder=LexicalEmbedder(384),
        classifier_factory=lambda: classifier,
        flags=EnvFlagSource(True),
        extractor_factory=lambda: extractor,
    )
    totals, per_fact_tokens, batched_tokens = [], [], []
    extraction_calls, classification_calls, write_costs = [], [], []
    facts_per_write, classifications, supersessions, stored = [], [], 0, 0
    warmup = 10
    try:
        for i in range(warmup + writes):
            request = MessagesWriteRequest(
                messages=conversation(rng), user_id=f"user-{rng.randrange(users)}", auto_supersede=True
            )
            classifier.calls = []
            started = time.perf_counter()
            outcome = write_messages(caller, request, deps)
            elapsed = (time.perf_counter() - started) * 1000
            metrics.clear_metrics()
            if i < warmup:
                continue
            totals.append(elapsed)
            facts_per_write.append(len(outcome.result.facts))
            classifications.append(len(classifier.calls))
            a, b = prompt_tokens(classifier.calls)
            per_fact_tokens.append(a)
            batched_tokens.append(b)
            extraction = extraction_tokens(*extractor.last)
            classified = [classification_tokens(*call) for call in classifier.calls]
            extraction_calls.append(extraction)
            classification_calls.extend(classified)
            write_costs.append(
                {
                    model.name: {
                        cache: call_cost(extraction, model, "uncached")
                        + sum(call_cost(c, model, cache) for c in classified)
                        for cache in CACHE_STATES
                    }
                    for model in MODELS
                }
            )
            supersessions += sum(1 for f in outcome.result.facts if f.auto_supersede.supersession)
            stored += sum(1 for f in outcome.result.facts if f.created)
    finally:
        db.close()
    calls_per_fact = [1 + c for c in classifications]  # a model extractor's one call + classifications
    return {
        "writes": len(totals),
        "latency": summary(totals),
        "facts_per_write": statistics.fmean(facts_per_write),
        "facts_stored": stored,
        "supersessions": supersessions,
        "model_calls_per_write": {
            "extraction": 1,
            "classification_mean": statistics.fmean(classifications),
            "classification_max": max(classifications),
            "total_mean_one_call_per_fact": statistics.fmean(calls_per_fact),
            "total_mean_one_call_for_all_facts": statistics.fmean(
                1 + (1 if c else 0) for c in classifications
            ),
        },
        "classification_input_tokens_per_write_estimated": {
            "one_call_per_fact_mean": statistics.fmean(per_fact_tokens),
            "one_call_for_all_facts_mean": statistics.fmean(batched_tokens),
        },
        "tokens_per_call_estimated": {
            "extraction": mean_tokens(extraction_calls),
            "classification": mean_tokens(classification_calls),
        },
        # Extraction uncached (its prompt marks no breakpoint) plus every classification call
        # in the given cache state.
        "model_cost_per_write_estimated_usd": {
            model.name: {
                cache: statistics.fmean(w[model.name][cache] for w in write_costs) for cache in CACHE_STATES
            }
            for model in MODELS
        },
        "extraction_cost_per_write_estimated_usd": {
            model.name: statistics.fmean(call_cost(e, model, "uncached") for e in extraction_calls)
            for model in MODELS
        },
    }


def explain_scoped_search(url: str, tenant_id: uuid.UUID, users: int) -> dict:
    import psycopg
    from pgvector.psycopg import register_vector

    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.models import Scope
    from aurra_core.storage import store

    statements: list[tuple[str, dict]] = []

    class Recording(psycopg.Cursor):
        def execute(self, query, params=None, **kwargs):
            statements.append((str(query), params))
            return super().execute(query, params, **kwargs)

    q = LexicalEmbedder(384).embed("User lives in Oslo now")
    with psycopg.connect(url) as conn:
        register_vector(conn)
        conn.cursor_factory = Recording
        started = time.perf_counter()
        found = store.find_candidates(
            conn,
            tenant_id,
            q,
            scope=Scope(f"user-{users // 2}"),
            excluded_topics=[],
            limit=3,
            min_similarity=0.0,
        )
        search_ms = (time.perf_counter() - started) * 1000
        conn.cursor_factory = psycopg.Cursor
        ((query, params),) = [(s, p) for s, p in statements if "ORDER BY" in s]
        plan = [
            re.sub(r"'\[[^\]]*\]'::vector", "'[...]'::vector", r[0])
            for r in conn.execute("EXPLAIN (ANALYZE, BUFFERS) " + query, params, prepare=False)
        ]
        tenant_size = store.count_current(conn, tenant_id)
    return {
        "tenant_memories": tenant_size,
        "scope_memories": tenant_size // users,
        "candidates": len(found),
        "search_ms": search_ms,
        "index_scan_on_scope_index": any("memory_versions_scope_current" in line for line in plan),
        "plan": plan,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--explain-size", type=int, default=100_000, help="0 skips the EXPLAIN section")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()
    local_environment()
    rng = random.Random(args.seed)
    cluster = Cluster()
    results: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            # Other work on the machine while the run starts: figures under load are not quiet figures.
            "load_average_1m_at_start": os.getloadavg()[0],
        },
        "cluster": cluster.facts(),
        "size": args.size,
        "users": args.users,
    }
    try:
        url = cluster.create("bench_messages")
        tenant = uuid.uuid4()
        log(f"loading {args.size:,} memories over {args.users} users")
        load_tenant(url, tenant, args.size, args.users, rng)
        log(f"{args.writes} messages writes")
        results["messages_write"] = run_writes(url, tenant, args.users, args.writes, rng)
        if args.explain_size:
            big_url = cluster.create("bench_messages_explain")
            big = uuid.uuid4()
            log(f"loading {args.explain_size:,} memories for the EXPLAIN")
            load_tenant(big_url, big, args.explain_size, args.explain_size // 100, rng)
            results["scoped_search_explain"] = explain_scoped_search(big_url, big, args.explain_size // 100)
    finally:
        cluster.stop()
    results["machine"]["load_average_1m_at_end"] = os.getloadavg()[0]
    text = json.dumps(results, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
