"""What the offline rules classifier costs per pair as its facts grow, against a floor.

A Level 2 write with the rules classifier (the default) judges the new fact against up to three
candidates, so a pair's cost is paid up to three times a write. Facts may be 4,000 characters;
the pairs here are the adversarial ones of `tests/fakes/adversarial_facts.py` (a short clause
repeated, with varying words, to fill the length), which once took 8.7 s of CPU at 4,000
characters. Each pair is judged as `RulesClassifier.judge` judges it (`judge_pair`, then the value
swaps of rules_slots), with every
cache emptied first, so each text is read afresh as a write's new fact is.

The floor is the text normaliser alone (`aurra_core.text_analysis.text.normalize`) over the same
two facts: every reading of a fact starts with it, so no classifier of these texts costs less,
and it grows linearly with the text. The classifier's cost over the floor's should stay flat as
the facts grow; a ratio that climbs with the length is a superlinear path come back. Times are
this thread's CPU time (a loaded machine inflates wall time, not CPU time), the median of
`--rounds`.

    python bench/classifier_cost.py [--lengths 100,250,500,1000,2000,3000,4000] [--rounds 3]
                                    [--max-ratio 10] [--json FILE]

Exits 1 when the classifier costs more than `--max-ratio` times the floor at any length.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (str(ROOT / "layers/core/python"), str(ROOT)):
    if path not in sys.path:
        sys.path.insert(0, path)

from aurra_core.classifiers import rules  # noqa: E402
from aurra_core.classifiers.rules_facts import analyze  # noqa: E402
from aurra_core.text_analysis.text import normalize  # noqa: E402
from tests.fakes.adversarial_facts import KINDS, adversarial_pair  # noqa: E402

LENGTHS = (100, 250, 500, 1000, 2000, 3000, 4000)


def _clear() -> None:
    for cache in (analyze, normalize, rules._decide_cached, rules._abandoned_in, rules._ending_matches):
        cache.cache_clear()


def _cpu_ms(work: Callable[[], object], rounds: int) -> float:
    spent = []
    for _ in range(rounds):
        _clear()
        started = time.thread_time()
        work()
        spent.append((time.thread_time() - started) * 1000)
    return statistics.median(spent)


def measure(lengths: tuple[int, ...], rounds: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for length in lengths:
        for kind in sorted(KINDS):
            old, new = adversarial_pair(kind, length)
            classifier_ms = _cpu_ms(
                lambda old=old, new=new: rules._decide_cached.__wrapped__(old, new), rounds
            )
            floor_ms = _cpu_ms(
                lambda old=old, new=new: (normalize.__wrapped__(old), normalize.__wrapped__(new)), rounds
            )
            rows.append(
                {
                    "length": length,
                    "kind": kind,
                    "classifier_ms": round(classifier_ms, 2),
                    "floor_ms": round(floor_ms, 2),
                    "ratio": round(classifier_ms / max(floor_ms, 0.01), 1),
                }
            )
    return rows


def report(rows: list[dict[str, object]]) -> str:
    lines = [
        "rules classifier: CPU ms per pair (judge_pair and slots) against the floor (normalize, both facts)",
        f"{'length':>6}  {'kind':<12} {'classifier':>10} {'floor':>8} {'ratio':>6}",
    ]
    for row in rows:
        lines.append(
            f"{row['length']:>6}  {row['kind']:<12} {row['classifier_ms']:>10.1f} "
            f"{row['floor_ms']:>8.1f} {row['ratio']:>5.1f}x"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default=",".join(str(n) for n in LENGTHS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-ratio", type=float, default=10.0)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = parser.parse_args()
    lengths = tuple(int(n) for n in args.lengths.split(","))
    rows = measure(lengths, args.rounds)
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps({"max_ratio": args.max_ratio, "rows": rows}, indent=2) + "\n")
    over = [row for row in rows if float(str(row["ratio"])) > args.max_ratio]
    for row in over:
        print(
            f"OVER THE FLOOR: {row['kind']} at {row['length']} characters: {row['ratio']}x", file=sys.stderr
        )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
