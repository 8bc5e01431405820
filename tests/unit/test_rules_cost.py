"""The rules classifier's cost grows with its input's length, not faster, and its faster paths
decide what the plain ones decided.

A short clause repeated to fill 4,000 characters once took it seconds of CPU (8.7 s for the
"clause" pair: difflib's comparison of the two facts' wording searched once per matching block,
each search quadratic in repeated words). Its speed is measured in bench/classifier_cost.py; here
each adversarial pair is held to a budget a regression would blow through, counted in CPU time
(this thread's), which a loaded machine does not inflate as it does wall time.
"""

from __future__ import annotations

import time
from difflib import SequenceMatcher

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aurra_core.classifiers import rules
from aurra_core.classifiers.rules_facts import analyze
from aurra_core.text_analysis.text import normalize
from tests.fakes.adversarial_facts import KINDS, adversarial_pair

# CPU seconds one 4,000-character pair may take: it takes about 0.1 s now, 2 to 9 s before.
PAIR_BUDGET_S = 2.0


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_4000_character_adversarial_pair_decides_within_the_budget(kind: str) -> None:
    old, new = adversarial_pair(kind, 4000)
    assert len(old) > 3900 and len(new) > 3900
    for cache in (analyze, normalize, rules._decide_cached):
        cache.cache_clear()  # each text read afresh, as a write's new fact is
    started = time.thread_time()
    verdict = rules.RulesClassifier().judge(old, new, rules.UUID(int=1))
    spent = time.thread_time() - started
    assert verdict.reason
    assert spent < PAIR_BUDGET_S, f"{kind}: {spent:.2f} s of CPU"


def _reference_template(a: list[str], b: list[str]) -> rules.Template | None:
    """`slot_template` as it was: difflib's comparison alone, without the linear test or budget."""
    ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    replaces = [op for op in ops if op[0] == "replace"]
    if not ops or len(replaces) != 1:
        return None
    _, i1, i2, j1, j2 = replaces[0]
    if any(tag == "delete" or (tag == "insert" and l1 < j1) for tag, _, _, l1, _ in ops):
        return None
    context = [term for k, term in enumerate(a) if not i1 <= k < i2]
    old_slot, new_slot = a[i1:i2], b[j1:j2]
    if not context or set(old_slot) & set(new_slot):
        return None
    kinds = rules._slot_kinds
    if kinds(old_slot) != kinds(new_slot[: len(old_slot) + 1]) and not kinds(old_slot) <= kinds(new_slot):
        return None
    return context, old_slot, new_slot


TERMS = st.lists(st.sampled_from(["vim", "emac", "use", "money_5", "3", "seat", "acm"]), max_size=9)


@settings(max_examples=3000, deadline=None)
@given(TERMS, TERMS)
def test_the_linear_test_rules_out_only_pairs_with_no_template(a: list[str], b: list[str]) -> None:
    assert rules.slot_template(a, b) == _reference_template(a, b)


@settings(max_examples=300, deadline=None)
@given(TERMS, TERMS)
def test_a_template_is_found_the_same_way_when_one_differs_in_one_word(a: list[str], b: list[str]) -> None:
    # pairs that do have a template: the same words with one replaced, more words after
    old = [*a, "vim", *b]
    new = [*a, "emac", *b, *a]
    assert rules.slot_template(old, new) == _reference_template(old, new)


def test_past_its_budget_the_comparison_reads_no_template() -> None:
    old = ["use", "vim"] * 30 + ["now"]
    new = ["use", "vim"] * 30 + ["then"]
    assert rules.slot_template(old, new) is not None
    assert rules.slot_template(old, new, budget=100) is None


def _reference_overlap(a: set[str], b: set[str]) -> set[str]:
    out = a & b
    for x in a - out:
        for y in b:
            if "_" in x or "_" in y:
                continue
            if len(x) >= 5 and len(y) >= 5 and (x.startswith(y) or y.startswith(x)):
                out.add(y)
    return out


WORDS = st.sets(
    st.sampled_from(["member", "membership", "memb", "membe", "email_x", "email_xy", "subscrib", "subs"]),
    max_size=6,
)


@settings(max_examples=500, deadline=None)
@given(WORDS, WORDS)
def test_fuzzy_overlap_finds_what_comparing_every_pair_found(a: set[str], b: set[str]) -> None:
    assert rules._fuzzy_overlap(a, b) == _reference_overlap(a, b)
