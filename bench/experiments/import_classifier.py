"""The rules classifier's CPU on the import benchmark's facts at scale, without a database.

    .venv/bin/python -m bench.experiments.import_classifier [--before 60000] [--facts 4000]
        [--by-scope] [--every-earlier] [--profile]

The pairs a Level 2 import of `bench/portability.py`'s facts (`facts_file`: 997 users, each
fact "User U noted item I: prefers option O for task T") asks of it once every scope holds
about `--before` / 997 memories: each of `--facts` new facts against the three latest facts of
its user. In the file's order the users take turns, so each memory comes back as a candidate
about 1,000 facts after it was last seen; `--by-scope` takes the same pairs one user after
another, as `aurra import` sends a scope's facts together (`level2_lanes`). `--every-earlier`
compares each fact with every earlier fact of its user from `--before` on, at most 25, as while a
scope is small (`SMALL_SCOPE`): `--before 0 --facts 11964` is 12 facts a user, 65,802 pairs.
Prints the CPU a pair and a fact; `--profile` prints cProfile's 25 costliest functions instead.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

USERS = 997  # bench/portability.py facts_file


def content(i: int) -> str:
    return f"User {i % USERS} noted item {i}: prefers option {i % 13} for task {i % 101}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=int, default=60000)
    parser.add_argument("--facts", type=int, default=4000)
    parser.add_argument("--by-scope", action="store_true", help="one user's pairs after another's")
    parser.add_argument(
        "--every-earlier",
        action="store_true",
        help="each fact against every earlier one of its user (25 at most)",
    )
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    from aurra_core.classifiers import rules

    facts = list(range(args.before, args.before + args.facts))
    if args.by_scope:
        facts = sorted(facts, key=lambda i: (i % USERS, i))

    def earlier(i: int) -> range:
        return range(1, min(25, (i - args.before) // USERS) + 1) if args.every_earlier else range(1, 4)

    pairs = [(content(i - USERS * k), content(i)) for i in facts for k in earlier(i)]

    def run() -> None:
        for old, new in pairs:
            rules._decide_cached(old, new)

    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return
    start = time.process_time()
    run()
    spent = time.process_time() - start
    print(
        f"{len(pairs)} pairs: {spent / len(pairs) * 1e3:.3f} ms a pair, {spent / args.facts * 1e3:.2f} ms a fact"
    )


if __name__ == "__main__":
    main()
