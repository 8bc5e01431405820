"""Section 4: model calls per write on a realistic stream.

evals/cases.jsonl's old facts, then its new facts (each new fact after its own old one), are
replayed with distractor writes among distractor memories in six tenants that differ in what
they ask for: Level 2 requested per request, on by the key's default, not requested, refused
by the request against an on default, extra excluded topics, and a tenant served while the
server flag is off. The rules classifier stands in for the model, wrapped to count the calls
and to build, for each call, the exact prompt the model classifier would send
(aurra_core.classifiers.prompt: SYSTEM_PROMPT, the record_verdicts tool, user_message(...)).

Tokens and cost are ESTIMATED by bench/model_cost.py: characters / 3.6 (no tokenizer runs
here), the output as the answer the model would write in the prompt's grammar (the stand-in's
verdicts, reasons as long as the prompt's examples), ASSUMED list prices of
Claude Haiku 4.5 and Sonnet 4.5, each call priced uncached, as the first call in five minutes
(it writes the static prefix to the prompt cache) and in the steady state (it reads it).
"""

from __future__ import annotations

import random
import statistics
import uuid
from dataclasses import dataclass

from common import ROOT, TimedClassifier, pct
from model_cost import CHARS_PER_TOKEN, MODELS, call_cost, classification_tokens, cost_table

DISTRACTORS_PER_TENANT = 300
GATED = ("level_2_disabled_by_env", "auto_supersede_off", "excluded_category", "no_candidates")


@dataclass
class TenantPlan:
    name: str
    level2_flag: bool  # the server flag while this tenant's writes run
    requested: bool | None  # the request's auto_supersede (None: the key's default)
    key_default: bool = False  # the key's auto_supersede_default
    extra_excluded: tuple[str, ...] = ()


PLANS = (
    TenantPlan("requested", True, True),
    TenantPlan("key default on", True, None, key_default=True),
    TenantPlan("not requested", True, None),
    TenantPlan("refused by request", True, False, key_default=True),
    TenantPlan(
        "requested, more excluded topics", True, True, extra_excluded=("finance", "payment", "family", "diet")
    ),
    TenantPlan("requested, server flag off", False, True),
)


class RecordingClassifier:
    """Keeps each call's arguments and the stand-in's verdicts: the model's answer would carry
    the same labels and confidences, in the prompt's grammar."""

    def __init__(self, inner, calls: list[dict]) -> None:
        self._inner, self._calls = inner, calls

    def classify(self, new_content, new_topic, candidates, model):
        call = {"content": new_content, "topic": new_topic, "candidates": list(candidates), "verdicts": None}
        self._calls.append(call)
        out = self._inner.classify(new_content, new_topic, candidates, model)
        call["verdicts"] = out.verdicts
        return out


def run(url: str, seed: int = 5) -> dict:
    from candidate_search import NAMES, fact

    from aurra_core.access import keys
    from aurra_core.classifiers.rules import RulesClassifier
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.models import SettingsPatch, WriteRequest
    from aurra_core.runtime.config import DEFAULT_EXCLUDED_CATEGORIES
    from aurra_core.runtime.flags import EnvFlagSource
    from aurra_core.runtime.observability import metrics
    from aurra_core.storage import store
    from aurra_core.storage.db import Database
    from aurra_core.write_path.pipeline import WriteDependencies, write_memory
    from aurra_local.evaluate import load_cases

    rng = random.Random(seed)
    cases = load_cases(ROOT / "evals" / "cases.jsonl")
    embedder = LexicalEmbedder(384)
    db = Database(url, max_size=2)
    calls: list[dict] = []
    classifier = TimedClassifier(RecordingClassifier(RulesClassifier(), calls))

    # Tenants, keys with their settings, and distractor memories already stored.
    callers = []
    for plan in PLANS:
        with db.transaction() as conn:
            caller, _ = keys.create_key(conn, f"calls-{plan.name.replace(' ', '-')}-{uuid.uuid4().hex[:6]}")
        patch = {}
        if plan.key_default:
            patch["auto_supersede_default"] = True
        if plan.extra_excluded:
            patch["excluded_categories"] = [*DEFAULT_EXCLUDED_CATEGORIES, *plan.extra_excluded]
        if patch:
            with db.tenant_transaction(caller.tenant_id) as conn:
                keys.update_key_settings(conn, caller, SettingsPatch(**patch))
        callers.append(caller)
        names = rng.sample(NAMES, 6)
        with db.transaction() as conn:
            now = store.write_clock(conn)
            for _ in range(DISTRACTORS_PER_TENANT):
                text = fact(rng, rng.choice(names))
                store.insert_version(
                    conn,
                    memory_id=uuid.uuid4(),
                    tenant_id=caller.tenant_id,
                    content=text,
                    topic=rng.choice(("general", "preferences", "work", "travel")),
                    metadata={},
                    embedding=embedder.embed(text),
                    valid_from=now,
                    valid_to=None,
                    superseded_by=None,
                    supersedes=None,
                    recorded_at=now,
                )

    # The stream: per tenant, its cases' old and new facts (new after old) and as many
    # distractor writes, shuffled; tenants interleaved.
    per_tenant: list[list[tuple]] = [[] for _ in PLANS]
    for i, case in enumerate(cases):
        per_tenant[i % len(PLANS)].append(case)
    streams = []
    for tenant_cases in per_tenant:
        items = [("old", c) for c in tenant_cases] + [("new", c) for c in tenant_cases]
        names = rng.sample(NAMES, 6)
        items += [
            ("distractor", {"content": fact(rng, rng.choice(names)), "topic": "general"})
            for _ in range(len(tenant_cases))
        ]
        rng.shuffle(items)
        seen_old = set()
        ordered, waiting = [], {}
        for kind, item in items:  # hold a new fact back until its old one has been written
            if kind == "new" and item["id"] not in seen_old:
                waiting[item["id"]] = (kind, item)
                continue
            ordered.append((kind, item))
            if kind == "old":
                seen_old.add(item["id"])
                if item["id"] in waiting:
                    ordered.append(waiting.pop(item["id"]))
        streams.append(ordered)

    writes = []
    position = [0] * len(PLANS)
    while any(position[t] < len(streams[t]) for t in range(len(PLANS))):
        for t, plan in enumerate(PLANS):
            if position[t] >= len(streams[t]):
                continue
            kind, item = streams[t][position[t]]
            position[t] += 1
            fact_ = item if kind == "distractor" else item[kind]
            deps = WriteDependencies(
                db=db,
                embedder=embedder,
                classifier_factory=lambda: classifier,
                flags=EnvFlagSource(plan.level2_flag),
            )
            before = classifier.calls
            outcome = write_memory(
                callers[t],
                WriteRequest(
                    content=fact_["content"],
                    topic=fact_.get("topic", "general"),
                    auto_supersede=plan.requested,
                ),
                deps,
            )
            metrics.clear_metrics()
            a = outcome.result.auto_supersede
            writes.append(
                {
                    "tenant": plan.name,
                    "kind": kind,
                    "calls": classifier.calls - before,
                    "skipped": a.skipped_reason.value if a.skipped_reason else None,
                    "superseded": a.supersession is not None,
                    "duplicate": not outcome.result.created,
                }
            )
    db.close()
    return summarise(writes, calls)


def summarise(writes: list[dict], calls: list[dict]) -> dict:
    total = len(writes)
    reached = [w for w in writes if w["calls"] > 0]
    by_outcome: dict[str, dict] = {}
    for w in writes:
        key = w["skipped"] or "classified"
        row = by_outcome.setdefault(key, {"writes": 0, "calls": 0})
        row["writes"] += 1
        row["calls"] += w["calls"]
    by_tenant: dict[str, dict] = {}
    for w in writes:
        row = by_tenant.setdefault(w["tenant"], {"writes": 0, "calls": 0, "superseded": 0, "duplicates": 0})
        row["writes"] += 1
        row["calls"] += w["calls"]
        row["superseded"] += w["superseded"]
        row["duplicates"] += w["duplicate"]
    gated_calls = sum(w["calls"] for w in writes if w["skipped"] in GATED)
    estimated = [
        classification_tokens(c["content"], c["topic"], c["candidates"], c["verdicts"]) for c in calls
    ]
    at_cap = [
        classification_tokens(c["content"], c["topic"], c["candidates"], c["verdicts"], cap=True)
        for c in calls
    ]
    inputs = [t.static + t.dynamic for t in estimated]
    per_call = cost_table(estimated)
    calls_per_write = len(calls) / total if total else 0.0
    eligible = [w for w in writes if w["skipped"] in (None, "no_candidates", "classifier_error")]
    eligible_calls_per_write = len(calls) / len(eligible) if eligible else 0.0
    return {
        "writes": total,
        "calls": len(calls),
        "share_reaching_classifier": len(reached) / total if total else 0.0,
        "share_of_level2_eligible_reaching_classifier": (
            len([w for w in eligible if w["calls"]]) / len(eligible) if eligible else 0.0
        ),
        "calls_per_write": calls_per_write,
        "max_calls_in_one_write": max((w["calls"] for w in writes), default=0),
        "calls_in_gated_disabled_or_candidateless_writes": gated_calls,
        "by_outcome": by_outcome,
        "by_tenant": by_tenant,
        "candidates_per_call_mean": statistics.fmean(len(c["candidates"]) for c in calls) if calls else 0.0,
        "tokens_estimated": {
            "method": f"characters / {CHARS_PER_TOKEN} (an estimate; no tokenizer), system prompt + tool definition + "
            f"user message; the API's own tool-use preamble is not included. Output: "
            "the answer the model would write (its characters / "
            f"{CHARS_PER_TOKEN}), one grammar string per candidate.",
            "input_per_call_mean": statistics.fmean(inputs) if inputs else 0.0,
            "input_per_call_p95": pct(inputs, 95) if inputs else 0.0,
            "input_static_part": estimated[0].static if estimated else 0.0,
            "input_request_part_mean": statistics.fmean(t.dynamic for t in estimated) if estimated else 0.0,
            "output_per_call_mean": statistics.fmean(t.output for t in estimated) if estimated else 0.0,
            "output_per_call_mean_every_reason_at_cap": (
                statistics.fmean(t.output for t in at_cap) if at_cap else 0.0
            ),
        },
        "cost_estimated_usd": {
            "prices": "ASSUMED list prices per million tokens (input / output / 5-min cache write / cache read): "
            + "; ".join(
                f"{m.name} ${m.input} / ${m.output} / ${m.cache_write} / ${m.cache_read}" for m in MODELS
            ),
            "per_call": per_call,
            "per_call_every_reason_at_cap_steady_state": {
                m.name: statistics.fmean(call_cost(c, m, "steady_state_cache_read") for c in at_cap)
                if at_cap
                else 0.0
                for m in MODELS
            },
            "per_write": {
                model: {cache: cost * calls_per_write for cache, cost in by_cache.items()}
                for model, by_cache in per_call.items()
            },
            "per_level2_eligible_write": {
                model: {cache: cost * eligible_calls_per_write for cache, cost in by_cache.items()}
                for model, by_cache in per_call.items()
            },
        },
    }
