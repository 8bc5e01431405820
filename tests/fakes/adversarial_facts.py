"""Facts written to make the offline rules classifier slow: a short clause repeated, with varying
words, to fill a fact's 4,000 characters. Before its cost was made linear, a pair of these took
the rules classifier seconds of CPU at 4,000 characters (bench/classifier_cost.py measures them;
tests/unit/test_rules_cost.py holds them to a budget).

Each kind is a pair of clause templates (old fact, new fact) and the words their slots take; the
clauses are joined by `separator` and cut at `length` characters. Deterministic: the same
arguments always give the same pair.
"""

from __future__ import annotations

import random

# (old clause, new clause, separator, words): the costliest of the pairs of repeated clauses timed.
# Before the fix, at 1,000 / 2,000 / 4,000 characters: "clause" 0.13 / 0.99 / 8.7 s of CPU,
# "clause_past" 0.10 / 0.62 / 5.2 s, "negation" 0.06 / 0.31 / 2.1 s.
KINDS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    # one short clause each, the same few words again and again
    "clause": ("code no switches {a}", "{a} dc no", "; ", ("9am",)),
    "clause_past": ("emacs to past", "$120 past", " ", ("",)),
    # a clause repeated with its slot varying
    "negation": ("User doesn't use {a} anymore", "not {a}", ". ", ("vim", "emacs", "tea", "coffee")),
}


def _fill(template: str, separator: str, words: tuple[str, ...], length: int, seed: int) -> str:
    rng = random.Random(seed)
    clauses: list[str] = []
    size = 0
    while size < length:
        clause = " ".join(template.format(a=rng.choice(words), b=rng.choice(words)).split())
        clauses.append(clause)
        size += len(clause) + len(separator)
    return separator.join(clauses)[:length].strip()


def adversarial_pair(kind: str, length: int) -> tuple[str, str]:
    """(old fact, new fact) of `kind`, each `length` characters at most."""
    old, new, separator, words = KINDS[kind]
    return _fill(old, separator, words, length, 1), _fill(new, separator, words, length, 2)
