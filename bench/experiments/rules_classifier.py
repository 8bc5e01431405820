"""The rules classifier's CPU per Level 2 write, without a database (bench/notes/write-latency.md).

    python -m bench.experiments.rules_classifier [--writes 600] [--rounds 6] [--caches cold|warm] [--against OTHER_CHECKOUT]

What a Level 2 write with the rules classifier asks of it, as the benchmark stores do: a tenant
of ~100 memories about 4 people (`candidate_search.fact`), each write a new fact about one of
them, judged against its 3 nearest memories by `LexicalEmbedder(384)` (the write path's top 3),
embedded first as the write path does. Each round is a fresh process, 30 untimed writes, then
`--writes` timed: `time.thread_time()` around `RulesClassifier.classify`, the process's CPU.
`--caches cold` (the default) empties every cache of whole texts and pairs (the classifier's,
the normalizer's; not the per-word stems) before each write, so each write's texts and pairs
are judged as if never seen, the upper bound; `warm` keeps them as a long-lived process would
(the generator's texts repeat, so most pairs are then answered from the pair cache). With `--against`, rounds alternate between this
checkout and the other one (same seeds, so the same pairs), so load on a shared machine hits
both alike; the figures are per write (3 pairs).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # bench/: the suite's modules
ROOT = HERE.parent


def _text_caches() -> list:
    """The caches keyed by a whole text or pair, of the classifier and the normalizer."""
    from aurra_core.classifiers import rules, rules_evidence, rules_facts, rules_paraphrase, rules_slots
    from aurra_core.text_analysis import slots, text

    modules = (text, slots, rules, rules_facts, rules_evidence, rules_paraphrase, rules_slots)
    return [
        value
        for module in modules
        for name, value in vars(module).items()
        if hasattr(value, "cache_clear")
        and name != "canon"
        and getattr(value, "__module__", "") == module.__name__
    ]


def _worker(writes: int, seed: int, cold: bool) -> None:
    from candidate_search import NAMES, fact

    from aurra_core.classifiers.base import Candidate
    from aurra_core.classifiers.rules import RulesClassifier
    from aurra_core.embedders import LexicalEmbedder
    from aurra_core.storage.ids import new_id

    rng = random.Random(seed)
    embedder = LexicalEmbedder(384)
    names = rng.sample(NAMES, 4)
    stored = [fact(rng, rng.choice(names)) for _ in range(100)]
    import numpy as np

    vectors = np.array([embedder.embed(text).to_list() for text in stored])
    ids = [new_id() for _ in stored]
    classifier = RulesClassifier()
    caches = _text_caches() if cold else []
    times: list[float] = []
    for step in range(30 + writes):
        for cache in caches:
            cache.cache_clear()
        content = fact(rng, rng.choice(names))
        query = np.array(embedder.embed(content).to_list())
        nearest = np.argsort(-(vectors @ query), kind="stable")[:3]
        candidates = [
            Candidate(id=ids[i], content=stored[i], topic="general", similarity=0.0) for i in nearest
        ]
        started = time.thread_time()
        classifier.classify(content, "general", candidates, "rules")
        if step >= 30:
            times.append(time.thread_time() - started)
    print(json.dumps(times))


def _round(root: Path, writes: int, seed: int, caches: str) -> list[float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root / "layers/core/python"), str(root), str(root / "sdk/python/src"), str(HERE)]
    )
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--worker",
            "--writes",
            str(writes),
            "--seed",
            str(seed),
            "--caches",
            caches,
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    times: list[float] = json.loads(out.splitlines()[-1])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--caches", choices=("cold", "warm"), default="cold")
    parser.add_argument("--against", type=Path, help="another checkout, measured in alternate rounds")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.worker:
        _worker(args.writes, args.seed, args.caches == "cold")
        return
    checkouts = {"this checkout": ROOT}
    if args.against:
        checkouts = {f"against ({args.against})": args.against.resolve(), **checkouts}
    results: dict[str, list[float]] = {label: [] for label in checkouts}
    loads = [os.getloadavg()[0]]
    for round_number in range(args.rounds):
        for label, root in checkouts.items():
            results[label] += _round(root, args.writes, round_number + 1, args.caches)
        loads.append(os.getloadavg()[0])
    print(f"{platform.node()} {platform.processor() or platform.machine()} cores={os.cpu_count()}")
    print(f"python {platform.python_version()}; load average (1 min) {min(loads):.2f}-{max(loads):.2f}")
    print(
        f"{args.rounds} rounds x {args.writes} writes (3 pairs each), caches {args.caches}, CPU ms per write:"
    )
    for label, times in results.items():
        ms = sorted(t * 1000 for t in times)
        print(
            f"  {label}: p50 {statistics.median(ms):.3f}  mean {statistics.fmean(ms):.3f}"
            f"  p90 {ms[int(len(ms) * 0.9)]:.3f}"
        )


if __name__ == "__main__":
    main()
