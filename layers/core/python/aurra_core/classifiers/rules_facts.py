"""Reading one fact for the rules classifier: its subject, the attributes it speaks about, its
typed values, closed-class values, counts and lifecycle states.

The text itself is read through `aurra_core.text_analysis.text` (one normalisation, one tokenizer, one stemmer,
shared with the lexical embedder).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from aurra_core.runtime import deadline
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import (
    TIMEZONE_AFTER_KEY_RE,
    TIMEZONE_NAMED_RE,
    TIMEZONE_SLASH_RE,
    canon,
    normalize,
    tokenize,
    unify_punctuation,
)

_AUX = frozenset(
    """is are was were be been being am has have had do does did will would can could may might shall
    should must 's got gets get""".split()
)
_PREPOSITIONS = frozenset(
    "in on at to for with by from of about into onto over under after before since".split()
)

# Common verbs that end a subject noun phrase ("Standup moves", "The vet put").
VERBS = frozenset(
    # the normaliser's one-word verbs ("broke up" -> "brokeup", "paid off" -> "paidoff")
    """brokeup paidoff use uses used using usedto live lives lived living work works worked working move moves moved moving
    switch switches switched go goes went gone run runs ran take takes took put puts drive drives drove
    pay pays paid bank banks own owns owned buy buys bought sell sells sold eat eats ate drink drinks
    drank prefer prefers preferred like likes liked love loves loved hate hates hated want wants need needs
    say says said call calls called speak speaks spoke plays play played keep keeps kept hold holds held
    start starts started stop stops stopped quit quits join joins joined leave leaves left reports report
    reported attend attends attended travel travels traveled travelled visit visits visited read reads
    make makes made give gives gave tried try tries came come comes become becomes became turned turns
    resumed opens open closes signed signs renew renews renewed expires expired expire manages manage
    sign avoids avoid avoided enjoys enjoy enjoyed lost lose loses won win wins types type typed bikes
    bike biked walks walked commutes commute commuted flies fly flew flying going coming getting
    teaches teach taught studies study runs handles handle leads owns includes include costs cost earns
    earn speaks belongs belong sits sit stays stay remains remain seems seem looks look feels feel
    lives goes knows know shows show means mean supports support needs requires require ends end starts
    begins begin expires renews closes opens happens happen""".split()
)


# ---------------------------------------------------------------------------------------------
# The subject.


@dataclass(frozen=True)
class Subject:
    kind: str  # principal | name | thing | pronoun | none
    key: frozenset[str] = frozenset()  # names or head words
    relations: tuple[str, ...] = ()  # possessive chain of relation nouns: ("sister",)
    apposition: frozenset[str] = frozenset()  # "User's daughter Emma" -> {"emma"}
    slot: tuple[str, ...] = ()  # the possessed attribute: "User's work phone" -> ("work", "phone")


_REPORTING = regex_programs.compile(lex.REPORTING_CLAUSE)
_SPEAKER = regex_programs.compile(lex.SPEAKER_CLAUSE)
_CORRECTION = regex_programs.compile(lex.CORRECTION_LEAD_IN)
_VERBATIM = regex_programs.compile(lex.VERBATIM_LEAD_IN)
_HEADING = regex_programs.compile(lex.NEWS_HEADING)  # the text is normalised: lower case
_VERBATIM_AS_WRITTEN = regex_programs.compile("(?i)" + lex.VERBATIM_LEAD_IN)
# A capital word before "is" may be a thing ("Practice is Smile Dental"); before any other verb
# ("Hana just started", "Ray moved") it is someone.
_NAMED_THING = regex_programs.compile(r"^\S+\s+(?:is|was|are|'s)\b")


def strip_reporting(norm: str) -> tuple[str, str | None]:
    """'Customer mentioned that X' -> ('X', 'customer'); 'Acme admin on the call: "We ..."' -> ('we ...', 'acme')."""
    reporter = None
    match = _CORRECTION.match(norm)
    if match:
        norm = norm[match.end() :]
    match = _SPEAKER.match(norm)
    if (
        match
        and ":" in norm[: match.end()]
        and re.match(r'\s*"|\s*(?:we|i|our|they|us)\b', norm[norm.index(":", 0, match.end()) + 1 :])
    ):
        reporter = match.group("r")
        norm = norm[match.end() :].strip().strip('"').strip()
    else:
        match = _REPORTING.match(norm)
        if match and len(norm) > match.end() + 3:
            reporter = match.group("r")
            norm = norm[match.end() :]
    return norm, reporter


_JOINED_NAMES = [(re.compile(pattern, re.IGNORECASE), joined) for pattern, joined in lex.JOINED_NAMES]
_SAID_OPENING = re.compile(r"\s*\w+ said:\s*", re.IGNORECASE)


# What is written in capitals and names no one: "PT is tuesdays at 8am" is the physical therapy
_SERVICES_BY_INITIALS = frozenset({"pt", "ot", "er", "icu", "hr", "pe", "ed", "gp"})


def _names(original: str) -> set[str]:
    """Lower-cased words written with a capital that are names, not sentence starts or lexicon words."""
    text = unify_punctuation(original)
    for pattern, joined in _JOINED_NAMES:  # "Fly.io" is one name, as the terms have it
        text = pattern.sub(joined.capitalize(), text)
    out = set()
    # the first word of the text, or of what the user said ("User said: Hey, I moved ...")
    said = _SAID_OPENING.match(text)
    first_said = said.end() if said else 0
    for i, match in enumerate(re.finditer(r"(?<!\w)[A-Za-z][\w&.\-]*", text)):  # "5K" holds no name
        tok = match.group(0)
        low = tok.lower().rstrip(".")
        if not tok[0].isupper() or low in lex.STOPWORDS or low in lex.PRINCIPAL_WORDS:
            continue
        if (i == 0 or match.start() == first_said) and (
            low in lex.COMMON_SENTENCE_STARTS
            or low in VERBS
            or low in lex.SYNONYMS
            or low in lex.INTERJECTIONS
        ):
            continue
        if (
            tok.isupper()
            and len(tok) <= 4
            and (low in lex.SYNONYMS or low in lex.US_STATE_CODES or low in _SERVICES_BY_INITIALS)
        ):
            continue
        if (
            low in {"project", "team", "customer", "user", "plan", "card", "mr", "mrs", "ms", "dr"}
            or low in lex.ROLE_NOUNS
        ):
            continue
        out.add(low.split("'")[0])
    return out


_ADVERBS = frozenset(
    """also now still just currently recently finally quietly already never always nolonger
    nowadays lately anymore fromnowon
    actually apparently reportedly officially then so and but well ok okay""".split()
)
_IMPERATIVES = frozenset(
    "reach contact call email text ping send note remember put use please reply respond answer write address".split()
)
_NP_STOP = _AUX | _PREPOSITIONS | {",", ";", ":", "'s", '"', "(", ")", "and", "who", "which", "that"}
_NOUNISH = frozenset("work home side day call type play run drive use plan pay".split())


def _is_verbish(tok: str) -> bool:
    if tok in _NOUNISH:
        return False
    return tok in VERBS or tok in _ADVERBS or (tok.endswith("ed") and len(tok) > 4)


def _key(words: list[str]) -> frozenset[str]:
    return frozenset(
        canon(w)[0]
        for w in words
        if w not in lex.STOPWORDS
        and w not in lex.ORG_SUFFIXES
        and w not in {"&", "and"}
        and w not in _ADVERBS
    )


_LEAD_INS = frozenset(
    "since after before from as starting following effective in on last this beginning until".split()
)
_POSSESSIVE_PRONOUNS = frozenset({"my", "our", "his", "her", "their", "its"})
_TITLES = frozenset({"now", "still", "dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "prof", "prof."})

# Where parsing stands: the subject's kind, its key words and the index of the next token.
Head = tuple[str, frozenset[str], int]


def parse_subject(tokens: list[str], names: set[str], reporter: str | None) -> Subject:
    """Who or what the fact is about: its head, then any chain of possessives after it."""
    start = _subject_start(tokens)
    if start >= len(tokens) or tokens[start] in _IMPERATIVES:
        return Subject("none")
    head = _head(tokens, start, names, reporter)
    if isinstance(head, Subject):
        return head
    kind, key, i = head
    possessive = (i < len(tokens) and tokens[i] == "'s") or tokens[start] in _POSSESSIVE_PRONOUNS
    relations, apposition, slot = _possessions(tokens, i, names, possessive)
    return Subject(kind, key, relations, apposition, slot)


def _subject_start(tokens: list[str]) -> int:
    """Past a lead-in up to a comma ("Since the reorg, Tom's manager is Priya"), articles and adverbs."""
    i = 0
    if tokens and tokens[0] in _LEAD_INS and "," in tokens[:10]:
        i = tokens.index(",") + 1
    while i < len(tokens) and (tokens[i] in {"the", "a", "an", "all", "of"} or tokens[i] in _ADVERBS):
        i += 1
    return i


def _head(tokens: list[str], i: int, names: set[str], reporter: str | None) -> Head | Subject:
    head = tokens[i]
    if head in {"we", "us"} and reporter and reporter.split()[-1] not in lex.PRINCIPAL_WORDS:
        return "name", _key(reporter.split()), i + 1
    if head in lex.PRINCIPAL_WORDS:
        return "principal", frozenset(), i + 1
    if head in {"he", "she", "they", "it", "his", "her", "their", "its"}:
        if reporter and reporter.split()[-1] in lex.PRINCIPAL_WORDS | {"they", "he", "she"}:
            return "principal", frozenset(), i + 1
        if reporter:
            return "name", _key(reporter.split()), i + 1
        return "pronoun", frozenset(), i + 1
    if head in names or (head == "project" and i + 1 < len(tokens) and tokens[i + 1] in names):
        return _named_head(tokens, i, names)
    if head in lex.RELATION_NOUNS and not (i + 1 < len(tokens) and tokens[i + 1] in {":", "'s"}):
        # "Friends call the user Bobby": people around the principal
        return Subject("principal", frozenset(), (canon(head)[0],))
    run: list[str] = []
    while i < len(tokens) and tokens[i] not in _NP_STOP and not _is_verbish(tokens[i]) and len(run) < 5:
        run.append(tokens[i])
        i += 1
    key = _key(run)
    if not key:
        return Subject("none")
    if i < len(tokens) and tokens[i] == ":":
        # a key-value note: "Plan: Enterprise" names an attribute, not a subject
        return Subject("none", frozenset(), (), frozenset(), tuple(sorted(key)))
    return "thing", key, i


def _named_head(tokens: list[str], i: int, names: set[str]) -> Head:
    """A run of names ("Harbor & Pine"); a name modifying a noun ("the Paris flight") is a thing."""
    run: list[str] = []
    while i < len(tokens) and (
        tokens[i] in names
        or tokens[i] == "project"
        or (tokens[i] in {"&", "and"} and run and i + 1 < len(tokens) and tokens[i + 1] in names)
    ):
        run.append(tokens[i])
        i += 1
    key = _key(run)
    kind = "name" if key else "thing"
    extra: list[str] = []
    while (
        i < len(tokens)
        and tokens[i] not in _NP_STOP
        and not _is_verbish(tokens[i])
        and len(extra) < 4
        and not (tokens[i].endswith("s") and not tokens[i].endswith("ss"))
        and tokens[i].isalpha()
    ):
        extra.append(tokens[i])
        i += 1
    if extra:
        return "thing", key | _key(extra), i
    return kind, key, i


def _possessions(
    tokens: list[str], i: int, names: set[str], possessive: bool
) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """After "'s": relatives ("User's sister"), their apposed names ("daughter Emma") and the
    possessed attribute ("User's work phone")."""
    relations: list[str] = []
    apposition: set[str] = set()
    slot: list[str] = []
    while possessive and i < len(tokens):
        if tokens[i] == "'s":
            i += 1
        phrase, i = _possessed_phrase(tokens, i, names)
        related = [w for w in phrase if w in lex.RELATION_NOUNS]
        after = phrase[phrase.index(related[-1]) + 1 :] if related else []
        value_next = (
            i + 1 < len(tokens)
            and tokens[i] in {"is", "are", ":"}
            and (tokens[i + 1] in names or tokens[i + 1] in _TITLES)
        )
        if related and after and all(w in names for w in after):
            relations.append(canon(related[-1])[0])  # "User's daughter Emma is 7"
            apposition |= set(after)
            slot = []
        elif related and not value_next and set(after) <= lex.VALUE_CLASSES["diet"]:
            # "User's sister lives in Leeds"; "User's mom doesn't eat meat", read "mom vegetarian"
            relations.append(canon(related[-1])[0])
            slot = []
        elif related and len(after) == 1 and _third_person(after[0]):
            # "User's son swims on Wednesdays": what the relative does, not an attribute "son swims"
            relations.append(canon(related[-1])[0])
            slot = []
        else:
            # "Tom's manager is Priya", "User's dentist appointment": an attribute of the subject
            slot = [canon(w)[0] for w in phrase if w not in lex.STOPWORDS]
        possessive = i < len(tokens) and tokens[i] == "'s"
    return tuple(relations), frozenset(apposition), tuple(slot)


def _third_person(word: str) -> bool:
    """A verb's -s form after a relative ("son swims", "wife trains"): a relative's own noun would
    follow "'s" ("son's bike")."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word.isalpha()


def _possessed_phrase(tokens: list[str], i: int, names: set[str]) -> tuple[list[str], int]:
    phrase: list[str] = []
    seen_relation = False
    while i < len(tokens) and tokens[i] not in _NP_STOP and not _is_verbish(tokens[i]) and len(phrase) < 5:
        if (
            seen_relation
            and phrase
            and phrase[-1] not in lex.RELATION_NOUNS
            and phrase[-1] in names
            and tokens[i] not in names
        ):
            break  # "husband Chris teaches": the apposed name ends the phrase
        seen_relation = seen_relation or tokens[i] in lex.RELATION_NOUNS
        phrase.append(tokens[i])
        i += 1
    return phrase, i


# ---------------------------------------------------------------------------------------------
# The whole fact.


@dataclass
class Fact:
    raw: str
    text: str  # normalised, reporting clause stripped
    full: str  # normalised, with the reporting clause
    tokens: list[str]
    terms: list[str]  # canonical content terms, in order
    names: set[str]
    subject: Subject
    reporter: str | None
    classes: dict[str, set[str]] = field(default_factory=dict)
    typed: dict[str, set[str]] = field(default_factory=dict)
    counts: dict[str, set[int]] = field(default_factory=dict)  # unit -> numbers ("50 seats")
    rates: dict[str, set[int]] = field(default_factory=dict)  # "times/week" -> {3} ("3x a week")
    states: dict[str, set[str]] = field(default_factory=dict)  # lifecycle -> states
    attrs: set[str] = field(default_factory=set)
    memo: dict[str, Any] = field(default_factory=dict)  # derived views, computed once per fact

    @property
    def term_set(self) -> frozenset[str]:
        """The terms as a set, made once: loops over a fact's tokens ask for it at each token."""
        ts: frozenset[str] | None = self.memo.get("terms")
        if ts is None:
            ts = self.memo["terms"] = frozenset(self.terms)
        return ts


_CLASS_CONTEXT = {name: regex_programs.compile(pattern) for name, pattern in lex.CLASS_CONTEXT.items()}
_VERSIONED = {
    "windows",
    "ubuntu",
    "fedora",
    "debian",
    "macos",
    "ios",
    "android",
    "iphone",
    "pixel",
    "galaxy",
    "python",
    "java",
    "node",
    "postgres",
    "mysql",
    "rhel",
    "centos",
}


_COMMUTE_MODES = {
    "bikes": "bike",
    "biking": "bike",
    "cycle": "bike",
    "cycles": "bike",
    "cycling": "bike",
    "drives": "drive",
    "driving": "drive",
    "walks": "walk",
    "walking": "walk",
}
_BILLING_CADENCES = {"annually": "annual", "yearly": "annual"}
_FREQUENCIES = {"fortnightly": "biweekly"}
_FREQUENCY_PHRASES = (
    (r"\bonce a week\b|\bevery week\b", "weekly"),
    (r"\bonce a day\b|\bevery day\b", "daily"),
    (r"\bonce a month\b|\bevery month\b", "monthly"),
)


def _classes(tokens: list[str], text: str) -> dict[str, set[str]]:
    """Closed-class values by class: {"editor": {"vim"}, "timezone": {"-300"}, ...}."""
    out: dict[str, set[str]] = {}
    for name, members in lex.VALUE_CLASSES.items():
        context = _CLASS_CONTEXT.get(name)
        if context is not None and not context.search(text):
            continue
        for index, token in enumerate(tokens):
            if token in members:
                value = _class_value(name, token, tokens, index, text)
                if value is not None:
                    out.setdefault(name, set()).add(value)
    for pattern, value in _FREQUENCY_PHRASES:
        if re.search(pattern, text) and _CLASS_CONTEXT["frequency"].search(text):
            out.setdefault("frequency", set()).add(value)
    zones = _time_zones(text)
    if zones:
        out["timezone"] = zones
    return out


# What a class member names a role or a group by, when it stands before them
_ROLE_MODIFIED = lex.ROLE_NOUNS | frozenset("dev devs role position job".split())


def _class_value(name: str, token: str, tokens: list[str], index: int, text: str) -> str | None:
    """The value a class member stands for here, or None when the context says it is not one."""
    if name == "deal_stage" and token == "customer" and not re.search(r"\b(?:a|an|paying) customer\b", text):
        return None
    if (
        name == "channel"
        and token in ("phone", "call")
        and not re.search(r"\b(?:by|via|over) (?:phone|call)\b|\bcall\b", text)
    ):
        return None
    if index + 1 < len(tokens) and tokens[index + 1] in _ROLE_MODIFIED:
        return None  # "the iOS lead", "an Android developer", "the Python team": a role, not a value
    if name == "code_host" and tokens[index + 1 : index + 2] == [f"{token}actions"]:
        return None  # "GitHub Actions" names the CI service, not where the code is
    value = _COMMUTE_MODES.get(token, token) if name == "commute" else token
    if token in _VERSIONED and index + 1 < len(tokens) and re.fullmatch(r"\d+(?:\.\d+)*", tokens[index + 1]):
        value = f"{token} {tokens[index + 1]}"
    if name == "billing":
        value = _BILLING_CADENCES.get(token, token)
    if name == "frequency":
        value = _FREQUENCIES.get(token, token)
    return value


def _time_zones(text: str) -> set[str]:
    """Zones as UTC offsets in minutes: "Pacific time", "America/Chicago", "UTC+1", "Lisbon time"."""
    zones = set()
    for match in re.finditer(r"\butc ?([+-]) ?(\d{1,2})(?::?(\d\d))?\b|\bgmt ?([+-]) ?(\d{1,2})\b", text):
        if match.group(1):
            offset = int(match.group(2)) * 60 + int(match.group(3) or 0)
            zones.add(str(offset if match.group(1) == "+" else -offset))
        else:
            offset = int(match.group(5)) * 60
            zones.add(str(offset if match.group(4) == "+" else -offset))
    if not re.search(r"\btimezone\b|\btime\b|\bhours\b|\b[a-z]+/[a-z_]+\b", text):
        return zones
    offsets = bool(re.search(r"\b(?:utc|gmt) ?[+-] ?\d", text))
    found = {match.group(1) for match in TIMEZONE_NAMED_RE.finditer(text)}
    found |= {match.group(1) for match in TIMEZONE_AFTER_KEY_RE.finditer(text)}
    found |= {match.group(1) for match in TIMEZONE_SLASH_RE.finditer(text) if match.group(1) in lex.TIMEZONES}
    for zone in found:
        if zone in ("utc", "gmt") and offsets:
            continue
        zones.add(str(lex.TIMEZONES[zone]))
    return zones


_TYPED_RE = regex_programs.compile(
    r"\b(money|time|utc|hours|date|dayofmonth|expiry|year|percent|phone|email|weekday|month|pronouns|quarter|ordinal)_[\w.]+"
)


def _typed(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for match in _TYPED_RE.finditer(text):
        out.setdefault(match.group(1), set()).add(match.group(0))
    return out


_COUNT_STEMS = frozenset(canon(w)[0] for w in lex.COUNT_NOUNS)


def _counts(tokens: list[str]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    # "seat count is now 42", "number of seats: 42"
    text = " ".join(tokens)
    for match in re.finditer(r"\b([a-z]+) (?:count|total) (?:is |: ?|of )?(?:now |at |still )?(\d+)\b", text):
        out.setdefault(canon(match.group(1))[0], set()).add(int(match.group(2)))
    for match in re.finditer(r"\bnumber of ([a-z]+) (?:is |: ?)(?:now |at |still )?(\d+)\b", text):
        out.setdefault(canon(match.group(1))[0], set()).add(int(match.group(2)))
    for i, tok in enumerate(tokens):
        if not tok.isdigit():
            continue
        for j in range(i + 1, min(i + 4, len(tokens))):
            w = tokens[j]
            if w in {",", ";", ":", "of", "to", "and", "or"}:
                break
            c = canon(w)[0]
            if c in _COUNT_STEMS or w in lex.COUNT_NOUNS:
                out.setdefault(c, set()).add(int(tok))
                break
    return out


# How often: "twice a week", "3x a week", "on 5 a week now", "4 days a week", "2 sessions
# weekly". What is counted (times, days, hours) and per what make the key: "3x a week" and
# "4 days a week" are not one rate.
_RATE = regex_programs.compile(
    r"(?<![\w.$£€])(\d{1,2}|once|twice|thrice) ?(x|times?|days?|nights?|mornings?|evenings?|"
    r"sessions?|runs?|classes|shifts?|hours?|hrs)?(?: ?/ ?| (?:a|an|per|each|every) )"
    r"(week|wk|month|day|fortnight)\b|"
    r"(?<![\w.$£€])(\d{1,2}|once|twice|thrice) ?(x|times?|days?|nights?|sessions?|runs?|classes|shifts?|hours?|hrs)? "
    r"(weekly|monthly|daily)\b"
)
_RATE_NUMBERS = {"once": 1, "twice": 2, "thrice": 3}
_RATE_UNITS = {
    "x": "times",
    "time": "times",
    "session": "times",
    "run": "times",
    "class": "times",
    "hr": "hour",
}
_RATE_PERIODS = {"wk": "week", "weekly": "week", "monthly": "month", "daily": "day"}


def _rates(text: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for match in _RATE.finditer(text):
        number, unit, period = match.group(1, 2, 3) if match.group(1) else match.group(4, 5, 6)
        if unit is None and period == "day" and number not in _RATE_NUMBERS:
            continue  # "5 a day" is as often a dose or a count as a rate; "twice a day" is a rate
        unit = "class" if unit == "classes" else (unit or "times").removesuffix("s")
        unit = _RATE_UNITS.get(unit, unit)
        value = _RATE_NUMBERS.get(number) or int(number)
        out.setdefault(f"{unit}/{_RATE_PERIODS.get(period, period)}", set()).add(value)
    return out


_NOT_REALIZED_BEFORE = regex_programs.compile(lex.NOT_REALIZED_BEFORE)


def _realized(tokens: list[str], word: str) -> bool:
    """Whether the word is stated as so somewhere, not denied or only expected ("was never
    suspended", "will be cancelled")."""
    return any(
        not _NOT_REALIZED_BEFORE.search(" ".join(tokens[max(0, index - 3) : index]))
        for index, token in enumerate(tokens)
        if token == word
    )


def _states(tokens: list[str], text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    surface = set(tokens)
    for cycle, words in lex.STATES.items():
        for w, state in words.items():
            if w in surface and _realized(tokens, w):
                if (
                    cycle == "deal"
                    and w == "customer"
                    and not re.search(r"\b(?:a|an|paying) customer\b", text)
                ):
                    continue
                if (
                    cycle == "deal"
                    and w in ("lead", "demo", "evaluation", "evaluating", "lost", "signed")
                    and not re.search(r"\bstage\b|\bdeal\b", text)
                ):
                    continue
                if (
                    cycle == "deal"
                    and w == "prospect"
                    and not re.search(r"\b(?:a|an) prospect\b|\bstage\b", text)
                ):
                    continue
                if cycle == "toggle" and w in ("on", "off"):
                    continue
                if (
                    cycle == "account"
                    and w in ("blocked", "frozen", "locked", "closed", "deleted", "paused", "onhold")
                    and not re.search(r"\baccount\b|\bplan\b|\bsubscription\b|\bmembership\b", text)
                ):
                    continue
                if (
                    cycle == "account"
                    and w == "trial"
                    and not re.search(r"\b(?:on|in) (?:a |the )?(?:free )?trial\b", text)
                ):
                    continue
                if cycle == "project" and w == "progress" and "in progress" not in text:
                    continue
                if cycle == "legal_case" and not re.search(
                    r"\b(?:case|charge|charges|lawsuit|claim|dispute|suit)\b", text
                ):
                    continue
                if (
                    cycle == "release"
                    and w in ("launched", "released", "live")
                    and not re.search(r"\b(?:alpha|beta|ga|preview)\b", text)
                ):
                    continue
                out.setdefault(cycle, set()).add(state)
    return out


_ATTRIBUTE_CUES = {
    name: frozenset(canon(c)[0] for c in spec["cues"]) for name, spec in lex.ATTRIBUTES.items()
}


def _attributes(terms: set[str], text: str) -> set[str]:
    out = {name for name, cues in _ATTRIBUTE_CUES.items() if terms & cues}
    if terms & _ROLE_STEMS:
        out.add("role")
    return out


_ROLE_STEMS = frozenset(canon(w)[0] for w in lex.ROLE_NOUNS)


def kept_as_said(fact: Fact) -> bool:
    """Whether the fact is a memory the extractor kept as the user said it ("User said: ...")."""
    return _VERBATIM.match(fact.full) is not None


_THIRD_PERSON = frozenset({"he", "she", "his", "her"})


def spoken_of(tokens: list[str]) -> tuple[str, str] | None:
    """The "he", "she", "his" or "her" among a sentence's first three words, and the word after
    it: whom the user's own words ("so he's Senior Executive Officer now") are about."""
    for word, after in zip(tokens[:3], [*tokens[1:4], ""], strict=False):
        if word in _THIRD_PERSON:
            return word, after
    return None


@lru_cache(maxsize=2048)
def analyze(raw: str) -> Fact:
    full = normalize(raw)
    deadline.check()
    text, reporter = strip_reporting(full)
    tokens = tokenize(text)
    names = _names(raw)
    subject = parse_subject(tokens, names, reporter)
    said = _VERBATIM.match(text)
    if said is not None and len(text) > said.end():
        # Kept as the user said it: about someone else when the sentence names them ("Hana
        # just started at Figma", "my wife's at Figma now"); else the user's own.
        # past the heading of the news ("big news", "change of plans kkkk"): whose it is
        own_words = _HEADING.sub("", text[said.end() :].lstrip())
        own_tokens = tokenize(own_words)
        # its first word starts the user's sentence: a name only if it is one there
        own_subject = parse_subject(own_tokens, _names(_VERBATIM_AS_WRITTEN.sub("", raw, count=1)), None)
        named = own_subject.kind == "name" and not _NAMED_THING.match(own_words)
        # "so he's Senior Executive Officer now": someone else the user speaks of, not the user
        someone = own_subject.kind == "pronoun" and spoken_of(own_tokens) is not None
        if named or someone or own_subject.relations:
            text, tokens, subject = own_words, own_tokens, own_subject
    terms: list[str] = []
    for tok in tokens:
        if tok in lex.STOPWORDS or tok in {",", ";", ":", "(", ")", '"', "!", "?", "'s"}:
            continue
        for c in canon(tok):
            if c not in lex.STOPWORDS:
                terms.append(c)
    fact = Fact(
        raw=raw,
        text=text,
        full=full,
        tokens=tokens,
        terms=terms,
        names=names,
        subject=subject,
        reporter=reporter,
    )
    deadline.check()
    fact.classes = _classes(tokens, text)
    fact.typed = _typed(text)
    fact.counts = _counts(tokens)
    fact.rates = _rates(text)
    fact.states = _states(tokens, text)
    fact.attrs = _attributes(set(terms), text)
    return fact
