"""Value swaps as change evidence for the rules classifier.

Two facts about the same slot (text_analysis/slots.py: the same subject and attribute) with
different values of the same kind cannot both be current: "User's team is 8 engineers" ->
"User's team is 11 engineers now", "User's rent is $1,450 a month" -> "User's rent was raised
to $1,600 a month", "User's team runs Python 3.9 in production" -> "upgraded production to
Python 3.12", "User lives in Denver" -> "User moved to Portland".

Counts, amounts and versions in the same words replace each other as they stand. Days, times
and places need the new fact to say its value is current or changed ("now", "moved to",
"is moving to", "switched", "these days", "instead"): several of them can hold at once ("yoga
on Tuesdays", "yoga on Thursdays"; an office in London and one in Paris; "lives in Japan",
"lives in Osaka"), and only a change says one replaced the other. A country or region is never
swapped for a place that may lie inside it, and two facts dated apart ("donated $500 in March",
"$300 in November") are two events.

A count that grows is replaced ("has 2 cats" -> "has 3 cats now"), but for a running total:
"has read three of the series" -> "has read four", "has visited 12 countries so far" -> "15"
keep both true (who has read four has read three), so growth there is no evidence and the pair
is left to the other detectors (a `supplements` at most: never acted on). A running total that
goes down is a correction, and evidence.

Never evidence when the new fact is hedged, adds one more thing ("also", "another", "second"),
tells of a past period or a short stay, or when either fact is negated: those are the cases a
careful reader would not call a contradiction.
"""

from __future__ import annotations

import re

from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.slots import CHANGE, Slot, same_attribute, slots_of
from aurra_core.text_analysis.text import normalize

CONFIDENCE = 0.9
_WIDE_PLACES = frozenset(lex.COUNTRIES) | frozenset(lex.REGIONS)
_NEEDS_CHANGE = frozenset({"day", "time", "place"})


def _union(patterns: list[str]) -> re.Pattern[str]:
    return regex_programs.compile("|".join(f"(?:{p})" for p in patterns))


_HEDGED = _union(lex.HEDGES)
_ADDITIVE = _union(lex.ADDITIVE)
_PAST = _union(lex.PAST_PERIOD + lex.HISTORICAL)
_TEMPORARY = _union(lex.TEMPORARY)
_NEGATED = regex_programs.compile(r"\b(?:not|no|never|nolonger|none|without|n't|cannot)\b|n't\b")
_REVERTED = regex_programs.compile(r"\b(?:went back|back to|returned to|reverted)\b")


def _blocked(norm: str) -> bool:
    return bool(_HEDGED.search(norm) or _ADDITIVE.search(norm) or _PAST.search(norm) or _NEGATED.search(norm))


def _evidence(old: Slot, new: Slot, changed: bool) -> bool:
    if old.kind != new.kind or old.value == new.value:
        return False
    if old.kind in _NEEDS_CHANGE and not changed:
        return False
    if old.kind == "place" and (old.value in _WIDE_PLACES or new.value in _WIDE_PLACES):
        return False  # "lives in Spain" -> "moved to Valencia": the city may be in the country
    return same_attribute(old, new, changed=changed)


# A running total: what has been done so far, which only grows ("has read", "so far", "in total").
_RUNNING_TOTAL = regex_programs.compile(
    r"\b(?:has|have|'ve|had)\s+(?:now\s+|already\s+|just\s+|since\s+)?(?:read|visited|finished|"
    r"completed|run|ran|climbed|written|published|watched|seen|been to|won|played|collected|saved|"
    r"raised|donated|sold|hiked|attended|taken|passed|earned|logged|reached|hit|made|done|"
    r"traveled|travelled|owned|met|learned|learnt|finished reading)\b|\bso far\b|\bin total\b|"
    r"\btotal of\b|\bto date\b|\balready\b|\bup to\b|\bstreak\b|\bin a row\b"
)


def _number(value: str) -> float | None:
    try:
        return float(value.split("_")[-1].replace(",", ""))
    except ValueError:
        return None


def _grew(old: Slot, new: Slot) -> bool:
    before, after = _number(old.value), _number(new.value)
    return before is not None and after is not None and after > before


def _dated(norm: str) -> set[str]:
    return {token for token in norm.split() if token.startswith(("month_", "year_", "date_"))}


def value_swap(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact puts another value of the same kind in the old
    fact's slot; None otherwise."""
    old_slots, new_slots = slots_of(old_text), slots_of(new_text)
    if not old_slots or not new_slots:
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    if _blocked(new_norm) or _blocked(old_norm) or _TEMPORARY.search(new_norm) or _REVERTED.search(new_norm):
        return None
    if _dated(old_norm) != _dated(new_norm):
        return None  # "donated $500 in March", "$300 in November": two events, both true
    kinds_held = {(s.kind, s.value) for s in old_slots}
    if any((s.kind, s.value) in kinds_held for s in new_slots):
        return None  # the old value is said again: a restatement or a narrowing, not a swap
    changed = bool(CHANGE.search(new_text))
    running = bool(_RUNNING_TOTAL.search(new_text.lower()) or _RUNNING_TOTAL.search(old_text.lower()))
    for new in new_slots:
        for old in old_slots:
            if running and new.kind in ("count", "amount") and _grew(old, new):
                continue
            if _evidence(old, new, changed):
                return (
                    CONFIDENCE,
                    f"the same slot ({new.subject}: {' '.join(sorted(new.attribute)) or new.unit or new.kind}) "
                    f"holds another {new.kind}: {new.value} in place of {old.value}",
                )
    return None
