"""Restatements in other words: duplicates that count for the reader but never act.

A `duplicate` at or above the action threshold rejects the write, so the detectors in
`rules.py` reach 0.85 only when both facts say the same content words after normalisation. A
paraphrase is weaker evidence: the same subject, the same polarity, the same typed values and
names, and content words that differ in a word or two on each side ("8 GB of RAM" / "working
with 8 gigs of memory", "Preferred language: French" / "wants to be addressed in French"). It
is judged `duplicate` at `PARAPHRASE_CONFIDENCE`, below the threshold: the write goes through,
and the verdict says what a reader would say.

A paraphrase is not one when the new fact adds detail and drops nothing (that supplements the
old one), widens it to a family ("beer" -> "alcohol"), or carries a hedge, an additive word, a
past period, a short stay, a refinement or change evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aurra_core.classifiers import rules_evidence as evidence
from aurra_core.classifiers import rules_lexicon as lex
from aurra_core.classifiers.rules_facts import Fact
from aurra_core.models import Verdict
from aurra_core.text import canon

PARAPHRASE_CONFIDENCE = 0.75
# At most this many content words of each fact may be missing from the other when they share a
# name or a typed value; one when they share neither.
MAX_UNSHARED_WORDS = 2

Decision = tuple[Verdict, float, str]

# "named" and "called" refine only when they bring a name, and the names are already the same.
_NOT_A_RESTATEMENT = re.compile(
    "|".join(
        f"(?:{pattern})"
        for pattern in (*lex.HEDGES, *lex.ADDITIVE, *lex.HISTORICAL, *lex.TEMPORARY, *lex.REFINEMENT)
        if pattern not in (r"\bnamed\b", r"\bcalled\b")
    )
)
_UNIVERSAL = re.compile(lex.UNIVERSAL)
_RESTATEMENT_STEMS = frozenset(term for word in lex.RESTATEMENT_WORDS for term in canon(word))


def paraphrase(
    old: Fact,
    new: Fact,
    core_old: set[str],
    core_new: set[str],
    widen: Callable[[set[str]], set[str]],
) -> Decision | None:
    """`duplicate` below the action threshold when the new fact restates the old one in other
    words; None when it does not. `widen` adds a term's families ("beer" -> "alcohol")."""
    marker = _NOT_A_RESTATEMENT.search(new.text)
    if marker or evidence.change_evidence(old, new):
        return None
    if _UNIVERSAL.search(new.text) and not _UNIVERSAL.search(old.text):
        return None  # "allergic to all nuts": wider than the old fact
    if not _same_values(old, new) or _attitude(old) != _attitude(new):
        return None
    # the words of a longer name ("Brightmoor Dental" / "Brightmoor") are not a difference
    longer_name = evidence.names_missing(old, new) | evidence.names_missing(new, old)
    shared = core_old & core_new
    only_old, only_new = core_old - core_new - longer_name, core_new - core_old - longer_name
    # with a name or a typed value in common, two words of each may differ; with neither, one
    anchored = _anchored(old, new)
    allowed = MAX_UNSHARED_WORDS if anchored else 1
    if not shared or len(only_old) > allowed or len(only_new) > allowed:
        return None
    if only_new and not only_old:
        return None  # keeps every word and adds one: more detail
    if not anchored and not (only_old | only_new) <= _RESTATEMENT_STEMS:
        return None  # "plays soccer" / "plays tennis": with no shared name, only the wording may differ
    if widen(only_old) & only_new or widen(only_new) & only_old:
        return None  # one names the family of the other: wider or narrower, not the same
    return (
        Verdict.DUPLICATE,
        PARAPHRASE_CONFIDENCE,
        f"restates the old fact in other words (same subject, values and polarity; "
        f"'{' '.join(sorted(only_old)) or '-'}' / '{' '.join(sorted(only_new)) or '-'}'); not acted on",
    )


def _anchored(old: Fact, new: Fact) -> bool:
    """Whether the two facts share a name or a typed value."""
    names_old = {name.lower() for name in old.names}
    names_new = {name.lower() for name in new.names}
    return bool(names_old & names_new or evidence.typed_values(old) & evidence.typed_values(new))


def _attitude(fact: Fact) -> bool:
    """Whether the fact states a liking or a wish: "loves Boston" is not "lives in Boston"."""
    return bool(fact.term_set & _ATTITUDE_TERMS)


_ATTITUDE_TERMS = lex.LIKING | lex.DISLIKING | {"want", "wish", "rather"}


def _same_values(old: Fact, new: Fact) -> bool:
    """Same polarity, typed values and names; a shorter name of the same thing counts as the
    same ("Brightmoor Dental" / "Brightmoor")."""
    if evidence.negated(old) != evidence.negated(new):
        return False
    if evidence.typed_values(old) != evidence.typed_values(new):
        return False
    missing_old, missing_new = evidence.names_missing(old, new), evidence.names_missing(new, old)
    if missing_old and missing_new:
        return False
    shorter, longer = (new, old) if missing_old else (old, new)
    if missing_old or missing_new:
        names_shorter = {name.lower() for name in shorter.names}
        return bool(names_shorter) and names_shorter <= {name.lower() for name in longer.names}
    return True
