"""The offline rules classifier: deterministic, free, explainable, precision first.

Each fact is read into a subject (the user, a named person or company, a thing, or someone
related to them: "User's sister"), the attributes it speaks about, typed values (money, dates,
times, counts, e-mail addresses, phone numbers), closed-class values (editors, diets, plans,
pronouns, lifecycle states...) and linguistic markers (hedges, additive words, past periods,
short stays, change words, words that end something, reversions).

A supersession needs the same subject, the same single-valued slot and a value the new fact
puts in place of the old one. Hedges, additive words, past periods and short stays never
supersede; another entity's facts are new facts; reversions are judged by which value is
current now; restatements are duplicates, wider or more specific restatements supplements.
Confidence reaches 0.85 only when the slot is known to hold one value at a time and the change
is explicit (a change word, a typed or closed-class value replaced in the same template, or the
old value said to be over). The reason names the signals that decided.

Besides the value detectors, the changes it recognises by their construction: a move of home,
"from X to Y" after a change verb, "X over Y", a habit that ended and is back ("started smoking
again", "resubscribed"), "down to N" of what the old fact counts, a count replaced in the same
words, and one fact denying exactly what the other states. What ends or is denied must be the
old fact's own thing: not another named one, another kind held (a subscription, not the account),
a part of it (an add-on, its password) or a narrower occasion ("no longer active on mobile"). A restatement in other words (same
subject, values and polarity; `rules_paraphrase`) is a duplicate below the action threshold.
`rules_evidence` has the last word on every verdict.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from difflib import Match, SequenceMatcher
from functools import lru_cache
from uuid import UUID

from aurra_core.classifiers import rules_evidence as evidence
from aurra_core.classifiers.base import Candidate, Classification, ClassifierVerdict
from aurra_core.classifiers.rules_facts import VERBS, Fact, analyze, kept_as_said, spoken_of
from aurra_core.classifiers.rules_paraphrase import RESTATEMENT_STEMS, paraphrase
from aurra_core.classifiers.rules_slots import (
    PART_DONE,
    SAID_ALONE,
    TAKES_EFFECT,
    activity_elsewhere,
    bare_version,
    career_step,
    departure_change,
    device_upgrade,
    grade_change,
    grew,
    job_after_leaving,
    limits_what_it_follows,
    line_change,
    named_switch,
    one_at_a_time,
    pay_change,
    plan_done,
    promotion,
    qualified_apart,
    rank_change,
    rent_change,
    retired,
    running_total,
    school_change,
    shift_change,
    tool_switch,
    value_swap,
    venue_elsewhere,
    workplace_elsewhere,
)
from aurra_core.classifiers.rules_wording import Worded, quoted, said, shown
from aurra_core.errors import ClassifierError
from aurra_core.extractors.rules_languages import RELATIVE_WORDS, read_in_english
from aurra_core.models import Verdict
from aurra_core.runtime import deadline
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.slots import (
    OWN_GROUPS,
    about_someone_named,
    replaced_values,
    slots_of,
    subject_of,
)
from aurra_core.text_analysis.text import ORDINAL_WORDS, canon, number_words, tokenize

MODEL_ID = "aurra-rules-v39"


def _compile(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(regex_programs.compile(pattern) for pattern in patterns)


def _union(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
    """One alternation: a single search finds the leftmost of many markers."""
    return (regex_programs.compile("|".join(f"(?:{pattern})" for pattern in patterns)),)


_HEDGES = _union(lex.HEDGES)
_ADDITIVE = _union(lex.ADDITIVE)
_HISTORICAL = _union(lex.HISTORICAL)
_TEMPORARY = _union(lex.TEMPORARY)
_CHANGE = _union(lex.CHANGE_WORDS)
_ENDING = _compile(lex.ENDING)
_OLD_NEGATIVE = _union(lex.OLD_NEGATIVE)
_REVERSION = _compile(lex.REVERSION)
_TRIED = _compile(lex.TRIED)
_SUBSET = _union(lex.SUBSET)
_REFINEMENT = _union(lex.REFINEMENT)

_STRUCTURAL = frozenset({",", ";", ":", "(", ")", '"', "!", "?", "'s"})
_NEGATION_TERMS = frozenset(
    {
        "not",
        "no",
        "never",
        "nolonger",
        "without",
        "none",
        "anymore",
        "stop",
        "quit",
        "cancel",
        "paidoff",
        "disabled",
        "avoid",
    }
)
_FRAME_STEMS = frozenset(canon(w)[0] for w in lex.FRAME_WORDS) | frozenset(
    {
        "be",
        "have",
        "us",
        "use",
        "get",
        "go",
        "do",
        "make",
        "take",
        "keep",
        "hold",
        "say",
        "mention",
        "note",
        "currently",
    }
)
_LOW_INFO_STEMS = (
    frozenset(canon(w)[0] for w in lex.LOW_INFO) | frozenset(lex.LOW_INFO)
) - lex.NEGATIONS  # "note" stems to "not"
_BOUNDARY = regex_programs.compile(lex.PHRASE_BOUNDARY)
_CLASS_NOUNS = {
    "editor": {"editor", "ide"},
    "browser": {"browser"},
    "os": {"os", "system"},
    "language": {"languag"},
    "diet": {"diet"},
    "plan": {"plan"},
    "payment": {"card", "payment", "method", "pay"},
    "car_make": {"car"},
    "laptop_model": {"laptop"},
    "phone_model": {"phon"},
    "pronoun": {"pronoun"},
    "timezone": {"timezon", "time"},
}
_GENERIC_VALUE_WORDS = frozenset(canon(w)[0] for w in lex.GENERIC_NAME_WORDS)
_STRONG_CHANGE = regex_programs.compile(lex.CURRENT_OR_CHANGED)


# ---------------------------------------------------------------------------------------------
# Small helpers.


# The same markers are looked for in the same fact by several stages of a decision, and in
# each of the pairs a fact is in: found once a text.
@lru_cache(maxsize=8192)
def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            return match
    return None


def _terms(text: str) -> list[str]:
    out: list[str] = []
    for tok in tokenize(text):
        if tok in _STRUCTURAL or tok in lex.STOPWORDS:
            continue
        out.extend(c for c in canon(tok) if c not in lex.STOPWORDS)
    return out


def _cut(phrase: str, max_words: int = 5) -> str:
    match = _BOUNDARY.search(" " + phrase)
    if match:
        phrase = (" " + phrase)[: match.start()]
    return " ".join(phrase.split()[:max_words])


_HYPERNYMS = {canon(k)[0]: {canon(v)[0] for v in vs} for k, vs in lex.HYPERNYMS.items()}
_EVENT_STEMS = frozenset(canon(w)[0] for w in lex.EVENT_NOUNS)
_AGENT_NOUNS = frozenset(
    """doctor vet dentist therapist psychiatrist physician lawyer accountant coach bank
    landlord school employer boss manager hr it admin pharmacist""".split()
)
_UNIVERSAL = regex_programs.compile(lex.UNIVERSAL)


def _expand(terms: AbstractSet[str]) -> set[str]:
    """Terms plus their hypernyms: "coffee" also counts as "caffeine"."""
    out = set(terms)
    for term in terms:
        out |= _HYPERNYMS.get(term, set())
    return out


def _subject_terms(fact: Fact) -> set[str]:
    s = fact.subject
    return (
        set(s.key)
        | set(s.relations)
        | {canon(w)[0] for w in s.apposition}
        | {"user", "customer", "client", "i"}
    )


def _body(fact: Fact) -> set[str]:
    """What the fact says about its subject: content terms less the subject and generic verbs."""
    body = fact.memo.get("body")
    if body is None:
        subject = _subject_terms(fact)
        body = fact.memo["body"] = frozenset(
            term
            for term in fact.terms
            if term not in subject and term not in _FRAME_STEMS and term not in lex.PRINCIPAL_WORDS
        )
    return set(body)


def _core(fact: Fact) -> set[str]:
    core = {term for term in _body(fact) if term not in _LOW_INFO_STEMS}
    if any(term.startswith("utc_") for term in core):
        core = {term for term in core if not term.startswith("time_")}
    return core


def _statement(fact: Fact) -> set[str]:
    """The fact's content terms with the thing or name it is about: "Soylent renewal is on ..." and
    "Soylent renews on ..." say the same even when their subjects are read differently."""
    named = set(fact.subject.key) if fact.subject.kind in ("thing", "name") else set()
    return _core(fact) | (named - _FRAME_STEMS - _LOW_INFO_STEMS)


def _has_neg(terms: set[str]) -> bool:
    return bool(terms & _NEGATION_TERMS)


# ---------------------------------------------------------------------------------------------
# Subjects.


def _names_in(fact: Fact) -> set[str]:
    return {canon(new)[0] for new in fact.names}


Relation = tuple[str, str]  # same | compatible | describes | different, and why


def subject_relation(old: Fact, new: Fact) -> Relation:
    """same | compatible | describes | different, with a short reason."""
    subject_old, subject_new = old.subject, new.subject
    if (
        subject_new.relations
        and subject_new.relations[-1] in _AGENT_NOUNS
        and not subject_old.relations
        and (
            re.search(r"\b(?:them|him|her|the user|the customer)\b", new.text)
            or (_body(new) & _body(old))
            or _sets_what_the_old_fact_pays(subject_new.relations[-1], old, new)
        )
    ):
        # "The vet put the cat on a wet-food diet": the vet acts on the subject's affairs
        return "compatible", f"the {said([subject_new.relations[-1]], new)} acts on the subject's behalf"
    if subject_old.relations != subject_new.relations:
        return _related_people(old, new)
    kinds = {subject_old.kind, subject_new.kind}
    if kinds == {"principal", "pronoun"}:
        spoken = new if subject_new.kind == "pronoun" else old
        said_of = spoken_of(spoken.tokens)
        if kept_as_said(spoken) and said_of and (said_of[0] in {"his", "her"} or said_of[1] in _STATED_OF):
            # "User said: so he's Senior Executive Officer now": in the user's own words, "he" is
            # never the user (but "so he did the max, rent is €1,887": the rent is the user's)
            return "different", f"different people (the subject vs '{said_of[0]}')"
    if "none" in kinds or "pronoun" in kinds:
        return "compatible", "subject left implicit"
    if subject_old.kind == subject_new.kind == "principal":
        return "same", "same subject"
    if kinds == {"principal", "name"}:
        name = subject_new if subject_new.kind == "name" else subject_old
        other_terms = old.term_set if subject_new.kind == "name" else new.term_set
        other_slot = set((subject_old if subject_new.kind == "name" else subject_new).slot)
        if len(other_slot) >= 2 and set(name.key) <= other_slot:
            return "same", "the one the other fact names by its name"  # "User's dog Max" / "Max"
        if set(name.key) & other_terms:
            return "describes", "the new fact is about someone the old fact names"
        if about_someone_named((new if subject_new.kind == "name" else old).raw):
            # the user's own words name someone else ("User said: Nora got promoted to senior
            # nurse"), whom the other fact does not name
            return "different", f"different people (the subject vs {said(name.key, new, old)})"
    return _named_or_thing_subjects(old, new)


# What an agent sets of the subject's own: a landlord the rent, an employer the pay, a bank the
# mortgage's rate, a school its fees
_PAY = frozenset({"salary", "pay", "wag"})
_SET_BY_AGENT = {
    "landlord": frozenset({"rent", "leas", "tenancy"}),
    "employer": _PAY,
    "boss": _PAY,
    "manager": _PAY,
    "bank": frozenset({"mortgag", "loan", "interest"}),
    "school": frozenset({"fee", "fees", "tuition"}),
}


def _sets_what_the_old_fact_pays(agent: str, old: Fact, new: Fact) -> bool:
    """ "landlord renewed at £1,290 from june" of "User's rent is £1,150": the agent gives a new
    amount of what the old fact says the subject pays or is paid (a number of it, not a remark)."""
    paid = _SET_BY_AGENT.get(agent, frozenset())
    return bool(paid & old.term_set) and all(
        any(_AMOUNT_TERM.match(term) for term in fact.terms) for fact in (old, new)
    )


# What is said of a "he" or "she" as their state: "he's", "she is", "he works"
_STATED_OF = frozenset("'s is was has had works lives got became".split())


def _related_people(old: Fact, new: Fact) -> Relation:
    """The facts name different chains of relations ("User" vs "User's sister")."""
    subject_old, subject_new = old.subject, new.subject
    if subject_new.relations and not subject_old.relations:
        rel = subject_new.relations[-1]
        terms_old_wide = old.term_set | _names_in(old)
        if rel in terms_old_wide or ({canon(a)[0] for a in subject_new.apposition} & terms_old_wide):
            return "describes", f"the new fact is about the {said([rel], new, old)} the old one mentions"
    if (
        subject_old.relations
        and subject_new.kind == "name"
        and not subject_new.relations  # "Leo's friend Sam" is not Leo
        and set(subject_new.key) & {canon(a)[0] for a in subject_old.apposition}
    ):
        return "same", "same person named in both"
    if (
        subject_old.relations
        and not subject_new.relations
        and subject_new.kind in ("none", "pronoun")
        and not subject_new.key
    ):
        return "compatible", "subject left implicit"
    if subject_old.relations and not subject_new.relations:
        same = _the_person_named(old, new)
        if same:
            return "same", same
    who_old = "'s ".join(("the subject", *(said([rel], old) for rel in subject_old.relations)))
    who_new = "'s ".join(("the subject", *(said([rel], new) for rel in subject_new.relations)))
    return "different", f"different people ({who_old} vs {who_new})"


# "Leo's friend", "Ana's mum": someone of a named person's
_SOMEONE_OF_THEIRS = re.compile(rf"\b\w+'s\s+{lex.SOMEONE_OF_THEIRS}", re.IGNORECASE)


def _the_person_named(old: Fact, new: Fact) -> str | None:
    """Why a new fact about the user is about the relative the old fact is about ("User's son
    Ollie's bedtime is half seven"): it names their attribute ("User moved Ollie's bedtime to
    eight"), or it is kept as said and names them ("User said: we moved Ollie's bedtime"), not
    someone of theirs ("Leo's friend Sam plays on Thursdays now")."""
    subject = old.subject
    if subject.slot:
        for name in subject.apposition:
            if re.search(rf"\b{re.escape(name)}'s\s+{re.escape(subject.slot[-1])}", new.raw, re.I):
                return f"{name}'s {said([subject.slot[-1]], new, old)} in both"
    if not kept_as_said(new) or _SOMEONE_OF_THEIRS.search(new.raw):
        return None
    named = ({canon(a)[0] for a in subject.apposition} | {subject.relations[-1]}) & (
        new.term_set | _names_in(new)
    )
    return (
        f"the {said(sorted(named), new, old)} the old fact is about, in the user's words" if named else None
    )


def _named_or_thing_subjects(old: Fact, new: Fact) -> Relation:
    """Two named subjects, two things, or a thing and a name."""
    subject_old, subject_new = old.subject, new.subject
    terms_old_wide, terms_new_wide = old.term_set | _names_in(old), new.term_set | _names_in(new)
    kinds = {subject_old.kind, subject_new.kind}
    if subject_old.kind == "name" and subject_new.kind == "name":
        if set(subject_old.key) & set(subject_new.key):
            return "same", "same named subject"
        if set(subject_new.key) <= terms_old_wide or set(subject_old.key) <= terms_new_wide:
            return "compatible", "the subject of one is named in the other"
        return (
            "different",
            f"different named subjects ({said(subject_old.key, old)} vs {said(subject_new.key, new)})",
        )
    if subject_old.kind == "thing" and subject_new.kind == "thing":
        if set(subject_old.key) & set(subject_new.key):
            return "same", "same subject"
        if set(subject_old.key) & terms_new_wide or set(subject_new.key) & terms_old_wide:
            return "compatible", "the subject of one appears in the other"
        return "different", "different subjects"
    if kinds == {"thing", "name"}:
        thing, name = (
            (subject_old, subject_new) if subject_old.kind == "thing" else (subject_new, subject_old)
        )
        if set(thing.key) & set(name.key):
            return "same", "same subject"
        terms_of_thing_fact = terms_old_wide if subject_old.kind == "thing" else terms_new_wide
        terms_of_name_fact = terms_new_wide if subject_old.kind == "thing" else terms_old_wide
        if set(name.key) & terms_of_thing_fact or set(thing.key) & terms_of_name_fact:
            return "compatible", "the subject of one appears in the other"
        if len(thing.key) == 1:
            return "different", "different subjects"
    return "compatible", "subjects not clearly related"


def _named(fact: Fact) -> set[str]:
    return {match.group(1) for match in re.finditer(r"\b(?:named|called) ([a-z]+)", fact.text)}


def _numbered(fact: Fact) -> bool:
    return bool(fact.counts or fact.typed or any(term.isdigit() for term in fact.term_set))


def _slot_relation(old: Fact, new: Fact) -> str | None:
    """'qualifier' when the same kind of slot is qualified differently (work phone vs phone), 'attribute'
    when the facts set different attributes (mortgage rate vs car loan), None when they may be the same."""
    quals = {canon(q)[0] for q in lex.SLOT_QUALIFIERS}
    prim = {canon(q)[0] for q in lex.PRIMARY_QUALIFIERS} | {"favorit", "favourit"}
    slot_old, slot_new = list(old.subject.slot), list(new.subject.slot)
    same_head = slot_old and slot_new and slot_old[-1] == slot_new[-1]
    if same_head and (set(slot_old) & quals) != (set(slot_new) & quals):
        return "qualifier"
    if (
        slot_old
        and slot_new
        and slot_old[-1] != slot_new[-1]
        and slot_old[-1] in slot_new[:-1]
        and slot_new[-1] not in _expand({slot_old[-1]})
    ):
        return "part"  # "User's phone" -> "User's phone case"
    if (
        slot_old
        and slot_new
        and slot_old[-1] != slot_new[-1]
        and slot_old[-1] not in slot_new
        and slot_new[-1] not in slot_old
        and not _fuzzy_overlap({slot_old[-1]}, {slot_new[-1]})
        and not (_expand({slot_old[-1]}) & _expand({slot_new[-1]}))
        and not (slot_new[-1] in old.term_set or slot_old[-1] in new.term_set)
    ):
        if (set(slot_new) - prim - quals) & old.term_set:
            return "part"  # "User's phone" -> "User's phone case", "their team" -> "their Warsaw office"
        return "attribute"
    if (
        slot_new
        and not slot_old
        and len(slot_new) >= 2
        and slot_new[-1] in old.term_set
        and (set(slot_new[:-1]) & quals) - old.term_set
    ):
        return "qualifier"  # "a phone" vs "a work phone"
    heads_old = (set(slot_old[:-1]) - prim - quals) | ({slot_old[-1]} - prim) if slot_old else set()
    heads_new = (set(slot_new[:-1]) - prim - quals) | ({slot_new[-1]} - prim) if slot_new else set()
    if heads_old and heads_new:
        if (
            not (_expand(heads_old) & _expand(heads_new))
            and not (heads_new & old.term_set)
            and not (heads_old & new.term_set)
        ):
            return "attribute"
    elif heads_new and not heads_old:
        if heads_new == {"team"} and _numbered(old) and _numbered(new):
            # "~140 paying customers" -> "User's team is at 210 customers now": a number of the
            # user's work, as "we" at work is read
            return None
        known = old.term_set | _attr_cues(old) | _class_nouns(old)
        if not _fuzzy_overlap(_expand(heads_new), _expand(known)) and not (
            set(new.subject.slot) & old.term_set
        ):
            return "attribute"
    elif heads_old and not heads_new and not kept_as_said(new):
        # a memory kept as said ("User said: Tuesdays in Hackney now") names no slot of its own
        known = new.term_set | _attr_cues(new) | _class_nouns(new)
        if not _fuzzy_overlap(_expand(heads_old), _expand(known)) and not (
            set(old.subject.slot) & new.term_set
        ):
            return "attribute"
    return None


_TYPED_NOUNS = {
    "email": {"email", "address"},
    "phone": {"phon", "number"},
    "date": {"dat", "day"},
    "time": {"time"},
    "money": {"amount", "price", "cost"},
    "expiry": {"expiry", "expir"},
    "pronouns": {"pronoun"},
}


def _attr_cues(fact: Fact) -> set[str]:
    cues = {canon(c)[0] for a in fact.attrs for c in lex.ATTRIBUTES.get(a, {}).get("cues", [])}
    return cues.union(*(_TYPED_NOUNS.get(k, set()) for k in fact.typed))


def _class_nouns(fact: Fact) -> set[str]:
    return set().union(*(_CLASS_NOUNS.get(c, set()) for c in fact.classes)) if fact.classes else set()


# ---------------------------------------------------------------------------------------------
# Values.

_FRAMES = {name: _compile(patterns) for name, patterns in lex.VALUE_FRAMES.items()}


# Frames whose slot holds one value and whose wording leaves no doubt about which slot it is.
_FIRM_FRAMES = frozenset({"location", "employer", "manager", "champion", "school", "bank", "name"})


def frame_values(fact: Fact) -> dict[str, set[str]]:
    """Each frame's value terms, of all its statements together."""
    cached = fact.memo.get("frames")
    if cached is None:
        cached = fact.memo["frames"] = {
            name: set().union(*values) for name, values in _frame_statements(fact).items()
        }
    return cached


def _frame_statements(fact: Fact) -> dict[str, set[frozenset[str]]]:
    """Each frame's values, one a statement: "my mother lives in recife ... I live in são paulo"
    gives the home two."""
    cached = fact.memo.get("frame_statements")
    if cached is None:
        cached = fact.memo["frame_statements"] = _read_frames(fact)
    return cached


def _read_frames(fact: Fact) -> dict[str, set[frozenset[str]]]:
    out: dict[str, set[frozenset[str]]] = {}
    for clause in re.split(r";", fact.text):
        clause = clause.strip()
        deadline.check()
        for name, patterns in _FRAMES.items():
            for pattern in patterns:
                for match in pattern.finditer(clause):
                    value = _cut(match.group("v"))
                    terms = {term for term in _terms(value) if term not in {"now", "new", "still", "nowaday"}}
                    if terms:
                        out.setdefault(name, set()).add(frozenset(terms))
    return out


def _broad_place(terms: set[str], raw: str) -> bool:
    places = lex.COUNTRIES | lex.REGIONS
    return bool(terms) and (
        all(term in places for term in terms)
        or any(pattern in raw for pattern in places if " " in pattern and pattern in raw)
    )


def _abandoned(new: Fact) -> frozenset[str]:
    """Values the new fact names as left behind: "replaced the MacBook", "tried Emacs", "from Chrome"."""
    return _abandoned_in(new.text)


@lru_cache(maxsize=4096)
def _abandoned_in(text: str) -> frozenset[str]:
    # Asked up to four times a pair of each fact and ~50 expressions each: once per text.
    out: set[str] = set()
    for _pattern, matches in _ending_matches(text):
        for match in matches:
            out |= set(_terms(_cut(match.group("x"), 4)))
    for pattern in _TRIED:
        for match in pattern.finditer(text):
            out |= set(_terms(_cut(match.group("a"), 4)))
    for match in _LEFT_FROM.finditer(text):
        out |= set(_terms(_cut(match.group(1), 4)))
    return frozenset(out)


@lru_cache(maxsize=4096)
def _ending_matches(text: str) -> tuple[tuple[re.Pattern[str], tuple[re.Match[str], ...]], ...]:
    """Every match of every expression that ends something (`_ENDING`), in their order: the same
    text (a new fact, a clause of it) is scanned by four detectors of every pair it is in, and a
    write's new fact is in three pairs."""
    found = []
    for pattern in _ENDING:
        deadline.check()
        found.append((pattern, tuple(m for m in pattern.finditer(text) if not _ONCE.match(text, m.end()))))
    return tuple(found)


# One time of a thing that goes on: "parkrun got cancelled because of ice", "practice is
# cancelled this week"
_ONCE = regex_programs.compile(
    r"\s*(?:(?:because of|due to|for) (?:the )?(?:ice|icy|snow|rain|weather|storm|heat|fog|flood\w*|wind|"
    r"strikes?|a strike|(?:a |the )?bank holiday|half term)|today|tonight|this (?:week|weekend|morning|time|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)


def class_conflicts(old: Fact, new: Fact) -> list[tuple[str, set[str], set[str]]]:
    out = []
    abandoned_tokens = _abandoned(new)
    for cls in set(old.classes) & set(new.classes):
        old_values, new_values = old.classes[cls], new.classes[cls]
        current = {
            match
            for match in new_values
            if not (
                {canon(w)[0] for w in match.split()} & abandoned_tokens
                or match.split()[0] in abandoned_tokens
            )
        }
        if current and not (old_values & current) and current - old_values:
            out.append((cls, old_values, current))
    return out


_TYPED_KINDS = (
    "money",
    "date",
    "expiry",
    "phone",
    "email",
    "hours",
    "time",
    "utc",
    "weekday",
    "pronouns",
    "percent",
    "dayofmonth",
    "quarter",
    "ordinal",
)


def _age(fact: Fact) -> set[str]:
    return {match.group(1) for match in _AGE.finditer(fact.text)}


def typed_conflicts(old: Fact, new: Fact) -> list[tuple[str, set[str], set[str]]]:
    out = []
    typed_old, typed_new = dict(old.typed), dict(new.typed)
    if "utc" in typed_old and "utc" in typed_new:
        typed_old.pop("time", None)
        typed_new.pop("time", None)
    for kind in _TYPED_KINDS:
        if kind in typed_old and kind in typed_new and not (typed_old[kind] & typed_new[kind]):
            out.append((kind, typed_old[kind], typed_new[kind]))
    ages_old, ages_new = _age(old), _age(new)
    if ages_old and ages_new and not (ages_old & ages_new):
        out.append(("age", ages_old, ages_new))
    for unit in set(old.counts) & set(new.counts):
        if not (old.counts[unit] & new.counts[unit]):
            out.append(
                (f"count of {unit}", {str(x) for x in old.counts[unit]}, {str(x) for x in new.counts[unit]})
            )
    return out


def template_conflict(old: Fact, new: Fact) -> tuple[list[str], list[str], list[str]] | None:
    """Same wording with one slot changed: (shared context, old slot, new slot)."""
    found = _template_conflict_of(tuple(old.terms), tuple(new.terms), old.raw, new.raw)
    return None if found is None else (list(found[0]), list(found[1]), list(found[2]))


# Several stages of one decision ask for the same pair's template, and the comparison is a
# quarter of a pair's cost where facts share their wording (bench/notes/portability.md): it is
# made once a pair, from all it reads.
@lru_cache(maxsize=1024)
def _template_conflict_of(
    old_terms: tuple[str, ...], new_terms: tuple[str, ...], old_raw: str, new_raw: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    a = [term for term in old_terms if term not in _LOW_INFO_STEMS]
    b = [term for term in new_terms if term not in _LOW_INFO_STEMS]
    template = slot_template(a, b)
    # whose it is ("User's son") is all the two share: a value only when both give one, a name
    # or a number ("lives in Graz" / "is in Linz now", "is 5" / "is 6"); not "is obsessed with
    # dinosaurs" / "turned 8", nor "is a pharmacist at the apotheek" / "is on a rotating schedule now"
    if (
        template is not None
        and not set(template[0]) - _PARTICLES - _WHOSE_TERMS
        and not (
            _GIVES_A_VALUE.search(_after_whose(old_raw)) and _GIVES_A_VALUE.search(_after_whose(new_raw))
        )
    ):
        return None
    return None if template is None else (tuple(template[0]), tuple(template[1]), tuple(template[2]))


# A name or a number, said after whose the fact is
_GIVES_A_VALUE = regex_programs.compile(r"(?-i:\b[A-Z][a-z])|\d")


def _after_whose(raw: str) -> str:
    """The fact after "User said:", "User's sister Ingrid" and the like."""
    return re.sub(r"^User(?: said:|'s \w+(?: (?-i:[A-Z][\w'-]*))?)?\s*", "", raw)


Template = tuple[list[str], list[str], list[str]]


def slot_template(a: list[str], b: list[str], budget: int | None = None) -> Template | None:
    """The terms `a` and `b` as one template with one slot changed: (context, old slot, new slot).

    difflib's comparison finds it, after a linear test (`_template_possible`) has ruled out the
    pairs where it cannot, and within `budget` steps of its search (`_BoundedMatcher`): past them
    the pair is read as no template."""
    if not _template_possible(a, b):
        return None
    try:
        opcodes = _BoundedMatcher(a, b, _TEMPLATE_BUDGET if budget is None else budget).get_opcodes()
    except _OverBudget:
        return None
    ops = [op for op in opcodes if op[0] != "equal"]
    if not ops:
        return None
    replaces = [op for op in ops if op[0] == "replace"]
    if len(replaces) != 1:
        return None
    _, i1, i2, j1, j2 = replaces[0]
    for tag, _, _, l1, _ in ops:
        if tag == "delete":
            return None
        if tag == "insert" and l1 < j1:
            return None  # an insertion before the slot changes the template
    context = [term for k, term in enumerate(a) if not i1 <= k < i2]
    old_slot, new_slot = a[i1:i2], b[j1:j2]
    if not set(context) - _PARTICLES or set(old_slot) & set(new_slot):
        return None  # "keeps mixing the dates up" / "work blew up": a shared "up" is no wording
    if _slot_kinds(old_slot) != _slot_kinds(new_slot[: len(old_slot) + 1]) and not (
        _slot_kinds(old_slot) <= _slot_kinds(new_slot)
    ):
        return None  # "at 9am" -> "ran long today": not a new value of the same kind
    return context, old_slot, new_slot


# Words of a phrasal verb, which share no wording on their own
_PARTICLES = frozenset("up down out off in on over back away around about through".split())
# Whose a fact is: "User's son", "User's team"
_WHOSE_TERMS = frozenset({"user"} | {canon(word)[0] for word in lex.RELATION_NOUNS} | set(OWN_GROUPS))


def _template_possible(a: list[str], b: list[str]) -> bool:
    """False where `template_conflict` cannot find a template, decided in linear time before the
    comparison (quadratic in repeated words) runs. A template is the same words up to one replaced
    slot, with no deletion and insertions only after the slot, and no word in both slots. So the
    slot starts where the common prefix ends (a shared word before it would be in both slots), the
    old words after the slot are a subsequence of the new words after the new slot's first one
    (which fixes the least the old slot must hold), the old slot cannot hold the new slot's first
    word, and some word lies outside the slot."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    if p == len(a) or p == len(b):
        return False  # nothing replaced: the comparison finds no replacement, or inserts only
    k, j = len(a), len(b)
    while k > p and j > p + 1:  # the longest tail of a that is a subsequence of b[p + 1:]
        if a[k - 1] == b[j - 1]:
            k -= 1
        j -= 1
    slot_end = max(k, p + 1)
    if b[p] in a[p:slot_end]:
        return False
    return p > 0 or slot_end < len(a)  # words outside the slot


class _OverBudget(Exception):
    pass


# What comparing two facts' wording may cost, in steps of difflib's longest-match search (each
# term of the old range, and each position of the new fact where it occurs): the labeled sets'
# costliest pair takes 33 and two 4,000-character facts of distinct sentences with one word
# replaced up to 1,600, while two 4,000-character facts of a few phrases repeated took a million
# and more, seconds of CPU (bench/classifier_cost.py). 20,000 is a few milliseconds.
_TEMPLATE_BUDGET = 20_000


class _BoundedMatcher(SequenceMatcher[str]):
    """difflib's matcher, refusing (`_OverBudget`) once its search has cost `budget` steps: its
    longest-match search loops over every position of the new sequence where each word of the old
    range occurs, so repeated words make it quadratic per search, and it searches once per block."""

    def __init__(self, a: list[str], b: list[str], budget: int) -> None:
        super().__init__(None, a, b, autojunk=False)
        self._old = a
        self._occurrences = Counter(b)  # the search's inner loop for each term of the old range
        self._left = budget

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Match:
        deadline.check()
        ahi = len(self._old) if ahi is None else ahi
        self._left -= ahi - alo
        if self._left >= 0:
            self._left -= sum(self._occurrences.get(term, 0) for term in self._old[alo:ahi])
        if self._left < 0:
            raise _OverBudget
        return super().find_longest_match(alo, ahi, blo, bhi)


def _slot_kinds(slot: list[str]) -> set[str]:
    return {term.split("_")[0] if "_" in term else ("num" if term[0].isdigit() else "word") for term in slot}


def _single_valued_cue(terms: set[str]) -> str | None:
    for name, spec in lex.ATTRIBUTES.items():
        if spec["single"] and terms & {canon(c)[0] for c in spec["cues"]}:
            return name
    return None


# ---------------------------------------------------------------------------------------------
# The decision.


Decision = tuple[Verdict, float, str]


@dataclass
class Pair:
    """The two facts and what every stage of the decision reads about them."""

    old: Fact
    new: Fact
    relation: str  # same | compatible | describes | different (subject_relation)
    why: str
    core_old: set[str]
    core_new: set[str]
    body_old: set[str]
    body_new: set[str]
    change: re.Match[str] | None  # a word that says the value is current or changed
    ending: tuple[str, str] | None  # the new fact says the old one's thing is over
    counted: Decision | None  # "has 2 kids" -> "welcomed a third"

    @property
    def shared(self) -> set[str]:
        return self.body_old & self.body_new

    @property
    def shared_wide(self) -> set[str]:
        return _expand(self.body_old) & _expand(self.body_new)

    @property
    def same_polarity(self) -> bool:
        return _has_neg(self.core_old) == _has_neg(self.core_new)


def decide(old_text: str, new_text: str) -> Decision:
    """The detectors' proposal: the first stage that recognises the pair decides."""
    old, new = analyze(old_text), analyze(new_text)
    if not old.terms or not new.terms:
        return (Verdict.NEW_FACT, 0.5, "too little content to compare")
    deadline.check()
    relation, why = subject_relation(old, new)
    pair = Pair(
        old,
        new,
        relation,
        why,
        _core(old),
        _core(new),
        _body(old),
        _body(new),
        _STRONG_CHANGE.search(new.text),
        _ending(old, new),
        _count_growth(old, new),
    )
    for stage in _STAGES:
        deadline.check()
        decision = stage(pair)
        if decision is not None:
            return decision
    return _unchanged(pair)


def _other_subject(pair: Pair) -> Decision | None:
    if pair.relation == "different":
        if pair.shared:
            return (Verdict.NEW_FACT, 0.85, f"{pair.why}: the same attribute of another entity is a new fact")
        return (Verdict.NEW_FACT, 0.85, pair.why)
    named_old, named_new = _named(pair.old), _named(pair.new)
    if named_old and named_new and not (named_old & named_new) and not _first(_CHANGE, pair.new.text):
        return (
            Verdict.NEW_FACT,
            0.85,
            f"a different one, named {said([sorted(named_new)[0]], pair.new)}, "
            f"not {said([sorted(named_old)[0]], pair.old)}",
        )
    return None


_WHICH_ONE = regex_programs.compile(
    r"(?i)^user's (?:older|younger|eldest|oldest|youngest|middle|other|second|little|big|baby) "
    r"(?P<who>kid|child|son|daughter|sister|brother|boy|girl|cousin)\b"
)


def _another_child(plain: str, qualified: str) -> bool:
    """ "User's kid" / "User's older kid": of two, the qualified one is another than the plain."""
    found = _WHICH_ONE.match(qualified)
    if found is None:
        return False
    return re.match(rf"(?i)^user's {found.group('who')}\b", plain) is not None


def _another_of_its_kind(pair: Pair) -> Decision | None:
    """'User's account has 2FA' -> 'User's work account doesn't have 2FA': a qualifier the old
    fact does not have, on a thing the old fact names, makes it another one of its kind."""
    if _another_child(pair.old.raw, pair.new.raw) or _another_child(pair.new.raw, pair.old.raw):
        return (
            Verdict.NEW_FACT,
            0.85,
            "another one of the user's family ('older', 'younger'): not the one named",
        )
    if _slot_relation(pair.old, pair.new) == "qualifier":
        return (
            Verdict.NEW_FACT,
            0.85,
            "a differently qualified slot (e.g. work vs personal) holds its own value",
        )
    qualified = _qualified_other(pair.old, pair.new)
    if qualified and not _MOVED_TO_ANOTHER.search(pair.new.text):
        # "works at the other office on Fridays" is another one; "moved to the other office" leaves the first
        return (Verdict.NEW_FACT, 0.8, f"about another one ('{qualified}'), not the one the old fact names")
    return None


def _qualified_other(old: Fact, new: Fact) -> str | None:
    """'work account', 'sandbox account', 'the other trial' in the new fact when the old one has the
    noun but not the qualifier, or a subject qualified as the old one is not ("Acme's staging
    workspace")."""
    for word in new.subject.slot[:-1]:
        if word in _INSTANCE_QUALIFIERS and word not in old.term_set:
            return said(new.subject.slot, new)
    tokens = new.tokens
    for index, token in enumerate(tokens[:-1]):
        qualifier = token in _OTHER_ONE or token in lex.QUALIFIER_ADJECTIVES
        following = canon(tokens[index + 1])[0]
        if qualifier and canon(token)[0] not in old.term_set and following in old.term_set - _FRAME_STEMS:
            return quoted(f"{token} {tokens[index + 1]}", new)
    return None


def _preference_reversed(pair: Pair) -> Decision | None:
    """'prefers tea over coffee' -> 'prefers coffee over tea': another thing now ranked above."""
    reversed_by = evidence.ranked_below(pair.old, pair.new)
    return (Verdict.CONTRADICTS, 0.9, shown(reversed_by)) if reversed_by else None


def _restatement(pair: Pair) -> Decision | None:
    old, new, core_old, core_new = pair.old, pair.new, pair.core_old, pair.core_new
    if core_old == core_new and pair.same_polarity and pair.relation != "describes":
        return (Verdict.DUPLICATE, 0.95, "restates the same content in other words")
    generalized = _UNIVERSAL.search(new.text) and not _UNIVERSAL.search(old.text)
    allowed = (
        _class_nouns(old)
        | _class_nouns(new)
        | set().union(set(), *(_HYPERNYMS.get(term, set()) for term in core_old & core_new))
    )
    unchanged = pair.same_polarity and not pair.ending and not pair.change
    says_no_more = core_new and (core_new - allowed) <= core_old and not generalized
    if says_no_more and unchanged and pair.relation != "describes":
        dropped = core_old - core_new - allowed
        if dropped:
            # "drinks decaf coffee" -> "drinks coffee": a qualifier went missing
            return (
                Verdict.DUPLICATE,
                0.8,
                f"says nothing new, but leaves out '{said([sorted(dropped)[0]], old)}': not acted on",
            )
        return (Verdict.DUPLICATE, 0.88, "says nothing the old fact doesn't already say")
    if core_old and core_old <= core_new and unchanged and (core_new - core_old) <= allowed:
        return (Verdict.DUPLICATE, 0.88, "restates the old fact, naming only what kind of thing it is")
    return None


_RESUMED = regex_programs.compile(lex.RESUMED)


def _resumed(old: Fact, new: Fact) -> str | None:
    """'quit smoking in 2023' -> 'started smoking again': what the old fact says ended is back."""
    match = _RESUMED.search(new.text)
    if _ONE_OFF.search(new.text) or _first(_TEMPORARY, new.text) or _EVENT_PLACE.search(new.text):
        return None  # "drank again at the wedding": once, not a habit taken up again
    ended = set(_abandoned(old)) - _FRAME_STEMS - {"user"}  # "User retired from Ohio": the user never ended
    if _ENDED_STATES & old.term_set & new.term_set:
        return None  # "alarm is off" -> "alarm is off again": the same end, said again
    if _denies(old) and not evidence.negated(new):
        # "avoids dairy", "the Peloton membership is cancelled": what the old fact says is over
        ended |= evidence.content(old) - _FRAME_STEMS - _LOW_INFO_STEMS - set(old.subject.key) - _ENDED_STATES
        ended -= _NEGATION_TERMS | _KIND_NOUN_STEMS
    if not match or not ended:
        return None
    back = ended & new.term_set
    if not back:
        return None
    return (
        f"the old fact says '{_quote(back, old)}' ended; the new one says it is back "
        f"('{quoted(match.group(0), new)}')"
    )


def _denial(pair: Pair) -> Decision | None:
    """'eats meat' -> 'doesn't eat meat', 'doesn't drink coffee' -> 'drinks two espressos': one
    fact denies exactly what the other states. Both denying the same thing agree."""
    old, new = pair.old, pair.new
    denied_old, denied_new = _denies(old), _denies(new)
    if denied_old and denied_new and evidence.negation_scope(new) & _ENDED_STATES & old.term_set:
        denied_old = False  # "is deactivated" -> "isn't deactivated anymore": the end itself denied
    if denied_old and denied_new:
        return _both_absent(pair)
    if denied_old == denied_new:
        return None
    if denied_new:
        governed = _negated_terms(new) if evidence.negated(new) else set()
        governed = {evidence.as_written_in(term, old) for term in governed}
        if governed and governed <= old.term_set and not evidence.negates_another(old, new):
            reason = f"the new fact denies what the old one states ('{_quote(governed, old, new)}')"
            return (Verdict.CONTRADICTS, 0.9, reason)
        return None
    governed = _negated_terms(old) - RESTATEMENT_STEMS  # the thing denied, not "eat" or "have"
    if governed and governed & _expand(pair.core_new) and not _first(_HISTORICAL, new.text):
        return (
            Verdict.CONTRADICTS,
            0.9,
            f"the new fact states what the old one denied ('{_quote(governed, old, new)}')",
        )
    return None


def _both_absent(pair: Pair) -> Decision | None:
    """'cancelled Hulu' / 'no longer has a Hulu subscription': both say the same thing is over."""
    thing_old = pair.core_old - _NEGATION_TERMS - RESTATEMENT_STEMS  # what is absent, not "eat"
    thing_new = pair.core_new - _NEGATION_TERMS - RESTATEMENT_STEMS
    extra = thing_new - _expand(thing_old)
    narrower = _expand(extra) & thing_old  # "allergic to shellfish" / "... to shrimp"
    if thing_old and thing_old <= _expand(thing_new) and len(extra) <= 1 and not narrower:
        return (Verdict.DUPLICATE, 0.8, f"both facts say '{_quote(thing_old, pair.old)}' is over or absent")
    return None


def _denies(fact: Fact) -> bool:
    """A negation, or a word that says the thing is over or absent ("quit", "cancelled")."""
    cached: bool | None = fact.memo.get("denies")
    if cached is None:
        cached = fact.memo["denies"] = evidence.negated(fact) or bool(_first(_OLD_NEGATIVE, fact.text))
    return cached


def _negated_terms(fact: Fact) -> set[str]:
    """The content terms a negation governs: up to four words after it, within its clause.
    Negations are read as written ("teetotal" spells "not drink alcohol"; "notes" is no "not")."""
    words: list[str] = []
    for token in fact.tokens:
        if token == "'s":
            continue
        if token in _STRUCTURAL:
            words.append("|")
            continue
        for word in lex.SYNONYMS.get(token, token).split():
            words.extend(("~",) if word in lex.NEGATIONS else canon(word))
    governed: set[str] = set()
    for index, word in enumerate(words):
        if word != "~":
            continue
        for following in words[index + 1 : index + 5]:
            if following in ("|", "sinc"):  # "hasn't run since the marathon" negates the running
                break
            if following not in lex.STOPWORDS and following not in _FRAME_STEMS and following != "~":
                governed.add(following)
    return governed - _LOW_INFO_STEMS - _WHEN_WORDS


_WHEN_WORDS = frozenset(canon(word)[0] for word in ("anymore", "now", "nowadays", "yet", "again", "today"))


def _quote(terms: AbstractSet[str], *facts: Fact) -> str:
    """The terms as the user wrote them in `facts` (rules_wording.said)."""
    return said(terms, *facts)


_NOUN_PLAN = regex_programs.compile(lex.NOUN_PLAN)


def _hedge(text: str) -> re.Match[str] | None:
    """A hedge, but not 'the Basic plan to Pro': a plan named as a thing is no intention."""
    for match in _HEDGES[0].finditer(text):
        noun = _NOUN_PLAN.search(text, max(0, match.start() - 40), match.end())
        if not (match.group(0).startswith("plan") and noun and noun.end() == match.end()):
            return match
    return None


# What opens one more piece of news: "and also ...", "oh and also ...", "second, ..."
_NEWS_OPENING = regex_programs.compile(
    r"(?:user said:\s*)?(?:(?:and|oh|ok|okay|so|plus)\b[ ,:]*)*(?=also\b|(?:second|third)\s*[,:])"
)


def _news_opening_end(text: str) -> int:
    opening = _NEWS_OPENING.match(text)
    return opening.end() if opening else -1


def _independent_or_hedged(pair: Pair) -> Decision | None:
    new = pair.new
    additive = _first(_ADDITIVE, new.text)
    if additive and additive.start() == _news_opening_end(new.text) and kept_as_said(new):
        # "User said: also playtests are saturday nights now", "second, the Y reshuffled ...": one
        # more piece of news, opened; what follows may still add one ("also we got a second dog")
        additive = _first(_ADDITIVE, new.text[additive.end() :])
    if additive and (
        _in_a_name(additive.group(0), new.raw)
        or _ALSO_CHANGED.search(new.text)
        or (
            additive.group(0).split()[-1] in ("other", "another", "own")
            and _MOVED_TO_ANOTHER.search(new.text)
        )
    ):
        # "is at Second Home now", "also switched to Ostbloc", "moved to the other office": a
        # name, one more change, a change to another one
        additive = None
    if additive and pair.counted is None and not pair.ending:
        return (
            Verdict.NEW_FACT,
            0.85 if not pair.shared else 0.8,
            f"additive language ('{quoted(additive.group(0), new)}'): an independent fact alongside the old one",
        )
    hedge = _hedge(new.text)
    if not hedge:
        return None
    if (
        pair.shared_wide
        or pair.relation == "describes"
        or (pair.relation == "same" and pair.old.subject.kind in ("thing", "name"))
    ):
        return (
            Verdict.SUPPLEMENTS,
            0.8,
            f"hedged language ('{quoted(hedge.group(0), pair.new)}') is not a commitment; the old fact stands",
        )
    if pair.relation == "same" and set(pair.new.subject.slot) <= set(pair.old.subject.slot):
        # an intention of the same subject (another city, another editor) is still no change: the
        # old fact stands, and the plan adds to what is known about it
        return (
            Verdict.SUPPLEMENTS,
            0.7,
            f"hedged language ('{quoted(hedge.group(0), new)}'): a plan, not a change",
        )
    return (Verdict.NEW_FACT, 0.7, f"hedged language ('{quoted(hedge.group(0), new)}') about something else")


_MOVED_TO_ANOTHER = regex_programs.compile(
    r"\b(?:moved|switched|changed|transferred|relocated|swapped)\b(?:\s+\w+){0,3}?\s+(?:to|into|over to)\s+"
    r"(?:the other|another|an other|(?:my|our|their|his|her) own)\b"
)
# "also switched to X": one more change the user tells of, not one more thing beside the old one
_ALSO_CHANGED = regex_programs.compile(
    r"\balso (?:just |finally )?(?:switched|moved|changed|swapped|ditched|dropped|left|quit|upgraded)\b|"
    # a value changed, beside what is added: "Airflow went to 2.9 too", "bumped me to £48,500 from
    # July, plus 2 extra days of leave"
    r"\b(?:went|bumped|upped|raised|increased|upgraded) (?:\w+ ){0,2}?(?:up )?to (?:v|version |money_)?\d"
)


def _in_a_name(word: str, raw: str) -> bool:
    """Every time the word is written, it is capitalized inside the sentence: part of a name
    ("Second Home"), not the additive word."""
    found = list(re.finditer(rf"\b{re.escape(word)}\b", raw, re.IGNORECASE))
    return bool(found) and all(
        match.group(0)[:1].isupper() and raw[: match.start()].rstrip()[-1:] not in ("", ".", "!", "?", ":")
        for match in found
    )


def _reverted_or_counted(pair: Pair) -> Decision | None:
    return _reversion(pair.old, pair.new) or pair.counted


def _history(pair: Pair) -> Decision | None:
    old, new, change = pair.old, pair.new, pair.change
    historical = _first(_HISTORICAL, new.text)
    if historical is None and not change and not re.search(r"\b(?:now|currently|still)\b", new.text):
        historical = _past_state(old, new)
    if historical is None and not change and not re.search(r"\bin year_\d{4}\b", old.text):
        historical = _PAST_DATED.search(new.text)
    if not historical or re.search(r"\bnow\b|\bcurrently\b|\bsince then\b", new.text):
        return None
    if pair.body_old and pair.body_old <= new.term_set:
        return (
            Verdict.SUPPLEMENTS,
            0.75,
            f"a past period ('{quoted(historical.group(0), new)}') of the same fact",
        )
    return (
        Verdict.NEW_FACT,
        0.85,
        f"describes a past period ('{quoted(historical.group(0), new)}'), not the current state",
    )


# "has been living in Utrecht for six weeks now": how long the home has been, not a stay
_BEEN_LIVING = regex_programs.compile(r"\bbeen living in\b")


_USERS_NEW_HOME = regex_programs.compile(rf"^{lex.USERS_NEW_HOME} ")
# a new home not lived in yet: "would be nice", "is being renovated before they move in"
_NOT_MOVED_IN_YET = regex_programs.compile(
    r"\b(?:would|could|might|will|going to|gonna|plans?|planning|hopes?|hoping|before|soon|next|once|"
    r"when|if|until|yet|wish|wants?|thinking|being)\b"
)


def _home_moved(old: Fact, new: Fact) -> bool:
    """ "User's home is York now" -> "moved to Portland", "lives in Neukölln" -> "User's new flat
    in Pankow is lovely": the home is the slot a move changes, not an attribute beside the
    subject's."""
    new_home = bool(_USERS_NEW_HOME.match(new.text))
    if new_home and _NOT_MOVED_IN_YET.search(new.text):
        return False
    home_slot = old.subject.slot == ("hom",) and "location" in frame_values(old)
    return (home_slot or new_home) and _moved_elsewhere(old, new) is not None


def _elsewhere_or_in_part(pair: Pair) -> Decision | None:
    """A short stay, a part of the old quantity, another slot or a part of the thing."""
    old, new = pair.old, pair.new
    place_like = {"location", "timezone"} & old.attrs or "location" in frame_values(old)
    temporary = _first(_TEMPORARY, new.text)
    if temporary and place_like and not pair.ending and not _BEEN_LIVING.search(new.text):
        return (
            Verdict.NEW_FACT,
            0.85,
            f"a short stay ('{quoted(temporary.group(0), new)}') doesn't change where they live",
        )
    subset = _PART_OF.search(new.text)
    if subset and canon(subset.group(1))[0] in old.term_set | {"them", "those", "these"} and not pair.ending:
        return (
            Verdict.SUPPLEMENTS,
            0.8,
            f"about a part of what the old fact describes ('{quoted(subset.group(0), new)}')",
        )
    slot = _slot_relation(old, new)
    if slot == "qualifier":
        return (
            Verdict.NEW_FACT,
            0.85,
            "a differently qualified slot (e.g. work vs personal) holds its own value",
        )
    # "down to 17 from 22" names the old fact's number, and "moved the call to Saturdays" the old
    # fact's thing, whatever other words the new fact's subject has
    if (
        slot == "attribute"
        and not pair.ending
        and not _the_groups_tool(old, new)
        and not _to_new_from_old(old, new)
        and not _from_old_value(old, new)
        and not _moves_the_old_thing(old, new)
        and not _named_versions_replaced(old, new)
        and not _renumbered(old, new)
        and not _worked_hours_said_alone(old, new)
        and not _home_moved(old, new)
    ):
        return (Verdict.NEW_FACT, 0.8, "a different attribute of the same subject")
    if slot == "part" and not pair.ending:
        return (Verdict.SUPPLEMENTS, 0.75, "about a part of what the old fact names")
    return None


# Groups the user is one of: what the group uses, the user uses with it
_USERS_GROUPS = frozenset(canon(word)[0] for word in OWN_GROUPS | {"household", "family", "band"})


def _the_groups_tool(old: Fact, new: Fact) -> bool:
    """'User's team tracks everything in Trello' -> 'User uses Linear now': a tool of a kind held
    one at a time, the user's on one side and their group's on the other, is one tool they use."""
    slots = {tuple(old.subject.slot), tuple(new.subject.slot)}
    if len(slots) != 2:
        return False
    # "User's team tracks everything in ..." reads ("team", "track", ...); the other side is the
    # user, or a thing of theirs the group works with ("User's CI is jenkins" -> "User's team is
    # migrating off jenkins to github actions")
    groups = [slot for slot in slots if slot and slot[0] in _USERS_GROUPS]
    if len(groups) != 1:
        return False
    return any(name in lex.TOOL_CLASSES for name, _old, _new in class_conflicts(old, new))


# Words of a move, which a share of it said done leaves partly undone
_MOVING_OVER = regex_programs.compile(r"\b(?:mov|migrat|switch|port|transition|cut)\w*")


def _changed(pair: Pair) -> Decision | None:
    """A change of the old value: what ends it, an explicit construction, a new state or value,
    unless what changed is someone else's, another one, or a part of it."""
    old, new = pair.old, pair.new
    someone_else = _someone_elses(old, new)
    if someone_else:
        return (
            Verdict.NEW_FACT,
            0.8,
            f"what changed ('{quoted(someone_else, new)}') is someone else's, not the old fact's",
        )
    if pair.ending:
        term, phrase = pair.ending
        return (
            Verdict.CONTRADICTS,
            0.95 if pair.relation == "same" else 0.9,
            f"the new fact ends what the old one states ('{quoted(phrase, new)}' covers '{said([term], old)}')",
        )
    part_done = PART_DONE.search(new.text)
    if part_done and _MOVING_OVER.search(new.text):
        # "about halfway through moving CI from Jenkins to GitHub Actions": the rest is on the
        # old one, however the move is read (from the old value, or as a new one)
        return (Verdict.SUPPLEMENTS, 0.75, f"a move partly done ('{quoted(part_done.group(0), new)}')")
    explicit = _explicit_change(old, new)
    if explicit:
        return (Verdict.CONTRADICTS, *explicit)
    elsewhere = _changed_elsewhere(old, new)
    if elsewhere:
        return elsewhere
    transition = None if _ends_something_else(old, new) else _state_transition(old, new, pair.relation)
    if transition:
        confidence = 0.9 if pair.change or pair.relation == "same" else 0.86
        return (Verdict.CONTRADICTS, confidence, transition)
    return _value_conflict(old, new, pair.relation, pair.change)


def _explicit_change(old: Fact, new: Fact) -> tuple[float, str] | None:
    """A construction that names the old value as left: completed, moved away, 'from X to Y',
    'used to X, now Y', a habit that ended and is back."""
    completed = _completion(old, new) or _moved_elsewhere(old, new)
    if completed:
        return (0.9, completed)
    from_to = (
        _from_old_value(old, new)
        or _took_to_what_was_ranked_below(old, new)
        or _used_to_now(old, new)
        or _down_or_up_to(old, new)
        or _to_new_from_old(old, new)
        or _named_versions_replaced(old, new)
    )
    if from_to:
        return (0.92, from_to)
    resumed = _resumed(old, new)
    return (0.9, resumed) if resumed else None


def _changed_elsewhere(old: Fact, new: Fact) -> Decision | None:
    """Change words about another one of the kind, a part of the old thing, or a past episode."""
    other = _ends_another_one(old, new) or _another_named_one(old, new)
    if other:
        return (Verdict.NEW_FACT, 0.8, f"what changed ('{other}') is another one, not the old fact's")
    part = _part_of_old_one(old, new)
    if part:
        return (Verdict.SUPPLEMENTS, 0.75, f"about a part of what the old fact names ('{part}')")
    episode = _EPISODE.search(new.text)
    if episode and set(old.states) & set(new.states):
        reason = f"a state that held for a while ('{quoted(episode.group(0), new)}'), not the current one"
        return (Verdict.NEW_FACT, 0.75, reason)
    return None


def _unchanged(pair: Pair) -> Decision:
    """No change found: how do the two relate?"""
    old, new, body_old = pair.old, pair.new, pair.body_old
    refinement = _first(_REFINEMENT, new.text)
    if pair.relation in ("same", "compatible", "describes"):
        swapped = template_conflict(old, new) is not None
        restated = paraphrase(old, new, _statement(old), _statement(new), _expand, swapped)
        if restated:
            return restated
    if pair.core_old and pair.core_old <= pair.core_new:
        if refinement:
            shown_refinement = quoted(refinement.group(0), new)
            return (Verdict.SUPPLEMENTS, 0.9, f"the same fact made more specific ('{shown_refinement}')")
        return (Verdict.SUPPLEMENTS, 0.85, "keeps everything the old fact says and adds detail")
    change_words = _said_changed(pair)
    if change_words:
        said_change = f"says the old fact's value changed ('{change_words}')"
        number_swap = _anchored_number_swap(old, new)
        if number_swap:
            return (Verdict.CONTRADICTS, 0.86, f"{said_change}: {number_swap}")
        return (
            Verdict.CONTRADICTS,
            evidence.UNPROVEN_CEILING,
            f"{said_change}, without naming what it replaced",
        )
    if pair.relation == "describes":
        if _told_from_the_other_side(pair):
            return (Verdict.DUPLICATE, 0.75, "the same fact told from the side of the thing it names")
        return (Verdict.SUPPLEMENTS, 0.8, pair.why)
    if set(new.subject.slot) & (body_old - set(old.subject.slot)):
        return (Verdict.SUPPLEMENTS, 0.8, "describes the thing the old fact names")
    for name, old_values in frame_values(old).items():
        if old_values and old_values <= new.term_set:
            reached = pair.change or re.search(r"\b(?:finally|now|officially|promoted)\b", new.text)
            if name == "role" and (frame_values(new).get("role", set()) - old_values) and reached:
                continue  # "after 2 years as a software engineer I'm finally a tech lead": a new role
            return (Verdict.SUPPLEMENTS, 0.75, f"the old {name} still holds; the new fact adds to it")
    assigned = _assignment_conflict(old, new)
    if assigned:
        return (Verdict.CONTRADICTS, 0.8, assigned)
    return _loosely_related(pair)


def _said_changed(pair: Pair) -> str | None:
    """The change words, as the user wrote them, of change language about what the old fact
    states where no detector found the replaced value ('renewed their passport; the new number
    ends in 9902', 'is on Core from now on'). Likelier a change than an addition; without the
    value (`_anchored_number_swap`) it never acts."""
    old, new = pair.old, pair.new
    if pair.change is None or pair.relation == "describes" or _hedge(new.text) or _denies(old):
        # an end restates an old fact that says the thing is over; "User's daughter just turned
        # 10" is about the daughter, not a value of the old fact
        return None
    if evidence.typed_values(new) and not evidence.typed_values(old):
        return None  # "User's dog Max turned 3": a value the old fact never gave, not a change of it
    if _changes_another_attribute(old, new):
        return None  # "User moved to Berlin" says where the user lives, of which "uses Vim" says nothing
    if _switch_keeps_the_old(old, new):
        return None  # "switched the Civic to winter tires": a part of it, the Civic kept
    said = evidence.change_evidence(old, new)
    if said is None or evidence.one_attribute_contradiction(old, new):
        return None  # a reading that names the replaced value decides, and may act
    cause = _CAUSE.search(new.text)
    if cause and cause.start() < pair.change.start():
        return None  # "is late because the vendor slipped": why the old state holds, not a change
    if set(canon(pair.change.group(0))) & old.term_set:
        return None  # "is delayed" -> "is delayed because ...": the old fact says it already
    if said.endswith("s") and re.search(rf"\b{re.escape(said)}\s*(?:[,;.]|\band\b|\bor\b|$)", new.text):
        return None  # "brown switches and a split layout": a plural noun, not a verb with its object
    return shown(said)


_CAUSE = regex_programs.compile(r"\b(?:because|due to)\b")
# A number as the normaliser writes it: an amount ("money_2150", "2300", "3.15") or a time of day.
_IDENTIFIER_NUMBER = re.compile(r"\b[A-Za-z]{2,}-(\d+)\b")
# What a number counts when it is a span of time ("1 week each"), not how many
_SPAN_UNITS = frozenset({"minut", "hour", "day", "night", "week", "month", "year"})
_AMOUNT_TERM = re.compile(r"^(?:money_)?\d[\d.,]*(?:/\w+)?$")
_NUMBER_KIND = ((_AMOUNT_TERM, "amount"), (re.compile(r"^time_\d+$"), "time"))
# Words next to a number that say how it is counted, not what it is of ("a month", "per week"),
# or how nearly ("like eight engineers", "like seven minutes").
_UNIT_WORDS = frozenset(
    canon(w)[0]
    for w in """user say now day night week month year hour minute time each per like about around
    roughly approximately almost nearly only just""".split()
)
# Units a number measures in, which make it a measure of a thing, not a count in a list.
_MEASURES = frozenset(
    canon(w)[0]
    for w in """gb tb mb kb ram ghz mhz kg km mg mcg ml lb lbs inch cm mm hp kw kwh mph mpg
    litre liter gallon""".split()
)
# How many content words either side of a number say what it is of.
_ANCHOR_WINDOW = 2


def _numbers(fact: Fact) -> list[tuple[str, str, bool, set[str]]]:
    """Each number of the fact: its kind, its value, whether it was written as money, and the
    content words beside it."""
    found = []
    identifiers = set(_IDENTIFIER_NUMBER.findall(fact.raw))  # "INFRA-94" is a ticket, not 94 of something
    for i, term in enumerate(fact.terms):
        if term in identifiers:
            continue
        for pattern, kind in _NUMBER_KIND:
            if pattern.match(term):
                value = term.removeprefix("money_").split("/")[0].replace(",", "")  # "55/month"
                near = fact.terms[max(0, i - _ANCHOR_WINDOW) : i] + fact.terms[i + 1 : i + 1 + _ANCHOR_WINDOW]
                beside = {t for t in near if not _AMOUNT_TERM.match(t)} - _UNIT_WORDS
                if fact.terms[i + 1 : i + 2] and fact.terms[i + 1] in _SPAN_UNITS:
                    beside -= OWN_GROUPS  # "team does 1 week each": a span, not the team's number
                found.append((kind, value, term.startswith("money_"), beside))
    return found


# "one closer to the office", "the one that ...": a thing pointed at, no count of one
_ONE_AS_A_PRONOUN = regex_programs.compile(r"(?i)\bone (?:[a-z]+er|that|which|near|by)\b")


_NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}


def _counted(fact: Fact, value: str) -> str | None:
    """The plural noun a number counts, written right after it ("8 engineers", "eight
    engineers" -> "engineers"), if any: a name or a unit after it ("Pixel 7 to", "12 Elm St",
    "50km") is no thing counted."""
    for found in re.finditer(r"(?<![\w.,])(\d[\d,]*|[a-z]+) ([a-z]+s)\b", fact.raw):
        number = found.group(1).replace(",", "")
        if _NUMBER_WORDS.get(number, number) == value:
            return found.group(2)
    return None


def _counts_another(old: Fact, value: str, new: Fact, new_value: str) -> bool:
    """ "8 engineers" / "3 designers now": each number counts a thing of its own ("2 beehives" /
    "3 hives" count one thing)."""
    counted_old, counted_new = _counted(old, value), _counted(new, new_value)
    if not counted_old or not counted_new:
        return False
    return not (
        counted_old.endswith(counted_new)
        or counted_new.endswith(counted_old)
        or counted_new in old.raw.lower()
    )


def _span_numbers(fact: Fact) -> set[str]:
    """The numbers of the fact that count a span of time ("15 days", "3 years"); not a rate's
    period ("450/day", "450 a day")."""
    return {found.group(1).replace(",", "") for found in _SPAN_NUMBER.finditer(fact.raw)}


_SPAN_NUMBER = regex_programs.compile(
    r"(?<![\d.,/])(\d[\d,]*)\s*(?:days|weeks|months|years|hours|hrs|minutes|mins|nights)\b"
)


_AT_A_NUMBER = regex_programs.compile(r"\bat (?P<n>\d{1,2})\b(?! ?(?:%|[a-z]+s\b|minutes|mins|people|kids))")


def _said_as_an_hour(text: str, value: str) -> bool:
    """Whether a bare number is said as an hour: "at 10", "at 7 now", no unit after it."""
    return any(m.group("n") == value and 1 <= int(value) <= 23 for m in _AT_A_NUMBER.finditer(text))


def _anchored_number_swap(old: Fact, new: Fact) -> str | None:
    """'pickup is at 3.15' -> 'school changed their hours so pickup is 2.45 now': with change
    language already found, a number of the same kind in place of the old one, beside the same
    word in both, and the old number not said again. The word says which slot the number fills,
    which the change word alone does not."""
    if _SHARE_ON.search(old.raw):
        return None  # "about 6% on iOS 15": a share of the users, not the user's own version
    if _other_activity(old, new) or _ONE_AS_A_PRONOUN.search(new.raw):
        return None  # "runs 20km" / "cycles 50km"; "switched gyms to one closer": no count
    if _each_named_apart(old, new):
        return None  # "Postgres 14" / "SQLite 3", "meeting with Sam at 10" / "with Ana at 11"
    new_numbers = _numbers(new)
    new_values = {value for _, value, _, _ in new_numbers}
    old_numbers = _numbers(old)
    running = bool(running_total(old.text) or running_total(new.text))
    new_anchors = set().union(*(new_near for _, _, _, new_near in new_numbers)) if new_numbers else set()
    spans = _span_numbers(old)
    for kind, value, money, near in old_numbers:
        if value in new_values:
            continue  # the old value said again: kept, or a part of it
        others = [
            (other, other_near)
            for other_kind, other, other_money, other_near in old_numbers
            if other_kind == kind
            # "450/day, projects of ~15 days": a length of time beside a rate, no second rate
            and (other not in spans or value in spans)
            and (other_money == money or "." in other)
            and other != value
            and other not in new_values
            # "23 units across two buildings" -> "41 units now across three buildings": each
            # given another beside its own word, none retired
            and not any(
                new_kind == other_kind and new_value != other and other_near & new_near - near
                for new_kind, new_value, _, new_near in new_numbers
            )
        ]
        # "netflix 10.99, spotify 19.99, the gym 55": replacing it would retire the others. A
        # measure of another thing ("Lightroom Classic 12 on a MacBook with 16 GB") is no
        # other value of the list: beside a unit of its own, and none of the new number's words.
        if others and (
            money
            or "." in value
            or any(
                "." in other or other_near & new_anchors or not other_near & _MEASURES
                for other, other_near in others
            )
        ):
            continue
        for new_kind, new_value, new_money, new_near in new_numbers:
            shared, shown_new = near & new_near, new_value
            if new_money and not money and kind == new_kind == "amount":
                # "$60/hr for spot work" and "20 spot illustrations": a rate, a count (a price
                # said again without its currency, "frogs are 22 now", is still the price)
                continue
            if kind == "time" and new_kind == "amount" and _said_as_an_hour(new.text, new_value):
                # "standup's at 10 now" in place of "at 9:30": an hour said without its minutes
                new_kind, new_value = "time", f"time_{int(new_value) * 60}"
            if running and grew(value, new_value):
                continue  # "has read 3" -> "has now read 4": a running total, both true
            if ("." in value) != ("." in new_value) and not money:
                continue  # "a raspberry pi 4" -> "bumped the bot to 3.12": a version, not a model number
            if re.search(
                rf"(?<![\d.]){re.escape(new_value)}\s+(?:more|extra|additional|further)\b", new.text
            ):
                continue  # "hire 2 more designers": an increment, not the team's new size
            if new_kind == kind and shared and not _counts_another(old, value, new, new_value):
                return f"{quoted(shown_new, new)} in place of {quoted(value, old)} beside '{said(shared, new, old)}'"
    return None


def _changes_another_attribute(old: Fact, new: Fact) -> bool:
    """The new fact says where its subject now is ("moved to Berlin") and the old fact names no
    place: the change is of where, of which the old fact says nothing. Only places: a date or a
    count the slots miss in the old fact ("flies to Tokyo on May 12") may still be the one
    changed."""
    new_slots = slots_of(new.raw)
    if not new_slots or any(slot.kind != "place" for slot in new_slots):
        return False
    return not any(slot.kind == "place" for slot in slots_of(old.raw))


# Words that put a fact from the side of the thing ("Hiking is something the user loves").
_FILLER_STEMS = frozenset(canon(word)[0] for word in lex.RESTATEMENT_FILLER)


def _told_from_the_other_side(pair: Pair) -> bool:
    """'User loves hiking' / 'Hiking is something the user really loves': the thing the old fact
    names made the subject, and nothing said that the old fact does not say."""
    old, new = pair.old, pair.new
    if pair.change or evidence.same_statement(old, new) is not None:
        return False
    old_words = _expand(_statement(old) | set(old.term_set))
    extra = _statement(new) - old_words - _FILLER_STEMS
    missing = _statement(old) - _expand(set(new.term_set))
    return not extra and not missing


def _another_named(old: Fact, new: Fact) -> str | None:
    """The same words with one name replaced by another, neither a kind of the other."""
    template = template_conflict(old, new)
    if template is None:
        return None
    _, old_slot, new_slot = template
    if len(old_slot) != 1 or len(new_slot) != 1:
        return None
    if not (old_slot[0] in evidence.proper_names(old) and new_slot[0] in evidence.proper_names(new)):
        return None
    if _expand({old_slot[0]}) & _expand({new_slot[0]}):
        return None  # "shrimp" / "shellfish": one names the other's family
    return new_slot[0]


def _loosely_related(pair: Pair) -> Decision:
    old, new, shared_wide = pair.old, pair.new, pair.shared_wide
    if shared_wide and all("_" in term for term in shared_wide):
        return (Verdict.NEW_FACT, 0.7, "they share only a day or a time: separate facts")
    if evidence.typed_values(old) and evidence.same_statement(old, new) is None:
        # the same values, names and polarity in other words: most likely a restatement
        return (Verdict.DUPLICATE, 0.8, "the same values in other words; not sure enough to act")
    related = shared_wide - {"like", "prefer", "favorit"} - RESTATEMENT_STEMS  # not a shared "own"
    shared_names = related & (evidence.proper_names(old) | evidence.proper_names(new))
    if related & _KIND_NOUN_STEMS and not shared_names and _named_apart(old, new):
        # "a savings account at Ally" / "... at Marcus", "a trip to Rome" / "a trip to Oslo"
        return (
            Verdict.NEW_FACT,
            0.75,
            f"another {said([sorted(related)[0]], old, new)}, named differently: one alongside the other",
        )
    another = _another_named(old, new)
    if related and another:
        # "subscribes to Netflix" / "subscribes to Max": one name put in place of another, and
        # nothing says the slot holds one: most likely one more alongside the first
        return (
            Verdict.NEW_FACT,
            0.7,
            f"the same words about another one ('{said([another], new)}'), not a change",
        )
    if related:
        detail = said([sorted(related)[0]], new, old)
        return (Verdict.SUPPLEMENTS, 0.65, f"related detail about '{detail}' without a change")
    families_old = {lex.ATTRIBUTES[a]["family"] for a in old.attrs if a in lex.ATTRIBUTES}
    families_new = {lex.ATTRIBUTES[a]["family"] for a in new.attrs if a in lex.ATTRIBUTES}
    if (
        set(old.classes) & set(new.classes)
        or _generic_domain(old, new)
        or (families_old & families_new and pair.relation == "same")
    ):
        return (Verdict.SUPPLEMENTS, 0.6, "same kind of fact, no sign that either replaces the other")
    return (Verdict.NEW_FACT, 0.75, "no shared attribute: an independent fact")


def _agrees_with_the_ranking(pair: Pair) -> Decision | None:
    """'prefers tea over coffee' -> 'no longer likes coffee': no change of the old preference."""
    turned_from = _turns_from_what_was_ranked_below(pair.old, pair.new)
    return (Verdict.SUPPLEMENTS, 0.8, turned_from) if turned_from else None


_STAGES = (
    _other_subject,
    _another_of_its_kind,
    _preference_reversed,
    _agrees_with_the_ranking,
    _restatement,
    _independent_or_hedged,
    _denial,
    _reverted_or_counted,
    _history,
    _elsewhere_or_in_part,
    _changed,
)
_PAST_DATED = regex_programs.compile(lex.PAST_DATED)
_PART_OF = regex_programs.compile(lex.PART_OF)


_ASSIGNMENT = regex_programs.compile(lex.ASSIGNMENT)


def _assignment_conflict(old: Fact, new: Fact) -> str | None:
    """ "X's favorite genre is A" -> "X's favourite genre: B": one slot given another value. Without
    change language this never acts (it may be a second one); it only names the likelier verdict."""
    old_match, new_match = _ASSIGNMENT.match(old.text), _ASSIGNMENT.match(new.text)
    if not old_match or not new_match:
        return None
    old_slot, new_slot = set(_terms(old_match.group("slot"))), set(_terms(new_match.group("slot")))
    old_value, new_value = set(_terms(old_match.group("value"))), set(_terms(new_match.group("value")))
    attribute = old_slot - _subject_terms(old) - _subject_terms(new)
    if not attribute or old_slot != new_slot or not old_value or not new_value:
        return None  # "User is X" names no attribute: X may be one of many things the user is
    if any(values and values == new.classes.get(name) for name, values in old.classes.items()):
        return None  # "UTC+1" and "Europe/Berlin": one value in two spellings
    if old_value <= new_value or new_value <= old_value:
        return None
    return f"the same slot ({said(old_slot, old)}) given another value"


_PAST_STATE = {
    "lived": "liv",
    "worked": "work",
    "owned": "own",
    "studied": "study",
    "attended": "attend",
    "drove": "drive",
    "used": "us",
    "played": "play",
    "taught": "teach",
    "managed": "manag",
    "led": "lead",
    "stayed": "stay",
    "resided": "liv",
    "belonged": "belong",
    "dated": "dat",
}


_PAST_STATE_RE = regex_programs.compile(r"\b(" + "|".join(_PAST_STATE) + r")\b")


def _past_state(old: Fact, new: Fact) -> re.Match[str] | None:
    """'lived in Marseille' next to 'live in Lyon': the past tense of the old fact's own verb is history."""
    for match in _PAST_STATE_RE.finditer(new.text):
        if _PAST_STATE[match.group(1)] in old.term_set and not re.search(
            r"\b(?:has|have|had) " + match.group(1), new.text
        ):
            return match
    copula = re.search(r"\b(?:was|were) (?:a|an|the|in|at|on|with|based|employed)\b", new.text)
    if (
        copula
        and re.search(r"\b(?:is|are|am)\b", old.text)
        and not re.search(r"\b(?:was|were) \w+ed\b", new.text)
    ):
        return copula
    return None


def _named_apart(old: Fact, new: Fact) -> bool:
    """Each fact names something the other does not (a bank, a city), one of them by a proper name."""
    own_old = {term for term in _body(old) - new.term_set if "_" not in term}
    own_new = {term for term in _body(new) - old.term_set if "_" not in term}
    names = (evidence.proper_names(old) - new.term_set) | (evidence.proper_names(new) - old.term_set)
    return bool(own_old and own_new and names)


def _generic_domain(old: Fact, new: Fact) -> bool:
    wide_o, wide_n = _expand(_body(old)), _expand(_body(new))
    return bool((wide_o & wide_n) - {"like", "prefer"})


def _fuzzy_overlap(a: AbstractSet[str], b: AbstractSet[str]) -> set[str]:
    """Terms of b that a names, counting "member"/"membership" as one word: one begins with the
    other, both of five letters or more. Typed values ("email_bycom") match whole or not at all."""
    out = set(a & b)
    by_prefix: dict[str, list[str]] = {}  # one starts with the other: both start with the same five
    for y in b:
        if len(y) >= 5 and "_" not in y:
            by_prefix.setdefault(y[:5], []).append(y)
    for x in a - out:
        if len(x) < 5 or "_" in x:
            continue
        out.update(y for y in by_prefix.get(x[:5], ()) if x.startswith(y) or y.startswith(x))
    return out


_A_PIECE_OF = re.compile(r"^(?:a |the )?(?:chunk|part|section|stretch|portion|bit) of\b")
_FOR_A_SEASON = re.compile(r"\b(?:all|for the|over the) (?:summer|winter|spring|autumn|fall)\b")


def _ending(old: Fact, new: Fact) -> tuple[str, str] | None:
    """The new fact says the thing the old one asserts is over: (old term, phrase)."""
    old_values = _expand(_body(old) | {canon(a)[0] for a in old.subject.apposition}) - {
        "year",
        "day",
        "month",
        "week",
    }
    if old.subject.kind == "name":
        old_values -= set(old.subject.key)
    elif old.subject.kind == "thing":
        # "The dog walker comes on weekdays" -> "stopped the dog walker": the thing itself ended
        old_values |= set(old.subject.key) - _FRAME_STEMS
    old_values |= evidence.day_parts(old)
    old_negative = _first(_OLD_NEGATIVE, old.text)
    # "xero went live and quickbooks is cancelled": a clause after "and" with its own subject
    for clause in re.split(
        r";|,? but |,? and (?=[\w.-]+ (?:is|are|was|were|got|has been|have been) )", new.text
    ):
        for pattern, matches in _ending_matches(clause):
            deadline.check()
            for match in matches:
                phrase = _ABOUT.split(_cut(match.group("x"), 4))[0]  # "closed the ticket about the account"
                # "turned off conversation view in Gmail": a feature of an app, which is kept
                # (not "live in London" nor "gave up their desk in Saldanha": what is done or
                # held there ends with it)
                inside, where = [*_INSIDE.split(phrase, 1), ""][:2]
                head = set(_terms(inside)) - _FRAME_STEMS
                if head and not head & _VERB_STEMS and _names_an_app(where):
                    phrase = inside
                x = set(_terms(phrase)) - _FRAME_STEMS
                hit = _fuzzy_overlap(x, old_values)
                if (
                    not hit
                    or (_about_another(old, new) and not hit & evidence.proper_names(old))
                    or _complement_elsewhere(clause, match, old.term_set)
                    or _a_part_ended(x, old_values)
                    or _another_head(match, old_values)
                    or _ended_in_part(pattern, match, old, old_values)
                    or _another_kind(x, old)
                    or _another_instance(phrase, old, new)
                    or _possessed(clause, match)
                    or _scoped_elsewhere(match.group("x"), phrase, old)
                    or _restored_after(new, clause, match.end())
                    or _A_PIECE_OF.search(match.group("x"))
                    or _FOR_A_SEASON.search(clause)
                    or (_ONE_OFF.search(clause) and not _MILESTONE.search(clause))
                ):
                    continue  # ... "closed a chunk of Line 6 all summer": a part, for a season
                if old_negative or _SCHEDULED_END.search(old.text):
                    continue  # the old fact already said it was gone, or when it would end: they agree
                if hit <= _passed_over(old.text):
                    continue  # "prefers tea over coffee" -> "drinks tea instead of coffee": they agree
                return sorted(hit)[0], match.group(0).strip()
    return None


# Where the thing ended is: "conversation view in Gmail"
_INSIDE = regex_programs.compile(r"\s(?:in|on|inside|within|from)\s")


def _names_an_app(text: str) -> bool:
    from aurra_core.text_analysis.kinds import kinds_of

    return bool(kinds_of(text) & (_SOFTWARE_KINDS | {"email"}))


_PASSED_OVER = regex_programs.compile(lex.PASSED_OVER + r"((?:[\w'-]+\s*){1,3})")


def _passed_over(text: str) -> set[str]:
    return {term for found in _PASSED_OVER.finditer(text) for term in _terms(found.group(1))}


def _identity(fact: Fact) -> set[str]:
    """What singles out the thing a fact is about: its names and its subject's words."""
    return evidence.proper_names(fact) | set(fact.subject.slot)


def _about_another(old: Fact, new: Fact) -> bool:
    """'The Netflix account is active' -> 'the Hulu account is not active anymore': the new fact
    leaves out what singles out the old fact's thing and names another in its place."""
    missing, added = _identity(old) - new.term_set, _identity(new) - old.term_set - _FRAME_STEMS
    named_instead = bool(added & evidence.proper_names(new)) or bool(old.subject.slot and new.subject.slot)
    return bool(missing) and bool(added) and named_instead


def _complement_elsewhere(clause: str, match: re.Match[str], old_terms: AbstractSet[str]) -> bool:
    """'the GitHub account is no longer on the Pro plan': what is over is what follows the marker
    (the plan), not the thing before it ("Richard is no longer involved" ends Richard's part)."""
    if not match.group(0).rstrip().endswith("nolonger"):
        return False
    rest = _CONNECTIVE.split(" ".join(clause[match.end() :].split()[:6]))[0]
    complement = set(_terms(rest)) - old_terms
    if complement & _KIND_NOUN_STEMS and not _fuzzy_overlap(complement, old_terms):
        return True
    return _narrowed(rest, old_terms, old_terms)  # "is no longer active on mobile"


# Heads of a phrase that name something held with or added to a thing: "cancelled the Costco
# Executive upgrade" ends the upgrade, not the Costco membership.
_PART_HEADS = frozenset(canon(word)[0] for word in lex.ADDED_PARTS)


def _a_part_ended(ended_terms: set[str], old_values: set[str]) -> bool:
    parts = (ended_terms & _PART_HEADS) - old_values
    return bool(parts) and not _fuzzy_overlap(parts, old_values)


_NO_LONGER = frozenset({lex.ENDING[0], lex.ENDING[1]})  # "no longer X", "not X anymore"


def _ended_in_part(pattern: re.Pattern[str], match: re.Match[str], old: Fact, old_values: set[str]) -> bool:
    """'is no longer vegetarian on trips', 'doesn't play guitar in the band anymore': a place or an
    occasion the old fact does not have narrows what is over to a part of it."""
    if pattern.pattern not in _NO_LONGER:
        return False
    ended = _CONNECTIVE.split(match.group("x"))[0]  # "... because Obsidian syncs": a reason, not a part
    return _narrowed(ended, old.term_set, old_values)


def _narrowed(phrase: str, old_terms: AbstractSet[str], old_values: AbstractSet[str]) -> bool:
    """A place or an occasion in the phrase ("on mobile", "in the band") the old fact does not name."""
    for qualifier in _QUALIFIER.finditer(phrase):
        terms = set(_terms(qualifier.group("q"))) - _LOW_INFO_STEMS - _WHEN_WORDS
        if any(term not in old_terms and not _fuzzy_overlap({term}, old_values) for term in terms):
            return True
    return False


_CONNECTIVE = regex_programs.compile(lex.CONNECTIVE)
_QUALIFIER = regex_programs.compile(lex.QUALIFYING_PHRASE)


def _another_kind(ended_terms: set[str], old: Fact) -> bool:
    """'has a Microsoft account' -> 'cancelled their Microsoft 365 subscription': what ended is
    another kind of thing held (a subscription, not the account)."""
    kinds = ended_terms & _KIND_NOUN_STEMS
    held = old.term_set & _KIND_NOUN_STEMS
    return bool(kinds and held) and not _fuzzy_overlap(kinds, old.term_set)


def _another_head(match: re.Match[str], old_values: set[str]) -> bool:
    """'the account verification email expired': written before the word that ends it, the thing
    that ended is the phrase's last noun (the e-mail), which the old fact does not name."""
    if match.start("x") != match.start() or not match.group("x").split():
        return False
    head = canon(match.group("x").split()[-1])[0]
    held = _PART_HEADS | _KIND_NOUN_STEMS | _ACCOUNT_PARTS
    return head in held and not _fuzzy_overlap({head}, old_values)


_ACCOUNT_PARTS = frozenset(canon(word)[0] for word in lex.ACCOUNT_PARTS)


_INSTANCE_QUALIFIERS = frozenset(canon(word)[0] for word in lex.SLOT_QUALIFIERS | lex.INSTANCE_QUALIFIERS)
# Qualifiers that single out another one wherever they stand ("work" or "business" may be a verb
# or a plan's name, so they count only in a slot or in the phrase of what ended).
_OTHER_ONE = frozenset(lex.INSTANCE_QUALIFIERS)


def _another_instance(ended: str, old: Fact, new: Fact) -> bool:
    """'closed the shared Google account' when the old fact is about a Netflix account, 'cancelled
    the personal card' when it is about the company card, 'the other trial expired': a name or a
    qualifier the old fact does not have says the thing that ended is another one of its kind."""
    tokens = tokenize(ended)
    words = {canon(token)[0] for token in tokens}
    distinct = (words & _INSTANCE_QUALIFIERS) | (words & evidence.proper_names(new))
    return bool(distinct - old.term_set) or _differently_modified(tokens, old)


# Verbs that carry no value of their own: "runs on Django" / "was rebuilt with ... Django" keep the value
_VERB_STEMS = frozenset(canon(verb)[0] for verb in VERBS) - lex.LIKING - lex.DISLIKING
_KIND_NOUN_STEMS = frozenset(canon(word)[0] for word in lex.KIND_NOUNS)
# Where work is done, which an employer keeps: "from home", "remotely", "hybrid", "in the office"
_WORK_ARRANGEMENT_STEMS = frozenset(
    canon(word)[0]
    for word in (
        # as the normaliser leaves them ("works from home", "wfh", "remotely" are "remote")
        "home remote hybrid office desk hot-desk hot-desks hot-desking hotdesk onsite on-site in-office"
    ).split()
)
_TASTE_STEMS = lex.LIKING | lex.DISLIKING
# Words that date a clause ("after the reorg"), which no verb's value is
_WHEN_STEMS = frozenset(canon(word)[0] for word in ("after", "before", "since", "until", "during"))
_PRIMARY_STEMS = frozenset(canon(word)[0] for word in lex.PRIMARY_QUALIFIERS)


def _differently_modified(tokens: list[str], old: Fact) -> bool:
    """'closed the savings account' when the old fact is about a checking account: a word before a
    thing people hold several of, which the old fact does not have, names another one."""
    for index, token in enumerate(tokens[1:], start=1):
        if canon(token)[0] not in _KIND_NOUN_STEMS or canon(token)[0] not in old.term_set:
            continue
        modifier = tokens[index - 1]
        if modifier in lex.STOPWORDS or modifier in _STRUCTURAL or modifier in lex.PRINCIPAL_WORDS:
            continue
        stem = canon(modifier)[0]
        if stem not in old.term_set and stem not in _PRIMARY_STEMS and stem not in _FRAME_STEMS:
            return True
    return False


_DETERMINERS = frozenset("the a an his her their my our its your".split())


def _determined_other(new: Fact, old: Fact) -> bool:
    """'the gym membership' when the old fact's membership is the Premium one, "Ari's Uber Eats
    courier account" when it is the Uber account: after a determiner or a possessive, a name the old
    fact does not have, or words in place of the old fact's own words for the same kind of thing
    ("Uber deactivated the user's rider account" is still the Uber account)."""
    names = evidence.proper_names(new)
    for kind in _KIND_NOUN_STEMS & old.term_set:
        modifiers_new = _modifiers(new.tokens, kind) - old.term_set
        modifiers_old = _modifiers(old.tokens, kind)
        if modifiers_new & names or (modifiers_new and modifiers_old and not modifiers_old <= new.term_set):
            return True
    return False


def _modifiers(tokens: list[str], kind: str) -> set[str]:
    """The words between a determiner or a possessive and the kind noun ('the gym membership')."""
    found: set[str] = set()
    for index, token in enumerate(tokens):
        if canon(token)[0] != kind:
            continue
        words: list[str] = []
        for before in reversed(tokens[max(0, index - 4) : index]):
            if before in _DETERMINERS or before == "'s":
                found |= {
                    canon(word)[0]
                    for word in words
                    if word not in lex.STOPWORDS and canon(word)[0] not in _PRIMARY_STEMS | _FRAME_STEMS
                }
                break
            words.append(before)
    return found


def _ends_another_one(old: Fact, new: Fact) -> str | None:
    """The new fact ends something of the old fact's kind that is another one ('cancelled their
    Netflix subscription' next to a Hulu subscription): the old fact is not what ended."""
    old_values = _expand(_body(old) | set(old.subject.key))
    for _pattern, matches in _ending_matches(new.text):
        for match in matches:
            phrase = _TO_WHAT.split(_cut(match.group("x"), 4))[0]  # "from X to Y": X
            if _THE_OLD_ONE.search(phrase):
                continue  # "the old address has been closed": the old fact's own value
            terms = set(_terms(phrase)) - _FRAME_STEMS
            if not _fuzzy_overlap(terms, old_values):
                continue
            if not terms & _KIND_NOUN_STEMS and not (terms & evidence.proper_names(new)) - old.term_set:
                continue  # only a thing people hold several of, or a named one, can be another one
            if _another_instance(phrase, old, new) or _possessed(new.text, match):
                return quoted(phrase, new)
            scope = _scoped_elsewhere(match.group("x"), phrase, old)
            if scope:
                return quoted(f"{phrase} {scope}", new)
    return None


_ABOUT = regex_programs.compile(lex.ABOUT)
_THE_OLD_ONE = regex_programs.compile(lex.THE_OLD_ONE)
_TO_WHAT = regex_programs.compile(lex.TO_WHAT)


def _possessed(clause: str, match: re.Match[str]) -> bool:
    """'cancelled the account's add-on storage': the account owns what ended, it did not end."""
    owner = match.group("x").split()[-1:] if match.group("x") else []
    return (
        clause[match.end("x") :].lstrip().startswith("'s")
        and bool(owner)
        and canon(owner[0])[0] in _KIND_NOUN_STEMS
    )


_SCOPE = regex_programs.compile(lex.SCOPE)


def _scoped_elsewhere(ended: str, phrase: str, old: Fact) -> str | None:
    """'turned off 2FA on Twitter' next to 2FA on GitHub, 'closed their account on the old forum':
    a kind of thing (an account, 2FA) ended somewhere the old fact does not name."""
    if not set(_terms(phrase)) <= _KIND_NOUN_STEMS or not ended.startswith(phrase):
        return None
    scope = _SCOPE.match(ended[len(phrase) :])
    if not scope:
        return None
    where = {term for term in _terms(scope.group(1)) if "_" not in term} - _LOW_INFO_STEMS - _KIND_NOUN_STEMS
    return scope.group(0).strip() if where and not where & old.term_set else None


def _ends_something_else(old: Fact, new: Fact) -> str | None:
    """'closed the ticket about the account': the state word ends a thing the old fact does not name."""
    old_values = _expand(_body(old) | set(old.subject.key))
    for _pattern, matches in _ending_matches(new.text):
        for match in matches:
            phrase = _ABOUT.split(_cut(match.group("x"), 4))[0]
            terms = set(_terms(phrase)) - _FRAME_STEMS - _LOW_INFO_STEMS
            if terms and not _fuzzy_overlap(terms, old_values) and not terms & (_PRONOUNS | _STATE_WORDS):
                return phrase
    return None


_PRONOUNS = frozenset({"it", "them", "they", "that", "thi", "this"})
_STATE_WORDS = frozenset(canon(word)[0] for words in lex.STATES.values() for word in words)  # "closed-won"


# Words after "'s" that make it "is" or "has": "standup's at 10 now", "team's 9 now", "rent's gone up"
_AFTER_IS = frozenset(
    """at in on now still not been got gone going moved moving back off up down over a an the
    finally officially just only""".split()
)


def _is_not_has(tokens: list[str], index: int) -> bool:
    """The "'s" at `index` is "is" or "has", not whose: what follows it is a preposition, a
    number, a value or an adverb, never a thing owned."""
    after = tokens[index + 1]
    return after in _AFTER_IS or after[:1].isdigit() or "_" in after


def _part_of_old_one(old: Fact, new: Fact) -> str | None:
    """'replaced the Civic's tires', 'upgraded the MacBook's RAM': what changed belongs to the old
    fact's thing; the thing itself stays."""
    tokens = new.tokens
    for index in range(2, len(tokens) - 1):
        if tokens[index] != "'s" or tokens[index - 1] in lex.PRINCIPAL_WORDS or _is_not_has(tokens, index):
            continue
        owner, owned = canon(tokens[index - 1])[0], canon(tokens[index + 1])[0]
        if owner in new.subject.key | old.subject.key:
            continue  # "Since the reorg, Tom's manager is Priya": the subject's own attribute
        if owner in old.term_set and owned not in old.term_set and owned not in _KIND_NOUN_STEMS:
            return quoted(f"{tokens[index - 1]} 's {tokens[index + 1]}", new)
    return None


def _someone_elses(old: Fact, new: Fact) -> str | None:
    """'switched the kids' subscription to annual', 'upgraded the design team's Slack': the new
    fact changes a thing of someone the old fact does not name."""
    tokens = new.tokens
    for index in range(2, len(tokens) - 1):
        if tokens[index] != "'s" or tokens[index - 1] in lex.PRINCIPAL_WORDS or _is_not_has(tokens, index):
            continue
        owner = canon(tokens[index - 1])[0]
        owned = {canon(token)[0] for token in tokens[index + 1 : index + 3]}
        named_before = old.term_set & evidence.proper_names(new)  # "the design team's Slack"
        if owner not in old.term_set and owned & (_KIND_NOUN_STEMS | named_before):
            return quoted(f"{tokens[index - 1]} 's {tokens[index + 1]}", new)
    return None


def _named_kinds(fact: Fact) -> set[str]:
    """Names written just before a thing people hold several of: 'the Azure account' (not 'the
    Business tier': a plan's name is its value)."""
    names = evidence.proper_names(fact)
    return {
        canon(fact.tokens[index - 1])[0]
        for index in range(1, len(fact.tokens))
        if canon(fact.tokens[index])[0] in _KIND_NOUN_STEMS - _PLAN_NOUNS
        and canon(fact.tokens[index - 1])[0] in names
    }


_PLAN_NOUNS = frozenset({"plan", "tier", "trial"})


def _another_named_one(old: Fact, new: Fact) -> str | None:
    """'AWS account on the free tier' -> 'upgraded the Azure account': the named one that changed is
    not the one the old fact names."""
    named_new = _named_kinds(new) - old.term_set
    named_old = evidence.proper_names(old) - new.term_set
    if named_new and named_old:
        return f"the {said([sorted(named_new)[0]], new)} one"
    return None


def _restored_after(new: Fact, clause: str, end: int) -> bool:
    """'expired last year but was renewed': what ended came back later in the same fact."""
    start = new.text.find(clause)
    return bool(_RESTORED.search(new.text[max(start, 0) + end :]))


def _completion(old: Fact, new: Fact) -> str | None:
    ongoing = set(old.tokens) & lex.ONGOING_WORDS
    done = _COMPLETED.search(new.text)
    if not ongoing or not done:
        return None
    anchor = (_body(old) & _body(new)) - {"now"}
    if not anchor:
        return None
    return (
        f"'{said([sorted(ongoing)[0]], old)}' in the old fact is an ongoing state that the new one says "
        f"ended ('{quoted(done.group(0), new)}', same '{said([sorted(anchor)[0]], new, old)}')"
    )


_FROM_TO = regex_programs.compile(lex.FROM_TO)
_PREFERRED_OVER = regex_programs.compile(lex.PREFERRED_OVER)


_MONEY_MOVED = regex_programs.compile(
    r"(?i)\b(?:transferr?ed|sent|moved|paid|wired|withdrew|deposited)\s+(?:about\s+|around\s+)?[$\u00a3\u20ac]?\d"
)


def _from_old_value(old: Fact, new: Fact) -> str | None:
    """'Acme has 30 seats' -> 'Acme reduced its seats from 30 to 22', 'prefers Python' -> 'prefers Go
    over Python': the new fact names the old value as what it left, and a value the old fact does
    not have as what it chose."""
    if _MONEY_MOVED.search(new.raw):
        return None  # "transferred $500 from Chase to Ally": money moved, the account stays
    for match in [*_FROM_TO.finditer(new.text), *_PREFERRED_OVER.finditer(new.text)]:
        start = set(_terms(_cut(match.group("x"), 3))) - _FRAME_STEMS - _LOW_INFO_STEMS - {"nowaday"}
        end = set(_terms(_cut(match.group("y"), 4))) - _FRAME_STEMS
        if any(term.startswith("year_") for term in start):
            continue  # "from 2015 to 2019" is a past period
        if start and end and start <= old.term_set and not ((end & old.term_set) - _KIND_NOUN_STEMS):
            return f"the new fact says it changed from {said(start, new)} (the old value) to {said(end, new)}"
    return None


# "these days", "now": said of what holds at present, against what was
_AT_PRESENT = regex_programs.compile(r"\b(?:now|nowadays|these days|lately|anymore|since)\b")
# A liking or a choice, not a mere mention: "writes Go at work now" prefers nothing
_TAKES_TO = regex_programs.compile(
    r"\b(?:prefers?|loves?|likes?|into|all about|fan of|favou?rites?|obsessed with|only|switched to|"
    r"converted to|(?:\w+ )?(?:person|girl|guy|drinker))\b"
)
# What turns a word against the thing it names: "off coffee", "stopped coffee", "no coffee"
_AGAINST = regex_programs.compile(
    r"\b(?:not|no|nolonger|off|quit|stopped|gave up|hates?|dislikes?|less|cut out|cut down on|never|without|than)"
    r"(?: [\w']+){0,2} $"
)


def _ranked_below_said_again(old: Fact, new: Fact) -> tuple[set[str], set[str], bool] | None:
    """When the old fact prefers A over B and the new fact names B but not A: A's words, B's
    words (what tells the two apart: "window" and "aisle" of "window seats over aisle seats"),
    and whether the new fact turns against B where it first names it. None otherwise."""
    ranked = _PREFERRED_OVER.search(old.text)
    if not ranked:
        return None
    a, b = evidence.phrase_terms(ranked.group("y")), evidence.phrase_terms(ranked.group("x"))
    chosen, passed_over = a - b, b - a
    if not chosen or not passed_over or not passed_over <= new.term_set or chosen & new.term_set:
        return None
    first = min(
        (found.start() for term in passed_over for found in re.finditer(rf"\b{re.escape(term)}", new.text)),
        default=None,
    )
    if first is None:
        return None
    return chosen, passed_over, bool(_AGAINST.search(new.text[:first]))


def _took_to_what_was_ranked_below(old: Fact, new: Fact) -> str | None:
    """'prefers tea over coffee' -> 'is all about coffee these days': the new fact takes to what
    the old one ranked below (a liking or a choice, `_TAKES_TO`), now, and names the old choice
    nowhere."""
    if not _AT_PRESENT.search(new.text) or not _TAKES_TO.search(new.text):
        return None
    said_again = _ranked_below_said_again(old, new)
    if said_again is None or said_again[2]:
        return None
    chosen, passed_over, _ = said_again
    return f"takes to {said(passed_over, new)}, which the old fact ranked below {said(chosen, old)}"


def _turns_from_what_was_ranked_below(old: Fact, new: Fact) -> str | None:
    """'prefers tea over coffee' -> 'no longer likes coffee', 'drinks less coffee these days':
    the new fact turns against what the old one already ranked below, and names the old choice
    nowhere; the two agree."""
    said_again = _ranked_below_said_again(old, new)
    if said_again is None or not said_again[2]:
        return None
    chosen, passed_over, _ = said_again
    return f"turns from {said(passed_over, new)}, which the old fact already ranked below {said(chosen, old)}"


_USED_TO_NOW = regex_programs.compile(lex.USED_TO_NOW)
_LEAD_WORD = regex_programs.compile(lex.LEAD_WORD)
_SCHEDULED_END = regex_programs.compile(lex.SCHEDULED_END)


def _used_to_now(old: Fact, new: Fact) -> str | None:
    """'drives a Honda' -> 'used to drive a Honda; now drives a Tesla': the old value is what was,
    and what is now does not name it."""
    match = _USED_TO_NOW.search(new.text)
    if not match:
        return None
    was = set(_terms(_cut(match.group("x"), 3))) - _FRAME_STEMS - _LOW_INFO_STEMS
    now_phrase = _LEAD_WORD.sub("", match.group("y"))  # "is now on Pro"
    now = set(_terms(_cut(now_phrase, 4))) - _FRAME_STEMS - _LOW_INFO_STEMS
    if was and was <= old.term_set and now - old.term_set and not now & was:
        return (
            f"the old value ({_quote(was, new, old)}) is what used to be; "
            f"now it is {_quote(now - old.term_set, new)}"
        )
    return None


_DOWN_TO = regex_programs.compile(lex.DOWN_OR_UP_TO)


def _down_or_up_to(old: Fact, new: Fact) -> str | None:
    """'drinks about three coffees a day' -> 'is down to one coffee a day': the count of the very
    thing the old fact counts, said to have fallen or risen to another."""
    match = _DOWN_TO.search(new.text)
    if not match:
        return None
    count, noun = match.group("n"), canon(match.group("noun"))[0]
    for old_match in _COUNTED.finditer(old.text):
        if canon(old_match.group("noun"))[0] == noun and old_match.group("n") != count:
            return (
                f"the {said([noun], old, new)} counted in the old fact ({quoted(old_match.group('n'), old)}) "
                f"is '{quoted(match.group(0), new)}'"
            )
    return None


_COUNTED = regex_programs.compile(lex.COUNTED)
_TO_FROM = regex_programs.compile(
    r"\bto (?P<y>(?:money_)?\d+(?:[.,]\d+)*) from (?P<x>(?:money_)?\d+(?:[.,]\d+)*)(?![.,]?\w)"
)


_MOVED_OBJECT = regex_programs.compile(
    r"\b(?:moved|moves|switched|switches|switching|changed|shifted|rescheduled|pushed|bumped|upgraded|"
    r"migrated)(?P<thing>(?: [\w']+){1,5}?) (?:to|onto)\b"
)


def _moves_the_old_thing(old: Fact, new: Fact) -> bool:
    """'has a family call every Sunday at 20:00' -> 'moved the call with their parents to
    Saturdays': what the change verb moves is a thing the old fact names."""
    for match in _MOVED_OBJECT.finditer(new.text):
        if set(_terms(match.group("thing"))) - _FRAME_STEMS - _LOW_INFO_STEMS & old.term_set:
            return True
    return False


# A thing and its version: "python 3.9", "blender 3.6", "ios 17.2" (normalised text).
_NAMED_VERSION = regex_programs.compile(r"\b(?P<name>[a-z][a-z+#-]{1,20}) v?(?P<version>\d+(?:\.\d+)+)\b")
_STILL_OR_AS_OF = regex_programs.compile(r"\bstill\b|\bas of\b")
_STILL = regex_programs.compile(r"\bstill\b")
_FINALLY = regex_programs.compile(r"\bfinally\b")
_VERSION = regex_programs.compile(r"(?<![\d.])\d+\.\d+(?:\.\d+)?(?![\d.]*\d)")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _names_another_thing(text: str, name: str) -> bool:
    """Whether the text names a known thing (kinds.py) other than `name`: "User's Python is on
    3.12 now" is Python's version, not Blender's."""
    from aurra_core.text_analysis import kinds

    return any(
        kinds.kinds_of(word) - _NO_THING_KINDS
        for word in re.findall(r"[a-z][a-z+#-]+", text)
        if word != name and word not in _CHANGE_VERBS  # "upgraded" is a change, not a plan
    )


_CHANGE_VERBS = frozenset("upgraded updated bumped moved migrated switched downgraded went jumped".split())
# Kinds that say when or where, not what runs a version: "over the weekend", "in London"
_NO_THING_KINDS = frozenset({"weekday", "month", "season", "time", "date", "place", "timezone"})


_UPGRADED = regex_programs.compile(
    r"\b(?:upgraded|updated|bumped|moved|migrated|went|jumped)(?: (?P<what>\w+))? to\b"
)


def _upgraded_in_line(version: str, bare: str, old: Fact, new: Fact) -> bool:
    """'is on Python 3.9' -> 'upgraded to 3.12 last week': a later version of the same major line,
    said as an upgrade to it, is of the one thing the old fact runs."""
    old_key, new_key = _version_key(version), _version_key(bare)
    upgraded = _UPGRADED.search(new.text)
    what = upgraded.group("what") if upgraded else None
    if what and what not in ("it", "everything", "us", "them") and canon(what)[0] not in old.term_set:
        return False  # "upgraded Deno to 18.19": another thing's version
    return bool(upgraded) and old_key[0] == new_key[0] and new_key > old_key


def _named_versions_replaced(old: Fact, new: Fact) -> str | None:
    """'still on Python 3.9 and Django 3.2' -> 'is on Python 3.12 and Django 5.1 as of last
    Tuesday': every version the old fact names is given another one, by name, in the new fact,
    and one of them says the old ones were waiting for it ('still') or when it changed ('as
    of'), or says it changed. The names make it the same slot; every one replaced leaves
    nothing of the old fact standing."""
    old_versions = {m.group("name"): m.group("version") for m in _NAMED_VERSION.finditer(old.text)}
    new_versions = {m.group("name"): m.group("version") for m in _NAMED_VERSION.finditer(new.text)}
    bare = _VERSION.findall(new.text)
    if (
        len(old_versions) == 1
        and len(bare) == 1
        and (
            _STILL.search(old.text) or _upgraded_in_line(next(iter(old_versions.values())), bare[0], old, new)
        )
        and evidence.change_evidence(old, new)
    ):
        # "the bot still runs on Python 3.9" -> "finally bumped the bot to 3.12": the one version
        # it was waiting to change, given another without repeating the name, about a thing
        # both facts name
        ((name, version),) = old_versions.items()
        shared = (old.term_set & new.term_set) - _UNIT_WORDS - {"still", version}
        # "is still on Blender 3.6" -> "on 4.2 now": an old fact of the version alone needs
        # no other word in common
        version_alone = (
            not (old.term_set - _UNIT_WORDS - _FRAME_STEMS - {"still", name, version} - set(canon(name)))
            and _version_key(bare[0]) > _version_key(version)  # an upgrade
            and not _names_another_thing(new.text, name)
        )
        named_new = set(new_versions) - lex.STOPWORDS
        if bare[0] != version and name not in lex.STOPWORDS and (shared or version_alone) and not named_new:
            if _STILL.search(old.text):
                return (
                    f"the version the old fact was still on is given another: {name} {version} -> {bare[0]}"
                )
            return (
                f"a later version of the same line, said as an upgrade to it: {name} {version} -> {bare[0]}"
            )
    names = (set(old_versions) - lex.STOPWORDS) & set(new_versions)
    if not old_versions or set(old_versions) != names:
        return None
    if any(old_versions[name] == new_versions[name] for name in names):
        return None
    upgraded = all(_version_key(new_versions[name]) > _version_key(old_versions[name]) for name in names)
    if not (
        _STILL_OR_AS_OF.search(old.text)
        or _STILL_OR_AS_OF.search(new.text)
        or evidence.change_evidence(old, new)
        # "ok finally on ruby 3.3 + rails 7.2": every one a later version, reached at last
        or (upgraded and _FINALLY.search(new.text))
    ):
        return None
    replaced = ", ".join(f"{name} {old_versions[name]} -> {new_versions[name]}" for name in sorted(names))
    return f"every version the old fact names is given another: {replaced}"


_NAME_AND_NUMBER = regex_programs.compile(r"\b(?P<name>[a-z][a-z+#-]{1,20}) v?(?P<number>\d+(?:\.\d+)*)\b")


def _renumbered(old: Fact, new: Fact) -> bool:
    """'User's macbook is still on macOS 14' -> 'User updated to macOS 15': a name both facts
    give with another number is the thing the old fact's subject holds, whatever it is called."""

    def numbered(fact: Fact) -> dict[str, str]:
        return {
            m.group("name"): m.group("number")
            for m in _NAME_AND_NUMBER.finditer(fact.text)
            if m.group("name") not in lex.STOPWORDS and canon(m.group("name"))[0] not in _UNIT_WORDS
        }

    numbered_old, numbered_new = numbered(old), numbered(new)
    return any(numbered_new.get(name) not in (None, number) for name, number in numbered_old.items())


def _to_new_from_old(old: Fact, new: Fact) -> str | None:
    """'has 22 plants' -> 'down to 17 from 22': the new fact names the old fact's number as the
    one it changed from, and a number the old fact does not have as the one it changed to."""
    for match in _TO_FROM.finditer(new.text):
        was, now = match.group("x"), match.group("y")
        if was in old.term_set and now not in old.term_set:
            return f"the new fact says it changed to {quoted(now, new)} from {quoted(was, new, old)}, the old value"
    return None


_MOVED_HOME = regex_programs.compile(lex.MOVED_HOME)
_RESIDENCE_TERMS = frozenset({"live", "liv", "homebase", "hometown", "headquarter"})
_LIVES_IN_A_THING = regex_programs.compile(r"\bliv(?:e|es|ed|ing) in " + lex.NOT_A_HOME)


# "User is in Park Slope, Brooklyn": the whole fact is where the user is; a move takes them from
# it, home or not. Not a year, a group or a class ("is in Year 7").
_IN_A_PLACE = regex_programs.compile(
    r"^User (?:is|'s) (?:now |currently |still )?in (?!(?:Year|Grade|Group|Team|Class|Room|Band|Level|"
    r"Stage|Phase|Set|Form|Division|League)\b)(?P<place>(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*)){0,2}"
    r"(?:, (?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*)){0,2})?)(?: \([^)]*\))?[.!]?$"
)


# "moved to a wav2vec-based model": where a move goes that is no home (the home frame's own list)
_NO_HOME_AFTER = regex_programs.compile(r"\s*" + lex.NOT_A_PLACE_MOVED_TO)
# Words between whoever moves and the move: "she finally moved", "my mum has just moved"
_BEFORE_A_MOVE = frozenset(
    "just finally already recently officially also have has had 've 's actually basically then".split()
)
# Someone else, said in the user's words: a relative (in the languages users mix in), or "she"
_SOMEONE_ELSE = frozenset({"she", "he", "they"}) | lex.RELATION_NOUNS | RELATIVE_WORDS


def _moved_someone_else(before: str) -> bool:
    """Whether the words before a move name someone else as who moved ("she", "my mum", "and
    mamã", "Aoife"): not the user, "we", or a move said without its subject."""
    words = re.findall(r"[\w'\u2019]+", before)
    while words and words[-1].lower() in _BEFORE_A_MOVE:
        words.pop()
    if not words:
        return False
    last = words[-1]
    return last.lower() in _SOMEONE_ELSE or (
        last[0].isupper() and last not in {"I", "I've", "We", "We've"} and len(words) > 1
    )


# Where the subject is now, a place named as written ("is in Denver now", "is now in Hobart");
# a stay there ("for a conference", "this week") is read before, as any short stay is
_NOW_IN_A_NAMED_PLACE = regex_programs.compile(
    r"\b(?:is|am|'m|are|'re) (?:now (?:in|based in|living in) (?P<a>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"
    r"|(?:in|based in|living in) (?P<b>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*),? (?:now|these days|nowadays)\b)"
    # "has been in Hobart since January", "has been living in Utrecht six weeks now"
    r"|\b(?:has|have|'ve) been (?:(?:living |based )?in (?P<c>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*) since\b"
    r"|living in (?P<d>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)(?= (?:for )?(?:\w+ ){1,2}now\b))"
)
# States one is "in" that are no place ("is in Rehab now")
_NO_PLACE_TO_LIVE = frozenset(
    "recovery remission rehab lockdown quarantine surgery hospital treatment therapy labour labor icu "
    "charge control love trouble debt touch talks".split()
)


def _now_in_a_named_place(raw: str) -> re.Match[str] | None:
    """`_NOW_IN_A_NAMED_PLACE`, when what it names may be a place: a place the kinds lexicon knows,
    or a name it does not know as anything else ("Marketing" is a department, "Rehab" no home)."""
    from aurra_core.text_analysis.kinds import kinds_of

    found = _NOW_IN_A_NAMED_PLACE.search(raw)
    if found is None or not _THE_USER_BEFORE.search(raw[: found.start()]):
        return None  # "the move is in May now": the move's, not the user's
    name = found.group("a") or found.group("b") or found.group("c") or found.group("d")
    if name.lower() in _NO_PLACE_TO_LIVE or _WHEN.match(name) or kinds_of(name) - {"place"}:
        return None
    return found


# "shifted to Pune", "shifted to thane last month": a move, as Indian English says it, to a
# place named (its capital often left off); not to a time, a way of working or a thing
_SHIFTED_TO = regex_programs.compile(r"(?i)\bshifted (?:house |homes |base )?to (?P<place>[a-z][\w'-]*)")
_NOT_SHIFTED_TO_A_PLACE = frozenset(
    "a an the my our their his her its new another nights night days mornings evenings afternoons "
    "weekends weekdays remote hybrid online part-time full-time fulltime parttime working home office wfh "
    "decaf tea coffee".split()
)


def _shifted_home(raw: str) -> re.Match[str] | None:
    """`_SHIFTED_TO`, said of the user, when what it names may be a place: one the kinds lexicon
    knows, or a word it knows as nothing else and no word of time or work."""
    from aurra_core.text_analysis.kinds import kinds_of

    found = _SHIFTED_TO.search(raw)
    if found is None or not re.search(r"(?:^User|\bI|\b[Ww]e|User said:)\s*$", raw[: found.start()]):
        return None
    place = found.group("place")
    if place.lower() in _NOT_SHIFTED_TO_A_PLACE or _WHEN.match(place) or kinds_of(place) - {"place"}:
        return None
    return found


# The user, just before what is said of them: "User is ...", "User said: I'm ...", "we're"
_THE_USER_BEFORE = regex_programs.compile(r"(?:^User|\bI|\b[Ww]e)\s*$")
_WHEN = regex_programs.compile(
    r"(?i)^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*$|^(?:mon|tues|wednes|thurs|fri|satur|sun)days?$"
)


# What any home is, not where: "lives alone in a flat in Bournemouth" -> "moved into a flat in
# Christchurch" names no old place again
_DWELLING_TERMS = frozenset(
    term
    for word in "flat house home apartment place room studio bungalow cottage condo alone".split()
    for term in canon(word)
)


_IN_A_TOWN = regex_programs.compile(r"\bin (?-i:([A-Z][\w'-]+))")
# A move that keeps the place: "across town", "in the same building", "round the corner"
_MOVED_WITHIN = regex_programs.compile(
    r"(?i)\b(?:across town|(?:a|an)?round the corner|down the (?:road|street)|"
    r"(?:in|on|within) the same (?:building|street|road|block|area|neighbou?rhood|estate|complex|town|city))\b"
)
# The names a home is given after "on", "in" or "at": "lives on Elm Street in Portland"
_AT_A_NAMED_PLACE = regex_programs.compile(r"\b(?:on|in|at) ((?-i:[A-Z][\w'-]+)(?: (?-i:[A-Z][\w'-]+))*)")


def _moved_elsewhere(old: Fact, new: Fact) -> str | None:
    """'lives in Leeds' -> 'finished the move; I'm in Manchester now': a move ends the old home,
    unless the new fact still names the old place."""
    old_place = frame_values(old).get("location", set())
    in_a_place = _IN_A_PLACE.match(old.raw)
    if in_a_place:
        old_place = old_place | {
            term for word in re.findall(r"[\w'-]+", in_a_place.group("place")) for term in canon(word.lower())
        }
    if not (old.term_set & _RESIDENCE_TERMS or old_place):
        return None
    if _LIVES_IN_A_THING.search(old.text):
        return None  # "the team lives in a channel called #design-crit": not a home
    move = (
        _MOVED_HOME.search(new.text)
        or evidence.MOVED_TO_A_NAME.search(new.raw)
        or _now_in_a_named_place(new.raw)
        or _shifted_home(new.raw)
    )
    if not move:
        return None
    # a home's word ("a flat") said again is no old place named again when the new fact names
    # another town ("moved into a sheltered housing flat in Christchurch")
    elsewhere = _IN_A_TOWN.search(new.raw)
    if elsewhere and elsewhere.group(1).lower() not in old.raw.lower():
        old_place = old_place - _DWELLING_TERMS
    if old_place & new.term_set:
        return None
    if _MOVED_WITHIN.search(new.raw):
        return None  # "moved across town to Didsbury", "to another flat in the same building"
    named_places = {
        term
        for found in _AT_A_NAMED_PLACE.finditer(old.raw)
        for word in found.group(1).split()
        for term in canon(word.lower())
    }
    if not old_place and named_places & new.term_set:
        return None  # "lives on Elm Street" -> "moved to another apartment on Elm Street"
    if _NO_HOME_AFTER.match(move.string, move.end()):
        return None  # "moved to a wav2vec-based model": to a thing, not a home
    users_own = not (old.subject.relations or old.subject.slot)  # "User lives in London", not "User's mam"
    if users_own and kept_as_said(new) and _moved_someone_else(move.string[: move.start()]):
        return None  # "after her fall she moved in with my sister": she moved, not the user
    return f"the new fact says they moved ('{quoted(move.group(0), new)}'), which ends the home the old fact states"


def _state_transition(old: Fact, new: Fact, relation: str) -> str | None:
    if _determined_other(new, old):
        return None  # "the Premium membership is active" -> "paused the gym membership": another one
    for cycle in set(old.states) & set(new.states):
        subject_old, subject_new = old.states[cycle], new.states[cycle]
        if subject_old & subject_new:
            continue
        if cycle == "relationship" and "location" in frame_values(old):
            continue  # "lives in Södermalm with their boyfriend Erik" -> "got engaged": the home holds
        state_words = set(lex.STATES[cycle]) | {canon(w)[0] for w in lex.STATES[cycle]}
        # what the facts are about, read as subject or as object: "The billing revamp is blocked"
        # and "Legal cleared the billing revamp; it's unblocked"
        about_old, about_new = _body(old) | set(old.subject.key), _body(new) | set(new.subject.key)
        anchor = (about_old & about_new) - state_words - _FRAME_STEMS
        if anchor or relation == "same":
            return f"the {cycle} state changed from {sorted(subject_old)[0]} to {sorted(subject_new)[0]}"
    return None


def _reversion(old: Fact, new: Fact) -> Decision | None:
    """ "went back to X": which value is current now, after a detour."""
    match = _first(_REVERSION, new.text)
    if not match:
        return None
    target = set(_terms(_cut(match.group("t"), 3))) - _FRAME_STEMS
    if not target:
        return None
    tried: set[str] = set()
    for pattern in _TRIED:
        for attempt in pattern.finditer(new.text):
            tried |= set(_terms(_cut(attempt.group("a"), 3))) - _FRAME_STEMS
    previous, current = _left_and_kept(old)
    phrase = quoted(match.group(0).strip(), new)
    if target & previous and not target & current:
        return (
            Verdict.CONTRADICTS,
            0.93,
            f"reversion: '{phrase}' returns to what the old fact says was left behind",
        )
    if current and (target <= current or current <= target):
        return (
            Verdict.SUPPLEMENTS,
            0.85,
            f"reversion to the old value ('{phrase}'): the old fact still holds after a detour",
        )
    if target & current & _KIND_NOUN_STEMS:
        # "cancelled the app subscription but kept the bike membership": a part of it is kept
        return (Verdict.SUPPLEMENTS, 0.8, f"keeps one of the things the old fact names ('{phrase}')")
    tried |= _abandoned(new)  # "gave up on Colemak ... and returned to QWERTY"
    if tried & current:
        word = phrase.split()[0]
        abandoned = said([sorted(tried & current)[0]], new, old)
        return (
            Verdict.CONTRADICTS,
            0.92,
            f"reversion: the old value '{abandoned}' was tried and abandoned ('{word} ...')",
        )
    if current and current <= new.term_set:
        return (
            Verdict.CONTRADICTS,
            0.88,
            f"reversion: '{phrase}' replaces the old value, which the new fact names as abandoned",
        )
    for name in set(old.classes) & set(new.classes):
        targeted = {value for value in new.classes[name] if canon(value.split()[0])[0] in target}
        if old.classes[name] and targeted and not (old.classes[name] & targeted):
            return (Verdict.CONTRADICTS, 0.88, f"reversion to a different {name} than the old fact names")
    return (Verdict.SUPPLEMENTS, 0.6, f"reversion ('{phrase}') that doesn't clearly touch the old value")


def _left_and_kept(old: Fact) -> tuple[set[str], set[str]]:
    """What the old fact says was left behind, and what it says is current."""
    previous: set[str] = set()
    current = _body(old)
    from_to = re.search(r"\bfrom ([\w\-\.\+# ]+?) to ([\w\-\.\+# ]+)", old.text)
    if from_to:
        previous = set(_terms(_cut(from_to.group(1), 3)))
        current = set(_terms(_cut(from_to.group(2), 3)))
        return previous, current - _FRAME_STEMS
    left = _LEFT_BEHIND.search(old.text)
    if left:
        previous = set(_terms(_cut(left.group(1), 3)))
        current = current - previous
    switched = _SWITCHED_TO.search(old.text)
    if switched:
        current = set(_terms(_cut(switched.group(1), 3)))
    return previous, current - _FRAME_STEMS


_LEFT_BEHIND = regex_programs.compile(lex.LEFT_BEHIND)
_SWITCHED_TO = regex_programs.compile(lex.SWITCHED_TO)


def _count_growth(old: Fact, new: Fact) -> tuple[Verdict, float, str] | None:
    """'has 2 kids' -> 'welcomed a third baby', '(3 vans' -> 'got a 4th van': the stated count
    changed."""
    for match in re.finditer(
        r"\b(second|third|fourth|fifth|sixth|ordinal_\d{1,2}) (\w+)(?: (\w+))?", new.text
    ):
        nth = ORDINAL_WORDS.get(match.group(1)) or int(match.group(1).removeprefix("ordinal_"))
        counts = {unit: set(numbers) for unit, numbers in old.counts.items()}
        for number, noun in re.findall(r"\b(\d{1,2}) ([a-z]+)\b", old.text):
            counts.setdefault(canon(noun)[0], set()).add(int(number))  # "(3 vans": a count no slot reads
        units = [canon(word)[0] for word in match.groups()[1:] if word]
        unit = next((unit for unit in units if unit in counts), "")
        if unit and nth - 1 in counts[unit]:
            previous = nth - 1
            return (
                Verdict.CONTRADICTS,
                0.88,
                f"the old fact counts {quoted(str(previous), old)} ({said([unit], old)}); "
                f"a {quoted(match.group(1), new)} one makes {previous + 1}",
            )
    return None


# Got one more: "adopted a third dog", "has got a 4th van on the road", "hired a fifth engineer"
_GOT_ONE_MORE = regex_programs.compile(
    r"\b(?:got|has got|have got|bought|hired|adopted|welcomed|added|had|took on|opened)\s+(?:a|an|our|my|their)\s+"
    r"(?:second|third|fourth|fifth|sixth|ordinal_\d{1,2})\b(?!(?: \w+)? for\b)"
)


def _one_more_got(old: Fact, new: Fact) -> str | None:
    """The count grew by one got ('adopted a third dog' after 'has 2 dogs'): the new count is the
    change, said by the getting; an ordinal alone ('her third marathon') is not."""
    if _GOT_ONE_MORE.search(new.text) is None or subject_relation(old, new)[0] == "different":
        return None
    grown = _count_growth(old, new)
    return grown[2] if grown else None


def _a_place_for_no_place(named: str, old_text: str) -> bool:
    """The value switched to is a place (text_analysis/kinds.py) and the old fact names none: a
    move replaces a place, not whatever else the old fact said of the same subject."""
    from aurra_core.text_analysis.kinds import kinds_of

    kinds = kinds_of(_cut(named, 4))
    places = {"place", "home", "address", "workplace", "timezone"}
    if not kinds or not kinds <= places or kinds_of(old_text) & places:
        return False
    # a name after a preposition of place is a place the index may not know ("in Brooklyn")
    return not re.search(r"\b(?:in|at|to|near|from)\s+(?:the\s+)?[A-Z]", old_text)


def _moved_object_terms(match: re.Match[str]) -> set[str]:
    """The terms of what a switch says it moved: "moved rehearsals to ..." gives "rehearsal"."""
    moved = re.match(
        r"\s*(?:\w+\s+)?(?P<what>(?:\w+\s+){1,2}?)(?:to|into|over to)\b", match.string[match.start() :]
    )
    return set(_terms(moved.group("what"))) if moved else set()


_MOVED_BY_NAME = regex_programs.compile(
    r"\b(?:moved|migrated|ported|upgraded|switched) [A-Z][\w'-]+ (?:over )?to\b"
)


# What a switch names that is no value: "to one closer", "to another", "to something cheaper"
_NO_VALUE_NAMED = regex_programs.compile(
    r"(?i)\s*(?:a |an |the )?(?:new )?(?:(?:one|1) (?:\w+er|that|which|near|by|in|on|with)\b|another\b|"
    r"something\b|somewhere\b|someone\b)"
)
# A thing's own attribute switched: "the phone's language", "the car's tires"
_ANOTHERS_THING = regex_programs.compile(r"(?i)\b(?:the|my|our|their|his|her) [a-z]+'s [a-z]+\b")


# "sat morning chaos": a day said short
_SHORT_WEEKDAY = regex_programs.compile(r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b")
# Kinds of software a thing may move to (text_analysis.kinds)
_SOFTWARE_KINDS = frozenset(
    """accounting_software ai_assistant browser budgeting_app cad calendar cloud cloud_storage
    code_hosting crm database design_tool dev_tooling editor fitness_app food_tracker helpdesk
    language_learning maps messaging monitoring music_production music_streaming newsletter_tool
    notes office_docs operating_system password_manager photo_editor search_engine shell
    social_media task_manager tracker video_call video_editor video_streaming vpn
    website_platform""".split()
)


_RAISED = frozenset({"bumped", "raised", "hiked", "increased"})
_LOWERED = frozenset({"lowered", "reduced"})


def _moved_the_other_way(verb: str, old: Fact, new: Fact) -> bool:
    """A sum said to be raised to less than the old fact's, or lowered to more (its largest number
    of the same kind: "rent is 1450 for a 1 bed" is 1450)."""
    if verb not in _RAISED | _LOWERED:
        return False

    def values(fact: Fact) -> dict[str, float]:
        found: dict[str, float] = {}
        for term in fact.terms:
            number = _SUM_TERM.match(term)
            if number is not None:
                kind = number.group(1) or ""
                found[kind] = max(found.get(kind, 0.0), float(number.group(2)))
        return found

    before, after = values(old), values(new)
    for kind in set(before) & set(after):
        if (after[kind] < before[kind]) if verb in _RAISED else (after[kind] > before[kind]):
            return True
    return False


_RAISED_IT = re.compile(r"^\w+ (?:it|them|that|this|those) (?:to|for)\b", re.IGNORECASE)
_SUM_TERM = re.compile(r"^(money_|percent_)?(\d+(?:\.\d+)?)$")


def _switch_value(old: Fact, new: Fact) -> tuple[str, set[str], set[str], bool] | None:
    """ "switched to X", "replaced ... with X" on a shared anchor, X new and the old value gone:
    (verb, anchor, value, kept), kept when what was switched leaves the shared thing in place
    (`_shared_thing_kept`)."""
    match = _SWITCHED_VALUE.search(new.text)
    if not match:
        return None
    body_o, body_n = _body(old), _body(new)
    named = match.group("v") or match.group("w") or match.group("u")
    if _a_place_for_no_place(named, old.raw):
        return None  # "User's team moved to Portland" says nothing of the team's size
    if _NO_VALUE_NAMED.match(named):
        return None  # "switched gyms to one closer to the office": which one is not said
    if _ANOTHERS_THING.search(new.raw[: match.end() + 1]):
        return None  # "switched the phone's language to Spanish": the phone's, not what the user speaks
    named_words = set(named.lower().split())
    if any(
        values & named_words and name in lex.TOOL_CLASSES and name not in old.classes
        for name, values in new.classes.items()
    ):
        return None  # "moved everything over to Linear" is about the tracker, not the team's size
    from aurra_core.text_analysis.kinds import kinds_of

    software = kinds_of(named) & _SOFTWARE_KINDS
    if software and not software & kinds_of(old.raw):
        return None  # "the agency has all moved to microsoft teams": a tool, not where it is or how big
    named_terms = set(_terms(_cut(named, 4))) - _FRAME_STEMS
    if named_terms and all(_AMOUNT_TERM.match(t) for t in named_terms) and not _numbers(old):
        return None  # "moved dnd to 7" gives a time or a count, and the old fact holds neither
    if (
        any(t.startswith(("weekday_", "date_", "month_")) for t in named_terms)
        and not any(t.startswith(("weekday_", "date_", "month_", "dayofmonth_")) for t in old.terms)
        and not _SHORT_WEEKDAY.search(old.text)
    ):
        return None  # "moved release day to Tuesday": a day, and the old fact gives none
    if not _numbers(old) and (
        any(t.startswith("time_") for t in named_terms)
        or (named_terms and all(_AMOUNT_TERM.match(t) for t in named_terms))
        or (any(_AMOUNT_TERM.match(t) for t in named_terms) and _MOVED_BY_NAME.search(new.raw))
    ):
        # "switched to training at 12:30", "moved Anzuelo to Unity 6": a time, or a version of
        # a thing moved by its name, in place of none ("struggles to eat before training", "is
        # making a game called Anzuelo")
        return None
    if match.group("u") and named_terms & body_o:
        return None  # "rebuilt with a new Django theme" still runs on Django
    value = named_terms - body_o
    # a shared "eat" or "use" is no anchor, nor whom both are about ("User's team")
    whose = (set(old.subject.slot) | set(new.subject.slot)) & OWN_GROUPS
    anchor = (body_o & body_n) - value - RESTATEMENT_STEMS - whose - {"now", "still"}
    # the change's own verb is no thing both speak of ("raised 500 for charity" / "raised the
    # school's fund to 2000")
    verb = match.group(0).split()[0].lower()
    anchor -= set(_terms(verb))
    if verb in _RAISED | _LOWERED and _RAISED_IT.match(match.group(0)):
        return None  # "User's pool raised it to 45": which of the old fact's sums "it" is is not said
    if _moved_the_other_way(verb, old, new):
        return None  # "put 6% into their 401k" -> "bumped their 401k to 4%": not a raise of it
    if value and all(_AMOUNT_TERM.match(t) for t in value):
        anchor -= _UNIT_WORDS  # "went to 720" and "a 5-day package": the day counts, it is no slot
    old_value = body_o - anchor - {"now"}
    if not anchor and old.subject.kind == "thing":
        anchor = set(
            old.subject.key & new.subject.key
        )  # "The blog runs on WordPress" -> "was rebuilt on Hugo"
    if not anchor:
        # "rehearses at Soundcheck" -> "moved rehearsals to a space in SoDo": one word in two forms
        anchor = (
            _fuzzy_overlap((body_n - value - whose) & _moved_object_terms(match), body_o) - RESTATEMENT_STEMS
        )
        old_value -= anchor
    if not anchor:
        # "prefers tea" -> "switched to coffee": two things of one kind
        anchor = (_expand(old_value) & _expand(value)) - old_value - value
    if not value or not anchor or not old_value or old_value <= new.term_set:
        return None
    if any(qualified_apart(old.raw, new.raw, term, named) for term in anchor):
        return None  # "car insurance with Geico" / "switched home insurance to Lemonade": two policies
    if all(
        re.search(rf"\b(?:for|like|than) an? {re.escape(term)}\w*", old.raw, re.IGNORECASE) for term in anchor
    ):
        return None  # "£22 feels steep for a market crowd": any market, not the one the old fact is at
    if all(_fuzzy_overlap({term}, new.term_set) for term in old_value):
        return None  # "a member of the gym" -> "the gym membership was upgraded": still a member
    if anchor <= _TIME_WORDS:
        return None  # "tried a clock last year" -> "moved bedtime to eight since the new year"
    owner = _OWNED_BY_NAME.search(new.raw)
    if owner and not re.search(rf"(?i)\b{re.escape(owner.group(1))}\b", old.raw):
        return None  # "moved Ollie's bedtime to eight": Ollie's, not the user's own bedtime
    # "switched the Civic to winter tires", "moved to a new desk at Acme": still the Civic, still
    # at Acme
    kept = _shared_thing_kept(old, new.raw, anchor, value, old_value)
    return match.group(0).split()[0], anchor, value, kept


def _switch_keeps_the_old(old: Fact, new: Fact) -> bool:
    switched = _switch_value(old, new)
    return switched is not None and switched[3]


def _names_anew(old: Fact, new: Fact) -> bool:
    """The new fact names a value the old one does not ("moved to the other office in Bradford")."""
    return any(
        _names_a_value(word) and word.lower() not in old.raw.lower()
        for word in re.findall(r"[\w'-]+", new.raw)[1:]
    )


def _names_a_value(word: str) -> bool:
    """A name ("Royal Canin", "Hugo"), a number, or an acronym of a known thing ("GHA", "AWS");
    not a common acronym ("a new SIM")."""
    from aurra_core.text_analysis import kinds

    if re.match(r"(?-i:[A-Z][a-z])|\d", word):
        return True
    return word.isupper() and len(word) > 1 and bool(kinds.kinds_of(word))


def _shared_thing_kept(
    old: Fact, new_raw: str, anchor: set[str], value: set[str], old_value: set[str]
) -> bool:
    """The thing both facts share is kept, and what was switched is a part of it or a thing of
    it: "switched the Civic to winter tires", "switched Notion to the dark theme" (the thing the
    old fact has or uses, switched), "moved to a new desk on the third floor at Acme", "moved to a
    flat near UCL", "switched to oat milk in their coffee" (the new value at the shared thing),
    "plays guitar" -> "switched to a new guitar teacher" (the new value the shared thing's)."""
    if not anchor:
        return False
    names = evidence.proper_names(old)
    # the old fact says only that the user does or has the thing ("invests in index funds"): no
    # value of it a switch of it could replace
    verb = re.match(r"^User(?:'s \w+)? ([a-z]+)", old.raw)
    nothing_else = verb is not None and old_value <= _VERB_STEMS | set(canon(verb.group(1))[:1])
    # a value with no name, number or typed value of its own ("a new SIM", "winter tires"): a
    # setting or a part, where "moved the blog to Hugo", "moved the standup to 10am" name one
    plain_value = nothing_else or (
        not any("_" in term or term[:1].isdigit() for term in value)
        and not any(_names_a_value(word) for word in re.findall(r"[\w'-]+", new_raw.partition(" to ")[2]))
        and not _expand(old_value) & _expand(value)
    )
    # "works night shifts at the Tesco" -> "moved to day shifts at the Croydon Tesco": the old
    # value is of the new one's kind, so it is what was replaced, wherever
    same_kind = bool(old_value & value or _expand(old_value) & _expand(value))
    # ... or the shared thing is what it moved to ("day shifts" for "night shifts")
    moved_to = re.split(r"\s(?:at|in|on|near)\s", new_raw.partition(" to ")[2])[0]
    moved_the_thing = bool(set(_terms(moved_to)) & anchor)
    # the subject itself moved or switched ("moved to a new desk"), not a thing of theirs named
    # as what changed ("changed their degree to history at Durham")
    moved_itself = bool(re.search(r"(?i)\b(?:switched|moved|changed|swapped)(?: over| back)? to\b", new_raw))
    words = {word for word in re.findall(r"[\w'-]+", old.raw) if canon(word.lower())[0] in anchor}
    for word in words:
        shown = re.escape(word)
        # the shared thing is what the old fact has, uses or does, its phrase ending there: not
        # "feeds the dog raw food", where the food is the value ("switched the dog to kibble"),
        # nor a named edition of it ("uses Jira Cloud" -> "switched to Jira Data Center")
        held = re.search(rf"(?i)\b{shown}(?:\W*$|\s+(?:for|at|in|on|with|every|each|and|to)\b)", old.raw)
        if (
            held
            and (canon(word.lower())[0] in names or plain_value)
            and re.search(
                rf"(?i)\b(?:switched|moved|changed|swapped|put)(?: (?:the|my|our|their|his|her))?(?: [\w-]+)?"
                rf" {shown}(?: [\w-]+)? (?:over |back )?to\b",
                new_raw,
            )
        ):
            return True
        if (
            not same_kind
            and not moved_the_thing
            and moved_itself
            and re.search(
                rf"(?i)\bto\b.*\b(?:at|in|on|near) (?:the |my |our |their |his |her )?(?:same )?{shown}\w*(?: \w+)?\W*$",
                new_raw,
            )
        ):
            return True
        if (
            held
            and not same_kind
            and re.search(
                rf"(?i)\bto (?:(?:a|an|the|my|our|their|his|her|new|different|another)\s+)+{shown}\w* [a-z]{{3,}}",
                new_raw,
            )
        ):
            return True
    return False


# A time word shared by two facts is no thing both are about
_TIME_WORDS = frozenset({"year", "month", "week", "day", "time", "last", "new", "next"})
# "moved Ollie's bedtime to": whose the thing moved is, by name
_OWNED_BY_NAME = regex_programs.compile(
    r"\b(?:moved|switched|changed|shifted|swapped|pushed|bumped)\s+(?:the\s+)?([A-Z][\w-]+)(?:'s|\u2019s)\s"
)


def _antonym(old: Fact, new: Fact) -> tuple[str, str] | None:
    terms_old, terms_new = old.term_set, new.term_set
    for a, b in lex.ANTONYMS:
        a, b = canon(a)[0], canon(b)[0]
        for x, y in ((a, b), (b, a)):
            if x in terms_old and y in terms_new and x not in terms_new and y not in terms_old:
                return x, y
    return None


# (confidence, what was found as read, the same in the user's words): the first two choose
# between findings, the last is what a reason says.
Finding = tuple[float, str, str]


@dataclass
class SlotContext:
    """What the value detectors of one pair share."""

    old: Fact
    new: Fact
    marker: str | None  # the word that says the value is current or changed
    template: tuple[list[str], list[str], list[str]] | None  # same wording, one slot changed
    shared_attrs: set[str]
    same_thing: bool  # both facts are about the same named thing
    anchor: set[str]  # content both facts speak about
    events_old: AbstractSet[str]
    events_new: AbstractSet[str]


def _one_off(new: Fact, marker: str | None) -> Decision | None:
    """'today only', 'this time': an exception, not a new standing value. None: go on."""
    one_off = _ONE_OFF.search(new.text)
    # or one occasion named by its week or day ("moved this week's gig to Saturday")
    if (
        one_off
        and marker
        and re.search(r"\bonly\b|\bjust\b|\bone[- ]off\b|this week ?'s|weekday_", one_off.group(0))
    ):
        return (
            Verdict.NEW_FACT,
            0.8,
            f"a one-off exception ('{quoted(one_off.group(0), new)}') leaves the standing fact in place",
        )
    return None


_RAISED_FOR = regex_programs.compile(r"\braised (?:money_[\d.,]+|\d[\d.,]*)(?: \w+){0,2} for\b")


def _value_conflict(old: Fact, new: Fact, relation: str, change: re.Match[str] | None) -> Decision | None:
    """A single-valued slot with a new value in place of the old one."""
    if _RAISED_FOR.search(new.text):
        return (Verdict.NEW_FACT, 0.75, "money raised for a cause, not a new value of the old amount")
    if _first(_SUBSET, new.text) and (
        set(old.counts) or old.typed.get("money") or re.search(r"\d", old.text)
    ):
        return (Verdict.SUPPLEMENTS, 0.8, "a part of the old quantity, not a new value of it")
    marker = change.group(0) if change else None
    if _ONE_OFF.search(new.text) and not marker:
        return None
    exception = _one_off(new, marker)
    if exception:
        return exception
    if _narrower_slot(old, new):
        return (
            Verdict.NEW_FACT,
            0.75,
            "a narrower slot than the old fact's (e.g. 'parking spot rent' / 'rent')",
        )
    context = _slot_context(old, new, relation, marker)
    findings = (
        _class_findings(context)
        + _typed_findings(context)
        + _frame_findings(context)
        + _rate_findings(context)
        + _bare_count_findings(context)
        + _bare_day_findings(context)
        + _bare_time_findings(context)
        + _bare_amount_findings(context)
    )
    if not findings and _rates_of_other_things(context):
        return (Verdict.NEW_FACT, 0.75, "two things done, each at its own rate")
    if not findings:
        findings = _wording_findings(context)
    if not findings:
        return None
    # The old value is still stated as current: nothing was replaced.
    frames = frame_values(old)
    values = frames.get("location") or frames.get("employer") or set()
    roles_old, roles_new = frames.get("role", set()), frame_values(new).get("role", set())
    role_changed = bool(roles_old and roles_new and not roles_old & roles_new)  # a new title, same employer
    if values and values <= new.term_set and not _abandoned(new) & values and not role_changed:
        return (Verdict.SUPPLEMENTS, 0.75, "the old value is still stated")
    confidence, label, label_shown = max(findings)
    if relation == "describes" and not (marker and context.anchor):
        return None  # "Tokyo flight was rebooked for March 5": a stated change of what both name
    if relation == "compatible":
        confidence = min(confidence, 0.9 if marker else 0.86)
    if confidence < 0.75:
        old_values_named = any(values & new.term_set for values in old.classes.values()) or bool(
            evidence.proper_names(old) & new.term_set
        )
        if label.endswith("both can hold together") and not old_values_named:
            # a second language, another car: an additive fact alongside the first
            return (
                Verdict.NEW_FACT,
                0.6,
                f"different values ({label_shown}): another one alongside the first",
            )
        return (Verdict.SUPPLEMENTS, 0.6, f"different values ({label_shown}) in a slot that can hold several")
    return (Verdict.CONTRADICTS, confidence, f"new value: {label_shown}")


def _slot_context(old: Fact, new: Fact, relation: str, marker: str | None) -> SlotContext:
    same_thing = (
        relation == "same"
        and old.subject.kind in ("thing", "name")
        and bool(old.subject.key & new.subject.key)
    )
    things_old = set(old.subject.key) if old.subject.kind == "thing" else set()
    things_new = set(new.subject.key) if new.subject.kind == "thing" else set()
    typed_old = {term for term in _body(old) if "_" in term}
    anchor = ((_body(old) | things_old) & (_body(new) | things_new)) - typed_old - {"now"}
    return SlotContext(
        old,
        new,
        marker,
        template_conflict(old, new),
        old.attrs & new.attrs,
        same_thing,
        anchor,
        old.term_set & _EVENT_STEMS,
        new.term_set & _EVENT_STEMS,
    )


_SHARE_ON = regex_programs.compile(r"\d\s*%\s*(?:of (?:\w+ ){1,2})?(?:(?:are|is|still) )?(?:on|use|using)\b")


def _class_findings(context: SlotContext) -> list[Finding]:
    """Closed-class values (editors, plans, diets...) replaced."""
    findings: list[Finding] = []
    marker = context.marker
    if _SHARE_ON.search(context.old.raw):
        return findings  # "about 6% on iOS 15": a share of the users, not the one value the user has
    for name, old_values, new_values in class_conflicts(context.old, context.new):
        single = (
            name in lex.SINGLE_VALUED_CLASSES
            or name == "timezone"
            or (name == "language" and "reply_language" in context.shared_attrs)
        )
        label = f"{name} {'/'.join(sorted(old_values))} -> {'/'.join(sorted(new_values))}"
        said_as = f"{name.replace('_', ' ')} {_class_values(name, old_values, context.old)} -> "
        said_as += _class_values(name, new_values, context.new)
        purpose = (
            _another_purpose(context.old, context.new)
            if name in lex.TOOL_CLASSES or name == "language"
            else None
        )
        if purpose:
            another = f", but for '{purpose}': another one beside the first"
            findings.append((0.7, label + another, said_as + another))
        elif single and marker:
            findings.append((0.93, f"{label} with '{marker}'", f"{said_as} with '{_marker(context)}'"))
        elif single and context.template is not None:
            wording = " in the same wording: one value at a time"
            findings.append((0.88, label + wording, said_as + wording))
        elif single:
            findings.append((0.8, label, said_as))
        elif marker and marker != "nowadays" and not _learning_one_side(context.old, context.new):
            findings.append((0.87, f"{label} with '{marker}'", f"{said_as} with '{_marker(context)}'"))
        else:
            # "speaks French" -> "speaks German these days": in a slot that holds several, "these
            # days" says what is current, not that the other one stopped
            both = ", but both can hold together"
            findings.append((0.7, label + both, said_as + both))
    return findings


_LEARNING_STEMS = frozenset(
    canon(w)[0] for w in "learning learn studying study practising practicing".split()
)


def _learning_one_side(old: Fact, new: Fact) -> bool:
    """ "speaks Spanish" / "is learning French now": one is had, the other learned; both hold."""
    return bool(old.term_set & _LEARNING_STEMS) != bool(new.term_set & _LEARNING_STEMS)


_PURPOSE = regex_programs.compile(
    r"\b(?:for (?:the |my |our |their |his |her |a |an )?(?P<what>[a-z]+(?: [a-z]+)?)|at (?P<where>work|home|school))\b"
)
# "for everything", "for now": no purpose of its own
_NO_PURPOSE = frozenset(
    canon(word)[0] for word in "everything all anything stuff now good ages years months weeks".split()
)


def _purposes(fact: Fact) -> list[tuple[str, set[str]]]:
    found = []
    for match in _PURPOSE.finditer(fact.raw.lower()):
        terms = set(_terms(match.group("what") or match.group("where"))) - _LOW_INFO_STEMS - _NO_PURPOSE
        if terms:
            found.append((match.group(0), terms))
    return found


def _another_purpose(old: Fact, new: Fact) -> str | None:
    """ "uses Trello for the wedding planning now" beside "uses Jira at work": each tool said with
    a purpose of its own, so the old one may well still be in use."""
    old_purposes = _purposes(old)
    if not old_purposes:
        return None
    old_terms = set().union(*(terms for _, terms in old_purposes))
    for said_for, terms in _purposes(new):
        if not terms & old_terms:
            return said_for
    return None


def _marker(context: SlotContext) -> str:
    """The word that says the value is current or changed, as the user wrote it."""
    return quoted(context.marker or "", context.new)


def _class_values(name: str, values: AbstractSet[str], fact: Fact) -> str:
    """Closed-class values as the user wrote them; a time zone as its offset from UTC."""
    if name == "timezone":
        return "/".join(_utc_offset(value) for value in sorted(values))
    return "/".join(quoted(value, fact) for value in sorted(values))


def _utc_offset(minutes: str) -> str:
    offset = int(minutes)
    sign = "-" if offset < 0 else "+"
    return f"UTC{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"


def _typed_findings(context: SlotContext) -> list[Finding]:
    """Typed values (money, dates, times, phone numbers, counts...) replaced."""
    findings: list[Finding] = []
    typed = typed_conflicts(context.old, context.new)
    kinds = {kind for kind, _, _ in typed}
    for kind, old_values, new_values in typed:
        if not _typed_anchored(context, kind):
            continue
        if kind.startswith("count of ") and len(old_values) > 1 and len(new_values) == 1:
            continue  # "2 dogs at home and 3 at the shelter" -> "4 dogs now": which of them is not said
        if kind.startswith("count of ") and qualified_apart(
            context.old.raw, context.new.raw, kind.removeprefix("count of ")
        ):
            continue  # "5 backend engineers" / "2 frontend engineers now": two groups counted
        label = (
            f"{_KIND_NAMES.get(kind, kind)} {'/'.join(sorted(old_values))} -> {'/'.join(sorted(new_values))}"
        )
        kind_shown = _KIND_NAMES.get(kind, kind)
        if kind.startswith("count of "):
            kind_shown = f"count of {said([kind.removeprefix('count of ')], context.old, context.new)}"
        said_as = f"{kind_shown} {'/'.join(quoted(value, context.old) for value in sorted(old_values))} -> "
        said_as += "/".join(quoted(value, context.new) for value in sorted(new_values))
        finding = _typed_finding(context, kind, kinds, label, said_as)
        if finding:
            findings.append(finding)
    return findings


def _typed_anchored(context: SlotContext, kind: str) -> bool:
    """Whether two values of this kind are about the same thing."""
    implied = kind in ("phone", "email", "pronouns", "age", "hours") or kind.startswith("count of")
    # "$5,400 a month" take-home pay and "2,300 a month" rent share only how they are counted
    anchor = context.anchor - _UNIT_WORDS if kind == "money" else context.anchor
    attrs = context.shared_attrs
    if kind == "money":
        # "a 5-day audit package = $3,250" and "day rate went to 720": a shared schedule word
        # says nothing of which amount
        attrs = {a for a in attrs if lex.ATTRIBUTES.get(a, {}).get("family") == "money"}
    anchored = implied or bool(attrs) or bool(anchor) or context.same_thing
    if kind in ("dayofmonth", "percent"):
        anchored = anchored and bool(context.shared_attrs)
    if _each_named_apart(context.old, context.new):
        return False  # "10 a month for Spotify" / "12 a month for Netflix now": two things' values
    if kind == "money" and _another_sum_named(context.old, context.new):
        return False  # "salary is €60k" -> "got a raise, so bumped my savings to €650": the savings'
    dated = kind in ("date", "time", "utc", "weekday", "dayofmonth", "quarter", "month")
    if dated and _other_activity(context.old, context.new):
        return False  # "plays tennis on Tuesdays" / "plays squash on Thursdays now": each its own day
    if dated and context.events_old != context.events_new and (context.events_new or not context.anchor):
        # "renewal call on the 10th" is another event than the renewal; "rescheduled the dentist to
        # May 12" names no other event than the dentist appointment
        return False
    if (
        kind == "age"
        and evidence.names_missing(context.old, context.new)
        and evidence.names_missing(context.new, context.old)
    ):
        return False  # "a son, Leo, who is 7" / "a daughter, Mia, who is 4": two people's ages
    return anchored


# Sums a person has several of, each its own amount: what is earned, saved, paid or owed
_SUM_STEMS = frozenset(
    canon(word)[0]
    # not "pay", said of any sum, nor "subscription", which canon reads as a plan
    for word in "salary wage income savings contribution deposit budget allowance pension 401k tfsa isa "
    "mortgage loan rent bill fee tuition premium".split()
)


def _another_sum_named(old: Fact, new: Fact) -> bool:
    """Each fact names a sum, and the new one none the old one names: its amount is that sum's
    ("got a raise, so I bumped my monthly savings to €650" beside a salary). A sum named only in
    the new fact may be what the old amount was ("Kita costs CHF 2,300" -> "the fee is 2,450")."""
    old_sums, new_sums = old.term_set & _SUM_STEMS, new.term_set & _SUM_STEMS
    return bool(old_sums) and bool(new_sums) and not old_sums & new_sums


# What is done at a time or on a day, of which a person does several: a sport, an instrument, a
# language learned, a hobby
_ACTIVITY_KINDS = frozenset({"sport", "instrument", "human_language", "hobby"})


# Ways of moving a person does several of: "runs 20km a week" is not "cycles 50km a week"
_EXERCISE_STEMS = frozenset(canon(w)[0] for w in "run cycle swim walk hike row lift climb ski skate".split())


def _other_activity(old: Fact, new: Fact) -> bool:
    """Each fact names an activity of one kind the other does not (tennis, squash): two."""
    from aurra_core.text_analysis.kinds import kinds_of

    def activities(terms: Iterable[str]) -> set[str]:
        found = {kind for term in terms for kind in kinds_of(term) & _ACTIVITY_KINDS}
        return found | ({"exercise"} if set(terms) & _EXERCISE_STEMS else set())

    return bool(activities(old.term_set - new.term_set) & activities(new.term_set - old.term_set))


def _each_named_apart(old: Fact, new: Fact) -> bool:
    """Each fact names, as what its number is of, someone or something the other does not: a
    number or a time beside them is each one's ("meeting with Sam at 10" / "with Ana at 11",
    "pays 10 for Spotify" / "12 for Netflix", "Postgres 14" / "SQLite 3"). A name that is the
    value itself ("12 Elm St" / "88 Oak Ave") is not what the number is of."""

    def of_a_name(fact: Fact, names: set[str]) -> bool:
        return any(
            re.search(
                rf"(?i)\b(?:with|for|of|from|at) (?:the )?{re.escape(n)}\w*|\b{re.escape(n)}\w* v?\d",
                fact.raw,
            )
            for n in names
        )

    return of_a_name(old, evidence.names_missing(old, new)) and of_a_name(
        new, evidence.names_missing(new, old)
    )


def _narrower_slot(old: Fact, new: Fact) -> bool:
    """The new fact's slot names words before the old slot's head that the old fact does not have."""
    slot_old, slot_new = old.subject.slot, new.subject.slot
    if not slot_old or not slot_new or slot_old[-1] != slot_new[-1]:
        return False
    extra = set(slot_new[:-1]) - old.term_set - _PRIMARY_STEMS - _LOW_INFO_STEMS - _FREQUENCY_STEMS
    return bool(extra)


_FREQUENCY_STEMS = frozenset(
    canon(word)[0] for word in lex.VALUE_CLASSES["frequency"] | lex.VALUE_CLASSES["billing"]
)


def _typed_finding(
    context: SlotContext, kind: str, kinds: set[str], label: str, said_as: str
) -> Finding | None:
    old, new, marker = context.old, context.new, context.marker
    scoped = (
        kind in ("time", "utc", "hours")
        and "weekday" in new.typed
        and "weekday" not in old.typed
        and _SOME_DAYS.search(new.raw.lower())
    )
    day_and_time = {"weekday"} <= kinds and kinds & {"time", "utc"}
    if scoped:
        return (0.7, f"{label}, but only on some days", f"{said_as}, but only on some days")
    if kind == "month" and not marker:
        return None
    if (
        kind in ("weekday", "time", "utc")
        and not marker
        and context.template is None
        and not (day_and_time and (len(context.anchor) >= 2 or context.same_thing))
    ):
        return (0.8, label, said_as)
    if marker:
        return (0.93, f"{label} with '{marker}'", f"{said_as} with '{_marker(context)}'")
    return (0.88, f"{label} in the same slot", f"{said_as} in the same slot")


_RATE_STEMS = frozenset(
    canon(word)[0]
    for word in "x time times a per each every week weekly month monthly day daily fortnight once twice "
    "thrice days nights session sessions run runs class classes shift shifts hour hours hrs".split()
)


def _rate_findings(context: SlotContext) -> list[Finding]:
    """How often one thing is done, changed: "goes to the gym twice a week" -> "4x a week now".
    The same activity, or a new fact that says nothing but the new rate ("on 5 a week now")."""
    old, new, marker = context.old, context.new, context.marker
    findings: list[Finding] = []
    if _each_named_apart(old, new) or _other_activity(old, new):
        return findings  # "10 a month for Spotify" / "12 for Netflix"; "runs" / "cycles" 50km a week
    anchor = _rate_anchor(context)
    for key in set(old.rates) & set(new.rates):
        old_values, new_values = old.rates[key], new.rates[key]
        if len(old_values) != 1 or len(new_values) != 1 or old_values == new_values:
            continue  # two rates in one fact are two activities
        said_besides = {term for term in _body(new) - _RATE_STEMS - {"now"} if not term.isdigit()}
        elliptic = marker is not None and len(old.rates) == 1 and not said_besides
        if not (anchor or elliptic or context.same_thing):
            continue
        unit, period = key.split("/")
        label = f"{unit} a {period} {min(old_values)} -> {min(new_values)}"
        if elliptic and not anchor:
            label += SAID_ALONE
        if marker:
            findings.append((0.9, f"{label} with '{marker}'", f"{label} with '{_marker(context)}'"))
        else:
            findings.append(
                (0.86 if anchor else 0.8, f"{label} for the same activity", f"{label} for the same activity")
            )
    return findings


# What a count is of: a plural noun ("22 pupils", "26 kids"), or one of the irregular ones
_PLURAL_NOUN = r"[a-z]+[^s\W]s|people|children|staff|men|women|sheep|fish|deer"


def _bare_count_findings(context: SlotContext) -> list[Finding]:
    """A number said on its own as the new value ("two new kids joined, so I'm on 28 now") of the
    one count the old fact has ("26 kids this year"). Not an age ("is 34 now")."""
    old, new, marker = context.old, context.new, context.marker
    if marker is None or new.counts or new.rates or _age(new) or old.rates:
        return []
    numbers = {term for term in _body(new) if term.isdigit()}
    if len(numbers) != 1 or _body(new) - numbers - {"now"}:
        return []
    counted = [slot for slot in slots_of(old.raw) if slot.kind == "count"]
    if len(counted) != 1 or not counted[0].unit or counted[0].value in numbers:
        return []
    if not re.search(rf"\b{counted[0].value} (?:\w+ )?(?:{_PLURAL_NOUN})\b", old.text):
        return []  # "tables of six ish": a number of nothing named
    label = f"count of {counted[0].unit} {counted[0].value} -> {min(numbers)}{SAID_ALONE}"
    return [(0.88, f"{label} with '{marker}'", f"{label} with '{_marker(context)}'")]


# Words beside a weekday that say when in it, not what is done: "on Wednesday afternoons now"
_PART_OF_DAY = frozenset(
    canon(word)[0]
    for word in "now every other morning mornings afternoon afternoons evening evenings night nights go goes "
    "going there these days nowadays".split()
)


def _one_value_each(context: SlotContext, kind: str) -> tuple[set[str], set[str]] | None:
    """The old fact's and the new one's value of a typed `kind`, when each gives exactly one, they
    differ, and the new fact says its value is current or changed; None otherwise."""
    values_old, values_new = context.old.typed.get(kind, set()), context.new.typed.get(kind, set())
    if context.marker is None or len(values_old) != 1 or len(values_new) != 1 or values_old == values_new:
        return None
    return values_old, values_new


def _said_alone(context: SlotContext, name: str, values_old: set[str], values_new: set[str]) -> list[Finding]:
    """The finding of a value said on its own, which the classifier acts on only when one
    candidate has such a value (`_one_reading_of_a_bare_value`)."""
    label = f"{name} {min(values_old)} -> {min(values_new)}{SAID_ALONE}"
    said_as = f"{name} {said(values_old, context.old)} -> {said(values_new, context.new)}{SAID_ALONE}"
    return [(0.88, f"{label} with '{context.marker}'", f"{said_as} with '{_marker(context)}'")]


def _bare_day_findings(context: SlotContext) -> list[Finding]:
    """A weekday said on its own as the new value ("I'm on Wednesday afternoons now") of the one
    weekday the old fact gives ("volunteers at the food bank every Monday morning")."""
    values = _one_value_each(context, "weekday")
    if values is None or _body(context.new) - values[1] - _PART_OF_DAY:
        return []
    return _said_alone(context, "days", *values)


# Words beside a time that say which one it is, not what is done: "on the 06:48 now", "the
# 8:04 train these days"
_ONE_OF_A_TIMETABLE = frozenset(
    canon(word)[0]
    for word in "now on the one train bus tram ferry boat coach shuttle flight these days nowadays".split()
)


def _bare_time_findings(context: SlotContext) -> list[Finding]:
    """A time said on its own as the new value ("I'm on the 06:48 now") of the one time the old
    fact gives ("gets the 07:12 from Reading every day"). Not a time with anything else said of
    it ("the 6am walks" / "the evening one at 7"), which may be another thing done."""
    old, new = context.old, context.new
    values = _one_value_each(context, "time")
    if values is None or set(new.typed) != {"time"} or _body(new) - values[1] - _ONE_OF_A_TIMETABLE:
        return []
    if context.events_old or set(old.typed) - {"time", "weekday"}:
        return []  # "a dentist appointment at 3pm on Friday", "flies out at 7 on June 3": one event
    return _said_alone(context, "time", *values)


# Words beside a shift's hours that say nothing but that they are the hours now: "is 2pm to
# 10:30pm now", "on 2 to 10 these days"
_HOURS_NOW = frozenset(
    canon(word)[0] for word in "now on shift shifts hours working these days nowadays from".split()
)
# What the old fact's hours are: the hours a job is worked
_WORKED_HOURS = regex_programs.compile(r"\b(?:shifts?|rota|works?|working|worked)\b")


def _worked_hours_said_alone(old: Fact, new: Fact) -> bool:
    """The new fact says nothing but a span of hours, of the subject the old fact's shift is
    ("User's shift is 7am to 3pm" -> "User is 2pm to 10:30pm now"): the shift's, not another
    attribute of the subject."""
    hours_old, hours_new = old.typed.get("hours", set()), new.typed.get("hours", set())
    if len(hours_old) != 1 or len(hours_new) != 1 or hours_old == hours_new or set(new.typed) != {"hours"}:
        return False
    return bool(_WORKED_HOURS.search(old.text)) and not _body(new) - hours_new - _HOURS_NOW


# What an amount is per: a recurring amount gives one of these
_AMOUNT_PERIODS = frozenset(canon(word)[0] for word in "hour night week month year".split())
# Words beside an amount that say nothing but that it is the amount now: "bill is ~$240/month
# now", "the renewal went through and it's $2,350 now"
_AN_AMOUNT_NOW = _AMOUNT_PERIODS | frozenset(
    canon(word)[0]
    for word in """now bill cost price fee rate total renewal renew renewed lease contract plan
    subscription went through up down per each monthly
    yearly annual weekly nightly hourly these days nowadays""".split()
)


def _bare_amount_findings(context: SlotContext) -> list[Finding]:
    """An amount said on its own as the new value ("it's $2,350 now", "bill is ~$240/month now",
    "is on €55k from 1 July") of the one amount the old fact pays, charges or earns again and
    again ("rent is $2,000 a month", "is on €48k gross"). Not of a one-off price ("bought a bike
    for $600"), nor per another period."""
    old, new = context.old, context.new
    values = _one_value_each(context, "money")
    if values is None:
        return []
    effective = TAKES_EFFECT.search(new.text)
    when = {term for term in _body(new) if effective and term in effective.group(0)}
    if (
        set(new.typed) - ({"date", "month"} if effective else set()) != {"money"}
        or _body(new) - values[1] - when - _AN_AMOUNT_NOW
    ):
        return []
    periods_old, periods_new = _body(old) & _AMOUNT_PERIODS, _body(new) & _AMOUNT_PERIODS
    if len(periods_old) != 1 or (periods_new and periods_new != periods_old) or context.events_old:
        return []  # a pay, a year's without saying so, is the pay's own reading (`pay_change`)
    return _said_alone(context, "amount", *values)


def _rates_of_other_things(context: SlotContext) -> bool:
    """Both facts say how often something is done, and share nothing else ("swims twice a week" /
    "goes to yoga 3 times a week now")."""
    shared = set(context.old.rates) & set(context.new.rates)
    return bool(shared) and not _rate_anchor(context) and not context.same_thing


def _rate_anchor(context: SlotContext) -> set[str]:
    """What both facts speak about besides how often."""
    return {term for term in context.anchor if term not in _RATE_STEMS and not term.isdigit()}


def _frame_findings(context: SlotContext) -> list[Finding]:
    """Values read from frames ("lives in X", "works at Y", "reports to Z") replaced."""
    findings: list[Finding] = []
    old, new, marker = context.old, context.new, context.marker
    frames_old, frames_new = frame_values(old), frame_values(new)
    for name in set(frames_old) & set(frames_new):
        old_values = frames_old[name] - _GENERIC_VALUE_WORDS
        new_values = frames_new[name] - _GENERIC_VALUE_WORDS
        if not old_values or not new_values or old_values <= new_values or new_values <= old_values:
            continue
        if name == "location" and (_broad_place(old_values, old.text) or _broad_place(new_values, new.text)):
            continue
        if name != "role" and old_values & new_values:
            continue
        label = f"{name} {' '.join(sorted(old_values))} -> {' '.join(sorted(new_values))}"
        said_as = f"{name} {said(old_values, old)} -> {said(new_values, new)}"
        if marker:
            findings.append((0.93, f"{label} with '{marker}'", f"{said_as} with '{_marker(context)}'"))
        elif name in _FIRM_FRAMES or context.template is not None:
            findings.append((0.88, f"{label}: one value at a time", f"{said_as}: one value at a time"))
        else:
            findings.append((0.8, label, said_as))
    return findings


def _wording_findings(context: SlotContext) -> list[Finding]:
    """When no typed value says it: a switch to a value, the same wording with one slot
    changed, or an antonym in place of the old word."""
    old, new, marker = context.old, context.new, context.marker
    switched = _switch_value(old, new)
    if switched and switched[3]:
        return []  # what was switched leaves the old fact's thing in place
    if switched:
        verb, anchor_terms, value, _ = switched
        label = f"'{verb}' to {' '.join(sorted(value))} for the same {' '.join(sorted(anchor_terms))}"
        said_as = f"'{quoted(verb, new)}' to {said(value, new)} for the same {said(anchor_terms, new, old)}"
        return [(0.88, label, said_as)]
    template = context.template
    if (
        template is not None
        and not _first(_REFINEMENT, new.text)
        and context.events_old == context.events_new
    ):
        found = _template_finding(old, new, template, marker)
        if found:
            return [found]
    if marker:
        antonyms = _antonym(old, new)
        if antonyms and context.anchor:
            anchor = sorted(context.anchor)[0]
            label = f"'{antonyms[0]}' became '{antonyms[1]}' for the same {anchor}, with '{marker}'"
            said_as = (
                f"'{said([antonyms[0]], old)}' became '{said([antonyms[1]], new)}' for the same "
                f"{said([anchor], new, old)}, with '{_marker(context)}'"
            )
            return [(0.86, label, said_as)]
    return []


# "everything", "nothing", "everyone"...: no value of a slot, whatever they stand in for
_QUANTIFIER_STEMS = frozenset("everyth noth someth anyth everyon everybody nobody someon anyon".split())


def _two_things_priced(old_slot: list[str], new_slot: list[str]) -> bool:
    """Both slots give a number and a word beside it, and the words differ ('1,200 rent' / '80
    electricity'): the number of another thing, not a new value of the same one."""
    old_words = {t for t in old_slot if not _AMOUNT_TERM.match(t) and t != "now"}
    new_words = {t for t in new_slot if not _AMOUNT_TERM.match(t) and t != "now"}
    numbers = any(_AMOUNT_TERM.match(t) for t in old_slot) and any(_AMOUNT_TERM.match(t) for t in new_slot)
    return numbers and bool(old_words) and bool(new_words) and not old_words & new_words


def _template_finding(
    old: Fact, new: Fact, template: tuple[list[str], list[str], list[str]], marker: str | None
) -> Finding | None:
    words, old_slot, new_slot = template
    cue = _single_valued_cue(set(words) - {"seat", "licens"})
    label = f"same wording, '{' '.join(old_slot)}' -> '{' '.join(new_slot)}'"
    said_as = f"same wording, '{said(old_slot, old)}' -> '{said(new_slot, new)}'"
    shown_marker = quoted(marker or "", new)
    places = lex.COUNTRIES | lex.REGIONS
    equivalent = any(old.classes.get(c) and old.classes.get(c) == new.classes.get(c) for c in old.classes)
    if (
        set(old_slot) & places
        or set(new_slot) & places
        or equivalent
        or len(new_slot) > 4
        or len(old_slot) > 4
    ):
        return None
    if _other_named_one(old, new, old_slot, new_slot):
        return None
    if _two_things_priced(old_slot, new_slot):
        return None  # "pays 1,200 rent" -> "pays 80 for electricity now": a number of another thing
    if len(old_slot) > 1 and _other_activity(old, new):
        return None  # "tennis Tuesdays" -> "squash Thursdays now": another activity, its own day
    if set(old_slot + new_slot) & _QUANTIFIER_STEMS and not set(words) & VERBS:
        # "only DevOps person at Brightloop" -> "everything at Brightloop runs on AWS now": only a
        # name shared; "read only on paper" -> "read everything on it now" is what is read
        return None
    shared = set(words) - _FRAME_STEMS - {"now"}
    if shared and all(w.startswith(("weekday_", "time_", "date_", "month_")) for w in shared):
        # "sees a therapist on Tuesdays" -> "goes to the gym on Tuesdays now": only the day is
        # shared, and a day holds more than one thing
        return None
    if not {w for w in words if not _AMOUNT_TERM.match(w)} - _FRAME_STEMS - {"now", "nolonger"}:
        # "staying on 14 for now" / "logic is 11.1 now": nothing said the same but "now"; "no
        # longer puts up with the hours" / "is no longer at the hospital": but the change's words
        return None
    if set(words) <= (set(old.subject.slot) & OWN_GROUPS) | _FRAME_STEMS:
        return None  # "User's team uses GitHub Actions" -> "is eleven engineers now": only whose
    dated_move = "mov" in new_slot or any(t.startswith(("month_", "date_", "year_")) for t in new_slot)
    if set(old_slot) & _TASTE_STEMS and not set(new_slot) & _TASTE_STEMS and dated_move:
        # "dad likes cooking" -> "dad moved in with them in October": a taste is no value of a move
        return None
    relations = evidence.RELATION_STEMS
    if set(old_slot) & relations and old.subject.apposition and not set(new_slot) & relations:
        return None  # "User's daughter Wanjiru" -> "swimming changed for Wanjiru": who she is stays
    if set(old_slot) <= _VERB_STEMS and set(new_slot) & _WHEN_STEMS:
        return None  # "runs the pricing team" -> "after the reorg the pricing team grew": no value swapped
    if set(old_slot) <= _KIND_NOUN_STEMS:
        return None  # "has a Netflix account" -> "Netflix password was changed": an attribute of it
    if (set(new_slot) - old.term_set) & _KIND_NOUN_STEMS and not set(old_slot) & _KIND_NOUN_STEMS:
        return None  # "is active" -> "is no longer on the Pro plan": the plan, not the account's state
    if bool(set(new_slot) & _WORK_ARRANGEMENT_STEMS) != bool(set(old_slot) & _WORK_ARRANGEMENT_STEMS):
        # "works at Deloitte" -> "works from home now", "works remotely" -> "from a café on Fridays
        # now": where the work is done, not for whom
        return None

    if (
        set(new_slot) - {"new"} <= _VERB_STEMS | _CHANGE_VERB_STEMS
        and set(old_slot) - _VERB_STEMS - _NEGATION_TERMS
        and not (set(old_slot) & evidence.proper_names(old) and _names_anew(old, new))
    ):
        # "drives a Honda Civic" -> "switched the Civic to winter tires", "has an Android phone" ->
        # "switched the phone to a new SIM": a verb in place of a value, and no other value
        # named (not "doesn't have a car" -> "bought a car", "works at the Leeds office" ->
        # "moved to the other office in Bradford")
        return None
    if cue and marker:
        slot = f" in a single-valued {cue} slot, with "
        return (0.92, f"{label}{slot}'{marker}'", f"{said_as}{slot}'{shown_marker}'")
    if cue:
        return (0.87, f"{label} in a single-valued {cue} slot", f"{said_as} in a single-valued {cue} slot")
    if marker == "nowadays" and not set(words) - _VERB_STEMS - _HABIT_STEMS - _FRAME_STEMS - set(
        old.subject.key
    ):
        # "drinks coffee" -> "drinks a lot of tea these days": nothing but the verb is shared, so
        # the tea may be drunk beside the coffee; "takes his coffee black" -> "with oat milk" names
        # the thing whose value changed
        return None
    if set(old_slot) <= lex.LIKING and marker and not set(new_slot) & (lex.LIKING | lex.DISLIKING):
        # "prefers tea over coffee" -> "drinks green tea instead of coffee": a taste said as a
        # habit ("loves spicy food" -> "avoids spicy food these days" is a taste changed)
        return None
    if marker and not set(old_slot) <= _VERB_STEMS:
        # not "runs on Django" -> "was rebuilt with a new Django theme": a verb replaced, not a value
        return (0.86, f"{label}, with '{marker}'", f"{said_as}, with '{shown_marker}'")
    return None


_HABIT_STEMS = frozenset(canon(word)[0] for word in lex.HABIT_VERBS)
_CHANGE_VERB_STEMS = frozenset(canon(word)[0] for word in "changed switched swapped replaced moved".split())


def _other_named_one(old: Fact, new: Fact, old_slot: list[str], new_slot: list[str]) -> bool:
    """'has an Amazon Prime membership' -> 'upgraded their Audible membership': one name in place of
    another next to a thing people hold several of; what changed is the other one."""
    names_old = set(old_slot) & evidence.proper_names(old)
    names_new = set(new_slot) & evidence.proper_names(new)
    kinds = (old.term_set & new.term_set) & _KIND_NOUN_STEMS
    return bool(kinds and names_old and names_new and not names_new & old.term_set)


_ONE_OFF = regex_programs.compile(lex.ONE_OFF)
# A time since the end, counted to today: "12 weeks smoke-free today", "three months no cigarettes
# as of yesterday" is no one-off
_MILESTONE = regex_programs.compile(
    r"\b\d+ (?:days?|weeks?|months?|years?) (?:[\w-]+ ){0,3}(?:as of )?(?:today|yesterday)\b"
)
_RESTORED = regex_programs.compile(lex.RESTORED)
_EPISODE = regex_programs.compile(lex.EPISODE)
_LEFT_FROM = regex_programs.compile(lex.LEFT_FROM)
_AGE = regex_programs.compile(lex.AGE)
_COMPLETED = regex_programs.compile(lex.COMPLETED)
_SWITCHED_VALUE = regex_programs.compile(lex.SWITCHED_VALUE)
_SOME_DAYS = regex_programs.compile(lex.SOME_DAYS)


_KIND_NAMES = {
    "money": "amount",
    "date": "date",
    "expiry": "expiry",
    "phone": "phone number",
    "email": "e-mail",
    "hours": "hours",
    "time": "time",
    "utc": "time",
    "weekday": "days",
    "pronouns": "pronouns",
    "percent": "rate",
    "dayofmonth": "day",
}


def _household_recounted(old: Fact, new: Fact) -> str | None:
    """'User has two kids' -> 'so three kids under seven', 'two cats' -> 'a 3-cat household': the
    same person's children or pets counted again. A household has one count of them at a time,
    so the new count is the change, said or not."""
    if old.subject != new.subject or _hedge(new.text) or evidence.negated(old) or evidence.negated(new):
        return None
    if evidence.past_period(old) or evidence.past_period(new):
        return None
    if not _HOLDS_THEM.search(new.raw) or _NOT_HELD.search(new.raw) or _GROUP_OF_THEM.search(new.raw):
        return None  # "walks 3 dogs for a neighbour", "wants 3 kids", "3 kids in the choir"
    for kind, old_values, new_values in typed_conflicts(old, new):
        counted = kind.removeprefix("count of ")
        if kind.startswith("count of ") and counted in _HOUSEHOLD and len(old_values) == len(new_values) == 1:
            return f"the count of {said([counted], old, new)} {next(iter(old_values))} -> {next(iter(new_values))}"
    return None


# Who and what a household counts, one number at a time: as said, and as the counts read them
_HOUSEHOLD_WORDS = "kids children sons daughters grandkids grandchildren cats dogs pets".split()
_HOUSEHOLD_NOUNS = f"(?:{'|'.join(_HOUSEHOLD_WORDS)})"
_HOUSEHOLD = frozenset(canon(word)[0] for word in _HOUSEHOLD_WORDS)
_HOLDS_THEM = regex_programs.compile(
    r"(?i)\b(?:has|have|'ve got|got|household|outnumbered|(?:mum|mom|mam|dad|father|mother|parent) of|"
    rf"of us|we're|we are)\b|\d-(?:cat|dog|kid)|\bso (?:that's |now )?\w+ {_HOUSEHOLD_NOUNS}\b"
)
_NOT_HELD = regex_programs.compile(
    r"(?i)\b(?:wants?|wanted|would|'d|hopes?|hoping|plans?|planning|thinking|might|maybe|fostered|"
    r"fostering|walks|walking|sits|sitting|minding|looks after|babysit\w*|teaches|coaches|feeds)\b"
)
_GROUP_OF_THEM = regex_programs.compile(
    rf"(?i)\b{_HOUSEHOLD_NOUNS}\s+(?:in|at|on|from|of|for)\s+(?:the|a|an|my|our|his|her)\b"
)


def _one_meeting_moved(old: Fact, new: Fact) -> str | None:
    """'Team retro is every Friday at 4pm' -> 'at 3pm', 'User's daily standup is at 9:30' ->
    'User's standup is at 10:15': a meeting held once in its period (a standup, a retro, a 1:1,
    a weekly sync) given another time or day. Two of them do not hold at once, so the new one
    is the change, said or not; a class or a practice may be held on several days and is not one."""
    if old.subject.relations != new.subject.relations or _hedge(new.text) or _first(_ADDITIVE, new.text):
        return None
    if evidence.past_period(old) or evidence.past_period(new) or evidence.names_missing(new, old):
        return None  # "1:1 with Maria" -> "1:1 with Tom": another meeting
    if "weekday" in new.typed and "weekday" not in old.typed:
        return None  # "standup at 9:30" -> "at 10 on Mondays": only on some days
    meeting, again = _ONE_MEETING.search(old.raw), _ONE_MEETING.search(new.raw)
    if meeting is None or again is None or _meeting(meeting) != _meeting(again):
        return None
    for kind, old_values, new_values in typed_conflicts(old, new):
        if kind in ("time", "weekday") and len(old_values) == len(new_values) == 1:
            return (
                f"the {_meeting(meeting)} held {'on another day' if kind == 'weekday' else 'at another time'}"
            )
    return None


_ONE_MEETING = regex_programs.compile(
    r"(?i)\b(?:stand-?up|retro(?:spective)?|1:1|one-on-one|sync|check-in|all-hands)"
)


def _meeting(found: re.Match[str]) -> str:
    """The meeting's name, however written: "Stand-up" and "standup" are one."""
    return found.group(0).lower().replace("-", "").removesuffix("spective")


def _count_adds_up(old: Fact, new: Fact) -> str | None:
    """'12 students right now' -> 'took on 7 new kids ... so 19 now', 'six hens' -> 'integrated the
    3 pullets so nine birds total now': the new total is the old count with what was added or
    taken away, so it is the old count, counted again."""
    total = _NEW_TOTAL.search(new.raw)  # first: most pairs give no total, and this is their cost
    if total is None or not (n_said := number_words(total.group("n"))).isdigit():
        return None
    if old.subject.relations != new.subject.relations or _hedge(new.text) or evidence.past_period(new):
        return None
    new_numbers = [
        int(found.group(1))
        for found in re.finditer(r"(?<![\w.,:/])(\d+)(?![\d.,:/])(?:\s+(\w+))?", number_words(new.raw))
        if (found.group(2) or "").lower() not in _NOT_COUNTED
    ]
    old_numbers = [int(n) for n in re.findall(r"(?<![\w.,:/])\d+(?![\d.,:/x])", number_words(old.raw))]
    n = int(n_said)
    changes = [k for k in new_numbers if k != n]
    for m in old_numbers:
        for k in changes:
            if m != n and 0 < k < n + m and (m + k == n or m - k == n):
                return (
                    f"the new total ({n}) is the old count ({m}) with {k} {'added' if m + k == n else 'gone'}"
                )
    return None


# what a number beside it measures, not counts: "ran 7 miles so 19 now" adds no one
_NOT_COUNTED = frozenset(
    "miles mile km k kg kilos lbs pounds hours hrs hour minutes mins min days day weeks week months "
    "month years year yrs percent am pm times x".split()
)
_NEW_TOTAL = regex_programs.compile(
    r"(?i)\b(?:so|making|makes|which makes|that's|thats)\s+(?:it\s+|us\s+|we're\s+)?(?P<n>[\w-]+)"
    r"(?:\s+\w+){0,2}?\s+(?:now|total|in total|in all|altogether)\b"
)


def judge_pair(old: str, new: str) -> tuple[Verdict, float, str]:
    """The detectors' proposal, then held to the evidence acting on it needs."""
    proposal = decide(old, new)
    old_fact, new_fact = analyze(old), analyze(new)
    deadline.check()
    if (
        proposal[0] is not Verdict.CONTRADICTS
        and subject_relation(old_fact, new_fact)[0] != "different"
        and not _hedge(new_fact.text)
    ):
        proposal = evidence.one_attribute_contradiction(old_fact, new_fact) or proposal
    if proposal[0] is Verdict.CONTRADICTS and proposal[1] > evidence.UNPROVEN_CEILING:
        agreed = _both_over(old_fact, new_fact)
        if agreed:
            return (Verdict.SUPPLEMENTS, 0.75, f"both facts say '{agreed}' is over or absent: they agree")
    replaced = replaced_in_place(old_fact, new_fact)
    if replaced and proposal[1] <= evidence.UNPROVEN_CEILING and _counts_a_thing(old_fact, replaced):
        # "has 5 direct reports" -> "has 3 direct reports": no detector knows the unit, the words do
        proposal = (Verdict.CONTRADICTS, 0.87, f"the count of the same thing: {shown(replaced)}")
    renewed = (
        None
        if _hedge(new_fact.text)
        else (
            _corrected_inline(old_fact, new_fact)
            or _a_new_one(old_fact, new_fact)
            or _role_filled_by_another(old_fact, new_fact)
            or _amount_moved(old_fact, new_fact)
            or _percent_moved(old_fact, new_fact)
            or _one_more_got(old_fact, new_fact)
        )
    )
    if renewed:
        if not (proposal[0] is Verdict.CONTRADICTS and proposal[1] >= evidence.ACTION_THRESHOLD):
            proposal = (Verdict.CONTRADICTS, 0.88, renewed)
        replaced = replaced or renewed
    resumed = None if _hedge(new_fact.text) else _resumed(old_fact, new_fact)
    if (
        resumed
        and proposal[0] is not Verdict.CONTRADICTS
        and subject_relation(old_fact, new_fact)[0] != "different"
    ):
        proposal = (Verdict.CONTRADICTS, 0.9, resumed)
    construction = replaced or resumed
    proposed = proposal[0] is Verdict.CONTRADICTS and proposal[1] > evidence.UNPROVEN_CEILING
    if not construction and proposed:
        construction = _household_recounted(old_fact, new_fact) or _one_meeting_moved(old_fact, new_fact)
    added_up = None if construction else _count_adds_up(old_fact, new_fact)
    if added_up and not proposed:
        # the sum itself says which count the new total is: no detector above need have read it
        proposal, construction = (Verdict.CONTRADICTS, 0.88, added_up), added_up
    if not construction and proposal[0] is Verdict.CONTRADICTS:
        # every named version given another, with 'still' or 'as of': read from the two facts together
        construction = _named_versions_replaced(old_fact, new_fact) or _started_elsewhere(old_fact, new_fact)
    return evidence.hold_to_evidence(old_fact, new_fact, proposal, construction)


# A start at a named employer: "started at Deloitte", "joined Monzo as a data analyst"
_STARTED_AT = re.compile(
    r"\b(?:started (?:at|with|working (?:at|for)|a (?:new )?(?:job|role) (?:at|with))|began at"
    r"|joined (?=[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*)* as an? ))\s*(?=[A-Z])"
)


def _started_elsewhere(old: Fact, new: Fact) -> str | None:
    """'is an auditor at KPMG' -> 'started at Deloitte on the 1st of August': a start at another
    named employer says the old one is over; a start at a place not named ("started at the gym")
    or one the old fact names says nothing of it."""
    started = _STARTED_AT.search(new.raw)
    if started is None or _hedge(new.text):
        return None
    employers_old = frame_values(old).get("employer", set()) - _GENERIC_VALUE_WORDS
    employers_new = frame_values(new).get("employer", set()) - _GENERIC_VALUE_WORDS
    if not employers_old or not employers_new or employers_old & (employers_new | new.term_set):
        return None
    return f"'{quoted(started.group(0).strip(), new)}' another employer"


def _both_over(old: Fact, new: Fact) -> str | None:
    """'gave up caffeine' -> 'doesn't have caffeine anymore', 'the account is closed' -> 'no longer
    has the account': both say the same thing is over, unless the new one says it is back."""
    if not (_denies(old) and _denies(new)) or _first(_REVERSION, new.text) or _RESUMED_WORD.search(new.text):
        return None
    if evidence.negation_scope(new) & _ENDED_STATES & old.term_set:
        return None  # "is deactivated" -> "isn't deactivated anymore": the end itself is denied
    shared = (_core(old) & _core(new)) - _NEGATION_TERMS - RESTATEMENT_STEMS - set(old.subject.key)
    shared -= _FRAME_STEMS | _LOW_INFO_STEMS | _WHEN_WORDS
    return _quote(shared, old, new) if shared else None


_ENDED_STATES = frozenset(
    canon(word)[0]
    for word in "closed lapsed expired deactivated deleted churned terminated cancelled canceled quit stopped "
    "suspended disabled off over".split()
)
_EVENT_PLACE = regex_programs.compile(lex.EVENT_PLACE)
_RESUMED_WORD = regex_programs.compile(
    r"\b(?:again|resumed|reopened|restarted|reactivated|reinstated|renewed)\b"
)


# An amount said to go up or down: "raised my rate to 75", "bumped the Roth to 300", "cut it to 40"
_AMOUNT_UP = regex_programs.compile(
    r"\b(?:rais(?:ed|ing)|put (?:it |them |the \w+ )?up|upped|increased|bump(?:ed|ing)|hiked|jacked up|"
    r"(?:went|gone|goes|going) up|got a (?:pay )?raise|pay rise|got (?:[\w']+ ){0,2}up to)\b"
)
_AMOUNT_DOWN = regex_programs.compile(
    r"\b(?:cut|lowered|reduced|(?:went|gone|goes|came|come) down|brought (?:it |them )?down|knocked (?:it )?down|"
    r"got (?:[\w']+ ){0,2}down to)\b"
)
_PERIODS = frozenset({"hour", "h", "day", "week", "month", "year", "annum"})
# Words that name the amount's slot whatever it is of: "raised my rate to 75"
_AMOUNT_SLOT_WORDS = frozenset(canon(w)[0] for w in "rate price fee salary pay rent".split())


def _which_way(new: Fact) -> tuple[str, bool] | None:
    """The words that say an amount went up or down ("bumped", "got groceries down to"), and
    whether up; None when neither is said, or both."""
    up, down = _AMOUNT_UP.search(new.text), _AMOUNT_DOWN.search(new.text)
    moved = up or down
    if moved is None or (up and down):
        return None
    return moved.group(0), up is not None


def _amount_moved(old: Fact, new: Fact) -> str | None:
    """'is charging 60/h' -> 'raised my rate to 75': the old fact's one amount, written as money,
    and the new fact's one number, said to have gone the way it went (up, and larger; down, and
    smaller), and about the same thing: the same period ('a month'), a word both give beside it,
    or a word for any amount's slot ('rate', 'price'). An increment ('raised it by 50') is not the
    new value."""
    moved = _which_way(new)
    if moved is None or re.search(r"\bby (?:money_)?\d", new.text) or "%" in new.raw:
        return None
    said_move, up = moved
    if new.counts or subject_relation(old, new)[0] == "different":
        return None
    old_amounts = [number for number in _numbers(old) if number[0] == "amount"]
    new_amounts = [number for number in _numbers(new) if number[0] == "amount"]
    if len(old_amounts) != 1 or len(new_amounts) != 1 or not old_amounts[0][2]:
        return None
    (_, was, _, beside_old), (_, now, _, beside_new) = old_amounts[0], new_amounts[0]
    try:
        ratio = float(now) / float(was)
    except (ValueError, ZeroDivisionError):
        return None
    if not (1 < ratio <= 3 if up else 1 / 3 <= ratio < 1):
        return None
    periods_old = (old.term_set & _PERIODS) | ({"hour"} if re.search(r"/h(?:r|our)?\b", old.raw) else set())
    periods_new = (new.term_set & _PERIODS) | ({"hour"} if re.search(r"/h(?:r|our)?\b", new.raw) else set())
    if periods_old and periods_new and not periods_old & periods_new:
        return None  # "£950 a month" and "raised it to 1,200 a year": another amount
    same = (
        bool(periods_old & periods_new)
        or bool((beside_old & beside_new) - _UNIT_WORDS)
        or bool(new.term_set & _AMOUNT_SLOT_WORDS)
        or bool(re.search(r"\b(?:rais|put|bump|upped|increas|hik|cut|lower|reduc)\w* it\b", new.text))
    )
    if not same:
        return None
    return f"'{quoted(said_move, new)}' to {now} from the old fact's {was}"


_PERCENT = regex_programs.compile(r"\bpercent_(\d+(?:\.\d+)?)\b")


def _percent_moved(old: Fact, new: Fact) -> str | None:
    """'puts 6% into their 401k' -> 'bumped their 401k to 10%': the old fact's one share and the
    new fact's one, said to have gone the way it went, beside a word both facts give. A change by
    a share ('raised it by 2%') is no new value."""
    moved = _which_way(new)
    if moved is None or re.search(r"\bby percent_", new.text):
        return None
    said_move, up = moved
    if subject_relation(old, new)[0] == "different":
        return None
    was, now = _PERCENT.findall(old.text), _PERCENT.findall(new.text)
    if len(was) != 1 or len(now) != 1 or float(was[0]) == float(now[0]):
        return None
    if (float(now[0]) > float(was[0])) != up:
        return None
    shared = (old.term_set & new.term_set) - _UNIT_WORDS - _FRAME_STEMS - lex.STOPWORDS - {"user"}
    if not {t for t in shared if not t.startswith("percent_")}:
        return None
    return f"'{quoted(said_move, new)}' to {now[0]}% from the old fact's {was[0]}%"


# "year 4 not year 3", "7:15, not 8:15": the right value, then the one it corrects
_NOT_THAT = regex_programs.compile(
    r"(?P<before>\b[a-z]+ )?(?P<right>[\w:.'-]+(?: [\w:.'-]+)?),? not (?P<wrong>[\w:.'-]+(?: [\w:.'-]+)?)\b"
)


def _corrected_inline(old: Fact, new: Fact) -> str | None:
    """'Oscar is in year 3' -> 'correction: Oscar is in year 4 not year 3': the new fact gives a
    value and names the old fact's as wrong, in the same frame ('in year 3' / 'in year 4'), with
    the same words but for one."""
    for match in _NOT_THAT.finditer(new.text):
        right, wrong = match.group("right").split(), match.group("wrong").split()
        # "june 21 not the 12th": the day corrected is of the right one's month
        date = re.fullmatch(r"date_(\d+)_\d+", right[-1])
        day = re.fullmatch(r"dayofmonth_(\d+)", wrong[-1]) if len(wrong) == 1 else None
        if date and day:
            right, wrong = right[-1:], [f"date_{date.group(1)}_{day.group(1)}"]
        if len(right) != len(wrong) or right == wrong:
            continue
        if not re.search(rf"\b{re.escape(' '.join(wrong))}\b", old.text):
            continue
        if re.search(rf"\b{re.escape(match.group('right'))}\b", old.text):
            continue  # the old fact has the right value already: nothing of it is corrected
        differ = [(a, b) for a, b in zip(right, wrong, strict=True) if a != b]
        if len(differ) != 1 or not _same_kind_of_word(*differ[0]):
            continue
        before = None if day else match.group("before")
        if before and not re.search(
            rf"\b{re.escape(before.strip())} {re.escape(' '.join(wrong))}\b", old.text
        ):
            continue  # "the office is in York not Leeds" corrects where the office is, not the flat
        clause = re.split(r"[,;:]", new.text[: match.start("right") if day else match.start()])[-1]
        named = {term for token in tokenize(clause) if token not in lex.STOPWORDS for term in canon(token)}
        if not (named - {"user", "said"}) & old.term_set:
            continue  # "the retro is at 10:30 not 9:30" corrects the retro, which the old fact does not name
        return f"a correction: '{quoted(match.group(0).removeprefix(before or ''), new)}'"
    return None


def _same_kind_of_word(a: str, b: str) -> bool:
    """Two numbers, two times, two weekdays or two words of the same shape ("4"/"3", "7:15"/"8:15")."""

    def shape(word: str) -> str:
        if re.fullmatch(r"\d+(?:[:.]\d+)?(?:am|pm)?", word):
            return "number"
        if word.startswith(("weekday_", "time_", "date_")):
            return word.split("_")[0]
        return "word"

    return shape(a) == shape(b) and shape(a) != "word"


# Things a person or a team has one of at a time, by the role they fill: "a new physio" is in
# place of the one the old fact names
# Places one goes to, named by their kind: a new one is the subject's only where it is said as
# theirs ("new box is CrossFit Valby", "moved them to a new campus"; not "Google opened a new campus")
_PLACE_KINDS = "box practice clinic campus salon building".split()
_ONE_OF_A_KIND = frozenset(
    canon(word)[0]
    for word in """physio physiotherapist cardiologist dentist gp doctor therapist counsellor counselor
    psychiatrist manager boss landlord landlady coach trainer tutor group club gym office flat apartment
    nursery daycare school job role accountant lawyer solicitor vet hairdresser barber teacher""".split()
    + _PLACE_KINDS
)
_PLACES_OF_ONES_OWN = frozenset(canon(word)[0] for word in _PLACE_KINDS)
_ONES_OWN_NEW = regex_programs.compile(
    rf"(?i)\bnew (?:[a-z]+ )?(?:{'|'.join(_PLACE_KINDS)})(?:'s| is| was)\b|"
    r"\b(?:to|at|into|joined|my|our|their|user's|(?:is|are|'s|'re) (?:now )?in) (?:a |the |my |our |their )?"
    rf"new (?:[a-z]+ )?(?:{'|'.join(_PLACE_KINDS)})\b"
)
_A_NEW = regex_programs.compile(r"\bnew (?P<first>[a-z-]+)(?: (?P<second>[a-z]+))?\b")
# Other names of the same role
_ROLE_NAMES = {
    canon(role)[0]: {canon(name)[0] for name in names.split()}
    for role, names in (
        ("manager", "boss supervisor"),
        ("boss", "manager supervisor"),
        ("physio", "physiotherapist"),
        ("physiotherapist", "physio"),
        # a CrossFit gym is a "box"; a dentist's or a doctor's is a practice; an office, a campus
        ("box", "gym crossfit"),
        ("practice", "dentist dental gp surgery"),
        ("campus", "office"),
        ("building", "office"),
    )
}


# One named as the user typed the name, in lower case: "User's manager priya is super hands off"
_NAMED_IN_LOWER_CASE = regex_programs.compile(
    # an adverb is no name ("manager basically is ..."), though it costs an "emily"
    r"^User's [a-z]+ (?!(?:is|was|has|had|and|who|just|also|still|now|never|always|says|said)\b|[a-z]+ly\b)"
    r"[a-z]{3,} (?:is|was|has|says|said|wants|keeps)\b"
)


def _a_new_one(old: Fact, new: Fact) -> str | None:
    """'User's physio is Sarah at the Royal' -> 'new physio too, a guy called Callum': a new one of
    a thing held one at a time, which the old fact names for the same subject, is in place of the
    old one. Its modifier, if any, is one the old fact has ('a new running group' for 'runs with a
    group'); else it may be another one ('a new book group' beside a running group)."""
    found = list(_A_NEW.finditer(new.text))
    if not found or subject_relation(old, new)[0] == "different":
        return None  # the subject's relation is read only where "new" is said
    if new.subject.apposition and (new.subject.relations, new.subject.apposition) != (
        old.subject.relations,
        old.subject.apposition,
    ):
        return None  # "User's manager Priya has a new manager, Tom": Priya's new one, not the user's
    for match in found:
        first = canon(match.group("first"))[0]
        second = canon(match.group("second"))[0] if match.group("second") else ""
        # "a new physio", or "a new running group": a modifier, then the kind
        kind, modifier = (first, None) if first in _ONE_OF_A_KIND else (second, first)
        if kind not in _ONE_OF_A_KIND or not ({kind} | _ROLE_NAMES.get(kind, set())) & old.term_set:
            continue
        if modifier and modifier not in old.term_set:
            continue
        held = {kind} | _ROLE_NAMES.get(kind, set())
        if kind in _PLACES_OF_ONES_OWN and (
            not _ONES_OWN_NEW.search(new.text)
            or not any(canon(word)[0] in held for word in re.findall(r"\b[a-z][\w-]*", old.raw))
        ):
            continue  # "Google opened a new campus", "a cat named Box": no place the subject goes to
        if any(
            re.search(rf"\b(?:is|am|are|as) (?:a|an|the)\b[^,.;]*?\b{re.escape(k)}\w*", old.text)
            for k in held
        ):
            continue  # "User is a customer success manager": the role the user fills, not one they have
        if not (
            evidence.proper_names(old)
            or re.search(r"\b(?:at|in|with|called|named)\b", old.text)
            or _NAMED_IN_LOWER_CASE.search(old.raw)
        ):
            continue  # "User wants a physio" names no one the new one could be in place of
        return f"a new {said([kind], new)} in place of the one the old fact names"
    return None


# Whom the user has in a role held one at a time, by name: "User's manager Priya wants ...",
# "User's boss is Dana"; and the one in it now: "User's new manager is Marcus", "User's manager is
# Marcus Lee now", "User said: so Tomasz is my manager now"
_ROLE_HOLDER = regex_programs.compile(
    r"^User's (?P<role>[a-z]+) (?:is )?(?P<name>(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*))?)\b"
)
_ROLE_HOLDER_NOW = (
    regex_programs.compile(
        r"^User's (?P<new>new )?(?P<role>[a-z]+) is (?P<now>now )?"
        r"(?P<name>(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*))?)(?P<after> now)?\b"
    ),
    regex_programs.compile(
        r"^User said: (?:(?:so|and|but|well|ok|okay),? )?(?P<name>(?-i:[A-Z][\w'-]*)(?: (?-i:[A-Z][\w'-]*))?)"
        r"(?:'s| is) (?P<now>now )?my (?P<new>new )?(?P<role>[a-z]+)(?P<after> now)?\b"
    ),
)
_PEOPLE_HELD_ONE_AT_A_TIME = frozenset(
    canon(word)[0]
    for word in "manager boss supervisor landlord landlady coach tutor accountant lawyer solicitor".split()
)


def _role_filled_by_another(old: Fact, new: Fact) -> str | None:
    """'User's manager Priya wants a written proposal' -> 'User said: so Tomasz is my manager
    now': the one the user has in a role held one at a time is another, named, said as new or as
    now; so the old fact's holder of it is not any more."""
    held = _ROLE_HOLDER.match(old.raw)
    now = next((m for m in (p.match(new.raw) for p in _ROLE_HOLDER_NOW) if m), None)
    if held is None or now is None:
        return None
    role_new, name_new = now.group("role"), now.group("name")
    if not (now.group("new") or now.group("now") or now.group("after")):
        return None  # "User's manager is Tomasz": which came first is not said
    old_role, new_role = canon(held.group("role"))[0], canon(role_new)[0]
    if old_role not in _PEOPLE_HELD_ONE_AT_A_TIME or not ({new_role} | _ROLE_NAMES.get(new_role, set())) & {
        old_role
    }:
        return None
    old_name, new_name = set(held.group("name").lower().split()), set(name_new.lower().split())
    if old_name & new_name:
        return None  # the same one, named again
    return f"a new {role_new} ({name_new}) in place of the one the old fact names ({held.group('name')})"


def _counts_a_thing(old: Fact, replaced: str) -> bool:
    """The old value is a plain number followed by what it counts ('5 direct reports', not 'ending
    4242' or 'UA 837')."""
    number = replaced.split()[0]
    return number[0].isdigit() and bool(re.search(rf"(?<![\w.]){re.escape(number)} [a-z]", old.text))


# Values one slot holds one at a time when stated in the same words: an amount, a count, a rate, an
# age, an expiry, working hours. Days, times and dates are left out ("yoga on Tuesdays" and "yoga on
# Thursdays", "dentist on May 3" and "on May 10" may both hold), and so are e-mail addresses and
# phone numbers, which people have several of, but for a number corrected in a digit or two.
_IN_PLACE_KINDS = frozenset({"money", "num", "percent", "phone", "expiry", "hours", "pronouns"})
_REASON_CLAUSE = regex_programs.compile(lex.REASON_CLAUSE)


def _digits_corrected(old_value: str, new_value: str) -> bool:
    """'555-0134' -> '555-0143': the same number with one digit changed or two swapped, not a second one."""
    if not old_value.startswith("phone_"):
        return True
    a, b = old_value.removeprefix("phone_"), new_value.removeprefix("phone_")
    if len(a) != len(b):
        return False
    changed = sum(x != y for x, y in zip(a, b, strict=True))
    return changed == 1 or (changed == 2 and sorted(a) == sorted(b))  # one digit, or two swapped


def _replaced(was: str, now: str, old: Fact, new: Fact) -> str:
    return f"{quoted(was, old)} replaced by {quoted(now, new)} in the same words"


def replaced_in_place(old: Fact, new: Fact) -> str | None:
    """'Acme has 50 seats' -> 'Acme has 55 seats', 'rent is $1,800 a month' -> '$2,050 a month': the
    same words with one count or amount put in place of the old one. Two counts of one thing, or two
    amounts of one slot, cannot both hold, so the replacement is the change evidence."""
    reason = _REASON_CLAUSE.search(new.raw)
    if reason:
        # "has three cats after fostering a kitten": the same words, and what brought the change
        new = analyze(new.raw[: reason.start()])
    template = template_conflict(old, new)
    if template is None or evidence.negated(old) or evidence.negated(new):
        return None
    _, old_slot, new_slot = template
    if len(old_slot) != 1 or len(new_slot) != 1 or not _slot_kinds(old_slot) <= _IN_PLACE_KINDS:
        return None
    if _slot_kinds(old_slot) != _slot_kinds(new_slot) or not _digits_corrected(old_slot[0], new_slot[0]):
        return None
    rest_old = [term for term in old.terms if term not in _LOW_INFO_STEMS and term != old_slot[0]]
    rest_new = [term for term in new.terms if term not in _LOW_INFO_STEMS and term != new_slot[0]]
    if rest_old != rest_new or _first(_HEDGES, new.text) or _first(_ADDITIVE, new.text):
        return None  # anything added or left out may make it another one
    if evidence.past_period(old) or evidence.past_period(new) or _first(_HISTORICAL, new.text):
        return None
    return Worded(
        f"{old_slot[0]} replaced by {new_slot[0]} in the same words",
        _replaced,
        old_slot[0],
        new_slot[0],
        old,
        new,
    )


@lru_cache(maxsize=4096)
def _decide_cached(old: str, new: str) -> tuple[Verdict, float, str]:
    # a memory kept as said in another language is read as the phrase tables read it
    old, new = read_in_english(old), read_in_english(new)
    verdict, confidence, reason = judge_pair(old, new)
    if confidence < 0.85 or verdict not in (Verdict.CONTRADICTS, Verdict.DUPLICATE):
        # another value in the same slot (rules_slots): evidence no detector above acted on
        swap = (
            value_swap(old, new)
            or tool_switch(old, new)
            or one_at_a_time(old, new)
            or device_upgrade(old, new)
            or named_switch(old, new)
            or retired(old, new)
            or shift_change(old, new)
            or school_change(old, new)
            or rank_change(old, new)
            or promotion(old, new)
            or grade_change(old, new)
            or career_step(old, new)
            or activity_elsewhere(old, new)
            or venue_elsewhere(old, new)
            or workplace_elsewhere(old, new)
            or job_after_leaving(old, new)
            or pay_change(old, new)
            or rent_change(old, new)
            or line_change(old, new)
            or departure_change(old, new)
            or bare_version(old, new)
            or plan_done(old, new)
        )
        if swap is not None:
            verdict, confidence, reason = Verdict.CONTRADICTS, *swap
        else:
            main = _first_clause_change(old, new)
            if main is not None:
                verdict, confidence, reason = main
    if verdict is Verdict.CONTRADICTS and confidence >= 0.85 and _two_homes_one_move(old, new):
        return Verdict.CONTRADICTS, 0.8, "the old fact gives two homes; which one the move ends is not said"
    return verdict, max(0.0, min(1.0, confidence)), reason


# A memory kept as said: its first clause, and what follows it after a comma, a semicolon, a
# dash or a bracket ("long run is Saturday now, Sundays got too tight", "retros are in the
# Osprey room now (no whiteboard in there)")
_SAID_FIRST_CLAUSE = regex_programs.compile(r"^(User said: [^,;()]+?)\s*(?:,|;|\(| - | — )\s*(.+)$")


def _first_clause_change(old: str, new: str) -> tuple[Verdict, float, str] | None:
    """(verdict, confidence, reason) when a memory kept as said changes the old fact in its first
    clause and says only why, or an aside, after it: the first clause's contradiction (rules
    v37). What follows a change often names the old value as the reason for it ("Sundays got
    too tight"), which reads as the old fact said again. Never a duplicate or any other verdict:
    what follows may say what the old fact does not. Not when what follows may limit the
    change (a hedge, a while, "but", "until", someone else) or is a second statement of one's
    own ("we", "I")."""
    found = _SAID_FIRST_CLAUSE.match(new.strip())
    if found is None:
        return None
    first, rest = found.group(1), found.group(2)
    if len(first.split()) < 5 or limits_what_it_follows(rest):
        return None
    verdict, confidence, reason = _decide_cached(old, first)
    if verdict is not Verdict.CONTRADICTS or confidence < 0.85:
        return None
    return verdict, confidence, f"{reason} (its first clause; what follows says why)"


def _two_homes_one_move(old: str, new: str) -> bool:
    """ "my mother lives in recife ... I live in são paulo" -> "my mother moved to floripa", "lives
    in Leeds and my sister lives in York" -> "moved to Manchester": a move ends one home, and
    the old fact, which gives two, would take the other with it."""
    old_fact, new_fact = analyze(old), analyze(new)
    if len(_frame_statements(old_fact).get("location", ())) < 2:
        return False
    return bool(_MOVED_HOME.search(new_fact.full) or frame_values(new_fact).get("location"))


class RulesClassifier:
    """`limit_s`: the most one classification may take (AURRA_CLASSIFIER_TIMEOUT_S in the
    service): the work checks its deadline between its steps (runtime/deadline.py) and stops
    with a ClassifierError once it has passed. The write pipeline also abandons any
    classification at its limit; this check is what stops the work itself."""

    model = MODEL_ID
    # Its verdicts cost nothing: a write may ask it about every memory of a small scope.
    offline = True
    # Its steps are bounded and it checks the deadline between them: the write pipeline runs it
    # in the caller's thread (runtime/deadline.py), not in one of its own.
    stops_at_deadline = True

    def __init__(self, limit_s: float | None = None) -> None:
        self.limit_s = limit_s

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        try:
            with deadline.limited(self.limit_s):
                verdicts = []
                for candidate in candidates:
                    deadline.check()
                    verdicts.append(self.judge(candidate.content, new_content, candidate.id))
                verdicts = _one_reading_of_a_bare_value(verdicts)
                verdicts = _the_one_it_replaces(verdicts, new_content, candidates)
        except deadline.DeadlinePassed as exc:
            raise ClassifierError("the rules classifier did not finish within its time limit") from exc
        return Classification(
            verdicts=verdicts,
            model=MODEL_ID,
            details={"classifier": "rules"},
            input_tokens=0,
            output_tokens=0,
        )

    def judge(self, old: str, new: str, candidate_id: UUID) -> ClassifierVerdict:
        verdict, confidence, reason = _decide_cached(old, new)
        return ClassifierVerdict(candidate_id, verdict, round(confidence, 2), reason)


def _one_reading_of_a_bare_value(verdicts: list[ClassifierVerdict]) -> list[ClassifierVerdict]:
    """A new rate or number said on its own ("on 5 a week now", "on 28 now") replaces the value of
    the one memory that has one; when several do, which of them it means is not said, and none is
    acted on."""
    alone = [v for v in verdicts if v.verdict is Verdict.CONTRADICTS and SAID_ALONE in v.reason]
    if len(alone) < 2:
        return verdicts
    return [
        ClassifierVerdict(
            v.candidate_id,
            v.verdict,
            min(v.confidence, evidence.UNPROVEN_CEILING),
            f"{v.reason}; other memories have such a value too",
        )
        if v in alone
        else v
        for v in verdicts
    ]


# A thing kept in or of a named one: "has 40 plugins in Vim", "9,000 notes in Evernote", "the
# Vim config", "Evernote's export". {name} is the name, escaped.
_KEPT_IN = (
    r"\d[\d,.]*\+?\s+(?:\w+\s+){{0,2}}(?:in|on|inside)\s+(?:the\s+|their\s+|my\s+|our\s+)?{name}\b|"
    r"\b{name}(?:'s)?\s+(?:config|configuration|setup|plugins?|extensions?|account|subscription|"
    r"licen[cs]e|settings|dotfiles|vault|workspace|files|library|folder|history|streak|profile|export)\b"
)


def _fit(old: str, new: str) -> tuple[bool, bool, bool, bool]:
    """How likely the new fact replaces this memory rather than another it contradicts as surely:
    of the new fact's subject ("User uses LastPass" before "User's parents share a LastPass plan"),
    stated rather than quoted ("User said: ..."), holding the name it replaced itself rather than
    something kept in it ("User uses Vim" before "User has 40 plugins in Vim"), saying what is
    done that the new fact says ("rehearses at Soundcheck" before "is a 4-piece" for "moved
    rehearsals to SoDo")."""
    kept = any(
        re.search(_KEPT_IN.format(name=re.escape(name)), old, re.IGNORECASE)
        for name in replaced_values(old, new)
    )
    return (_of_its_subject(old, new), not kept_as_said(analyze(old)), not kept, _says_what_is_done(old, new))


def _says_what_is_done(old: str, new: str) -> bool:
    """A word of the new fact besides whose it is, in the old memory too, as a stem of five
    letters or more ("rehears" / "rehearsal")."""
    new_fact = analyze(new)
    whose = {"user", *new_fact.subject.slot}
    new_terms = [t for t in new_fact.terms if t not in whose and len(t) >= 5]
    old_terms = [t for t in analyze(old).terms if t not in whose and len(t) >= 5]
    return any(a.startswith(b) or b.startswith(a) for a in old_terms for b in new_terms)


def _of_its_subject(old: str, new: str) -> bool:
    """The old memory is of the new fact's subject, or of someone the new fact names ("User's son
    Ollie's bedtime" for "User moved Ollie's bedtime")."""
    if subject_of(old) == subject_of(new):
        return True
    named = re.match(r"[Uu]ser's\s+(\w+)(?:\s+([A-Z][\w-]+))?", old)
    if named is None:
        return False
    return any(word and re.search(rf"(?i)\b{re.escape(word)}\b", new) for word in named.groups())


_WHY_OTHER = (
    "another memory, of the new fact's subject, is likelier the one it replaces",
    "another memory, stated rather than quoted, is likelier the one it replaces",
    "another memory holds what changed itself, this one something kept in it",
    "another memory says what the new fact says is done, this one does not",
)


def _the_one_it_replaces(
    verdicts: list[ClassifierVerdict], new: str, candidates: list[Candidate]
) -> list[ClassifierVerdict]:
    """A fact supersedes one memory. When it contradicts several as surely, the one it likeliest
    replaces (`_fit`) keeps its confidence and the others are shaded by 0.01, saying why, so that
    the choice is the classifier's and not the candidates' order."""
    contradicted = [v.confidence for v in verdicts if v.verdict is Verdict.CONTRADICTS]
    if not contradicted or contradicted.count(max(contradicted)) < 2:
        return verdicts
    top = max(contradicted)
    content = {c.id: c.content for c in candidates}
    fits = {
        v.candidate_id: _fit(content[v.candidate_id], new)
        for v in verdicts
        if v.verdict is Verdict.CONTRADICTS and v.confidence == top
    }
    best = max(fits.values())
    out = []
    for v in verdicts:
        fit = fits.get(v.candidate_id)
        if fit is None or fit == best:
            out.append(v)
            continue
        why = _WHY_OTHER[next(index for index, (a, b) in enumerate(zip(fit, best, strict=True)) if a != b)]
        out.append(
            ClassifierVerdict(v.candidate_id, v.verdict, round(v.confidence - 0.01, 2), f"{v.reason}; {why}")
        )
    return out


# Every expression of the classifier's modules is compiled by now: keep the programs any of
# them needed translating (regex_programs), as Python keeps bytecode.
regex_programs.save()
