"""Slots: the (subject, attribute) a fact gives a value to, and the value, where plain code can
tell them.

"User's daily standup is at 9:30am" fills the slot (user's standup, {standup}) with the time
9:30; "User's standup moved to 10am" fills the same slot with 10:00. A slot holds one value at a
time, so two facts that fill the same slot with different values of the same kind (a count, a
time, a day, an amount, a place or a version) cannot both be current: that is the value-swap
evidence the rules classifier acts on (classifiers/rules_slots.py), and what a messages write
records in a fact's extraction metadata.

Plain code over the service's own normalisation (`text.normalize`: its typed value tokens
`time_570`, `money_1450`, `weekday_thu`, `dayofmonth_14`), nothing learned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import canon, normalize, tokenize

KINDS = ("count", "time", "day", "amount", "place", "version")

# "User", "User's sister", "User's team", "The user's manager": who the fact is about.
_SUBJECT = re.compile(r"^(?:the\s+)?user(?:(?:'s|\u2019s)\s+(\w+))?\b", re.IGNORECASE)
# Whose a possessed noun makes another subject: "User's sister" is not "User".
_PEOPLE = frozenset(
    """
    sister sisters brother brothers mother mom mum father dad parents wife husband partner
    spouse son sons daughter daughters kid kids child children baby boyfriend girlfriend fiance
    fiancee grandmother grandfather grandma grandpa aunt uncle cousin niece nephew friend friends
    roommate flatmate neighbor neighbour boss manager colleague coworker team company employer
    startup landlord landlady family cat dog
    """.split()
)
_NAMED_SUBJECT = re.compile(r"^([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)(?:'s\s+(\w+))?\b")
# A number right after a name, not a version's ("Python 3.11"): "Customer 2293", "Room 12", "Flat #4"
_NAME_NUMBER = re.compile(r"\s+#?(\d+)\b(?![.,:]\d)")
# The same after a thing of the user's, when what follows says what it does or is ("User's order
# 1234 ships", "User's apartment 4B has", "User's flight UA 857 leaves"), not what it measures
# ("rent 1450 a month")
_OWNED_NUMBER = re.compile(
    r"\s+((?:[A-Z]{1,3}\s+)?#?\d+[A-Za-z]?)\b(?![.,:/]\d)(?=\s+(?:is|was|are|were|has|had|have|uses|used|ships|shipped|"
    r"leaves|left|runs|ran|starts|started|opens|opened|closes|closed|costs|needs|goes|went|gets|got|"
    r"takes|took|arrives|arrived|departs|departed|belongs|meets|sits|holds|will|should|can)\b)"
)

OWN_GROUPS = frozenset({"team", "company", "startup", "org", "department"})
# Words between a count and what it counts that keep what it counts: "14 active clients", "40
# paying customers". Not "new", "more" or "other": "3 new clients" are three more.
_COUNT_QUALIFIERS = frozenset("active regular paying current total".split())
# Words that say a value changed or when, not what the slot is.
_LIGHT = frozenset(
    """
    is are was were be been being am has have had do does did get gets got getting go goes went
    now currently current nowadays today anymore instead still usually normally typically always
    these days day daily right last next ago yesterday tomorrow weekend month year week months years
    weeks tonight morning twice once thrice times week weekly sprint every each weekly monthly again new newly just finally recently already
    moved move moving changed change changing switched switch switching shifted shift
    rescheduled reschedul bumped bump pushed push raised rais lowered lower increased increas
    decreased decreas upgraded upgrad downgraded downgrad updated updat went up down dropped
    drop starting start started from to at on in of for the a an by with this that next week
    grew grow grows growing grown shrank shrunk shrink shrinks shrinking expanded expand
    it its their them they his her our my your me us a actually officially same time
    about around roughly approximately like
    shoved
    moment term semester season quarter into winter summer spring autumn
    """.split()
)
LIGHT_STEMS = frozenset(canon(word)[0] for word in _LIGHT if word.isalpha()) | _LIGHT

# Words that say the new value replaced another: the evidence days, times and places need,
# since several of them can hold at once without it ("yoga on Tuesdays", "yoga on Thursdays").
CHANGE = re.compile(
    r"\b(?:now|nowadays|these days|anymore|instead|no longer|from now on|starting|as of|"
    + lex.HOLDS_FROM_HERE_ON
    + r"|"
    r"moved|moving|changed|switched|switching|shifted|rescheduled|bumped|pushed|shoved|raised|lowered|"
    r"increased|decreased|went (?:up|down)|dropped|upgraded|upgrading|downgraded|updated|migrated|"
    r"grew|has grown|shrank|has shrunk|expanded|"
    r"migrating|relocated|relocating|transferred|got moved|is moving|are moving|promoted|"
    r"(?:is|are|now|got|went|back) (?:down|up) to)\b",
    re.IGNORECASE,
)
# Living somewhere: "lives in", "moved to", "is moving to", "relocated to", "based in".
_RESIDENCE = re.compile(
    r"\b(?:lives?|living|lived|resides?|residing|based|moved|moving|relocated|relocating|"
    r"home (?:is|base))\b(?:\s+(?:back|over|out|down|up))?\s+(?:in|to|near)\b",
    re.IGNORECASE,
)
_RESIDENCE_STEMS = frozenset(
    canon(word)[0]
    for word in "live lives living lived reside resides based relocated relocating home".split()
)
_REASON = re.compile(
    r",?\s+\b(?:after|because|due to|thanks to|following|now that|as a result of|since the|since they|"
    r"since we|since it)\b",
    re.IGNORECASE,
)
# Capitalised place or thing names after a preposition of place.
_PLACE = re.compile(
    r"\b(?:in|at|to|near|from)\s+(?:the\s+)?((?:[A-Z][\w'.-]*|of|de|la|le|du)(?:\s+(?:[A-Z][\w'.-]*|of|de|la|le|du))*)"
)
# Kinds of software whose name, written in lower case, is still a name with a version
_VERSIONED_KINDS = frozenset(
    "programming_language database framework operating_system dev_tooling cad office_docs editor browser".split()
)


def _versioned_software(word: str) -> bool:
    from aurra_core.text_analysis import kinds

    return bool(kinds.kinds_of(word) & _VERSIONED_KINDS)


def _i_named(word: str) -> bool:
    """ "iOS", "iPhone", and "iphone" as chat writes it: a thing named with a leading "i", not
    any word that starts with one ("item", "issue")."""
    from aurra_core.text_analysis import kinds

    return word[:1] == "i" and (word[1:2].isupper() or bool(kinds.kinds_of(word)))


# A version: a name and a number ("Python 3.12", "iOS 18", "Node 20"; "python 3.9" when the name
# is software's, `_versioned_software`).
_VERSION = re.compile(
    r"\b([A-Za-z][\w+#]*?)\s+v?(\d+(?:\.\d+)*)(?![\d.]*\d)(?=\s*(?:$|[,;:!)(+&]|\.(?!\d)|\s(?:in|on|now|for|at|"
    r"and|with|since|last|this|today|yet|as|across|everywhere|instead|because|still|too|though|anyway|"
    r"already|again|finally)\b))"
)
_WITHIN_PLACE = re.compile(
    r"(?:\s+(?:now|today|these days))?,\s+(?:near\s+|off\s+)?([A-Z][\w'-]*(?:\s+[A-Z0-9][\w'-]*){0,2})"
    r"(?=\s*(?:$|[,.;!]))"
)
_NOT_A_PLACE = re.compile(
    r"^(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days?|January|February|March|April|May|June|July|"
    r"August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|"
    r"I|The|A|An|User|Christmas|Easter|"
    # a count that opens what the user said ("Three flats now"), no one named
    r"One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|Both|All|Half|Most)$"
)
_COUNT_WORD = re.compile(r"^\d+$")
# Around a count said without what it counts: "is 11 now", "down to 9", "up to 55".
_BARE_BEFORE = frozenset({"is", "are", "to"})
_BARE_AFTER = frozenset({"", "now", "today", "currently", "total", "again"})
_WORD_NUMBERS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
}


@dataclass(frozen=True)
class Slot:
    subject: str  # "user", "user's team", "acme"
    attribute: frozenset[str]  # the fact's content stems other than the value and light words
    kind: str  # one of KINDS
    value: str  # the value as compared ("time_600", "4", "hackney")
    unit: str = ""  # what a count counts, what a version versions

    def as_dict(self) -> dict[str, str]:
        return {
            "subject": self.subject,
            "attribute": " ".join(sorted(self.attribute)),
            "kind": self.kind,
            "value": self.value,
        }


_PLACE_KINDS = frozenset(
    {"place", "home", "address", "workplace", "school", "university", "airport", "lodging", "vacation"}
)


# Kinds whose words are common words before they are names: "Canary Wharf" is no bird,
# "Orange County" no colour.
_COMMON_WORD_KINDS = frozenset(
    {
        "bird",
        "pet",
        "cat",
        "dog",
        "color",
        "plant",
        "animal_food",
        "beverage",
        "dairy",
        "nuts",
        "spice",
        "meal",
        "cuisine",
    }
)


def _a_thing(name: str) -> bool:
    """The name is a known thing other than a place (kinds.py: "Notion" is notes, "Slack" messaging)."""
    from aurra_core.text_analysis import kinds

    found = kinds.kinds_of(name) - _COMMON_WORD_KINDS
    return bool(found) and not (found & _PLACE_KINDS)


def subject_of(text: str) -> str:
    found = _SUBJECT.match(text.strip())
    if found:
        owned = (found.group(1) or "").lower()
        if owned in OWN_GROUPS:
            return "user"  # the user's team or company: the same world as "our backend", "we"
        return f"user's {owned}" if owned in _PEOPLE else "user"
    named = _NAMED_SUBJECT.match(text.strip())
    if named:
        name = named.group(1).lower()
        return f"{name}'s {named.group(2).lower()}" if named.group(2) else name
    return ""


def _value_kind(token: str) -> str | None:
    if token.startswith("time_"):
        return "time"
    if token.startswith("weekday_"):
        return "day"
    if token.startswith(("money_", "percent_")):
        return "amount"
    if token.startswith("dayofmonth_") or token.startswith("date_"):
        return "day"
    return None


# A memory kept as the user said it ("User said: Fixed stuff: pottery class Monday evenings"):
# the lead-in, a label before the statement and the user's own subject say nothing of the slot.
_SAID = re.compile(lex.VERBATIM_LEAD_IN, re.IGNORECASE)
_LABEL = re.compile(r"^(?:[A-Za-z]+\s+){0,2}[A-Za-z]+:\s+(?=\S)")
_FILLER = re.compile(r"^(?:(?:so|and|ok|okay|um|also|but|plus|yeah|right|well)\b[\s,]*)+", re.IGNORECASE)
_OWN_SUBJECT = re.compile(r"^(?:I|I'm|I've|I'll|I'd|we|we're|we've|we'll)(?![\w'])", re.IGNORECASE)
# Someone by name, as a sentence starts with them: "Nora's lesson is at 9:15", "Mateo moved
# schools"; not "Bin day here is Wednesday" or "Practice is Smile Dental", a capital at a
# sentence's start.
_SOMEONE_NAMED = re.compile(
    r"^([A-Z][a-z]+)(?:'s\b|(?: [A-Z][a-z]+)? (?:just |now |finally |also |still |officially |recently )?"
    r"(?:got|gets|became|(?!is\b|was\b|are\b|has\b)[a-z]+(?:ed|s))\b)"
)
_MY_THING = re.compile(r"^(?:my|our)\s+(\w+)\b", re.IGNORECASE)
_HEADING = re.compile(lex.NEWS_HEADING, re.IGNORECASE)


def _as_said(text: str) -> str | None:
    """A memory kept as said, as a fact of the slots' shape: "User ..." when the sentence is the
    user's own (or names no one), "User's sister ..." when it starts with a relation; None when
    it is about someone named ("Nora moved up a level"), whose slots its words cannot place."""
    said = _SAID.match(text.strip())
    if said is None:
        # a fact written in the first person, as a content write may be ("My team has 6
        # engineers", "Our team grew to 9"): the user's, as if kept as said
        first_person = _MY_THING.match(text.strip()) or _OWN_SUBJECT.match(text.strip())
        return text if first_person is None else _as_said(f"User said: {text.strip()}")
    rest = _FILLER.sub("", _LABEL.sub("", text.strip()[said.end() :], count=1)).strip()
    rest = _HEADING.sub("", rest)  # "big news my sister moved": the sister's
    mine = _MY_THING.match(rest)
    if mine:  # "my sister's in Leeds now", "our backend is Django 5.1"
        return f"User's {mine.group(1).lower()}{rest[mine.end() :]}"
    own = _OWN_SUBJECT.match(rest)
    if own:
        return f"User {rest[own.end() :].strip()}"
    named = _SOMEONE_NAMED.match(rest)
    if named and not _a_thing(named.group(1)) and not _NOT_A_PLACE.match(named.group(1)):
        return None
    return f"User {rest}"


@lru_cache(maxsize=4096)
def about_someone_named(text: str) -> bool:
    """Whether a memory kept as said is about someone its sentence starts with by name ("User
    said: Nora got promoted", "Hana just started at Figma"), not the user ("Owing to the
    commute, ...", "Practice is Smile Dental")."""
    return _SAID.match(text.strip()) is not None and _as_said(text) is None


# Remembered per text: the rules classifier reads a text's slots several times in a pair, and
# each fact of a Level 2 write in about six pairs (a fifth of an import's classifier time).
@lru_cache(maxsize=4096)
def slots_of(text: str) -> tuple[Slot, ...]:
    """The slots a fact fills, one for each value plain code recognises in it."""
    said = _as_said(text)
    if said is None:
        return ()
    text = said
    subject = subject_of(text)
    if not subject:
        return ()
    found = _SUBJECT.match(text.strip())
    if found:
        owned = (found.group(1) or "").lower()
        # "User's standup is at 10am": the standup is the attribute, the user the subject
        body = (
            text.strip()[found.end() :]
            if owned in _PEOPLE or owned in OWN_GROUPS or not owned
            else text.strip()[found.end(1) - len(owned) :]
        )
        numbered = _OWNED_NUMBER.match(text.strip(), found.end()) if owned and owned not in _PEOPLE else None
        if numbered:
            # "User's order 1234 ships on Monday", "User's apartment 4B has 2 bedrooms": which
            # order or apartment, another one with another number (not a count of them)
            subject = f"{subject}'s {owned} {numbered.group(1).lower()}"
            body = f"{owned} {text.strip()[numbered.end() :].lstrip()}"
    else:
        named = _NAMED_SUBJECT.match(text.strip())
        body = text.strip()[named.end() :] if named else text
        numbered = _NAME_NUMBER.match(body) if named else None
        if numbered:
            # "Customer 2293 prefers plan 4", "Room 12 has 4 beds": the number names which one,
            # and counts nothing ("Customer 2393" is another customer, not 2,393 of them)
            subject, body = f"{subject} {numbered.group(1)}", body[numbered.end() :]
    reason = _REASON.search(body)
    if reason and reason.start() > 0:
        body = body[: reason.start()]  # "11 engineers now after the new hires": why, not what
    tokens = tokenize(normalize(body))
    tokens = [_WORD_NUMBERS.get(t, t) for t in tokens]
    values: list[tuple[str, str, str, int]] = []  # kind, value, unit, token index
    for index, token in enumerate(tokens):
        kind = _value_kind(token)
        if kind:
            values.append((kind, token, "", index))
    for match in _VERSION.finditer(body):
        name, number = match.group(1), match.group(2)
        if name.lower() in _WORD_NUMBERS or name.isdigit():
            continue
        if not (name[0].isupper() or _i_named(name) or _versioned_software(name)):
            continue  # "python 3.9" as chat writes it is a version; "5k 2" and "item 3" are not
        if name.lower() in {"at", "on", "in", "to", "for", "from", "has", "have", "is", "the", "with"}:
            continue
        values.append(("version", number, canon(name.lower())[0], -1))
    version_numbers = {v[1] for v in values if v[0] == "version"}
    for index, token in enumerate(tokens):
        if not _COUNT_WORD.match(token) or token in version_numbers:
            continue
        unit_token = tokens[index + 1] if index + 1 < len(tokens) else ""
        if unit_token in _COUNT_QUALIFIERS and index + 2 < len(tokens) and tokens[index + 2].isalpha():
            unit_token = tokens[index + 2]  # "14 active clients" counts clients
        if unit_token.isalpha() and unit_token not in _LIGHT:
            values.append(("count", token, canon(unit_token)[0], index))
        elif index and tokens[index - 1] in _BARE_BEFORE and unit_token in _BARE_AFTER:
            # "User's team is 11 now", "is down to 9": a count of what the slot counts, unnamed
            values.append(("count", token, "", index))
    places: list[str] = []
    within: list[str] = []  # "in Melbourne, Brunswick": the part of the place, not the slot
    for found_place in _PLACE.finditer(body):
        places.append(found_place.group(1))
        part = _WITHIN_PLACE.match(body, found_place.end())
        if part is not None:
            within.append(part.group(1))
    for place in places:
        words = place.split()
        while words and words[-1].lower() in {"of", "de", "la", "le", "du"}:
            words.pop()
        if words and words[-1].lower() in {v[2] for v in values if v[0] == "version"}:
            continue
        if words and _a_thing(" ".join(words)):
            continue  # "takes notes in Notion": a tool, not a place
        if words and not _NOT_A_PLACE.match(words[0].rstrip(".,;:!?")):
            values.append(("place", " ".join(w.lower() for w in words).rstrip(".'-"), "", -1))
    if not values:
        return ()
    value_stems: set[str] = set()
    for name in within:
        value_stems.update(canon(w)[0] for w in tokenize(normalize(name)) if w.isalpha())
    for _, value, _unit, _ in values:
        value_stems.add(value)
        value_stems.update(canon(w)[0] for w in value.split() if w.isalpha())
        value_stems.update(canon(w)[0] for w in tokenize(normalize(value)) if w.isalpha())
    segments = _segments(tokens)

    def terms(part: list[str]) -> set[str]:
        return {
            term
            for token in part
            if token.isalpha() or "_" in token or token.replace(".", "").isdigit()
            for term in canon(token)
            if term not in LIGHT_STEMS
            and term not in value_stems
            and not _value_kind(term)
            and not term.startswith(("month_", "year_", "date_", "hours_"))
            and not term.replace(".", "").isdigit()
        }

    base = terms(tokens)
    # "User's office moved to Manhattan" is the office's move, not the user's home
    owned_thing = bool(found and found.group(1) and found.group(1).lower() not in _PEOPLE)
    residence = bool(_RESIDENCE.search(body)) and not owned_thing
    slots = []
    for kind, value, unit, index in values:
        where = index if index >= 0 else _position(tokens, value, unit)
        segment = next((part for start, part in segments if start <= where < start + len(part)), None)
        own = terms(segment) if segment is not None and len(segments) > 1 else base
        attribute = frozenset(own - {unit})
        if kind == "place" and residence:
            # "lives in Denver", "moved to Portland", "is moving to Bristol": one slot, home
            attribute = (attribute - _RESIDENCE_STEMS) | {"@residence"}
        slots.append(Slot(subject, attribute, kind, value, unit))
    return tuple(slots)


# "has 3 cats and a very patient husband", "lives in Leeds with their partner": the value's own
# phrase ends where another thing is named.
_SEGMENT_BREAK = frozenset({"and", ",", ";", "plus", "with", "but"})
_SEGMENT_START = frozenset({"a", "an", "the", "their", "his", "her", "its", "they", "them", "user", "some"})


def _segments(tokens: list[str]) -> list[tuple[int, list[str]]]:
    """The token list cut where another thing is named, each part with its start."""
    out: list[tuple[int, list[str]]] = []
    start = 0
    for index in range(1, len(tokens) - 1):
        if tokens[index] in _SEGMENT_BREAK and tokens[index + 1] in _SEGMENT_START:
            out.append((start, tokens[start:index]))
            start = index + 1
    out.append((start, tokens[start:]))
    return out


def _position(tokens: list[str], value: str, unit: str) -> int:
    """Where a value found in the text (a version, a place) is among the tokens."""
    first = (unit or value).split()[0]
    for index, token in enumerate(tokens):
        if token == first or canon(token)[0] == canon(first)[0]:
            return index
    return 0


def same_attribute(old: Slot, new: Slot, *, changed: bool, same_owner: bool = False) -> bool:
    """The two slots name the same attribute: the same words, or (when the new fact says its
    value changed) one's words within the other's but for one. A count without its unit ("is
    11 now") is of the other's unit ("8 engineers") only when the new fact says it changed and
    both facts are of the same owner (`same_owner`: "User's team" both, not "User" and "User's
    team", which share a subject)."""
    if old.subject != new.subject or old.kind != new.kind:
        return False
    new = replace(new, attribute=_as_the_old_words(new.attribute, old.attribute))
    if old.unit != new.unit:
        unnamed = old.kind == "count" and "" in (old.unit, new.unit)
        if not (unnamed and changed and same_owner):
            return False
        bare, named = (old, new) if old.unit == "" else (new, old)
        if not bare.attribute <= named.attribute:
            return False  # "5 players" -> "moved dnd to 7": a number of something else, not "is 7 now"
    if old.attribute == new.attribute:
        # "User is in Melbourne" -> "User is in Brisbane now": where the user is, said to change
        return bool(old.attribute) or bool(old.unit) or (old.kind == "place" and changed)
    if not changed:
        return False
    small, large = sorted((old.attribute, new.attribute), key=len)
    if not small and not old.unit:
        return False
    if old.kind == "count" and old.unit and old.unit == new.unit and not new.attribute:
        # "so 9 hens now": a count of the same thing said with nothing else, whatever else the
        # old sentence told of it ("6 hens (2 buff orpingtons...) and egg production dropped")
        return True
    return small <= large and len(large - small) <= 2


_DOING_ENDINGS = frozenset({"al", "e", "ing", "ion", "ment"})


def _as_the_old_words(words: frozenset[str], old_words: frozenset[str]) -> frozenset[str]:
    """The new slot's words, each written as the old slot's word it is another form of: a stem
    of five letters or more and the same with the ending of a noun of the doing ("rehears" of
    "rehearses", "rehearsal" of "rehearsals"; "train", "training"). Not of the doer: a
    "trainer" or a "cleaner" is someone else."""

    def as_old(word: str) -> str:
        for old in old_words:
            short, long = sorted((word, old), key=len)
            if len(short) >= 5 and long.startswith(short) and long[len(short) :] in _DOING_ENDINGS:
                return old
        return word

    return frozenset(as_old(word) for word in words)


# A name the new fact says was left: "switched from Evernote", "ditched Slack", "left Google",
# "sold the Corolla", "pulled out of Valencia", "not at Flipkart anymore".
_LEFT = re.compile(
    r"\b(?:from|ditch(?:ed|es|ing)|ripped out|replac(?:ed|es|ing)|dropp(?:ed|ing)|got rid of|"
    r"off(?: of)?|out of|left|quit|stopped(?: using)?|gave up|swapp(?:ed|ing)|instead of|no longer|"
    r"sold|traded(?: in)?|cancell?(?:ed|ing)|withdr[ae]w from|not (?:in|at|with|on))\s+"
    r"(?:the\s+|their\s+|our\s+|my\s+)?$",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w.+#&'-]*(?:\s+[A-Z0-9][\w.+#&'-]*)*")
_NOT_A_NAME = frozenset({"User", "User's", "I", "I'm", "The", "A", "An"})


def names(text: str, value: str) -> bool:
    """Whether the text names the value, as a whole word or words, case aside."""
    return bool(re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE))


def _names(text: str) -> list[str]:
    """The text's capitalised names, its subject, months and days aside."""
    out = []
    for match in _NAME.finditer(text):
        name = match.group(0).rstrip(".'")
        if name not in _NOT_A_NAME and not _NOT_A_PLACE.match(name.split()[0]) and len(name) >= 2:
            out.append(name)
    return out


@lru_cache(maxsize=1)
def _places() -> frozenset[str]:
    """The kinds lexicon's places as written there (not as stemmed: "main" is no Maine), but for
    the words that name no place in particular."""
    from aurra_core.text_analysis import kinds

    return frozenset(p.replace("-", " ") for p in kinds.KINDS["place"]) - {
        "city",
        "town",
        "country",
        "hometown",
    }


def _places_in_lower_case(text: str) -> list[str]:
    """Places the user wrote in lower case ("lives in porto"), as the kinds lexicon writes them:
    one word or two."""
    words = re.findall(r"[a-zà-ÿ][\w'-]*", text)
    out = []
    index = 0
    while index < len(words):
        for size in (2, 1):
            phrase = " ".join(words[index : index + size])
            if len(phrase.split()) == size and phrase in _places():
                out.append(phrase)
                index += size - 1
                break
        index += 1
    return out


def replaced_values(old: str, new: str) -> list[str]:
    """The names the old fact held that the new one replaced: each name of the old fact (a
    capitalised word or words, not its subject, not a month or a day) that the new fact does not
    name, or names only as what was left ("switched from Evernote to Obsidian"). What a fact
    that rested on the old one would name."""
    out: list[str] = []
    for name in [*_names(old), *_places_in_lower_case(old)]:
        left = False
        said = False
        for found in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", new, re.IGNORECASE):
            said = True
            left = left or bool(_LEFT.search(new[: found.start()]))
        if (not said or left) and name not in out:
            out.append(name)
    return out


def word_pattern(value: str) -> str:
    """A PostgreSQL regular expression (ARE, applied without case) for the value as a whole word
    or words: every character but a letter or a digit escaped."""
    escaped = "".join(ch if ch.isalnum() else "\\" + ch if not ch.isspace() else "\\s+" for ch in value)
    return f"(^|[^[:alnum:]_-]){escaped}($|[^[:alnum:]_-])"


def subject_pattern(subject: str) -> str | None:
    """A PostgreSQL regular expression (applied without case) for a fact about `subject` (as
    `subject_of` names it): "user" takes "User ...", "The user ...", "User's team ..." and
    "User's standup ...", never "User's sister ..."; None when the subject is not one plain code
    can match."""
    people = "|".join(sorted(_PEOPLE - OWN_GROUPS))
    if subject == "user":
        return rf"^(the\s+)?user($|[^[:alnum:]_'])|^(the\s+)?user's\s+(?!({people})([^[:alnum:]_]|$))"
    if subject.startswith("user's "):
        return rf"^(the\s+)?user's\s+{re.escape(subject.split()[1])}([^[:alnum:]_]|$)"
    if re.fullmatch(r"[a-z0-9][a-z0-9 &.-]*", subject):
        return "^" + word_pattern(subject)[len("(^|[^[:alnum:]_-])") :]
    return None
