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
from dataclasses import dataclass
from functools import lru_cache

from aurra_core.classifiers import rules_evidence as evidence
from aurra_core.classifiers.rules_facts import Fact
from aurra_core.classifiers.rules_wording import said
from aurra_core.models import Verdict
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import canon

PARAPHRASE_CONFIDENCE = 0.75
# At most this many content words of each fact may be missing from the other when they share a
# name or a typed value (or name the same subject in other wording); none otherwise.
MAX_UNSHARED_WORDS = 2

Decision = tuple[Verdict, float, str]

# "named" and "called" refine only when they bring a name, and the names are already the same.
_NOT_A_RESTATEMENT = regex_programs.compile(
    "|".join(
        f"(?:{pattern})"
        for pattern in (*lex.HEDGES, *lex.ADDITIVE, *lex.HISTORICAL, *lex.TEMPORARY, *lex.REFINEMENT)
        if pattern not in (r"\bnamed\b", r"\bcalled\b")
    )
)
_UNIVERSAL = regex_programs.compile(lex.UNIVERSAL)
_QUALIFIED_USE = regex_programs.compile(lex.QUALIFIED_USE)
# The stems of words that only put a fact ("likes", "works", "uses"), shared with rules.py.
RESTATEMENT_STEMS = frozenset(term for word in lex.RESTATEMENT_WORDS for term in canon(word))


@dataclass(frozen=True)
class _Wording:
    not_a_restatement: bool
    qualified_use: bool
    universal: bool


@lru_cache(maxsize=8192)
def _wording(text: str) -> _Wording:
    """Read once a text: a new fact is in a pair with each of its candidates."""
    return _Wording(
        not_a_restatement=bool(_NOT_A_RESTATEMENT.search(text)),
        qualified_use=bool(_QUALIFIED_USE.search(text)),
        universal=bool(_UNIVERSAL.search(text)),
    )


def paraphrase(
    old: Fact,
    new: Fact,
    statement_old: set[str],
    statement_new: set[str],
    widen: Callable[[set[str]], set[str]],
    one_word_swapped: bool,
) -> Decision | None:
    """`duplicate` below the action threshold when the new fact restates the old one in other
    words; None when it does not. The statements are each fact's content terms, subject
    included; `widen` adds a term's families ("beer" -> "alcohol"); `one_word_swapped` says the
    two are the same wording with one word replaced ("Sami plays chess" / "Sami plays poker")."""
    new_wording, old_wording = _wording(new.text), _wording(old.text)
    if new_wording.not_a_restatement or evidence.change_evidence(old, new):
        return None
    if new_wording.qualified_use and not old_wording.qualified_use:
        return None  # "uses an iPhone for work": a qualified slot, not a restatement
    if new_wording.universal and not old_wording.universal:
        return None  # "allergic to all nuts": wider than the old fact
    if not _same_values(old, new) or _attitude(old) != _attitude(new):
        return None
    # the words of a longer name ("Brightmoor Dental" / "Brightmoor") are not a difference
    longer_name = evidence.names_missing(old, new) | evidence.names_missing(new, old)
    said_old, said_new = _said(statement_old) - longer_name, _said(statement_new) - longer_name
    zone = old.classes.get("timezone")
    if zone and zone == new.classes.get("timezone"):
        # "UTC+1" / "time zone is CET": one zone in two spellings
        said_old = {term for term in said_old if not _zone_word(term)} | {f"zone_{min(zone)}"}
        said_new = {term for term in said_new if not _zone_word(term)} | {f"zone_{min(zone)}"}
    if (_NEGATED in said_old) != (_NEGATED in said_new):
        return None  # one of them is negated ("never", "no", "avoids", "-free" count as one)
    shared, only_old, only_new = said_old & said_new, said_old - said_new, said_new - said_old
    if not shared - {_NEGATED} or (only_new and not only_old):
        return None  # nothing in common, or every word kept and one added: more detail
    if only_old or only_new:
        anchored = _anchored(old, new, shared) or (_subject_named(old, new) and not one_word_swapped)
        if not anchored or not _other_words_allowed(only_old, only_new, widen):
            return None
    return (
        Verdict.DUPLICATE,
        PARAPHRASE_CONFIDENCE,
        f"restates the old fact in other words (same subject, values and polarity; "
        f"'{said(only_old, old) or '-'}' / '{said(only_new, new) or '-'}'); not acted on",
    )


_EVENT_STEMS = frozenset(term for word in lex.EVENT_NOUNS for term in canon(word))
_NEGATED = "~"
_POLARITY_STEMS = frozenset(lex.NEGATIONS | {"avoid", "nev", "non", "free", "nolonger"})


def _zone_word(term: str) -> bool:
    return term in _ZONE_WORDS or "/" in term or bool(re.fullmatch(r"(?:utc|gmt)[+-]?\d*", term))


_ZONE_WORDS = frozenset(
    {"timezon", "time", "zone"} | {term for name in lex.TIMEZONES for term in canon(name)}
)


def _said(statement: set[str]) -> set[str]:
    """What a statement says, without the words that only put it ("likes", "works", "uses"), and
    with every negation as one ("never", "no", "avoids", "-free")."""
    return {_NEGATED if term in _POLARITY_STEMS else term for term in statement - RESTATEMENT_STEMS}


def _other_words_allowed(
    only_old: set[str], only_new: set[str], widen: Callable[[set[str]], set[str]]
) -> bool:
    """Two words of each fact may differ, not when one names the family of the other, both belong
    to one family, or one event is swapped for another."""
    if len(only_old) > MAX_UNSHARED_WORDS or len(only_new) > MAX_UNSHARED_WORDS:
        return False
    if widen(only_old) & only_new or widen(only_new) & only_old:
        return False  # "beer" / "alcohol": wider or narrower, not the same
    if (widen(only_old) - only_old) & (widen(only_new) - only_new):
        return False  # "tea" / "coffee": two of one family
    return not (only_old & _EVENT_STEMS and only_new & _EVENT_STEMS)  # "standup" / "retro" at 9am


def _subject_named(old: Fact, new: Fact) -> bool:
    """Both facts name the same subject ("Kenji prefers window seats" / "Kenji likes to sit by
    the window"): an anchor for a rewording, not for one word swapped in the same wording."""
    subjects = set(old.subject.key) & set(new.subject.key)
    return bool(subjects & evidence.proper_names(old) & evidence.proper_names(new))


def _anchored(old: Fact, new: Fact, shared: set[str]) -> bool:
    """Whether the two facts share a name other than their subject's, a typed value, or a day or a
    time together with what happens then ("therapy on Thursdays at 5pm" / "Therapy: Thursdays,
    17:00"; "yoga on Wednesdays" and "piano on Wednesdays" share only the day)."""
    # the subject's own name is no anchor: "Sami plays chess" / "Sami plays poker"
    subjects = set(old.subject.key) | set(new.subject.key)
    names_old, names_new = evidence.proper_names(old) - subjects, evidence.proper_names(new) - subjects
    typed = evidence.typed_values(old) & evidence.typed_values(new)
    identifying = {value for value in typed if not value.startswith(_WHEN)}
    what = {term for term in shared if not evidence.typed_values_of({term})} - {_NEGATED}
    zone = old.classes.get("timezone")
    return bool(
        names_old & names_new
        or identifying
        or (typed and what)
        or (zone and zone == new.classes.get("timezone"))
    )


# A day or a time in common does not make two facts one: many things happen on a Wednesday.
_WHEN = (
    "date_",
    "weekday_",
    "time_",
    "utc_",
    "month_",
    "year_",
    "dayofmonth_",
    "hours_",
    "quarter_",
    "ordinal_",
)


def _attitude(fact: Fact) -> bool:
    """Whether the fact states a liking, a wish or an instruction: "loves Boston" is not "lives in
    Boston", but "Reply in Portuguese" is "wants answers in Portuguese"."""
    instruction = bool(fact.tokens) and fact.tokens[0] in lex.INSTRUCTION_VERBS  # "Reply in Portuguese"
    return instruction or bool(fact.term_set & _ATTITUDE_TERMS)


_ATTITUDE_TERMS = lex.LIKING | lex.DISLIKING | {"want", "wish", "rather"}


def _same_values(old: Fact, new: Fact) -> bool:
    """Same typed values and names; a longer name of the same thing counts as the
    same ("Brightmoor Dental" / "Brightmoor"), another name beside it does not ("French and
    Spanish")."""
    if evidence.typed_values(old) != evidence.typed_values(new):
        return False
    missing_old, missing_new = evidence.names_missing(old, new), evidence.names_missing(new, old)
    if missing_old and missing_new:
        return False
    longer, other = (old, new) if missing_old else (new, old)
    missing = missing_old or missing_new
    shared_names = {name.lower() for name in longer.names} & {name.lower() for name in other.names}
    return all(any(word in run and run & shared_names for run in _name_runs(longer.raw)) for word in missing)


def _name_runs(raw: str) -> list[set[str]]:
    """Runs of capitalised words: "Brightmoor Dental renewal" -> [{"brightmoor", "dental"}]."""
    return [
        {word.lower() for word in run.split()}
        for run in re.findall(r"[A-Z][\w&.\-]*(?: [A-Z][\w&.\-]*)*", raw)
    ]
