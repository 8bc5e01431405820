"""Precision by construction: the last word on any verdict the rules classifier proposes.

The detectors in `rules.py` propose a verdict; this module holds it to the principle the
service depends on. A `contradicts` at or above 0.85 replaces a memory and a `duplicate` at or
above 0.85 rejects a write, both without a person looking, so:

- a contradiction is acted on only with explicit change evidence in the new fact (a change verb
  or construction from the lexicon, or an explicit negation of the old value), or in the two facts
  read together (a count or an amount put in place of the old one in the same words, which cannot
  both hold; a thing the old fact says ended said to be back); a different value without it stays
  at 0.80 (it may be a second one);
- a negation is evidence only when it is of the old fact's own thing and value: not when the new
  fact names another thing in its place ("the Hulu account is not active" against the Netflix
  one) or narrows what it negates ("doesn't eat red meat", "not on weekends");
- a dated past period, with no change evidence, never contradicts: it is history;
- a duplicate is acted on only when both facts say the same thing with the same polarity and the
  same values: a negation, a changed number, a changed name or a changed qualifier is never one.

It also finds the two contradictions of one attribute that carry no change word and no shared
value slot: likes against dislikes of the same thing, and a diet against eating what it excludes.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from aurra_core.classifiers.rules_facts import Fact
from aurra_core.classifiers.rules_wording import Worded, quoted, said, shown, with_article
from aurra_core.models import Verdict
from aurra_core.runtime import deadline
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import canon, normalize, tokenize

ACTION_THRESHOLD = 0.85
# The most a verdict may say without the evidence that acting on it needs.
UNPROVEN_CEILING = 0.80

Decision = tuple[Verdict, float, str]

_CHANGE_EVIDENCE = regex_programs.compile("|".join(f"(?:{pattern})" for pattern in lex.CHANGE_EVIDENCE))
_PAST_PERIOD = regex_programs.compile("|".join(f"(?:{pattern})" for pattern in lex.PAST_PERIOD))
_EATING = regex_programs.compile(lex.EATING)
_VALUE_TOKEN = regex_programs.compile(r"^(?:[a-z]+_[\w.]+|\d[\w.]*)$")
_NEGATION_STEMS = lex.NEGATIONS | {"nev", "non"}


def change_evidence(old: Fact, new: Fact) -> str | None:
    """The words of the new fact that say the old value changed, or None."""
    # with its lead-in: "Correction: ..." is evidence
    matches: tuple[re.Match[str], ...] | None = new.memo.get("change_evidence")  # in each of its pairs
    if matches is None:
        matches = new.memo["change_evidence"] = tuple(_CHANGE_EVIDENCE.finditer(new.full))
    for match in matches:
        deadline.check()
        if _about_something_else(old, new.full[match.start() :]) or _not_realized(new.full, match):
            continue
        words = match.group(0).strip()
        return Worded(words, quoted, words, new)
    moved = MOVED_TO_A_NAME.search(new.raw)
    if moved and not _not_realized(new.raw.lower(), moved):
        return Worded(moved.group(0)[:-1].strip(), quoted, moved.group(0)[:-1].strip(), new)
    recent = _AS_OF_RECENT.search(new.raw.lower())
    if recent and not _STILL.search(new.full):
        return Worded(recent.group(0), quoted, recent.group(0), new)
    there_since = _THERE_SINCE.search(new.raw)
    if there_since:
        return Worded(there_since.group(0), quoted, there_since.group(0), new)
    negated = negated_old_value(old, new)
    if negated:
        return Worded(f"not {negated}", _not_said, negated, new, old)
    if diet_denied(old, new):
        return "not what they ate"
    return (
        started_what_was_denied(old, new)
        or dated_later(old, new)
        # a dislike of what was liked, or another thing ranked above it, negates the old value itself
        or preference_flip(old, new)
        or ranked_below(old, new)
    )


_LEFT_VALUE = regex_programs.compile(lex.LEFT_VALUE)


# What the reasons of this module say, in the user's words (rules_wording.Worded renders them
# only when a reason says them).
def _not_said(term: str, *facts: Fact) -> str:
    return f"not {said([term], *facts)}"


def _likes_and_dislikes(thing: set[str], fact: Fact) -> str:
    return f"likes and dislikes the same {said(thing, fact)}"


def _dislikes(thing: set[str], fact: Fact) -> str:
    return f"dislikes {said(thing, fact)}, which covers what was liked"


def _ranks(preferred: set[str], passed_over: set[str], new: Fact, old: Fact) -> str:
    return f"ranks {said(preferred, new)} above the old choice, {said(passed_over, new, old)}"


def _values_differ(values: list[str], old: Fact, new: Fact) -> str:
    return f"a value differs ({', '.join(said([value], old, new) for value in values)})"


_NOT_REALIZED_BEFORE = regex_programs.compile(lex.NOT_REALIZED_BEFORE)
_FUTURE_TIME = regex_programs.compile(lex.FUTURE_TIME)
_PROGRESSIVE = regex_programs.compile(r"ing\b")


def _not_realized(text: str, match: re.Match[str]) -> bool:
    """'was never suspended', 'will be cancelled on June 1': the change is denied or only expected."""
    if match.group(0).strip() in lex.NEGATING_EVIDENCE:
        return False
    if _PROGRESSIVE.search(match.group(0)) and _FUTURE_TIME.search(text):
        return True  # "is moving to Denver next year"
    before = " ".join(text[: match.start()].split()[-3:])
    return bool(_NOT_REALIZED_BEFORE.search(before))


_AS_OF = regex_programs.compile(lex.AS_OF)
_AS_OF_RECENT = regex_programs.compile(lex.AS_OF_RECENT)
# Where the subject has been since a time, a place named as written ("has been in Hobart since
# January"): a home begun then, which is the change
_THERE_SINCE = regex_programs.compile(
    r"\b(?:has|have|'ve) been (?:living |based )?in [A-Z][\w'-]*(?: [A-Z][\w'-]*)* since\b"
)
# A move said by where the subject settled, or as the move made, to a place named ("is settling
# into Kigali", "made the move to Leeds", "upped sticks to Cornwall"); read in the fact as
# written, where a place's name is capitalised: "settled into a routine" is no move.
MOVED_TO_A_NAME = regex_programs.compile(
    r"\b(?:settl(?:ed|ing) (?:in|into|down in)|made the move (?:to|over to)|upped sticks (?:to|for))"
    r" (?:the )?(?-i:[A-Z])"
)
_STILL = regex_programs.compile(r"\bstill\b")
_AS_OF_PRESENT = regex_programs.compile(lex.AS_OF_PRESENT)
_PRESENT = (9999, 99, 99)


def _as_of(fact: Fact) -> tuple[int, int, int] | None:
    """When the fact says its value holds from: (year, month, day), 0 where unsaid; the present
    is later than any date written."""
    match = _AS_OF.search(fact.text)
    if _AS_OF_PRESENT.search(fact.raw.lower()):  # as written: the normaliser reads some as "currently"
        return _PRESENT
    if not match:
        return None
    month, day = match.group("month") or match.group("dmonth"), match.group("day")
    year = match.group("year")
    if not (month or year):
        return None
    return (int(year or 0), int(month or 0), int(day or 0))


def dated_later(old: Fact, new: Fact) -> str | None:
    """'As of May, Vandelay has 30 seats' -> 'As of November, Vandelay has 42 seats': both facts
    date their value, and the new one's date is later."""
    when_old, when_new = _as_of(old), _as_of(new)
    if not when_old or not when_new or when_old == _PRESENT:
        return None
    comparable = when_new == _PRESENT or bool(when_old[0]) == bool(
        when_new[0]
    )  # both with a year, or neither
    return "a later 'as of' date than the old fact's" if comparable and when_new > when_old else None


def _about_something_else(old: Fact, evidence_onwards: str) -> bool:
    """'instead of cash', 'from Basic to Plus' when the old fact names neither cash nor Basic: the
    change these words state is of another value than the old fact's."""
    left = _LEFT_VALUE.match(evidence_onwards)
    if not left:
        return False
    terms = {
        term
        for token in tokenize(left.group("x"))
        if token not in lex.STOPWORDS
        for term in canon(token)
        if term not in _LOW_INFO
    }
    if (
        terms
        and all(term.startswith(_WHEN_TOKENS) for term in terms)
        and not _TO_NEXT.match(evidence_onwards[left.end() :])
    ):
        return False  # "went up to £1,200 from March": the date it holds from, not a value left
    return bool(terms) and not terms & (old.term_set | day_parts(old))


_WHEN_TOKENS = ("month_", "date_", "year_", "dayofmonth_")
_TO_NEXT = regex_programs.compile(r"\s*to\b")


def day_parts(fact: Fact) -> set[str]:
    """The parts of the day the fact's times fall in: 'at 6am' is a morning ('morn', 'morning')."""
    parts: set[str] = set()
    for time_term in fact.typed.get("time", set()):
        minutes = time_term.split("_")[-1]
        for start, end, part in lex.PARTS_OF_DAY if minutes.isdigit() else ():
            if start <= int(minutes) < end:
                parts |= {canon(part)[0], canon(part + "s")[0]}  # "morning" and "mornings" stem apart
    return parts


_STARTED = regex_programs.compile(lex.STARTED)
_STARTED_ELSEWHERE = regex_programs.compile(lex.STARTED_ELSEWHERE)
_NARROWED = regex_programs.compile(lex.NARROWED)
_HYPERNYMS = {canon(word)[0]: kinds for word, kinds in lex.HYPERNYMS.items()}
# The verbs of a denial, not what it denies: "doesn't have a car" denies a car.
_DENIAL_VERBS = frozenset(
    term
    for word in "have has own owns use uses get gets do does eat eats drink drinks go goes take takes speak play".split()
    for term in canon(word)
)


def started_what_was_denied(old: Fact, new: Fact) -> str | None:
    """'doesn't have a car' -> 'bought a car', 'doesn't drink coffee' -> 'started drinking coffee':
    the new fact begins what the old one denied."""
    if not negated(old) or negated(new):
        return None
    denied = content(old) - _DENIAL_VERBS
    for match in _STARTED.finditer(new.text):
        begun_word_end = match.start("x") + len(match.group("x").split()[0])
        if _STARTED_ELSEWHERE.match(new.text[begun_word_end:]):
            continue
        head = [token for token in tokenize(match.group("x")) if token not in lex.STOPWORDS][:1]
        begun = {term for token in head for term in canon(token)}  # "a bottle of wine" begins a bottle
        begun |= {canon(kind)[0] for term in begun for kind in _HYPERNYMS.get(term, ())}  # a cat is a pet
        if begun & denied:
            return Worded(match.group(0), quoted, match.group(0), new)
    return None


def negated_old_value(old: Fact, new: Fact) -> str | None:
    """A term the old fact asserts and the new fact negates ("drinks coffee" -> "no coffee"), when
    the negation is of the old fact itself: the same thing, nothing put in place of what it names
    ("the Netflix account is active" -> "the Hulu account is not active" negates another one)."""
    if negated(old) or not negated(new):
        return None
    shared = sorted(content(old) & {as_written_in(term, old) for term in content(new)})
    if not shared or negates_another(old, new):
        return None
    values = [term for term in shared if term not in old.subject.key]  # what is negated, not who
    denied = {as_written_in(term, old) for term in negation_scope(new)}
    return ([term for term in values if term in denied] or values or shared)[0]


# Words a negation of the same fact may add: when it holds, and how firmly.
_NEGATION_FRAME = frozenset(
    canon(word)[0]
    for word in "anymore nolonger longer yet again nowadays fromnowon at all ever either".split()
)


def negates_another(old: Fact, new: Fact) -> bool:
    """The negation is of something else: the new fact leaves out what the old one names ("the
    Netflix account is active" -> "the Hulu account is not active") or negates a narrower thing
    ("eats meat" -> "doesn't eat red meat"), or a thing of its own ("the membership card is not
    active", "not an admin of the billing account"). A replacement beside the negation is no other thing:
    "favorite color is teal, not green" negates the old value itself."""
    identity = proper_names(old) | set(old.subject.slot) | set(old.subject.key)
    missing = (content(old) - content(new)) & identity
    if not (proper_names(new) | set(new.subject.slot)) - content(old):
        missing = set()  # "the Instagram account" -> "Instagram": nothing named in its place
    added = (
        {as_written_in(term, old) for term in content(new)} - content(old) - _NEGATION_FRAME - _DENIAL_VERBS
    )
    things = _KIND_STEMS | set(new.subject.slot)  # "the membership card is not active": the card
    return bool(missing) or bool(added & (negation_scope(new) | things))


def as_written_in(term: str, fact: Fact) -> str:
    """A bare number ("398 not 389") as `fact` holds it, where the fact holds it as an amount:
    the normaliser writes "389 a month" as money_389 but "not 389" as 389, one sum either way."""
    as_amount = f"money_{term}"
    if term.isdigit() and term not in fact.term_set and as_amount in fact.term_set:
        return as_amount
    return term


_KIND_STEMS = frozenset(canon(word)[0] for word in lex.KIND_NOUNS)
_CLAUSE_BREAK = frozenset({",", ";", ":", "(", ")", "but", "and"})


def negation_scope(fact: Fact) -> set[str]:
    """The terms after a negation to the end of its clause ("doesn't drive to work when it snows"),
    up to a word that dates it ("hasn't eaten meat since the spring" negates the meat)."""
    scope: set[str] = set()
    inside = False
    for token in fact.tokens:
        words = lex.SYNONYMS.get(token, token).split()
        if token in _CLAUSE_BREAK or token in _SCOPE_ENDS:
            inside = False
        elif set(words) & _NEGATION_STEMS:
            inside = True
        elif inside:
            scope.update(canon(token))
    return scope


_SCOPE_ENDS = frozenset({"since", "anymore", "nolonger", "nowadays", "fromnowon", "now"})


def negated(fact: Fact) -> bool:
    """A negation as written, or one a word stands for ("teetotal" reads "not drink alcohol")."""
    cached: bool | None = fact.memo.get("negated")  # asked ~8 times a pair of each fact
    if cached is None:
        spelled = {word for token in fact.tokens for word in lex.SYNONYMS.get(token, token).split()}
        cached = fact.memo["negated"] = bool(spelled & _NEGATION_STEMS)
    return cached


def past_period(fact: Fact) -> str | None:
    match = _PAST_PERIOD.search(fact.text)
    return match.group(0).strip() if match else None


def content(fact: Fact) -> set[str]:
    """The fact's content terms without negations and without words that state nothing."""
    return {term for term in fact.term_set if term not in _NEGATION_STEMS and term not in _LOW_INFO}


_LOW_INFO = frozenset(lex.LOW_INFO) | {"now", "current", "still", "realli", "real"}


def typed_values(fact: Fact) -> set[str]:
    """Typed values (money, dates, times, phone numbers...) and plain numbers. A time given with
    its zone also has its UTC twin ("9am Pacific" = "12pm Eastern"): then the twin decides."""
    typed = typed_values_of(fact.term_set)
    if any(term.startswith("utc_") for term in typed):
        typed = {term for term in typed if not term.startswith("time_")}
    return typed


def typed_values_of(terms: AbstractSet[str]) -> set[str]:
    """The terms that are typed values or numbers."""
    return {term for term in terms if _VALUE_TOKEN.match(term)}


def names_missing(fact: Fact, other: Fact) -> set[str]:
    """Names of one fact that the other does not mention at all. The first word of a sentence
    and the names of time zones and company suffixes are not names here."""
    first_word = fact.raw.split()[0].lower().strip(".,:;\"'") if fact.raw.split() else ""
    names = {
        term
        for name in fact.names
        if name.lower() != first_word
        for token in tokenize(normalize(name))  # "NYC" reads "new york", as in the text
        for term in canon(token)
    }
    # a name that reads as a typed value ("September" is month_9) is compared as one
    return {name for name in names - _NOT_NAMES - other.term_set if "_" not in name}


_CALENDAR_WORDS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat
    sun""".split()
)
_CURRENCY_CODES = frozenset("usd eur gbp chf jpy cad aud inr cny sek nok dkk pln".split())
_NOT_NAMES = frozenset(
    canon(word)[0]
    for word in lex.ORG_SUFFIXES
    | lex.GENERIC_NAME_WORDS
    | set(lex.TIMEZONES)
    | _CALENDAR_WORDS
    | _CURRENCY_CODES
    if " " not in word
)


def proper_names(fact: Fact) -> set[str]:
    """The fact's names as terms, without days, months, zones, currencies and company suffixes."""
    cached: frozenset[str] | None = fact.memo.get("proper_names")  # asked ~2-3 times a pair
    if cached is None:
        cached = fact.memo["proper_names"] = frozenset(
            {
                term
                for name in fact.names
                for token in tokenize(normalize(name))
                for term in canon(token)
                if "_" not in term
            }
            - _NOT_NAMES
        )
    return set(cached)


def same_statement(old: Fact, new: Fact) -> str | None:
    """Why the two facts cannot be the same statement, or None when nothing says so."""
    if negated(old) != negated(new):
        return "one of them is negated"
    changed = (typed_values(old) ^ typed_values(new)) | names_missing(old, new) | names_missing(new, old)
    if changed:
        values = sorted(changed)[:3]
        return Worded(f"a value differs ({', '.join(values)})", _values_differ, values, old, new)
    if _ORDERED.search(old.text) and _ORDERED.search(new.text) and _order(old, new) != _order(new, old):
        return "the same words in another order ('tea over coffee' / 'coffee over tea')"
    return None


# Words that make the order of two values matter: "prefers tea over coffee".
_ORDERED = regex_programs.compile(lex.ORDERED)


def _order(fact: Fact, other: Fact) -> list[str]:
    """The fact's terms that the other fact shares, in the fact's order."""
    shared = fact.term_set & other.term_set
    return [term for term in dict.fromkeys(fact.terms) if term in shared]


def preference_flip(old: Fact, new: Fact) -> str | None:
    """Likes against dislikes of exactly the same thing."""
    for a, b in ((old, new), (new, old)):
        likes, dislikes = a.term_set & lex.LIKING, b.term_set & lex.DISLIKING
        if not likes or not dislikes or a.term_set & lex.DISLIKING or b.term_set & lex.LIKING:
            continue
        if negated(a) or negated(b):
            continue
        thing_a = content(a) - lex.LIKING
        thing_b = content(b) - lex.DISLIKING
        if thing_a and thing_a == thing_b:
            return Worded(
                f"likes and dislikes the same {' '.join(sorted(thing_a))}", _likes_and_dislikes, thing_a, a
            )
        liked, disliked = _object_of(a), _object_of(b)
        if disliked and liked and disliked <= liked:
            # "likes dark roast coffee" / "can't stand dark roast anymore and only buys light roasts"
            return Worded(
                f"dislikes {' '.join(sorted(disliked))}, which covers what was liked", _dislikes, disliked, b
            )
    return None


_PREFERENCE_OBJECT = regex_programs.compile(lex.PREFERENCE_OBJECT)


def _object_of(fact: Fact) -> set[str]:
    """The content terms of what a like or a dislike is about, up to where its clause goes on."""
    match = _PREFERENCE_OBJECT.search(fact.text)
    if not match:
        return set()
    return {term for token in tokenize(match.group("o")) for term in canon(token)} - lex.STOPWORDS - _LOW_INFO


_BOUNDARY = regex_programs.compile(lex.PHRASE_BOUNDARY)


def phrase_terms(phrase: str) -> set[str]:
    """The content terms of a value phrase, up to where its clause goes on ("Go for services")."""
    boundary = _BOUNDARY.search(" " + phrase)
    words = (" " + phrase)[: boundary.start()].split()[:3] if boundary else phrase.split()[:3]
    return {term for word in words if word not in lex.STOPWORDS for term in canon(word)} - lex.LIKING


def ranked_below(old: Fact, new: Fact) -> str | None:
    """'prefers window seats' -> 'prefers aisle seats over window seats', 'prefers tea over coffee'
    -> 'prefers coffee over tea': the new fact ranks what the old one chose below another thing."""
    ranking = _PREFERRED_OVER.search(new.text)
    chosen_before = _PREFERRED_OVER.search(old.text) or _PREFERS.search(old.text)
    if not ranking or not chosen_before or _NARROWED.search(new.text[ranking.start("x") :]):
        return None  # "... over window seats on long flights" holds only there
    old_choice = phrase_terms(chosen_before.group("y" if "y" in chosen_before.groupdict() else "v"))
    preferred, passed_over = phrase_terms(ranking.group("y")), phrase_terms(ranking.group("x"))
    if not old_choice or not passed_over or not passed_over <= old_choice:
        return None
    if not (preferred - passed_over) or (preferred - passed_over) & old_choice:
        return None
    return Worded(
        f"ranks {' '.join(sorted(preferred))} above the old choice, {' '.join(sorted(passed_over))}",
        _ranks,
        preferred,
        passed_over,
        new,
        old,
    )


_PREFERRED_OVER = regex_programs.compile(lex.PREFERRED_OVER)
_PREFERS = regex_programs.compile(lex.PREFERS)
_WRITTEN_NEGATION = regex_programs.compile(lex.WRITTEN_NEGATION)
RELATION_STEMS = frozenset(term for word in lex.RELATION_NOUNS for term in canon(word))


def diet_denied(old: Fact, new: Fact) -> str | None:
    """'eats meat' -> 'doesn't eat meat' (read 'vegetarian'): the new fact denies, in so many words,
    eating what the old fact says they eat."""
    if not _EATING.search(old.text) or negated(old) or not _WRITTEN_NEGATION.search(new.raw.lower()):
        return None
    if new.subject.relations != old.subject.relations or set(new.subject.slot) & RELATION_STEMS:
        return None  # "User's son doesn't eat meat" is about the son
    for diet, excluded in lex.DIET_EXCLUDES.items():
        eaten = excluded & set(old.tokens)
        if diet in new.text and diet not in old.text and eaten:
            return f"the new fact denies eating the {said([sorted(eaten)[0]], old)} the old one says they eat"
    return None


def diet_broken(old: Fact, new: Fact) -> str | None:
    """One fact states a diet, the other says the subject eats what it excludes (either way
    round: "is vegetarian" -> "eats chicken", "eats meat" -> "doesn't eat meat", read "vegetarian")."""
    for diet_fact, eating_fact in ((old, new), (new, old)):
        if negated(eating_fact) or not _EATING.search(eating_fact.text):
            continue
        for diet, excluded in lex.DIET_EXCLUDES.items():
            if diet in diet_fact.text and diet not in eating_fact.text:
                eaten = excluded & set(eating_fact.tokens)
                if eaten:
                    return (
                        f"{with_article(said([diet], diet_fact))} diet excludes the {said([sorted(eaten)[0]], eating_fact)} "
                        "the other fact says they eat"
                    )
    return None


def one_attribute_contradiction(old: Fact, new: Fact) -> Decision | None:
    """Likes against dislikes, a diet against eating what it excludes: same attribute, opposite."""
    flipped = preference_flip(old, new)
    if flipped:
        return (Verdict.CONTRADICTS, 0.86, shown(flipped))
    denied = diet_denied(old, new)
    if denied:
        return (Verdict.CONTRADICTS, 0.9, denied)
    evidence = change_evidence(old, new)
    broken = diet_broken(old, new)
    if broken:
        if evidence:
            return (Verdict.CONTRADICTS, 0.9, f"{broken}, with '{shown(evidence)}'")
        return (Verdict.CONTRADICTS, UNPROVEN_CEILING, f"{broken}; no change language, so not acted on")
    return None


def hold_to_evidence(old: Fact, new: Fact, proposal: Decision, construction: str | None = None) -> Decision:
    """The proposal, kept only as confident as its evidence allows. `construction`: change evidence
    the caller read from both facts together (a count replaced in the same words, a thing the old
    fact says ended said to be back), which no pattern of the new fact alone shows."""
    verdict, confidence, reason = proposal
    if verdict is Verdict.CONTRADICTS and construction and confidence > UNPROVEN_CEILING:
        if construction == reason:
            return (Verdict.CONTRADICTS, confidence, reason)
        return (Verdict.CONTRADICTS, confidence, f"{reason} (change evidence: {shown(construction)})")
    if verdict is Verdict.CONTRADICTS:
        return _hold_contradiction(old, new, confidence, reason)
    if verdict is Verdict.DUPLICATE and confidence >= ACTION_THRESHOLD:
        return _hold_duplicate(old, new, confidence, reason)
    return proposal


def _hold_contradiction(old: Fact, new: Fact, confidence: float, reason: str) -> Decision:
    evidence = change_evidence(old, new)
    if evidence:
        return (Verdict.CONTRADICTS, confidence, f"{reason} (change evidence: '{shown(evidence)}')")
    period = past_period(new) or past_period(old)
    if period and not once_only(old, new):
        return (
            Verdict.NEW_FACT,
            UNPROVEN_CEILING,
            f"a dated past period ('{quoted(period, new, old)}') is history, not a change",
        )
    if confidence <= UNPROVEN_CEILING:
        return (Verdict.CONTRADICTS, confidence, reason)
    return (
        Verdict.CONTRADICTS,
        UNPROVEN_CEILING,
        f"{reason}; no change language, and it may be a second one, so not acted on",
    )


def once_only(old: Fact, new: Fact) -> str | None:
    """An event that happens once ("born", "founded"), dated in both facts: two dates of it are
    two accounts of one event, not a past period beside a current fact."""
    shared = old.term_set & new.term_set & _ONCE_ONLY
    return sorted(shared)[0] if shared and past_period(old) and past_period(new) else None


_ONCE_ONLY = frozenset(term for word in lex.ONCE_ONLY_EVENTS for term in canon(word))


def _hold_duplicate(old: Fact, new: Fact, confidence: float, reason: str) -> Decision:
    difference = same_statement(old, new)
    if difference is None:
        return (Verdict.DUPLICATE, confidence, reason)
    if difference.startswith("one of them is negated"):
        negated_term = negated_old_value(old, new)
        if negated_term and content(old) == content(new):
            negated_shown = said([negated_term], new, old)
            return (Verdict.CONTRADICTS, 0.88, f"the new fact negates the old one ('{negated_shown}')")
        return (Verdict.CONTRADICTS, 0.7, f"{shown(difference)}: never a duplicate")
    return (Verdict.CONTRADICTS, 0.7, f"{shown(difference)}: never a duplicate; no change language")
