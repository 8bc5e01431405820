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
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from aurra_core.classifiers.rules_facts import VERBS, analyze, kept_as_said
from aurra_core.classifiers.rules_wording import amounts_shown
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.slots import (
    CHANGE,
    LIGHT_STEMS,
    Slot,
    about_someone_named,
    names,
    same_attribute,
    slots_of,
    subject_of,
)
from aurra_core.text_analysis.text import ORDINAL_WORDS, canon, normalize

CONFIDENCE = 0.9
# Said in the reason of a new value given without its name ("on 1.30 now", "on the 06:48 now"),
# which the classifier acts on only when one candidate has such a value (rules.py)
SAID_ALONE = ", the new value said on its own"
_WIDE_PLACES = frozenset(lex.COUNTRIES) | frozenset(lex.REGIONS)
# Kinds of tools and things someone uses one of for a purpose (text_analysis/kinds.py): a switch
# of one of these replaces the old one. Not places, languages, food, people or hobbies, which
# people have several of.
_TOOL_KINDS = frozenset(
    """accounting_software ai_assistant browser calendar cloud cloud_storage code_hosting crm
    database design_tool editor email fitness_app food_tracker framework maps messaging monitoring
    music_streaming notes office_docs operating_system package_manager password_manager phone
    search_engine shell test_framework tracker video_call vpn wearable computer car telecom
    bank instrument task_manager helpdesk website_platform music_production cad video_editor
    budgeting_app newsletter_tool energy_supplier meal_kit gym""".split()
)
_NEEDS_CHANGE = frozenset({"day", "time", "place"})


def _union(patterns: list[str]) -> re.Pattern[str]:
    return regex_programs.compile("|".join(f"(?:{p})" for p in patterns))


_HEDGED = _union(lex.HEDGES)
_ADDITIVE = _union(lex.ADDITIVE)
_PAST = _union(lex.PAST_PERIOD + lex.HISTORICAL)
_TEMPORARY = _union(lex.TEMPORARY)
_NEGATED = regex_programs.compile(r"\b(?:not|no|never|nolonger|none|without|n't|cannot)\b|n't\b")
_REVERTED = regex_programs.compile(r"\b(?:went back|back to|returned to|reverted)\b")


@dataclass(frozen=True)
class _Mood:
    """What of a fact's wording keeps it from being change evidence, read once a text: each
    text is compared with several others (a new fact with each candidate, a memory with each
    later fact of its scope) and each detector below asks the same questions."""

    hedged: bool
    additive: bool
    past: bool
    negated: bool
    temporary: bool
    reverted: bool
    # a thing got or given for someone else: "got their daughter an iPhone 15" is not the user's
    for_someone_else: bool = False

    @property
    def blocked(self) -> bool:
        return self.hedged or self.additive or self.past or self.negated or self.for_someone_else


# An aside to the listener ("(don't judge)", "(don't ask)", "(ugh)"): no mood of the fact's.
_ASIDE = re.compile(
    r"\((?:do not|never) (?:judge|ask|laugh|tell)[^)]*\)|\((?:ugh|lol|haha|sigh|i know)[^)]*\)"
)


_SOMEONE = (
    r"(?:their|his|her|my|our|the) (?:\w+ )?(?:son|daughter|kids?|child|children|wife|husband|partner|mum|mom|"
    r"dad|mother|father|sister|brother|friend|boss|girlfriend|boyfriend|parents|family|niece|nephew|grandson|"
    r"granddaughter|grandkids)"
)
_FOR_SOMEONE_ELSE = regex_programs.compile(
    rf"\b(?:got|get|gets|bought|buy|buys|gave|give|gives|gifted|ordered|picked up) {_SOMEONE} "
    rf"(?:a|an|the|some|one|two|new|their|his|her|my)\b|\bfor {_SOMEONE}\b"
)


@lru_cache(maxsize=8192)
def _mood(norm: str) -> _Mood:
    norm = _ASIDE.sub(" ", norm)
    return _Mood(
        hedged=bool(_HEDGED.search(norm)),
        additive=bool(_ADDITIVE.search(norm)),
        past=bool(_PAST.search(norm)),
        negated=bool(_NEGATED.search(norm)),
        temporary=bool(_TEMPORARY.search(norm)),
        reverted=bool(_REVERTED.search(norm)),
        for_someone_else=bool(_FOR_SOMEONE_ELSE.search(norm)),
    )


def _blocked(norm: str) -> bool:
    return _mood(norm).blocked


# A word that limits what the clause before it says: "..., but only on Fridays", "..., until June"
_LIMITS = regex_programs.compile(
    r"\b(?:but|though|although|except|only|until|till|unless|if|when|whenever|maybe|still|either|or)\b|\?|"
    # a second statement of one's own: "..., and I do a short one on Sundays"
    r"^(?:and|plus)\b|\b(?:i|i'm|i've|i'll|we|we're|we've|we'll)\b"
)


def limits_what_it_follows(text: str) -> bool:
    """Whether a clause after a statement may change its mood or its reach: a hedge, an addition,
    a past, a negation, a while, a turn back, someone else, or a word that limits (rules v37)."""
    mood = _mood(normalize(text))
    return mood.blocked or mood.temporary or mood.reverted or bool(_LIMITS.search(text.lower()))


def _said_plainly(old_norm: str, new_norm: str) -> bool:
    """The new fact says its value holds now (not hedged, additive, past, negated, for a while
    or reverted), and the old one stated its own as it was (not hedged, past or negated)."""
    mood, old_mood = _mood(new_norm), _mood(old_norm)
    return not (
        mood.blocked
        or mood.temporary
        or mood.reverted
        or old_mood.hedged
        or old_mood.past
        or old_mood.negated
    )


def _evidence(
    old: Slot, new: Slot, changed: bool, same_owner: bool = False, one_version: bool = False
) -> bool:
    if old.kind != new.kind or old.value == new.value:
        return False
    if (
        old.kind == "version"
        and old.unit
        and old.unit == new.unit
        and old.subject == new.subject
        and one_version
    ):
        # "backend is Django 3.2" -> "Django 5.1 and Python 3.12": what is versioned is the slot,
        # whatever else each sentence says, when each names one version of it; not when both
        # say what runs it and share no word of it ("backend", "admin service": two systems)
        # A version is dotted ("3.2") or of a known thing ("iOS 18"): "UA 857" -> "UA 858" are two flights
        # ("Lightroom Classic 12": the known thing is a word of the slot, "classic" its unit)
        versioned = (
            "." in old.value + new.value
            or _known_thing(old.unit)
            or any(_known_thing(word) for word in old.attribute & new.attribute)
        )
        old_what, new_what = old.attribute - _RUNS_ON - _EVERYWHERE, new.attribute - _RUNS_ON - _EVERYWHERE
        if versioned and not (old_what and new_what and not old_what & new_what):
            return True
    if old.kind in _NEEDS_CHANGE and not changed:
        return False
    if old.kind == "place" and (old.value in _WIDE_PLACES or new.value in _WIDE_PLACES):
        return False  # "lives in Spain" -> "moved to Valencia": the city may be in the country
    return same_attribute(old, new, changed=changed, same_owner=same_owner)


# Words before a thing that are no qualifier of it: articles, possessives, words of when,
# verbs and prepositions
_NO_QUALIFIER = frozenset(
    """a an the my our their his her its this that new old same one other another different current
    previous latest first whole entire switched changed moved swapped migrated upgraded replaced
    ditched dropped left quit is are was were has have uses use using on in at with to from
    for""".split()
)


def qualified_apart(old_raw: str, new_raw: str, stem: str, named: str = "") -> bool:
    """The word before the thing (`stem`) differs in the two facts and is no article or
    possessive: "car insurance" / "home insurance", "main DB" / "analytics DB", "backend
    engineers" / "frontend engineers": another one of a kind. Not when that word is what a
    switch names (`named`: "moved over to lead the search team"): then it is the new value,
    not which one of two."""

    def before(raw: str) -> str | None:
        found = re.search(rf"(?i)\b([a-z]+) {re.escape(stem)}\w*", raw)
        return found.group(1).lower() if found else None

    old_word, new_word = before(old_raw), before(new_raw)
    return bool(
        old_word
        and new_word
        and old_word != new_word
        and not {old_word, new_word} & (_NO_QUALIFIER | VERBS)
        and old_word not in new_raw.lower()
        and new_word not in old_raw.lower()
        and new_word not in named.lower().split()
    )


# The verbs of running a version, which say nothing of what runs it.
_RUNS_ON = frozenset({"run", "use", "deploy", "build", "ship", "host", "serv"})
# Words of how far a version reaches, not of what runs it: "on PG 16.4 everywhere" is the one
# database of "on Postgres 13 on RDS", not a second one
_EVERYWHERE = frozenset(canon(word)[0] for word in "everywhere throughout across incl including".split())


def _known_thing(name: str) -> bool:
    from aurra_core.text_analysis import kinds

    return bool(kinds.kinds_of(name))


_OWNER = re.compile(r"^(?:the\s+)?user(?:'s\s+(\w+))?\b", re.IGNORECASE)


def _owner(text: str) -> str | None:
    """Whose the fact is, as written: "" for "User ...", "team" for "User's team ..."."""
    found = _OWNER.match(text.strip())
    return (found.group(1) or "").lower() if found else None


# A running total: what has been done so far, which only grows ("has read", "so far", "in total").
_RUNNING_TOTAL = regex_programs.compile(
    r"\b(?:has|have|'ve|had)\s+(?:now\s+|already\s+|just\s+|since\s+)?(?:read|visited|finished|"
    r"completed|run|ran|climbed|written|published|watched|seen|been to|won|played|collected|saved|"
    r"raised|donated|sold|hiked|attended|taken|passed|earned|logged|reached|hit|made|done|"
    r"traveled|travelled|owned|met|learned|learnt|finished reading)\b|\bso far\b|\bin total\b|"
    r"\btotal of\b|\bto date\b|\balready\b|\bstreak\b|\bin a row\b"
)
# "up to 40 books": so far; "putting the rent up to 1,975", "bumped it up to 12": raised to
_UP_TO = regex_programs.compile(r"\bup to\b")
_RAISED_UP_TO = regex_programs.compile(
    r"\b(?:put|puts|putting|went|go|goes|going|gone|bump\w*|rais\w*|push\w*|jump\w*|increas\w*|hik\w*|"
    r"bring\w*|brought|mov\w*)\b(?: \S+){0,3}? up to\b"
)


def running_total(text: str) -> bool:
    """Whether the text counts what has been done so far, which only grows."""
    lower = text.lower()
    return bool(_RUNNING_TOTAL.search(lower) or (_UP_TO.search(lower) and not _RAISED_UP_TO.search(lower)))


def _number(value: str) -> float | None:
    try:
        return float(value.split("_")[-1].replace(",", "").replace("p", "."))  # money_0p14
    except ValueError:
        return None


def grew(old_value: str, new_value: str) -> bool:
    """Whether the new number ("4", "money_2300") is larger than the old one."""
    before, after = _number(old_value), _number(new_value)
    return before is not None and after is not None and after > before


def _grew(old: Slot, new: Slot) -> bool:
    return grew(old.value, new.value)


def _dated(norm: str) -> set[str]:
    return {token for token in norm.split() if token.startswith(("month_", "year_", "date_"))}


def _older(new_value: str, old_value: str) -> bool:
    """Whether a dotted version is older than another ("6.1" than "7.0")."""
    try:
        return tuple(map(int, new_value.split("."))) < tuple(map(int, old_value.split(".")))
    except ValueError:
        return False


_FOR_NOW = regex_programs.compile(r"(?i)\b(?:at the moment|right now|for now|at present|currently)\b")


def value_swap(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact puts another value of the same kind in the old
    fact's slot; None otherwise."""
    old_slots, new_slots = slots_of(old_text), slots_of(new_text)
    if not old_slots or not new_slots:
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    new_mood = _mood(new_norm)
    if new_mood.blocked or _blocked(old_norm) or new_mood.temporary or new_mood.reverted:
        return None
    # a year that is a version's number ("Revit 2022", "Office 2016") dates nothing
    old_years = {f"year_{s.value}" for s in old_slots if s.kind == "version"}
    new_years = {f"year_{s.value}" for s in new_slots if s.kind == "version"}
    if _dated(old_norm) - old_years != _dated(new_norm) - new_years:
        return None  # "donated $500 in March", "$300 in November": two events, both true
    kinds_held = {(s.kind, s.value) for s in old_slots}
    if any((s.kind, s.value) in kinds_held for s in new_slots):
        return None  # the old value is said again: a restatement or a narrowing, not a swap
    # the old value said to hold for now ("4 students at the moment"): a value given it later is its
    # change, said or not
    changed = bool(CHANGE.search(new_text) or _FOR_NOW.search(old_text))
    old_owner = _owner(old_text)
    # a number said alone of the user in person ("User is 34 now") is an age, not a count of theirs
    same_owner = bool(old_owner) and old_owner == _owner(new_text)
    days_old = {s.value for s in old_slots if s.kind == "day"}
    days_new = {s.value for s in new_slots if s.kind == "day"}
    running = running_total(new_text) or running_total(old_text)
    versions = Counter(s.unit for s in (*old_slots, *new_slots) if s.kind == "version")
    # every version the old fact names is given another: replacing it retires none of them
    all_versions = {s.unit for s in old_slots if s.kind == "version"} <= {
        s.unit for s in new_slots if s.kind == "version"
    }
    given = [
        (old.value, new.value)
        for new in new_slots
        for old in old_slots
        if old.kind == new.kind == "version" and old.unit == new.unit and old.value != new.value
    ]
    if any(_older(n, o) for o, n in given) and any(_older(o, n) for o, n in given):
        return None  # "rails 7.0 on ruby 3.1" -> "ruby 3.3 + rails 6.1": one older, so another app's
    units = Counter(s.unit for s in old_slots if s.kind == "count")
    # "apartment in Berlin costs 900" -> "apartment in Lisbon costs 1200": each value of its own
    # place, two things, unless the new fact says the value changed
    old_places = {s.value for s in old_slots if s.kind == "place"}
    new_places = {s.value for s in new_slots if s.kind == "place"}
    elsewhere = bool(old_places and new_places and not old_places & new_places and not changed)
    for new in new_slots:
        for old in old_slots:
            if elsewhere and new.kind != "place":
                continue
            if old.kind == "version" and any(
                qualified_apart(old_text, new_text, term)
                for term in (old.attribute & new.attribute) - _RUNS_ON
            ):
                continue  # "main DB" on Postgres 13, "analytics DB" on 16: each its own version
            if running and new.kind in ("count", "amount") and _grew(old, new):
                continue
            if old.kind == "count" and units[old.unit] > 1 and not new.attribute:
                continue  # "2 dogs at home and 3 at the shelter": which count "4 dogs now" is, is not said
            if new.kind == "time" and days_new != days_old:
                continue  # "closes at 8pm on Fridays": a time of certain days, beside the other
            if _evidence(old, new, changed, same_owner, one_version=versions[old.unit] == 2 and all_versions):
                return (
                    CONFIDENCE,
                    f"the same slot ({new.subject}: {' '.join(sorted(new.attribute)) or new.unit or new.kind}) "
                    f"holds another {new.kind}: {new.value} in place of {old.value}",
                )
    return None


# ------------------------------------------------------------------------- tool switches

# The new fact says it moved from one thing to another: "switched to", "is switching to",
# "migrating to", "moved everything over to", "ditched X for", "replaced X with". Not "now"
# alone: "now takes notes in Obsidian" may be a second tool, and stays below the threshold.
_SWITCHED = regex_programs.compile(
    r"\b(?:switch(?:ed|es|ing)? (?:over )?(?:to|from)|made the switch to|migrat(?:ed|es|ing) (?:\w+ ){0,2}?to|"
    r"mov(?:ed|es|ing) to|mov(?:ed|es|ing) (?:everything|everyone|everybody|it all|all of it|us|them|the whole \w+) "
    r"(?:on)?to|"
    # "exported everything out of Notion into Obsidian"
    r"export(?:ed|ing) (?:everything|it all|all of it|all (?:my|our|their) \w+) (?:out of|from) \w+(?: \w+)? (?:in)?to|"
    r"mov(?:ed|es|ing) (?:\w+ ){0,3}?over to|mov(?:ed|es|ing) off(?: of)? \w+(?: \w+)? (?:to|for)|"
    r"ditch(?:ed|es|ing) \w+(?: \w+)? for|"
    r"replac(?:ed|es|ing) \w+(?: \w+)? with|dropp(?:ed|ing) \w+(?: \w+)? for|swapp(?:ed|ing) \w+(?: \w+)? for|"
    r"swapp(?:ed|ing) (?:over )?to|"
    r"trad(?:ed|ing) \w+(?: \w+)? for|went with|changed to|ripped out \w+(?: \w+)? (?:and|for)|"
    r"settled on|opted for|jumped ship to|made the (?:jump|leap) to|(?:gone|went) over to)\b"
)
# Where the old thing is named as the one left: "from X", "ditched X for", "replaced X with".
_LEFT = regex_programs.compile(
    r"\b(?:from|out of|ditch(?:ed|es|ing)|replac(?:ed|es|ing)|dropp(?:ed|ing)|swapp(?:ed|ing)|"
    r"trad(?:ed|ing)|left|instead of|rather than|no longer|not|over)\s+(?:the\s+|their\s+|its\s+)?$"
)


def _things(text: str) -> dict[str, dict[str, int]]:
    """Each kind the text names (text_analysis/kinds.py), with the phrases that name it and
    where each starts (a word index)."""
    from aurra_core.text_analysis import kinds
    from aurra_core.text_analysis.kinds_index import INDEX

    words = kinds._words(text)
    spans = []
    for start in range(len(words)):
        for length in range(1, kinds._LONGEST_PHRASE + 1):
            if start + length > len(words):
                break
            phrase = " ".join(words[start : start + length])
            if phrase in INDEX:
                spans.append((start, start + length, phrase))
    by_start: dict[int, list[tuple[int, str]]] = {}
    for start, end, phrase in spans:
        by_start.setdefault(start, []).append((end, phrase))
    found: dict[str, dict[str, int]] = {}
    for start, end, phrase in spans:
        # a phrase that holds this one starts at most as many words before it as a phrase is long
        holders = (
            longer
            for s in range(max(0, start - kinds._LONGEST_PHRASE + 1), start + 1)
            for e, longer in by_start.get(s, ())
            if end <= e and (s, e) != (start, end)
        )
        if any(not set(INDEX[phrase]) <= set(INDEX[longer]) for longer in holders):
            continue  # "github" inside "github actions": the longer name is of another kind, and named
        for kind in INDEX[phrase]:
            found.setdefault(kind, {}).setdefault(phrase, start)
    return found


def _named_as_left(text: str, phrase: str) -> bool:
    """The phrase is named as the thing left ("switched from Vim to Emacs": Vim)."""
    from aurra_core.text_analysis import kinds

    words = kinds._words(text)
    target = phrase.split()
    for start in range(len(words) - len(target) + 1):
        if words[start : start + len(target)] == target:
            return bool(_LEFT.search(" ".join(words[:start]) + " "))
    return False


# A thing named as what a sum is for ("phone bill is 45 a month", "User's phone is 45"): a bill, not
# the thing itself, so a switch to another one ("switched to an iPhone 16") does not replace it. A
# number right after a name is its version ("MySQL 5.7"), unless a period follows it.
_BILLED = frozenset({"bill", "bills", "payment", "payments", "contract"})
_PERIODS = frozenset({"a", "month", "monthly", "per", "week", "weekly", "year", "yearly", "mo"})


def _a_sums_label(text: str, phrase: str, start: int) -> bool:
    from aurra_core.text_analysis import kinds

    after = kinds._words(text)[start + len(phrase.split()) :][:3]
    if not after:
        return False
    if after[0] in _BILLED:
        return True
    if after[0] in {"is", "are"}:
        return len(after) > 1 and after[1].isdigit()
    return after[0].isdigit() and len(after) > 1 and after[1] in _PERIODS


def tool_switch(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says its subject switched to another thing of a
    kind the old fact names for the same subject: "User keeps their passwords in LastPass" ->
    "User is switching to 1Password", "User's team uses Jira" -> "User's team moved everything
    over to Linear". None otherwise."""
    if not _SWITCHED.search(new_text.lower()):
        return None
    old_subject, new_subject = subject_of(old_text), subject_of(new_text)
    if not (old_subject and old_subject == new_subject) and not _same_person(old_text, new_text):
        return None  # "User's daughter Saanvi takes violin" -> "So Saanvi swapped to cello": hers
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    old_mood, new_mood = _mood(old_norm), _mood(new_norm)
    if new_mood.blocked or old_mood.hedged or old_mood.past or new_mood.reverted:
        return None
    if old_mood.negated:
        return None
    old_things, new_things = _things(old_text), _things(new_text)
    for kind in sorted(old_things.keys() & new_things.keys()):
        if kind not in _TOOL_KINDS:
            continue
        olds = {p for p, at in old_things[kind].items() if not _a_sums_label(old_text, p, at)}
        news = set(new_things[kind])
        added = {p for p in news - olds if not _named_as_left(new_text, p)}
        kept = {p for p in olds & news if not _named_as_left(new_text, p)}
        if added and not kept and olds - set(added):
            return (
                CONFIDENCE,
                f"switched to another {kind.replace('_', ' ')}: {sorted(added)[0]} in place of {sorted(olds)[0]}",
            )
    return None


# Kinds a person or a team has one of at a time: books kept in one accounting package, one
# phone, one mobile carrier, one gym, one energy supplier, one tracker or helpdesk for a team,
# one site platform for a blog. A second one said with "now" replaces the first.
_ONE_AT_A_TIME = frozenset(
    """accounting_software crm telecom music_streaming vpn search_engine shell wearable phone
    calendar fitness_app food_tracker gym energy_supplier task_manager tracker helpdesk website_platform
    budgeting_app newsletter_tool password_manager music_production cad video_editor
    meal_kit""".split()
)
# Words that name such a kind rather than one of its things
_KIND_WORDS = (
    "bookkeeping accounting accounting-software crm phone phones smartphone cellphone mobile "
    "mobile-phone calendar vpn shell terminal watch smartwatch music music-streaming streaming "
    "search search-engine carrier network fitness-app gym gyms gym-membership fitness-club health-club "
    "leisure-centre climbing-gym bouldering-gym energy-supplier energy-provider electricity-supplier "
    "gas-supplier task-manager to-do-list todo-list todo-app issue-tracker tracker project-management "
    "ticketing tickets helpdesk help-desk support-desk ticketing-system blog-platform website-builder cms "
    "budgeting-app budget-app newsletter-tool password-manager daw video-editor meal-kit"
)


@lru_cache(maxsize=1)
def _kind_words() -> frozenset[str]:
    """`_KIND_WORDS` as `_things` gives its phrases ("energy supplier" whole, as one phrase)."""
    from aurra_core.text_analysis import kinds

    return frozenset(" ".join(kinds._words(name.replace("-", " "))) for name in _KIND_WORDS.split())


# "is on Xero since 1 July": the day the new one began
_SINCE_WHEN = regex_programs.compile(
    r"\bsince (?:the )?(?:\d{1,2}(?:st|nd|rd|th)? )?(?:of )?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
    r"\bsince (?:last|this) (?:week|month|year|spring|summer|autumn|fall|winter)\b"
)
# a purpose of its own: "uses HubSpot for the newsletter now" may be a second one
_FOR_A_PURPOSE = regex_programs.compile(
    r"\bfor (?:the |my |our |their |his |her |a |an )?(?!now\b|good\b)[a-z]+"
)


# "ended up getting the iPhone 15 Pro", "got the Pixel 9": one of a kind held one at a time,
# acquired, is in place of the one before; a second one for another use is not
_ACQUIRED_WORDS = (
    r"got|bought|ended up (?:getting|buying|with)|picked up|upgraded to|treated (?:myself|themselves) to"
)
_ACQUIRED = regex_programs.compile(rf"\b(?:{_ACQUIRED_WORDS})\b")
_DEVICES = frozenset({"phone", "wearable"})  # got a new one: the old one is put away; not so an app
_ANOTHER_USE = regex_programs.compile(
    r"\b(?:work|personal|spare|backup|second|old|burner|kids?'?s?|son'?s?|daughter'?s?|wife'?s?|husband'?s?|"
    r"partner'?s?|mum'?s?|mom'?s?|dad'?s?)\s+(?:phone|watch|number|line|account)\b"
)


def _said_by_the_user_of_their_own(old_text: str, new_text: str) -> bool:
    """The old memory is the user's words about their own world ("User said: bookkeeping is in
    QuickBooks Online"), and the new fact is about the user."""
    return (
        kept_as_said(analyze(old_text))
        and not about_someone_named(old_text)
        and subject_of(new_text) == "user"
        and _owner(new_text) == ""
    )


def one_at_a_time(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says the subject now has another thing of a kind
    held one at a time (`_ONE_AT_A_TIME`) than the old fact names: "User does the books in
    QuickBooks" -> "User is on Xero since 1 July". None otherwise."""
    new_lower = new_text.lower()
    if not (CHANGE.search(new_lower) or _SINCE_WHEN.search(new_lower)):
        # "joined The Gym Group": one gym joined is the one trained at, as one phone got is
        # the one carried
        return _another_of_a_kind(old_text, new_text, _JOINED_ONES) if _JOINED.search(new_lower) else None
    return _another_of_a_kind(old_text, new_text, _ONE_AT_A_TIME)


_JOINED = regex_programs.compile(r"\b(?:joined|signed up (?:at|with|to|for)|got a membership (?:at|with))\b")
_JOINED_ONES = frozenset({"gym"})


def _another_of_a_kind(old_text: str, new_text: str, kinds: frozenset[str]) -> tuple[float, str] | None:
    """(confidence, reason) when the two facts name one thing each of one of `kinds`, two
    different ones, and the new fact is said plainly of the same subject; the caller has read
    the new fact as a change or as one got."""
    if _FOR_A_PURPOSE.search(new_text.lower()):
        return None
    if not (_same_whom(old_text, new_text) or _said_by_the_user_of_their_own(old_text, new_text)):
        return None
    old_mood, new_mood = _mood(normalize(old_text)), _mood(normalize(new_text))
    if new_mood.blocked or new_mood.additive or new_mood.reverted or old_mood.hedged or old_mood.past:
        return None
    if old_mood.negated:
        return None
    old_things, new_things = _things(old_text), _things(new_text)
    for kind in sorted(old_things.keys() & new_things.keys() & kinds):
        olds = {phrase for phrase in old_things[kind] if phrase not in _kind_words()}
        news = {phrase for phrase in new_things[kind] if phrase not in _kind_words()}
        if (
            len(olds) == 1
            and len(news) == 1
            and not olds & news
            and not any(names(new_text, o) for o in olds)
        ):
            new_said, old_said = _as_written(new_text, min(news)), _as_written(old_text, min(olds))
            return (
                CONFIDENCE,
                f"another {kind.replace('_', ' ')} (one at a time): {new_said} in place of {old_said}",
            )
    return None


# A model of a device a person carries one of, by its line and number: "iPhone 11", "Pixel 9",
# "Galaxy S23 Ultra", "Apple Watch Series 7"; a new one said by its number alone ("the 15 Pro")
# is of the line of the one it replaces
_DEVICE_LINE = (
    r"iphone|pixel|galaxy (?:s|z fold|z flip|a|note)|galaxy|oneplus|xperia|moto g|redmi note|redmi|"
    r"apple watch(?: series| ultra| se)?|fitbit (?:charge|versa|sense)|garmin (?:forerunner|fenix|venu)"
)
_DEVICE = regex_programs.compile(
    rf"(?i)\b(?P<line>{_DEVICE_LINE}) ?(?P<number>\d{{1,3}}[a-z]?)\b(?: (?P<tier>pro max|pro|max|mini|plus|ultra|lite|fe|xl|a))?"
)
_DEVICE_NUMBER = regex_programs.compile(
    r"(?i)\b(?:the|a|an|my) (?P<number>\d{1,3}[a-z]?)(?: (?P<tier>pro max|pro|max|mini|plus|ultra|lite|fe|xl))\b"
)
# Lines of phones: one phone in place of another, whoever made either
_PHONE_MAKERS = frozenset({"iphone", "pixel", "galaxy", "oneplus", "xperia", "moto", "redmi"})
# acquired, or had now: "got the 15 Pro", "went with the Pixel 9", "has got the 15 Pro now"
_DEVICE_ACQUIRED = regex_programs.compile(
    rf"(?i)\b(?:{_ACQUIRED_WORDS}|went (?:for|with)|switched to|"
    r"(?:has|have) (?:got )?(?:a |an |the )?(?:new )?\S+(?: \S+)? now)\b"
)
# one weighed, never had: "was eyeing the Pixel 8 too"
_ONLY_WEIGHED = regex_programs.compile(
    r"(?i)\b(?:eye|eyes|eyed|eyeing|consider|considers|considering|looking at|thinking|wants?|wanted|tempted|"
    r"comparing|compares?|torn between|deciding)\b"
)
# The user's car traded in for another, the old one named by its kind: "traded the old car in for"
_TRADED_IN = regex_programs.compile(
    r"(?i)\btraded (?:in )?(?:the|my|their|our|his|her) (?:old )?(?:car|vehicle|motor|truck|van|ride)(?: in)? for\b"
)
# A vehicle by its model year and model: "a 2015 Nissan Leaf", "2011 Silverado 2500"
_MODEL_YEAR = regex_programs.compile(
    r"\b(?P<year>(?:19|20)\d\d) (?P<name>(?-i:[A-Z][\w.-]*)(?: (?-i:[A-Z][\w.-]*))?)"
)


def _names_a_car(text: str) -> bool:
    from aurra_core.text_analysis import kinds

    return "car" in kinds.kinds_of(text)


def _devices(text: str) -> set[tuple[str, str]]:
    """(line, number) of each phone or watch the text names by its model."""
    return {(m.group("line").lower(), m.group("number").lower()) for m in _DEVICE.finditer(text)}


def _model_years(text: str) -> set[tuple[str, str]]:
    """(model, year) of each vehicle the text names by its year: the model is the name's last word."""
    return {(m.group("name").split()[-1].lower(), m.group("year")) for m in _MODEL_YEAR.finditer(text)}


def _the_users_own_thing(old_text: str, new_text: str, names: set[str]) -> bool:
    """Both facts are the user's (or of the thing itself: "User's iPhone 11 battery is at 74%
    health", "User's 2011 Silverado has 240k on it"), and neither is about someone named."""
    for text in (old_text, new_text):
        owner = _owner(text) or ""
        if owner not in ("", "phone", *names) and not owner.isdigit():
            return False
    return not (about_someone_named(old_text) or about_someone_named(new_text))


def device_upgrade(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact names the one phone, watch or car the user has and
    the new one says they got another: "User has a Fitbit" -> "User got a Garmin" (named by its
    maker), "User's iPhone 11 battery is at 74% health" -> "User got the 15 Pro in the end" (by
    its model, a phone of any line in place of a phone), "User drives a 2015 Nissan Leaf" ->
    "User picked up a 2023 Leaf e+" (the same model, another year), "User drives a 2012
    Corolla" -> "User traded the old car in for a RAV4 hybrid". Not someone else's, one only
    weighed, a second one for another use, or something for it."""
    if _TRADED_IN.search(new_text) and _names_a_car(old_text) and not _ONLY_WEIGHED.search(old_text):
        if not _the_users_own_thing(old_text, new_text, {"car"}) or not _said_plainly(
            normalize(old_text), normalize(new_text)
        ):
            return None
        return (CONFIDENCE, "the car the old fact names was traded in for another")
    if not _DEVICE_ACQUIRED.search(new_text) or _ANOTHER_USE.search(new_text.lower()):
        return None
    by_model = _another_model(old_text, new_text)
    if by_model is None and _ACQUIRED.search(new_text.lower()):
        return _another_of_a_kind(old_text, new_text, _DEVICES)
    return by_model


def _another_model(old_text: str, new_text: str) -> tuple[float, str] | None:
    """`device_upgrade` of a phone, a watch or a car named by its model number or year."""
    if _ONLY_WEIGHED.search(old_text) or not _said_plainly(normalize(old_text), normalize(new_text)):
        return None
    devices = _devices(old_text)
    if devices:
        if len(devices) != 1:
            return None
        ((line, number),) = devices
        if not _the_users_own_thing(old_text, new_text, {line.split()[0]}):
            return None
        got = _devices(new_text) or {
            (line, m.group("number").lower()) for m in _DEVICE_NUMBER.finditer(new_text)
        }
        if len(got) != 1 or got == devices:
            return None
        ((new_line, new_number),) = got
        phones = {new_line.split()[0], line.split()[0]} <= _PHONE_MAKERS
        if new_line != line and not phones:
            return None
        return (
            CONFIDENCE,
            f"another device got in place of the one the old fact names: {new_line} {new_number} in place of {line} {number}",
        )
    vehicles = _model_years(old_text)
    if len(vehicles) != 1:
        return None
    ((model, year),) = vehicles
    if not _the_users_own_thing(old_text, new_text, {model}):
        return None
    later = {(name, when) for name, when in _model_years(new_text) if name == model}
    if len(later) != 1 or later == vehicles:
        return None
    ((_, new_year),) = later
    return (
        CONFIDENCE,
        f"another of the same model, from another year: the {new_year} {model} in place of the {year}",
    )


def _as_written(text: str, phrase: str) -> str:
    """A phrase of `_things` (its words' stems, "appl music") as the text writes it ("Apple Music")."""
    pattern = r"\s+".join(rf"{re.escape(word)}[\w'.+-]*" for word in phrase.split())
    found = re.search(rf"(?<![\w-]){pattern}", text, re.IGNORECASE)
    return found.group(0) if found else phrase


# A name the new fact says was left: "ripped out Airflow", "switched from Slack", "left Google".
_LEFT_NAME = re.compile(
    # "from" only after a word of change: "switched from Slack", "moved everything over from
    # Jira"; not "is from Berlin", "got back from Berlin", "ordered a coat from Zalando"
    r"\b(?:(?:switch|mov|migrat|chang|convert|transition|upgrad|downgrad|relocat|port)(?:ed|es|ing|e|s)?"
    r"(?: [\w-]+){0,3}? from|ditch(?:ed|es|ing)|ripped out|rip(?:ping)? out|replac(?:ed|es|ing)|dropp(?:ed|ing)|"
    r"got rid of|mov(?:ed|es|ing) (?:\w+ )?(?:away )?off(?: of)?|migrat(?:ed|ing) off(?: of)?|left|quit|"
    r"stopped using|gave up|swapp(?:ed|ing)|trad(?:ed|ing) in|instead of|no longer (?:use|uses|on|at)|"
    r"(?P<out>withdr(?:ew|awn|aws?) from|pull(?:ed|ing) out of|dropp(?:ed|ing) out of))"
    r"\s+(?:the\s+|their\s+|our\s+|my\s+|his\s+|her\s+)?(?P<name>[A-Z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*)*)"
)


_HOME = regex_programs.compile(r"(?i)\b(?:lives?|living|based|located|resides?|moved) in\b")
_PASSED_OVER_NAME = regex_programs.compile(lex.PASSED_OVER + r"(?:the\s+)?([A-Z][\w.+#-]*)")


def named_switch(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says its subject left a thing the old fact names
    as theirs ("User's team uses Airflow" -> "User's team ripped out Airflow and went with
    Dagster", "User works at Google" -> "User left Google"): the old fact is no longer true,
    whatever kind of thing it is. None otherwise, or when the old fact itself names it as left."""
    old_subject, new_subject = subject_of(old_text), subject_of(new_text)
    if not old_subject or old_subject != new_subject:
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    old_mood, new_mood = _mood(old_norm), _mood(new_norm)
    if new_mood.hedged or new_mood.past or new_mood.reverted:
        return None
    if old_mood.hedged or old_mood.past or old_mood.negated:
        return None
    if new_mood.additive or PART_DONE.search(new_text.lower()):
        return None  # "about halfway through moving CI from Jenkins": Jenkins still runs the rest
    left_in_old = {m.group("name").lower() for m in _LEFT_NAME.finditer(old_text)}
    # what the old fact names only as passed over: "uses Linux rather than Windows"
    left_in_old |= {m.group(1).lower() for m in _PASSED_OVER_NAME.finditer(old_text)}
    for match in _LEFT_NAME.finditer(new_text):
        name = match.group("name")
        if match.group("out") and _HOME.search(old_text):
            continue  # one withdraws from a race or a course, not from the city one lives in
        if new_text[match.end() :].startswith(("'s", "\u2019s")):
            continue  # "swapped the Trek's saddle for a Brooks one": a part of it, the Trek kept
        if name.lower() in left_in_old or name in ("I", "User"):
            continue
        if re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", old_text, re.IGNORECASE):
            return (CONFIDENCE, f"the new fact says {name} was left, and the old one is about it")
    return None


# ------------------------------------------------------------------------- rank changes

# The rank words of a job title: what a promotion changes ("junior developer" -> "senior
# developer", "assistant manager" -> "store manager").
_RANKS = frozenset(
    """junior senior staff principal lead head chief assistant associate deputy store area regional
    general executive trainee intern charge sous mid-level""".split()
)
# One job by other names: a line cook and a sous chef work one job at two ranks
_SAME_JOB = {"cook": "chef", "dev": "developer", "programmer": "developer", "swe": "engineer"}
_JOBS = (frozenset(lex.ROLE_NOUNS) | frozenset(_SAME_JOB)) - _RANKS
# a job or a rank, as one alternation of the expressions below
_TITLE_WORDS = "|".join(sorted(lex.ROLE_NOUNS | _RANKS))
_TITLE = regex_programs.compile(
    r"(?:\b(?:is|as|got|became|promoted to|made|now|i'm|im|i am)|^user said:(?!(?: \w+){0,3}? promoted from)|"
    r"\bpromoted from [^,.;]{1,40}? to)"
    r"\s+(?:(?:officially|finally|now) )?(?:a |an |the )?(?P<ranks>(?:[a-z-]+ ){1,3}?)"
    r"(?:(?P<field>[a-z]+) )?(?P<job>" + "|".join(sorted(_JOBS)) + r")\b"
)


# A rank said on its own, as a title is said in chat ("staff as of monday", "promoted to senior!",
# "guess who's officially a senior now")
_RANK_ALONE = regex_programs.compile(
    r"(?:^user said:\s+|\b(?:'s|is|am|'m) (?:officially |now )?(?:a |an )?)(?:(?:got )?promoted to |made )?"
    r"(" + "|".join(sorted(_RANKS)) + r")\b(?:\s+(?:now|as of|since|from|starting)\b|\W*$)"
)


# Any title, ranked or not ("is a software engineer", "works as a line cook")
_ANY_TITLE = regex_programs.compile(
    r"\b(?:is|as)\s+(?:a |an |the )?(?P<words>(?:[a-z-]+ ){0,3}?)(?P<job>" + "|".join(sorted(_JOBS)) + r")\b"
)
# A promotion the subject got ("got promoted to sous chef", "was promoted"), not one they gave
# ("promoted two of their reports"), and partnership made ("made partner")
_PROMOTED = regex_programs.compile(
    r"\b(?:got|get|gets|getting|was|been|be|is|'s|just|finally|officially)\s+promoted\b|"
    r"\bmade (?:partner|director|principal|vp)\b|"
    # "got bumped to associate", "bumped up to team lead", "got the bump to associate professor"
    r"\b(?:(?:got |was |been )?bumped (?:me |them )?|(?:got|get|gets|getting) the bump )(?:up )?to "
    r"(?:a |an |the )?(?:[a-z-]+ )?(?:" + _TITLE_WORDS + r")\b|"
    # "promotion to audit manager went through"
    r"\bpromotion to (?:a |an |the )?(?:[a-z-]+ ){0,2}?(?:" + _TITLE_WORDS + r")\b (?:finally )?"
    r"(?:went|has gone|came|has come) through\b|"
    # a title's job got, or held for weeks: "got the head of design role", "three weeks into the
    # assistant head role"; not its interview or its advert
    r"\b(?:(?:got|landed|was given|been given|accepted|took|stepped into)\s+(?:the|a|an)|"
    r"(?:weeks?|months?|days?) into (?:the|my|their|a|an))\s+(?:[a-z-]+ ){0,3}?(?:" + _TITLE_WORDS + r")"
    r"(?: of [a-z]+(?: [a-z]+)?)? (?:role|job|position|post)\b(?! (?:interview|application|advert|opening))"
)
_HOLDS_A_ROLE = regex_programs.compile(
    r"^user (?:(?:is|works as|is working as|has been)\s+|said:\s+(?:(?:i'm|i am|im|i've been|been)\s+)?)"
    r"(?:(?:a |an |the )?(?:[a-z-]+ ){0,3}?(?:" + "|".join(sorted(lex.ROLE_NOUNS)) + r"))\b"
)


def _title(text: str) -> tuple[frozenset[str], str] | None:
    """(the rank words, the job) of the one title the text gives, or None."""
    found = [
        (
            frozenset(w for w in (m.group("ranks") + (m.group("field") or "")).split() if w in _RANKS),
            _SAME_JOB.get(m.group("job"), m.group("job")),
        )
        for m in _TITLE.finditer(text.lower())
    ]
    titles = [(ranks, job) for ranks, job in found if ranks]
    return titles[0] if len(titles) == 1 else None


def _one_role(text: str) -> bool:
    """Whether the fact names one job: "a designer at Figma and a photographer on weekends" names
    two, and a promotion in one would retire the other with it."""
    words = re.findall(r"[a-z]+", text.lower())
    jobs = sum(word in _JOBS for word in words)
    if jobs:
        return jobs == 1  # "junior analyst": one job at a rank
    # "an associate", "a senior associate": one title, its words run together
    titles = sum(
        word in lex.ROLE_NOUNS and (index == 0 or words[index - 1] not in lex.ROLE_NOUNS)
        for index, word in enumerate(words)
    )
    return titles == 1


def _same_whom(old_text: str, new_text: str) -> bool:
    """Whether both facts are about the same one: the same subject and owner as written, and,
    for a memory kept as said, as its own words say ("User said: my sister is a senior
    engineer", "User said: Nora got promoted to senior nurse": not the user)."""
    old_subject, new_subject = subject_of(old_text), subject_of(new_text)
    if not old_subject or old_subject != new_subject or _owner(old_text) != _owner(new_text):
        return False
    old_whom, new_whom = analyze(old_text).subject, analyze(new_text).subject
    return (old_whom.kind, old_whom.key, old_whom.relations) == (
        new_whom.kind,
        new_whom.key,
        new_whom.relations,
    )


def rank_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact gives the same subject the same job at another rank:
    "User is working as junior backend developer" -> "User is senior developer", "User is
    assistant manager at the Aldi" -> "User got store manager". None otherwise."""
    if not _same_whom(old_text, new_text):
        return None
    old_title, new_title = _title(old_text), _title(new_text)
    rank_alone = _RANK_ALONE.search(new_text.lower())
    if new_title is None and old_title is not None and rank_alone:
        new_title = (frozenset({rank_alone.group(1)}), old_title[1])  # "staff as of monday"
    if old_title is None and new_title is None and rank_alone and CHANGE.search(new_text.lower()):
        # "works as an analyst at KPMG" -> "is senior now": the one job, now at a rank
        unranked = [
            _SAME_JOB.get(m.group("job"), m.group("job")) for m in _ANY_TITLE.finditer(old_text.lower())
        ]
        if len(unranked) == 1 and _one_role(old_text):
            old_title, new_title = (frozenset(), unranked[0]), (frozenset({rank_alone.group(1)}), unranked[0])
    # "chef made me sous chef", "got bumped up to senior": a rank given, said as reached
    reached = (
        CHANGE.search(new_text.lower())
        or _made_a_title(new_text.lower())
        or _PROMOTED.search(new_text.lower())
    )
    if old_title is None and new_title is not None and reached:
        # "is a designer at Figma" -> "is a lead designer now", "chef made me sous chef": the job,
        # now at a rank
        unranked = [
            _SAME_JOB.get(m.group("job"), m.group("job")) for m in _ANY_TITLE.finditer(old_text.lower())
        ]
        if unranked == [new_title[1]] and _one_role(old_text):
            old_title = (frozenset(), new_title[1])
    if old_title is None or new_title is None or old_title[1] != new_title[1] or old_title[0] == new_title[0]:
        return None
    if _blocked(normalize(new_text)) or _blocked(normalize(old_text)):
        return None
    return (
        CONFIDENCE,
        f"the same job ({new_title[1]}) at another rank: {' '.join(sorted(new_title[0]))} in place of "
        f"{' '.join(sorted(old_title[0])) or 'none'}",
    )


# A grade on a pay or career ladder, or a school year: "band 5", "SDE-1", "L4", "level 3",
# "grade 7", "in Year 2". The word before the number says which ladder.
_GRADE = regex_programs.compile(
    r"\b(band|level|grade|sde|swe|ic|l|e|p|g)[ -]?(\d{1,2})\b(?![.,:]\d)(?! ?(?:%|years?|yrs?|months?|kg|km))|"
    r"\b(?:in|into|started|starting|starts|entering|entered|is|'s|now) (year) (\d{1,2})\b|"
    # "Engineer II" -> "Engineer III": a title's grade in Roman numerals
    r"\b(engineer|analyst|developer|associate|scientist|designer|consultant|specialist|technician)"
    r" (i{1,3}|iv|v|vi{1,3})\b(?!')|"
    # "in 5th grade" -> "started sixth grade": a school grade, said as an ordinal
    r"\b(\d{1,2}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"eleventh|twelfth) grade\b"
)
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8"}
# The new fact says the grade was reached: a promotion, or a word of change.
_GRADE_REACHED = regex_programs.compile(
    r"\b(?:got|gets|made|promo\w*|promoted|moved up|bumped|up to|now|effective|as of|starting|started|"
    r"officially|finally)\b"
)


def _grades(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for match in _GRADE.finditer(text.lower()):
        if match.group(7):
            ordinal = match.group(7)  # "fifth", or "5th" less its suffix
            ladder, number = "grade", str(ORDINAL_WORDS.get(ordinal) or ordinal[:-2])
        elif match.group(5):
            ladder, number = match.group(5), _ROMAN[match.group(6)]
        else:
            ladder, number = match.group(1, 2) if match.group(1) else match.group(3, 4)
        out.setdefault(ladder, set()).add(number)
    return out


def grade_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact puts the same subject at another grade of the one
    ladder the old fact names, as reached: "User is a band 5 staff nurse" -> "User got the band
    6", "User is SDE-1 at Flipkart" -> "promo came thru, SDE-2 effective april 1". None
    otherwise."""
    new_lower = new_text.lower()
    reached = _GRADE_REACHED.search(new_lower)
    first_grade = _GRADE.search(new_lower)
    if reached is None or first_grade is None:
        return None
    # the user's words of their own grade: "User said: L6 as of this cycle"
    if not (_same_whom(old_text, new_text) or _the_users_own(old_text, new_lower, first_grade)):
        return None
    old_grades, new_grades = _grades(old_text), _grades(new_text)
    if len(old_grades) != 1 or len(new_grades) != 1 or old_grades.keys() != new_grades.keys():
        return None
    ((ladder, olds),) = old_grades.items()
    news = new_grades[ladder]
    if len(olds) != 1 or len(news) != 1 or olds == news:
        return None
    if _blocked(normalize(new_text)) or _blocked(normalize(old_text)):
        return None  # "hopes to make band 6", "was band 4 in 2019"
    return (CONFIDENCE, f"the same ladder ({ladder}) at another grade: {min(news)} in place of {min(olds)}")


# Titles on one career ladder, lowest first, each rung by its names: one holds one rung at a
# time, so a higher rung reached ("is a journeyman now", "started as assistant professor") is in
# place of the old. Only titles no other sense shares: not "teacher" (a head of department still
# teaches), "resident" (of a city), "partner" (a spouse) or "master" (a degree).
_LADDERS = (
    ("apprentice", "journeyman", "master electrician|master plumber|master carpenter"),
    (
        "phd student|phd candidate|doctoral student|doctoral candidate",
        "postdoc|postdoctoral researcher|postdoctoral fellow",
        "assistant professor|assistant prof|asst prof",
        "associate professor|associate prof|assoc prof",
        "full professor|full prof",
    ),
    ("lecturer", "senior lecturer", "reader"),
    (
        "police constable|constable",
        "police sergeant|sergeant|skipper",
        "inspector",
        "chief inspector",
        "superintendent",
    ),
    (
        "student nurse",
        "staff nurse",
        "junior sister|charge nurse|senior staff nurse",
        "ward sister|ward manager",
        "matron",
    ),
    (
        "commis chef|commis|line cook",
        "chef de partie",
        "sous chef|sous-chef",
        "head chef|chef de cuisine",
        "executive chef",
    ),
    (
        "head of department|head of year",
        "assistant head|assistant principal",
        "deputy head|vice principal|deputy principal",
    ),
    ("trainee solicitor", "solicitor", "senior associate"),
    (
        "medical student",
        "junior doctor|foundation doctor|house officer",
        "specialty registrar|registrar",
        "consultant surgeon",
    ),
)
_RUNGS = {
    name: (ladder, step)
    for ladder, rungs in enumerate(_LADDERS)
    for step, names in enumerate(rungs)
    for name in names.split("|")
}
# A rung said as the subject's title: "is a journeyman", "started as assistant professor", "User
# said: 3rd yr apprentice electrician", "has been a skipper since the 6th"
_RUNG = regex_programs.compile(
    r"(?:\b(?:is|as|got|became|become|been|promoted to|(?:bumped|moved) up to|i'm|im|i am|qualified as|"
    # "they made me head chef", not "made the head chef cry"
    r"made(?: me| them| him| her)?(?! the| a | an | my| their| our| his| her))|"
    r"^user said:)\s+(?:(?:officially|finally|now|just) )?(?:(?:a|an|the|my|their) )?(?:[\w-]+ ){0,2}?"
    r"(?P<rung>" + "|".join(sorted(_RUNGS, key=len, reverse=True)) + r")\b(?!'s)"
)
# The rung said as reached, not only held
_RUNG_REACHED = regex_programs.compile(
    r"\b(?:now|got|became|promoted|made|passed|qualified|started|starting|starts|since|as of|from|"
    r"effective|officially|finally|new)\b"
)


def _rungs(text: str) -> dict[tuple[int, int], str]:
    """Each rung the text gives as a title, with the name it is said by."""
    return {_RUNGS[m.group("rung")]: m.group("rung") for m in _RUNG.finditer(text.lower())}


def career_step(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact puts the old fact's subject on a higher rung of
    the one career ladder the old fact's title is on, as reached: "User said: 3rd yr apprentice
    electrician" -> "User is a journeyman now", "User is a postdoc in the hydrology group" ->
    "User started as assistant professor on 1 June". None otherwise."""
    if not _same_whom(old_text, new_text) or not _RUNG_REACHED.search(new_text.lower()):
        return None
    old_rungs, new_rungs = _rungs(old_text), _rungs(new_text)
    if len(old_rungs) != 1:
        return None
    (((ladder, step), said),) = old_rungs.items()
    # no job beside the rung but its trade, said right after it ("apprentice electrician"): a
    # second job ("a postdoc and a part-time barista") is not left with the rung
    rest = re.sub(rf"\b{re.escape(said)}(?: [a-z]+)?", " ", old_text.lower())
    if any(word in _JOBS for word in re.findall(r"[a-z]+", rest)):
        return None
    higher = [rung for rung in new_rungs if rung[0] == ladder and rung[1] > step]
    if len(higher) != 1 or len({rung[0] for rung in new_rungs}) != 1:
        return None
    if _blocked(normalize(new_text)) or _blocked(normalize(old_text)):
        return None  # "hopes to make sergeant", "was a constable in 2019"
    return (CONFIDENCE, "a higher rung of the old fact's career ladder, reached: in place of the old title")


# A title given by someone: "they made me store manager"; or made, as a title is reached: "made
# engagement manager this cycle", "made associate partner in November" (not "made the manager
# cry"; a partner is a title only where it is made, else it is as often whom one lives with)
_MADE_TITLE = regex_programs.compile(
    r"\bmade (?:it to )?(?!the |a |an |my |our |his |her |their )(?:[a-z-]+ ){0,2}?(?:"
    + _TITLE_WORDS
    + r"|partner)\b(?=\s*(?:$|[.!,;)]|this\b|last\b|as of\b|from\b|at\b|in\b|today\b|yesterday\b|finally\b|for\b|of\b|"
    r"on\b|over\b|when\b|after\b))|"
    r"\bmade (?P<whom>me|them|him|her) (?:a |an |the )?(?:[a-z-]+ ){0,2}?(?:"
    + _TITLE_WORDS
    + r")\b(?: (?:"
    + "|".join(sorted(lex.ROLE_NOUNS))
    + r")\b)?"
)


def _made_a_title(new_lower: str) -> re.Match[str] | None:
    """The title given, and to the user when the memory is the user's words ("User said: they
    made me store manager"; not "they made her head nurse")."""
    made = _MADE_TITLE.search(new_lower)
    if made and new_lower.startswith("user said:") and made.group("whom") not in ("me", None):
        return None
    return made


# What may come before a promotion said of oneself, in its own clause: "I got the bump", "my
# promotion to", "and finally got the bump"
_OWN_CLAUSE_LEAD = frozenset("i i've i'm ive im my and so just finally also officially".split())


def _the_users_own(old_text: str, new_lower: str, promoted: re.Match[str]) -> bool:
    """A memory of the user's words whose promotion has no one else before it in its clause
    ("User said: Tenure came through, got the bump to associate professor"; "User said: Promotion
    to audit manager went through"), beside an old fact of the user's own job."""
    if not new_lower.startswith("user said:") or analyze(old_text).subject.kind != "principal":
        return False
    if _owner(old_text):
        return False  # "User's wife is a pharmacist": someone else's job
    clause = re.split(r"[.,;:!?]", new_lower[: promoted.start()])[-1].split()
    return all(word in _OWN_CLAUSE_LEAD for word in clause)


def promotion(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says the subject of an old fact that gives their job
    was promoted: "User works as a line cook at Nopi" -> "User got promoted to sous chef". None
    otherwise."""
    new_lower, old_lower = new_text.lower(), old_text.lower()
    promoted = _PROMOTED.search(new_lower) or _made_a_title(new_lower)
    if (
        promoted is None
        or not _HOLDS_A_ROLE.match(old_lower)
        or not _one_role(old_text)
        or not (_same_whom(old_text, new_text) or _the_users_own(old_text, new_lower, promoted))
    ):
        return None
    if _blocked(normalize(new_text)) or _blocked(normalize(old_text)):
        return None  # "hopes to get promoted", "was a cook in 2019"
    if re.search(
        r"\b(?:hop(?:e|es|ing)|wish(?:es|ing)?|if|whether|fingers crossed)\b", new_lower[: promoted.start()]
    ):
        return None  # "hoping my promotion to audit manager went through"
    if re.search(r"\b(?:volunteer|part-time|side|weekend|hobby)\b", old_lower):
        return None  # a promotion at work leaves the volunteering, the side job, as it was
    given = re.sub(r"^made (?:me |them |it to )?", "", promoted.group(0).strip())
    if given != promoted.group(0).strip():
        return (CONFIDENCE, f"the subject of the old fact's job was given another title: {given}")
    return (CONFIDENCE, f"the subject of the old fact's job was promoted ('{promoted.group(0).strip()}')")


# ------------------------------------------------------------------------- places of an activity

# "User rehearses on Wednesday evenings in St Michael's church hall" -> "User now rehearses at the
# Methodist hall": the same thing done, at another named place. The words between the verb and
# the place may be only when and how often.
# whose, what is done, and the words between it and where (only when and how often may be)
_DONE_LEAD = (
    r"(?i)^user(?:'s (?P<owner>\w+))? (?:(?:now|still|currently|usually|mostly|also|normally) )*"
    r"(?P<verb>(?:is |are |has been |have been )?[a-z]+)\b(?P<middle>(?: [\w'/-]+){0,5}?) "
)
_DONE_AT = regex_programs.compile(
    # a room of the place before it: "in the church hall at St Anne's", "in the auditorium at
    # Runnymede library"
    _DONE_LEAD + r"(?:(?:in|at) (?:the|a|an|their) [a-z]+(?: [a-z]+)? (?=at ))?(?:at|in|out of) (?:the |a )?"
    r"(?P<place>(?-i:[A-Z][\w'&.-]*)(?: (?-i:[A-Z][\w'&.-]*|of|on|de|la)){0,4})"
)
_WHEN_WORDS = frozenset(
    """on every most a an the week weeks day days morning mornings evening evenings night nights
    afternoon afternoons weekend weekends weekday weekdays twice once times x monday mondays
    tuesday tuesdays wednesday wednesdays thursday thursdays friday fridays saturday saturdays
    sunday sundays now still usually mostly also one two three four five six seven""".split()
)
_LIGHT_VERBS = frozenset("is are was were has have had be been am lives live stays stay goes go".split())
# Ways of working out, one thing done ("lifts at PureGym" -> "has been training at Gymbox")
_EXERCISE = frozenset(
    "lifts lift lifting trains train training climbs climb climbing boulders boulder bouldering works-out".split()
)


# The same, written all in lower case as chat often is ("is bouldering at brooklyn boulders 3x a
# week"): the place ends where when, how often or a word of change begins
_DONE_AT_LOWER = regex_programs.compile(
    _DONE_LEAD + r"(?:at|out of) (?:the |a )?(?P<place>[a-z][\w'&.-]*(?: [a-z][\w'&.-]*){0,3}?)"
    r"(?= (?:\d|now\b|these days|since\b|on\b|every\b|most\b|mostly\b|before\b|after\b|with\b)|\W*$|,)"
)
# What follows "at" that is no named place: "at home", "at least", "at the moment"
_NO_PLACE = frozenset(
    """home work school night nights lunch least most moment weekend weekends night-time first last
    times all once work-from-home uni college church gym office""".split()
)


# "User switched gyms to Rockhouse Junction", "moved their membership over to Climbing Works":
# where they work out now, the gym named
_GYM_SWITCHED = regex_programs.compile(
    r"(?i)^user(?:'s (?P<owner>\w+))? (?:has )?(?:(?:switched|changed|moved) (?:climbing )?gyms|"
    r"(?:switched|moved|transferred) (?:their|my|his|her) (?:gym )?membership(?: over)?) to (?:the )?"
    r"(?P<place>[\w'&.-]+(?: [\w'&.-]+){0,3}?)(?=,|\.|$| (?:now|in|on|near|by)\b)"
)


def _done_at(text: str) -> tuple[str, str, str] | None:
    """(whose, what is done, where) when the fact says the subject does a thing at a named place."""
    text = text.strip()
    gym = _GYM_SWITCHED.match(text)
    if gym is not None:
        return ((gym.group("owner") or "").lower(), "exercise", gym.group("place"))
    found = _DONE_AT.match(text)
    if found is None and not re.search(r"[A-Z]", text[4:]):
        found = _DONE_AT_LOWER.match(text)
        if found is not None and found.group("place").split()[0] in _NO_PLACE | {"the", "a"}:
            found = None
    if found is None:
        return None
    verb = found.group("verb").lower()
    middle = {w.lower() for w in found.group("middle").split()}
    # when and how often: "3x a week", "mon/wed/fri", "before work"
    when = _WHEN_WORDS | {
        w for w in middle if re.fullmatch(r"\d+x?|(?:mon|tue|wed|thu|fri|sat|sun)(?:/\w+)*", w)
    }
    if verb.split()[-1] in _LIGHT_VERBS or not middle <= when:
        return None
    done = verb.split()[-1]
    return (
        (found.group("owner") or "").lower(),
        "exercise" if done in _EXERCISE else done,
        found.group("place"),
    )


_OUR_TEAM = regex_programs.compile(r"^User's team\b")
_SINCE_A_TIME = regex_programs.compile(
    r"\b(?:(?:has|have) been \w+ing\b.*\bsince\b|since (?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*|"
    r"last \w+|this \w+|the (?:start|new year|summer|spring|autumn|fall|winter)|\d))"
)


def activity_elsewhere(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says, with a word of change, that the subject does
    the same thing at another named place; None otherwise."""
    old, new = _done_at(old_text), _done_at(new_text)
    if old is not None and new is not None and {old[0], new[0]} == {"", "team"}:
        # "User rehearses in St Michael's hall" -> "User's team now rehearses at the Methodist
        # hall": what the user's group does, the user does with it ("we" is read as the team)
        old, new = ("", *old[1:]), ("", *new[1:])
        old_text, new_text = _OUR_TEAM.sub("User", old_text, 1), _OUR_TEAM.sub("User", new_text, 1)
    if old is None or new is None or old[:2] != new[:2] or not _same_whom(old_text, new_text):
        return None
    old_place, new_place = old[2].lower().split(), new[2].lower().split()
    if set(old_place) & set(new_place) - {"of", "on", "de", "la", "st"}:
        return None  # "the Methodist hall" in "the Methodist hall on Bridge Street": the same place
    new_norm = normalize(new_text)
    # a word of change, or "has been training at Gymbox since feb", "rehearses at Runnymede
    # library since January": done there from a time on
    changed = CHANGE.search(new_text.lower()) or _SINCE_A_TIME.search(new_text.lower())
    if not changed or _blocked(new_norm) or _blocked(normalize(old_text)):
        return None
    if _mood(new_norm).temporary or _ADDITIVE.search(new_norm):
        return None  # "is rehearsing at the Methodist hall this week", "also trains at PureGym"
    return (CONFIDENCE, f"the same thing done ({new[1]}) at another place: {new[2]} in place of {old[2]}")


# Kinds of place one goes to one of at a time for one purpose, named by what is before or after
# them: "a coworking space in Kazimierz", "the Trout Lake farmers market", "Grove Road
# allotments". The kind is the slot, the name its value.
_VENUE = r"coworking(?: space| place| spot)?|co-working(?: space)?|allotments?|farmers'? market|market|gym|pool|lido"
_NAME = r"(?-i:[A-Z][\w'&.-]*)(?: (?-i:[A-Z][\w'&.-]*)){0,2}"
_VENUE_NAMED = regex_programs.compile(
    rf"(?i)(?P<before>{_NAME}) (?P<venue>{_VENUE})\b|\b(?P<kind>{_VENUE}) (?:in|on|at|called|near) (?:the )?(?P<after>{_NAME})"
)
# what a user's place is said as, besides the user: "User's desk these days is at a coworking place"
_THINGS_OF_A_PLACE = frozenset({"", "team", "desk", "stall", "pitch", "plot", "membership", "workspace"})


def _venues(text: str) -> tuple[set[str], set[str]]:
    """The kinds of place a text names (the first word of each) and the names it gives them."""
    kinds, named = set(), set()
    for match in _VENUE_NAMED.finditer(text):
        venue = (match.group("venue") or match.group("kind")).lower().replace("-", "").replace("'", "")
        kinds.add("market" if "market" in venue else venue.split()[0].rstrip("s"))
        named.add((match.group("before") or match.group("after")).lower())
    return kinds, named


def venue_elsewhere(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when both facts name one kind of place held one at a time (a
    coworking space, an allotment, a market pitch, a gym, a pool), each by another name, and the
    new fact says it changed: "User works out of a coworking space in Kazimierz" -> "User's desk
    these days is at a coworking place in Podgórze". None otherwise."""
    old_kinds, old_names = _venues(old_text)
    new_kinds, new_names = _venues(new_text)
    if len(old_kinds) != 1 or old_kinds != new_kinds or not old_names or not new_names:
        return None
    if any(name in new_text.lower() for name in old_names) or any(n in old_text.lower() for n in new_names):
        return None  # the old place named again, or the new one named before: not another one
    old_owner, new_owner = _owner(old_text), _owner(new_text)
    if old_owner not in ("", "team") or new_owner not in _THINGS_OF_A_PLACE:
        return None
    if about_someone_named(old_text) or about_someone_named(new_text):
        return None
    new_lower = new_text.lower()
    if not (CHANGE.search(new_lower) or re.search(r"\bthis (?:season|year|term)\b", new_lower)):
        return None
    new_norm, old_norm = normalize(new_text), normalize(old_text)
    if not _said_plainly(old_norm, new_norm):
        return None
    (kind,) = old_kinds
    return (
        CONFIDENCE,
        f"the same kind of place ({kind}) under another name: {sorted(new_names)[0]} in place of {sorted(old_names)[0]}",
    )


# Said to hold now: "is at KPMG now", "it's the 08:12 for me these days"
_SAID_NOW = regex_programs.compile(r"(?i)\b(?:now|these days|nowadays|instead)\b")
# "User is at KPMG now", "User's husband is at GovTech now", "User is at a small consultancy
# called Carbon Lattice now": where the subject works, said by the place alone, current
_NOW_AT = regex_programs.compile(
    r"^User(?:'s (?P<owner>\w+))? is (?:now )?(?:at|with) (?:(?:a|an) [a-z -]+ called |the )?"
    r"(?P<place>(?-i:[A-Z][\w'&.-]*)(?: (?:(?-i:[A-Z0-9][\w'&.-]*)|of|&)){0,4})(?P<rest>.*)$"
)
# a stay, not a workplace: "is at Heathrow now", "is at Mum's now"
_NOT_A_WORKPLACE = frozenset({"place", "airport", "home", "station", "hotel"})
# the old fact is where the subject works: "works out of a coworking", "is a data analyst at
# Aviva", "rents a desk at Colmeia", "is in the office at Canary Wharf"
_AT_WORK = regex_programs.compile(
    r"\b(?:work(?:s|ing)?|teach(?:es|ing)?) (?:at|for|out of|from|in|as)\b|\bemployed\b|\bdesk at\b|"
    r"\boffice (?:at|in|is)\b|\bco-?working\b|"
    rf"\b(?:{'|'.join(sorted(lex.ROLE_NOUNS))}) (?:at|for|with|in) (?-i:[A-Z])"
)


def workplace_elsewhere(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact says where the subject works and the new one says
    they are at another named place now: "User works at Deloitte" -> "User is at KPMG now",
    "User works out of the WeWork on Market Street" -> "User is at Canopy in the Mission now".
    Not a place one stays at (a city, an airport, a home), one the old fact names, or a stay for
    a while."""
    from aurra_core.text_analysis import kinds

    found = _NOW_AT.match(new_text.strip())
    if found is None or not _SAID_NOW.search(found.group("rest")):
        return None
    place = found.group("place")
    if kinds.kinds_of(place) & _NOT_A_WORKPLACE or place.split()[0].endswith("'s"):
        return None
    if not _AT_WORK.search(old_text) or not _same_whom(old_text, new_text):
        return None
    if any(word.lower() in old_text.lower().split() for word in place.split() if word[0].isupper()):
        return None  # the place the old fact names, said again
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    old_mood, new_mood = _mood(old_norm), _mood(new_norm)
    if not _said_plainly(old_norm, new_norm) or new_mood.temporary or new_mood.additive:
        return None
    if old_mood.past or old_mood.negated or old_mood.hedged:
        return None
    return (CONFIDENCE, f"where the subject works, said anew: at {place} now")


# An employer left: "User left Boots", "User gave notice at Kestrel Bank", "User's wife handed in
# her notice at Arup", "User got laid off from Twitter" (rules v37), and when, at most.
_LEFT_EMPLOYER = regex_programs.compile(
    r"^User(?:'s (?P<owner>\w+))? (?:has |had |just )?(?:(?P<left>left|quit)|resigned from|"
    r"(?:gave|handed in|has given|has handed in) (?:their |his |her |my )?notice (?:at|to)|"
    r"(?:got|was|has been) (?:laid off|let go) (?:from|by)) "
    rf"(?P<org>{_NAME})"
    r"(?P<when>(?: (?:at the end of|in|on|last|this|after|before) [\w ]{1,20}?| \w+ ago| yesterday| today)?)"
    r"[.!]?$"
)
# Work started: "User started at Orchard Health", "User works for Monzo now", "User took a job
# with KPMG", "User is now a practice pharmacist at a GP surgery", "User is at a small
# consultancy called Carbon Lattice now"; what may follow: when, where, as what
_STARTED_WORK = regex_programs.compile(
    r"^User(?:'s (?P<owner>\w+))? (?:has |just |has just )?(?:"
    r"(?:started|starts|is starting|began)(?: a new job| work| working)? (?:at|with)|"
    r"(?:now )?works? (?:at|for)|is (?:now )?working (?:at|for)|"
    r"(?:got|took|landed|accepted) (?:a |an |the )?(?:new )?(?:job|role|position|offer) (?:at|with|from)|"
    r"signed with|is (?:now )?at (?:a|an) [a-z -]+? called) "
    rf"(?P<org>{_NAME})(?P<rest>.*)$|"
    r"^User(?:'s (?P<owner2>\w+))? is (?:now )?(?:a|an) (?:[a-z-]+ ){0,3}?(?P<role>[a-z]+) (?:at|for|with) "
    r"(?P<place>(?:a|an|the) [\w&'.+ -]+?|(?-i:[A-Z])[\w&'.+ -]*?)(?P<rest2>(?:,| (?:now|in|since|from)\b).*|[.!]?)$"
)
_AFTER_WORK = regex_programs.compile(
    r"^(?:,? (?:now|these days|since [\w ]+|from [\w ]+|in (?-i:[A-Z])[\w ]*|as (?:a|an) [\w -]+|"
    r"on \w+(?: \w+)?|last \w+|this \w+|after [\w ]+))*[.!]?$"
)
# what is left that is not work: a city or country ("left London"), a home
_NOT_AN_EMPLOYER = frozenset({"place", "home"})
# what "left" or "quit" leaves as a workplace, and nothing else: not an app or a platform
_WORKPLACE_KINDS = frozenset(
    {"employer", "bank", "grocery", "footwear", "department", "workplace", "care_provider"}
)


def job_after_leaving(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact says the subject left an employer and the new one
    says they work somewhere else: "User left Deloitte at the end of August" -> "User is at a
    small consultancy called Carbon Lattice now", "User gave notice at Kestrel Bank" -> "User
    started at Orchard Health". What they left was their work; what they started is. Not a
    place left ("left London"), someone ("left Tom"), another's work, or work for a while."""
    from aurra_core.text_analysis import kinds

    left, started = _LEFT_EMPLOYER.match(old_text.strip()), _STARTED_WORK.match(new_text.strip())
    if left is None or started is None:
        return None
    role = started.group("role")
    owner = started.group("owner") if role is None else started.group("owner2")
    new_org = started.group("org") if role is None else started.group("place")
    rest = started.group("rest") if role is None else started.group("rest2")
    if (left.group("owner") or "") != (owner or "") or not _AFTER_WORK.match(rest or ""):
        return None
    if role is not None and role not in lex.ROLE_NOUNS:
        return None  # "is a member at a climbing gym": not work
    org = left.group("org")
    if kinds.kinds_of(org) & _NOT_AN_EMPLOYER or about_someone_named(old_text):
        return None
    if left.group("left") and (
        kinds.kinds_of(org) - _WORKPLACE_KINDS or (" " not in org and not kinds.kinds_of(org))
    ):
        return None  # "quit Spotify", "left Twitter": a thing used; "left Tom": maybe someone
    if set(org.lower().split()) & set(new_org.lower().split()) - {"the", "a", "an", "of", "&"}:
        return None  # back at the one left, or a part of it
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    new_mood = _mood(new_norm)
    if new_mood.blocked or new_mood.temporary or new_mood.additive or _mood(old_norm).hedged:
        return None
    return (CONFIDENCE, f"left {org}, and works at {new_org} now: another employer in its place")


# A service taken, named by when it leaves: "gets the 07:42 from Woking", "it's the 08:12 for
# me now"; the kind of service after it, when said
_DEPARTURE = regex_programs.compile(
    r"\bthe (?P<time>\d{1,2}[:.]\d{2})(?!\s*(?:am|pm|a\.m|p\.m)\b)"
    r"(?: (?P<kind>train|bus|ferry|boat|tram|flight|service|fast|slow|local|express))?\b"
)


def departure_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when both facts name the one service the subject takes by when it
    leaves, another one now: "User gets the 07:42 from Woking into Waterloo every weekday" ->
    "User said: work went flexi-hours so it's the 08:12 for me now". Not someone else's, another
    kind of service, or one not said to be now."""
    old_found, new_found = list(_DEPARTURE.finditer(old_text)), list(_DEPARTURE.finditer(new_text))
    if len(old_found) != 1 or len(new_found) != 1 or not _SAID_NOW.search(new_text):
        return None
    old_time, new_time = old_found[0].group("time"), new_found[0].group("time")
    old_kind, new_kind = old_found[0].group("kind"), new_found[0].group("kind")
    if old_time.replace(".", ":") == new_time.replace(".", ":") or (
        old_kind and new_kind and old_kind != new_kind
    ):
        return None
    if not (_same_whom(old_text, new_text) or _said_by_the_user_of_their_own(old_text, new_text)):
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    if not _said_plainly(old_norm, new_norm) or _mood(new_norm).temporary or _mood(new_norm).additive:
        return None
    return (
        CONFIDENCE,
        f"the service the subject takes, another one now: the {new_time} in place of the {old_time}",
    )


# A line of a city's transit, by its name or number: "the Chuo Line", "Line 6", "the Northern
# line", "the 96 tram", "the 38 bus" (as written, where a line's name is capitalised)
_TRANSIT_LINE = regex_programs.compile(
    r"\b(?P<named>(?-i:[A-Z][\w-]*)(?: (?-i:[A-Z][\w-]*))?) [Ll]ine\b|\b[Ll](?:ine|ínea|inea) (?P<numbered>\d+[A-Z]?)\b|"
    r"\b(?P<route>\d{1,3}[A-Z]?) (?:tram|bus|streetcar)\b"
)


def _lines(text: str) -> set[str]:
    return {
        (m.group("named") or m.group("numbered") or m.group("route")).lower()
        for m in _TRANSIT_LINE.finditer(text)
    }


def line_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact names the one transit line the user rides and the
    new one names another, said as now: "User rides the Chuo Line from Nakano every day" ->
    "so it's the Yamanote Line for me these days". Not someone else's ride, not a trip, not two
    lines in one journey ("the C-5 to Atocha, then the C-4")."""
    old_lines, new_lines = _lines(old_text), _lines(new_text)
    if len(old_lines) != 1 or len(new_lines) != 1 or old_lines == new_lines:
        return None
    if _owner(old_text) != "" or _owner(new_text) != "" or about_someone_named(new_text):
        return None
    if not CHANGE.search(new_text.lower()):
        return None
    if not _said_plainly(normalize(old_text), normalize(new_text)):
        return None
    return (CONFIDENCE, f"another transit line ridden: {min(new_lines)} in place of {min(old_lines)}")


# A pay said as what the user is on, earns or makes, or as their salary: "is on €48k gross",
# "earns £42,000 as a surveyor", "salary is 70k", "making 82k now" (normalised text)
_PAY = regex_programs.compile(
    r"\b(?:is|am|are|'m) on (?:about |around |roughly |~)?money_\d+|\bearn(?:s|ing)?\b|\bsalary\b|\bgross\b|"
    r"\bmak(?:ing|es|e) (?:about |around |roughly |~)?money_\d+|"
    # a job's pay said last ("a UX researcher at a housing association on £42,000"), a raise
    # that went through with its amount, a pay bumped to a new one
    r"\bon money_\d+[.!]?$|\braise (?:went|came|has gone|is) through\W+(?:(?:i'm|i am) on |now at |it's )?money_|"
    r"\bbumped (?:me|my pay|my salary|my base) (?:up )?to money_\d+"
)
# whose a pay is, as written: the user's own, or the user's salary itself
_PAY_OWNERS = frozenset({"", "salary", "pay", "base", "wage"})
# The day a change took effect, said with it: "is on €55k from 1 July", "as of June" (normalised)
TAKES_EFFECT = regex_programs.compile(r"\b(?:from|as of|since|starting|effective) (?:date|month)_\S+")


def _one_sum_given_anew(
    old_text: str, new_text: str, owners: frozenset[str]
) -> tuple[set[str], set[str]] | None:
    """(old amount, new amount) when both facts are the user's (whose as
    `owners` allows, not about someone named), each gives exactly one amount, the two differ,
    and the new one says it is current or changed, plainly; None otherwise."""
    if _owner(old_text) not in owners or _owner(new_text) not in owners:
        return None
    if about_someone_named(old_text) or about_someone_named(new_text):
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    old_amounts = set(re.findall(r"\bmoney_\w+", old_norm))
    new_amounts = set(re.findall(r"\bmoney_\w+", new_norm))
    if len(old_amounts) != 1 or len(new_amounts) != 1 or old_amounts == new_amounts:
        return None
    if not (CHANGE.search(new_text.lower()) or TAKES_EFFECT.search(new_norm)):
        return None
    if not _said_plainly(old_norm, new_norm):
        return None
    return old_amounts, new_amounts


def pay_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when both facts give the user's pay, one amount each, and the new
    one says it is current or changed: "User's salary is £85,000" -> "User is on £97,000 now".
    Not someone else's pay, nor a second income ("from the side business")."""
    if not (_PAY.search(normalize(old_text)) and _PAY.search(normalize(new_text))):
        return None
    given = _one_sum_given_anew(old_text, new_text, _PAY_OWNERS)
    if given is None:
        return None
    old_amounts, new_amounts = given
    return (
        CONFIDENCE,
        f"the user's pay given anew, said as current: {amounts_shown(min(new_amounts))} in place of "
        f"{amounts_shown(min(old_amounts))}",
    )


# The user's rent, said as such, or a payment said alone as what the user pays now ("is
# paying £1,320 now"), its period given or not (normalised)
_RENT = regex_programs.compile(r"\brent(?:s|ed|ing)?\b")
_PAYING_NOW = regex_programs.compile(
    r"\b(?:is|am|are|'m|'re) (?:now )?paying money_\d+(?: (?:a|per) (?:month|week)| pcm| monthly)?"
    r"(?: now)?[.!]?$"
)
_RENT_PERIOD = regex_programs.compile(r"\b(?:a|per) (month|week|year)\b|\b(pcm|monthly|weekly)\b")
_RENT_OWNERS = frozenset({"", "rent"})


def rent_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact gives the user's rent, one amount, and the new one
    gives one other amount as the rent or as what the user pays now, said as current or changed:
    "rent on their flat is £1,150 a month" -> "User is paying £1,320 now". Not another's, not a
    rent of another period, not a second payment named ("paying £30 for Netflix now")."""
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    if not (_RENT.search(old_norm) and (_RENT.search(new_norm) or _PAYING_NOW.search(new_norm))):
        return None
    old_period, new_period = _RENT_PERIOD.search(old_norm), _RENT_PERIOD.search(new_norm)
    if old_period and new_period and _period(old_period) != _period(new_period):
        return None
    given = _one_sum_given_anew(old_text, new_text, _RENT_OWNERS)
    if given is None:
        return None
    old_amounts, new_amounts = given
    return (
        CONFIDENCE,
        f"the user's rent given anew, said as current: {amounts_shown(min(new_amounts))} in place of "
        f"{amounts_shown(min(old_amounts))}",
    )


def _period(found: re.Match[str]) -> str:
    """The period a rent is given for: month, week or year."""
    return found.group(1) or {"pcm": "month", "monthly": "month", "weekly": "week"}[found.group(2)]


# ------------------------------------------------------------------------- the school attended

# A school by its name: "Hillside Academy", "Coburg West Primary", "St Anne's" (after "moved schools").
_SCHOOL = regex_programs.compile(
    r"\bat ((?:St\.? )?[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3} (?:Primary|Elementary|Academy|High School|High|"
    r"Middle School|Grammar|School|College|Kindergarten|Montessori|Nursery|Preschool|Junior School|Infants))\b"
)
_MOVED_SCHOOLS = regex_programs.compile(
    r"\b(?:moved|changed|switched) schools\b.*?\bat ((?:St\.? )?[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,3})|"
    # "ended up moving Kabir to St Luke's C of E": a child moved to a school named as one
    r"\b(?:moved|moving|transferred|transferring) (?-i:[A-Z][\w-]+) to ("
    r"(?:St\.?|Saint) [A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}(?: (?:C of E|CofE|CE|Primary|Academy|School))?|"
    r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2} (?:Primary|Academy|School|High|Elementary|College|Montessori))"
    r"(?= (?:after|in|from|this|last|at|for)\b|[,.!]|$)"
)
_SCHOOL_CHANGED = regex_programs.compile(
    r"(?i)\b(?:now|since|moved|changed|switched|transferred|started at|starts at|settled in at|settling in at)\b"
)


def _same_person(old_text: str, new_text: str) -> bool:
    """The same one, or the one the old fact names ("User's son Mateo") named alone in the new
    one ("User said: Mateo moved schools")."""
    if _same_whom(old_text, new_text):
        return True
    old_whom, new_whom = analyze(old_text).subject, analyze(new_text).subject
    if not old_whom.relations:
        return False
    if new_whom.kind == "name":
        # "Maya's friend started at Riverside": someone of Maya's, not Maya
        return bool(old_whom.apposition & new_whom.key) and not new_whom.relations
    if any(
        re.search(
            rf"\b(?:moved|moving|transferred|transferring) {re.escape(name)}\b", new_text, re.IGNORECASE
        )
        for name in old_whom.apposition
    ):
        return True  # "User ended up moving Kabir to St Luke's": Kabir, moved
    # "welp Kai is at Coburg West now": the name after a word that starts the sentence
    return (
        kept_as_said(analyze(new_text))
        and not new_whom.relations
        and any(
            re.search(
                rf"\b{re.escape(name)}(?:'s(?! {lex.SOMEONE_OF_THEIRS})| is| has| goes| moved| started)\b",
                new_text,
                re.IGNORECASE,
            )
            for name in old_whom.apposition
        )
    )


def _the_one_replaced(
    old_values: set[str], new_values: set[str], changed: bool, old_text: str, new_text: str, what: str
) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact gives one value of a thing held one at a time
    (`what` says which) and the new fact another, for the same one, said as a change
    (`changed`), with no hedge, no second one ("also"), nothing for a while ("this week only")
    and nothing past; None otherwise."""
    if len(old_values) != 1 or len(new_values) != 1 or old_values == new_values:
        return None
    if not changed or not _same_person(old_text, new_text):
        return None
    new_mood = _mood(normalize(new_text))
    if new_mood.blocked or new_mood.temporary or _blocked(normalize(old_text)):
        return None
    (old,), (new,) = old_values, new_values
    return (CONFIDENCE, f"{what}: {new} in place of {old}")


def school_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact gives the school someone attends and the new one
    puts the same one at another, said as a change: "User's son Kai is at Brunswick North
    Primary" -> "welp Kai is at Coburg West Primary now", "Mateo moved schools, he's at St
    Anne's now". A child goes to one school at a time."""
    old_schools = {m.group(1) for m in _SCHOOL.finditer(old_text)}
    moved = _MOVED_SCHOOLS.search(new_text)
    new_schools = {m.group(1) for m in _SCHOOL.finditer(new_text)} | (
        {moved.group(1) or moved.group(2)} if moved else set()
    )
    changed = bool(moved or _SCHOOL_CHANGED.search(new_text))
    return _the_one_replaced(
        old_schools, new_schools, changed, old_text, new_text, "another school for the same one"
    )


# ------------------------------------------------------------------------- the shift worked

# Which shift: "works night shifts", "is on mid shifts now", "bid onto 2nd shift", "on nights".
# One at a time: a worker is on one rota.
_SHIFT = regex_programs.compile(
    r"\b(?P<kind>night|day|mid|middle|early|late|morning|evening|afternoon|graveyard|swing|overnight|"
    r"opening|closing|1st|2nd|3rd|first|second|third)\s+shifts?\b|"
    r"\b(?:on|works?|working|does|doing) (?P<bare>nights|days|lates|earlies|mids|graveyards)\b"
)
_SHIFT_SAME = {"nights": "night", "days": "day", "lates": "late", "earlies": "early", "mids": "mid",
               "middle": "mid", "graveyards": "graveyard", "overnight": "night", "graveyard": "night",
               "1st": "first", "2nd": "second", "3rd": "third"}  # fmt: skip
# The new shift said as reached: "now", "moved to", "switched", "bid onto", "finally".
_SHIFT_CHANGED = regex_programs.compile(
    r"\b(?:now|moved|switched|changed|bid onto|bid on|got onto|put (?:me|us|them) on|finally|since)\b"
)


def _shifts(text: str) -> set[str]:
    found = set()
    for match in _SHIFT.finditer(text.lower()):
        word = match.group("kind") or match.group("bare")
        found.add(_SHIFT_SAME.get(word, word))
    return found


def shift_change(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact gives the shift its subject works and the new one
    puts the same subject on another, said as a change: "User works night shifts at Makati
    Med" -> "User is on mid shifts now", "User works 1st shift" -> "bid onto 2nd shift
    finally". One shift each: "night shifts and some weekend days" is no one rota."""
    old_shifts, new_shifts = _shifts(old_text), _shifts(new_text)
    changed = bool(_SHIFT_CHANGED.search(new_text.lower()))
    return _the_one_replaced(
        old_shifts, new_shifts, changed, old_text, new_text, "the subject works another shift"
    )


# ------------------------------------------------------------------------- retirement

# "User's dad retired last month": the end of working, whoever for. "retired from teaching" ends
# only what it names.
_RETIRED = re.compile(
    r"\b(?:retired|has retired|is retiring|retires)\b(?:\s+from\s+(?:the\s+|their\s+)?([\w' -]+))?"
)
_WORKS = re.compile(
    r"\b(?:works?|working|is employed|is an? \w+ at)\s+(?:at|as|for|in)?\b|"
    # "User's dad is a plumber": a trade held, which retiring ends; not a former one
    r"\bis an? (?!retired |former |ex-)(?:\w+ )?(?:"
    + "|".join(sorted(lex.ROLE_NOUNS - {"student", "owner"}))
    + r")\b"
)


def retired(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact says its subject retired and the old one that the
    same subject works (and, when the retirement names what it ends, it is what the old fact
    names): "User's dad works at the hospital" -> "User's dad retired last month". None
    otherwise."""
    found = _RETIRED.search(new_text)
    if found is None or not _WORKS.search(old_text):
        return None
    old_subject = subject_of(old_text)
    if not old_subject or old_subject != subject_of(new_text) or _owner(old_text) != _owner(new_text):
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    if _blocked(new_norm) or _blocked(old_norm) or _mood(new_norm).reverted:
        return None
    ended = found.group(1)
    # the same stem: "retired from teaching" ends "works as a teacher"
    if ended and not re.search(rf"\b{re.escape(ended.split()[0][:5])}", old_text, re.IGNORECASE):
        return None  # "retired from the army": not the work the old fact names
    return (CONFIDENCE, "the new fact says they retired, which ends the work the old fact states")


# ------------------------------------------------------------------------- versions said alone

# A version number as written: dotted ("1.30", "24.04", "v2.3") or marked ("v3"). Not an amount,
# a time of day or a measure ("$3.50", "at 6.30", "5.5 km", "4.5 stars", "2.5x").
_VERSION_NUMBER = re.compile(
    r"(?<![\w.$€£¥₹:/-])(?<!\bat )(?:[vV](\d+(?:\.\d+)*)|(\d+\.\d+(?:\.\d+)?))"
    r"(?![\w.%/:-]|\s*(?:%|percent|k\b|m\b|x\b|km|kg|mi\b|miles|lbs?\b|stars?|hours?|hrs?|h\b|mins?\b|"
    r"minutes|gb|tb|mb|ghz|l\b|litres?|liters?|pm\b|am\b|p\.m|a\.m|o'clock|points?|pts|gpa|mg|ml))"
)
# Saying a version is out or in use: a release, an upgrade as a noun
_RELEASED = re.compile(r"\b(?:went live|is live|is out|released|shipped|upgrade|rolled out)\b", re.IGNORECASE)
# Besides the version and the change, what the new fact may say and still give nothing else
_STOPWORD_STEMS = frozenset(canon(word)[0] for word in lex.STOPWORDS if canon(word))
_VERSION_LIGHT = frozenset(
    canon(word)[0]
    for word in """all both whole entire two three four everything everywhere finally officially as
    friday monday tuesday wednesday thursday saturday sunday live out released shipped rolled
    upgrade user said we our team so""".split()
)
# Short names of what is versioned, read as the word they stand for
_SHORT_NAMES = {"svc": "service", "env": "environment", "repo": "repository", "prod": "production"}


def _versions(text: str) -> dict[str, str]:
    """Each version number of the text, with the name it versions ("" when said alone)."""
    named = {slot.value: slot.unit for slot in slots_of(text) if slot.kind == "version"}
    found: dict[str, str] = {}
    for match in _VERSION_NUMBER.finditer(text):
        value = match.group(1) or match.group(2)
        found[value] = named.get(value, "")
    for value, unit in named.items():
        found.setdefault(value, unit)
    return found


def _words(text: str) -> set[str]:
    """The word stems of a text, short names read in full."""
    tokens = (_SHORT_NAMES.get(token, token) for token in re.findall(r"[a-z][a-z']+", text.lower()))
    return {canon(token)[0] for token in tokens if canon(token)}


def bare_version(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the new fact gives a version said without its name, as
    current or changed, in place of the one version the old fact gives: "EKS clusters are on
    1.27" -> "all three clusters on 1.30 as of friday", "ingestion service is on Python 3.9" ->
    "got the ingestion svc bumped to 3.12", "Pebblenote is v2.3" -> "v3.0 went live today". A
    named line keeps its major number ("Node 18.2" -> "upgraded to 20.1" may be of another).
    The new fact says nothing the old one does not, besides the version and the change: "the
    Mac is on 14.2 now" is not of "the phone runs iOS 17". Two versions in either fact ("Django
    3.2 + Python 3.8" -> "on 4.2 now") leave which one unsaid."""
    old_versions, new_versions = _versions(old_text), _versions(new_text)
    if len(old_versions) != 1 or len(new_versions) != 1:
        return None
    ((old_value, old_name),) = old_versions.items()
    ((new_value, new_name),) = new_versions.items()
    if old_value == new_value or (old_name and new_name) or old_value.count(".") != new_value.count("."):
        return None  # both named: the value swap reads them
    if old_name and old_value.split(".")[0] != new_value.split(".")[0]:
        return None  # "on Node 18.2" -> "upgraded to 20.1": another line may be what was upgraded
    marker = CHANGE.search(new_text) or _RELEASED.search(new_text)
    if marker is None:
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    mood = _mood(new_norm)
    old_mood = _mood(old_norm)
    if mood.hedged or mood.past or mood.negated or mood.temporary or mood.reverted:
        return None
    if old_mood.negated or old_mood.past:
        return None  # a hedge elsewhere in the old fact ("pricing kicks in soon") leaves its version
    if mood.additive and _ADDITIVE.search(re.sub(r"\bboth\b", " ", new_norm)):
        return None  # "also on 3.12 for the new service"; "both clusters" are the old fact's
    said_besides = _words(new_text) - _words(old_text) - _STOPWORD_STEMS - LIGHT_STEMS - _VERSION_LIGHT
    if said_besides - {new_name}:
        return None
    shown_marker = marker.group(0)
    return (
        0.88,
        f"version {old_value} -> {new_value}{SAID_ALONE} with '{shown_marker}'",
    )


# ------------------------------------------------------------------------- a change under way, done

# A change said to be under way, and where it goes: "is moving from Munich to Berlin next
# month", "is switching from Jira to Linear", "we're in the middle of migrating to Postgres"
_UNDER_WAY = re.compile(
    r"\b(?:is|are|am|'m|'re)\s+(?:currently |still |now |slowly |in the middle of |about to |getting ready to )?"
    r"(?:moving|switching|migrating|relocating|transitioning|porting|changing over)\b"
    r"(?:[^.;]*?\bfrom\s+(?P<source>[^,;.]+?))?\s+(?:over\s+)?(?:to|onto|into)\s+(?P<target>[^,;.]+)",
    re.IGNORECASE,
)
# The new fact states the target as what holds: lives there, uses it, is fully on it
_NOW_HOLDS = re.compile(
    r"\b(?:now|fully|all|finished|done|completed|moved|switched|migrated|lives?|living|uses?|using|"
    r"runs?|running|is on|are on|'re on|'s on)\b",
    re.IGNORECASE,
)
# Part of the change done, or the old thing still in use: "half the pipelines are on GitHub
# Actions, Jenkins still runs the deploys" is the change still under way
PART_DONE = regex_programs.compile(
    r"\b(?:half|halfway|midway|partly|partially|some of|most of|part of|a few of|the first|so far|"
    r"\d+ of (?:the|our|their|my)|still (?:runs?|running|on|uses?|using|handles?|does|has))\b|\b\d{1,2}\s*%"
)
# Words of when a change under way is due, not where it goes
_DUE_WORDS = frozenset(
    canon(word)[0]
    for word in """next this week month year weekend summer spring autumn fall winter soon
    january february march april may june july august september october november december""".split()
)


def plan_done(old_text: str, new_text: str) -> tuple[float, str] | None:
    """(confidence, reason) when the old fact says a change is under way and the new one says
    it is done, stating the change's target as what holds now: "User is moving from Munich to
    Berlin next month" -> "User lives in Berlin now", "is switching from Jira to Linear" ->
    "the team is fully on Linear now". Not when the new fact is hedged, negated or in the past,
    nor when it only mentions the target ("loves Berlin's food scene")."""
    under_way = _UNDER_WAY.search(old_text)
    if under_way is None:
        return None
    old_norm, new_norm = normalize(old_text), normalize(new_text)
    old_mood, mood = _mood(old_norm), _mood(new_norm)
    if old_mood.hedged or old_mood.negated or mood.hedged or mood.negated or mood.past or mood.temporary:
        return None
    if _UNDER_WAY.search(new_text) or not _NOW_HOLDS.search(new_text) or PART_DONE.search(new_text.lower()):
        return None  # still under way, or nothing said to hold
    target = _words(under_way.group("target")) - _STOPWORD_STEMS - LIGHT_STEMS - _DUE_WORDS
    if not target or not target <= _words(new_text):
        return None
    if _owner(old_text) != _owner(new_text) and not {_owner(old_text), _owner(new_text)} <= {"", "team"}:
        return None  # "User's sister is moving to Leeds" / "User lives in Leeds now"
    shown_target = re.sub(
        r"\s+(?:next|this|in|by|on|at the end of)\b.*$", "", under_way.group("target").strip()
    )
    return (CONFIDENCE, f"the change the old fact says is under way is done: '{shown_target}' holds now")
