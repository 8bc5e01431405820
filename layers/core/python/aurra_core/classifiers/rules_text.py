"""Reading one fact for the rules classifier: normalised text, typed values, the subject, the
attributes it speaks about and the linguistic markers it carries.

The tokenisation here is the classifier's own (the embedder's `aurra_core.text` stays as it is):
it keeps values apart by type (money, times, dates, e-mail addresses, phone numbers, counts),
folds synonyms and abbreviations, and stems lightly.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from aurra_core.classifiers import rules_lexicon as lex

_MONTHS = {
    "jan": 1,
    "january": 1,
    "feb": 2,
    "february": 2,
    "mar": 3,
    "march": 3,
    "apr": 4,
    "april": 4,
    "may": 5,
    "jun": 6,
    "june": 6,
    "jul": 7,
    "july": 7,
    "aug": 8,
    "august": 8,
    "sep": 9,
    "sept": 9,
    "september": 9,
    "oct": 10,
    "october": 10,
    "nov": 11,
    "november": 11,
    "dec": 12,
    "december": 12,
}
_MONTH_DAYS = {1: 31, 2: 28, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}
_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAYS = {
    "monday": "mon",
    "tuesday": "tue",
    "wednesday": "wed",
    "thursday": "thu",
    "friday": "fri",
    "saturday": "sat",
    "sunday": "sun",
    "mon": "mon",
    "tue": "tue",
    "tues": "tue",
    "wed": "wed",
    "thu": "thu",
    "thur": "thu",
    "thurs": "thu",
    "fri": "fri",
    "sat": "sat",
    "sun": "sun",
}
_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "dozen": 12,
    "a couple of": 2,
    "a couple": 2,
    "a pair of": 2,
}
_TZ_WORDS = sorted(lex.TIMEZONES, key=len, reverse=True)

_AUX = frozenset(
    """is are was were be been being am has have had do does did will would can could may might shall
    should must 's got gets get""".split()
)
_PREPOSITIONS = frozenset(
    "in on at to for with by from of about into onto over under after before since".split()
)

# Common verbs that end a subject noun phrase ("Standup moves", "The vet put").
_VERBS = frozenset(
    """use uses used using live lives lived living work works worked working move moves moved moving
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


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    # Typographic quotes and dashes, written as escapes so no reader mistakes them for ASCII.
    return (
        text.replace("\u2019", "'")  # right single quotation mark
        .replace("\u2018", "'")  # left single quotation mark
        .replace("\u201c", '"')  # left double quotation mark
        .replace("\u201d", '"')  # right double quotation mark
        .replace("\u2013", "-")  # en dash
        .replace("\u2014", " - ")  # em dash
    )


def stem(word: str) -> str:
    """A light stemmer: "moved", "moves", "moving" and "move" all become "mov"."""
    if word in lex.IRREGULAR:
        return lex.IRREGULAR[word]
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.startswith("cancel"):
        return "cancel"
    w = word
    if w.endswith(("ies", "ied")) and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ing") and len(w) >= 6:
        w = w[:-3]
        if len(w) >= 3 and w[-1] == w[-2] and w[-1] in "bdgmnprt":
            w = w[:-1]
    elif w.endswith("ed") and len(w) >= 5:
        w = w[:-2]
        if len(w) >= 3 and w[-1] == w[-2] and w[-1] in "bdgmnprt":
            w = w[:-1]
    elif w.endswith(("sses", "shes", "ches", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) >= 4:
        w = w[:-1]
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    return w


# ---------------------------------------------------------------------------------------------
# Normalisation into a lower-case string with typed value tokens.


def _money(m: re.Match[str]) -> str:
    amount = float(m.group(2).replace(",", ""))
    mult = {
        "k": 1e3,
        "thousand": 1e3,
        "m": 1e6,
        "mm": 1e6,
        "million": 1e6,
        "b": 1e9,
        "bn": 1e9,
        "billion": 1e9,
    }
    amount *= mult.get((m.group(3) or "").strip(), 1)
    return f" mo_{round(amount)} "


def _clock(hour: int, minute: int, ampm: str | None) -> int:
    if ampm:
        ampm = ampm.replace(".", "")
        if ampm == "pm" and hour < 12:
            hour += 12
        if ampm == "am" and hour == 12:
            hour = 0
    elif hour < 7:
        hour += 12  # "at 2:30" in a schedule is the afternoon
    return hour * 60 + minute


def _time_token(m: re.Match[str]) -> str:
    minutes = _clock(int(m.group(1)), int(m.group(2) or 0), m.group(3))
    return f" tm_{minutes} "


def _tz_time(m: re.Match[str]) -> str:
    minutes = int(m.group(1))
    zone = m.group(2)
    offset = lex.TIMEZONES.get(zone)
    if offset is None:
        return m.group(0)
    return f" tm_{minutes} tu_{(minutes - offset) % 1440} "


_NUMBER_WORDS_RE = re.compile(r"\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b")
_TZ_ALT = "|".join(re.escape(z) for z in _TZ_WORDS)
_TZ_TIME_RE = re.compile(rf"\btm_(\d+)\s+(?:us\s+)?({_TZ_ALT})\b(?:\s+time)?")
_TZ_NAMED_RE = re.compile(rf"(?<![\w/])({_TZ_ALT})(?![\w/])(?=\s*(?:time|hours|timezone|$|[,.;)]))")
_TZ_AFTER_KEY_RE = re.compile(rf"\btimezone\s*(?:is|:)?\s*(?:us )?({_TZ_ALT})\b")
_TZ_SLASH_RE = re.compile(r"(?<![\w/])([a-z]+/[a-z_]+)\b")
_PHRASES = [(re.compile(p), r) for p, r in lex.PHRASES]
_STATE_CODES_RE = re.compile(r",\s*(" + "|".join(lex.US_STATE_CODES) + r")\b(?=\s*(?:\d{5})?\s*(?:$|[,.;]))")


def _number_words(text: str) -> str:
    return _NUMBER_WORDS_RE.sub(lambda m: str(_NUMBER_WORDS[m.group(1)]), text)


def normalize(text: str) -> str:
    t = _norm(text).lower()
    t = re.sub(r"\s+", " ", t).strip()
    # contractions
    t = re.sub(r"\bcan't\b|\bcannot\b", "can not", t)
    t = re.sub(r"\bwon't\b", "will not", t)
    t = re.sub(r"n't\b", " not", t)
    t = re.sub(r"\bi'm\b", "i am", t)
    t = re.sub(r"'re\b", " are", t)
    t = re.sub(r"'ve\b", " have", t)
    t = re.sub(r"'ll\b", " will", t)
    t = re.sub(r"'d\b", " would", t)
    t = re.sub(r"\b(he|she|it|that|there|what|who|where|here)'s\b", r"\1 is", t)
    t = re.sub(r"(\w)'s\b", r"\1 's", t)
    t = re.sub(r"(\w)s' ", r"\1s 's ", t)
    # typed values
    t = re.sub(
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", lambda m: " em_" + re.sub(r"[^a-z0-9]", "", m.group(0)) + " ", t
    )
    t = re.sub(
        r"(?<![\w/])(?:\+?1[ .-])?(?:\(\d{3}\) ?|\d{3}[ .-])?\d{3}[.-]\d{4}\b",
        lambda m: " ph_" + re.sub(r"\D", "", m.group(0))[-7:] + " ",
        t,
    )
    t = re.sub(r"([$€£])\s?(\d[\d,]*(?:\.\d+)?)\s?(k|m|mm|bn|b|thousand|million|billion)?\b", _money, t)
    t = re.sub(r"\b(\d+(?:\.\d+)?)\s?%", r" pc_\1 ", t)
    t = re.sub(r"\b(\d{1,2})/(\d{2}|\d{4})\b(?!/)", lambda m: f" dm_{int(m.group(1))}_{m.group(2)[-2:]} ", t)
    t = re.sub(r"\b(19\d\d|20\d\d)\b", r" yr_\1 ", t)
    t = re.sub(r"\b(\d{1,3}(?:,\d{3})+)\b", lambda m: m.group(1).replace(",", ""), t)
    t = re.sub(
        r"\b(he|she|they|xe|ze)\s*/\s*(him|her|them|xem|zir|hir|hers|theirs)(?:\s*/\s*\w+)?\b",
        lambda m: f" pron_{m.group(1)} ",
        t,
    )
    t = re.sub(r"\bq([1-4])\b", r" qt_\1 ", t)
    t = re.sub(r"\s+", " ", t)
    # ", TX" -> ", texas"
    t = _STATE_CODES_RE.sub(lambda m: ", " + lex.US_STATE_CODES[m.group(1)], t)
    # phrases to canonical forms
    for pattern, repl in _PHRASES:
        t = pattern.sub(repl, t)
    t = re.sub(r"\b(?:went|is|are|now|goes|going) live\b", "ga", t)
    # number words (after phrases, so "two-factor" is gone)
    t = _number_words(t)
    t = re.sub(r"\b(\d+)-(\w)", r"\1 \2", t)
    t = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", t)
    t = re.sub(r"\b(\d+)(gb|tb|mb|mg|ml|kg|km|mi|in|inch|cm|mm|hz|ghz|k)\b", r"\1 \2", t)
    # hour ranges, then times ("9am pacific" keeps its UTC twin for comparisons across zones)
    t = re.sub(
        r"\b(\d{1,2})(?::(\d\d))?\s?(am|pm)?\s?(?:to|-|until|till)\s?(\d{1,2})(?::(\d\d))?\s?(am|pm)?\b(?!\s*(?:seats|people|users|kids|years|days|weeks))",
        lambda m: (
            f" hr_{_clock(int(m.group(1)), int(m.group(2) or 0), m.group(3) or 'am')}_"
            f"{_clock(int(m.group(4)), int(m.group(5) or 0), m.group(6) or 'pm')} "
        ),
        t,
    )
    t = re.sub(r"\b(\d{1,2})(?::(\d\d))?\s?(am|pm|a\.m\.|p\.m\.)", _time_token, t)
    t = re.sub(r"\b(\d{1,2}):(\d\d)\b()", _time_token, t)
    t = re.sub(r"\bnoon\b", " tm_720 ", t)
    t = _TZ_TIME_RE.sub(_tz_time, t)
    # dates
    t = re.sub(
        rf"\bthe end of {_MONTH_RE}\b",
        lambda m: (
            f" dt_{_MONTHS[m.group(1)[:3] if m.group(1)[:3] in _MONTHS else m.group(1)]}_{_MONTH_DAYS[_MONTHS[m.group(1)[:3]]]} "
        ),
        t,
    )
    t = re.sub(
        rf"\b{_MONTH_RE}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)",
        lambda m: f" dt_{_MONTHS[m.group(1)[:3]]}_{int(m.group(2))} ",
        t,
    )
    t = re.sub(
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH_RE}\b",
        lambda m: f" dt_{_MONTHS[m.group(2)[:3]]}_{int(m.group(1))} ",
        t,
    )
    t = re.sub(r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", r" dd_\1 ", t)
    t = re.sub(r"\b(\d{1,3})(?:st|nd|rd|th)\b", r" ord_\1 ", t)
    t = re.sub(
        r"\b(?<!\bi )(?<!\bthey )(?<!\bwe )(?<!\bhe )(?<!\bshe )(?<!\bit )(?<!\byou )may\b(?! (?:be|have|not|move|switch|go|get|want|need|try|use|take|stay|change|cancel|expand|raise|apply|drop|leave|join|start|stop|upgrade|downgrade|\w+ing))",
        " mon_5 ",
        t,
    )
    t = re.sub(
        rf"\b(?:in|since|until|by|of|early|late|mid|from|last|next|this|every|each) {_MONTH_RE}\b",
        lambda m: m.group(0).split()[0] + f" mon_{_MONTHS[m.group(1)[:3]]} ",
        t,
    )
    t = re.sub(
        r"\b(january|february|march|april|june|july|august|september|october|november|december)\b",
        lambda m: f" mon_{_MONTHS[m.group(1)[:3]]} ",
        t,
    )
    t = re.sub(
        r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
        lambda m: f" wd_{_WEEKDAYS[m.group(1)]} ",
        t,
    )
    t = re.sub(r"\s+", " ", t).strip()
    return t


_TOKEN = re.compile(r"'s|[a-z0-9_][a-z0-9_.+#/]*[a-z0-9_+#]|[a-z0-9_]|[,;:()\"!?]")


def tokenize(norm: str) -> list[str]:
    return _TOKEN.findall(norm)


@lru_cache(maxsize=4096)
def canon(token: str) -> tuple[str, ...]:
    """Canonical terms for one surface token: synonyms, irregular forms, then the stem."""
    if "_" in token or not token[0].isalpha():
        return (token,)
    mapped = lex.SYNONYMS.get(token)
    if mapped is not None:
        return tuple(stem(w) if w.isalpha() else w for w in mapped.split())
    return (stem(token),)


# ---------------------------------------------------------------------------------------------
# The subject.


@dataclass(frozen=True)
class Subject:
    kind: str  # principal | name | thing | pronoun | none
    key: frozenset[str] = frozenset()  # names or head words
    relations: tuple[str, ...] = ()  # possessive chain of relation nouns: ("sister",)
    apposition: frozenset[str] = frozenset()  # "User's daughter Emma" -> {"emma"}
    slot: tuple[str, ...] = ()  # the possessed attribute: "User's work phone" -> ("work", "phone")


_REPORTING = re.compile(
    r"^(?P<r>(?:the )?(?:user|customer|client|they|he|she|[a-z][\w&.]*(?: [a-z][\w&.]*){0,2}))\s+"
    r"(?:mentioned|said|says|noted|notes|told (?:us|me)|reported|confirmed|mentions|explained|stated|"
    r"indicated)\s+(?:on [\w ]+? )?(?:that\s+)?"
)
_SPEAKER = re.compile(
    r"^(?P<r>[a-z][\w&.]*(?: [a-z][\w&.]*){0,2})(?: 's)? (?:admin|rep|representative|contact|champion|cto|ceo|cfo|"
    r"cio|vp|lead|manager|buyer|owner|founder|head|director|team)\b[^:]{0,40}:\s*\"?"
)
_CORRECTION = re.compile(
    r"^(?:correction|update|note|fyi|heads up)(?: from (?:the )?(?:user|customer|client))?\s*[:,-]\s*"
)


def strip_reporting(norm: str) -> tuple[str, str | None]:
    """'Customer mentioned that X' -> ('X', 'customer'); 'Acme admin on the call: "We ..."' -> ('we ...', 'acme')."""
    reporter = None
    m = _CORRECTION.match(norm)
    if m:
        norm = norm[m.end() :]
    m = _SPEAKER.match(norm)
    if (
        m
        and ":" in norm[: m.end()]
        and re.match(r'\s*"|\s*(?:we|i|our|they|us)\b', norm[norm.index(":", 0, m.end()) + 1 :])
    ):
        reporter = m.group("r")
        norm = norm[m.end() :].strip().strip('"').strip()
    else:
        m = _REPORTING.match(norm)
        if m and len(norm) > m.end() + 3:
            reporter = m.group("r")
            norm = norm[m.end() :]
    return norm, reporter


def _names(original: str) -> set[str]:
    """Lower-cased words written with a capital that are names, not sentence starts or lexicon words."""
    text = _norm(original)
    out = set()
    tokens = re.findall(r"[A-Za-z][\w&.\-]*", text)
    for i, tok in enumerate(tokens):
        low = tok.lower().rstrip(".")
        if not tok[0].isupper() or low in lex.STOPWORDS or low in lex.PRINCIPAL_WORDS:
            continue
        if i == 0 and (low in lex.COMMON_SENTENCE_STARTS or low in _VERBS or low in lex.SYNONYMS):
            continue
        if tok.isupper() and len(tok) <= 4 and (low in lex.SYNONYMS or low in lex.US_STATE_CODES):
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
_IMPERATIVES = frozenset("reach contact call email text ping send note remember put use please".split())
_NP_STOP = _AUX | _PREPOSITIONS | {",", ";", ":", "'s", '"', "(", ")", "and", "who", "which", "that"}
_NOUNISH = frozenset("work home side day call type play run drive use plan pay".split())


def _is_verbish(tok: str) -> bool:
    if tok in _NOUNISH:
        return False
    return tok in _VERBS or tok in _ADVERBS or (tok.endswith("ed") and len(tok) > 4)


def _key(words: list[str]) -> frozenset[str]:
    return frozenset(
        canon(w)[0]
        for w in words
        if w not in lex.STOPWORDS
        and w not in lex.ORG_SUFFIXES
        and w not in {"&", "and"}
        and w not in _ADVERBS
    )


def parse_subject(tokens: list[str], names: set[str], reporter: str | None) -> Subject:
    i = 0
    # leading adverbial phrase up to a comma: "Since the reorg, Tom's manager is Priya"
    if (
        tokens
        and tokens[0]
        in {
            "since",
            "after",
            "before",
            "from",
            "as",
            "starting",
            "following",
            "effective",
            "in",
            "on",
            "last",
            "this",
            "beginning",
            "until",
        }
        and "," in tokens[:10]
    ):
        i = tokens.index(",") + 1
    while i < len(tokens) and (tokens[i] in {"the", "a", "an", "all", "of"} or tokens[i] in _ADVERBS):
        i += 1
    if i >= len(tokens) or tokens[i] in _IMPERATIVES:
        return Subject("none")
    head = tokens[i]
    kind, key = "thing", frozenset[str]()
    if head in {"we", "us"} and reporter and reporter.split()[-1] not in lex.PRINCIPAL_WORDS:
        kind, key = "name", _key(reporter.split())
        i += 1
    elif head in lex.PRINCIPAL_WORDS:
        kind = "principal"
        i += 1
    elif head in {"he", "she", "they", "it", "his", "her", "their", "its"}:
        if reporter and reporter.split()[-1] in lex.PRINCIPAL_WORDS | {"they", "he", "she"}:
            kind = "principal"
        elif reporter:
            kind, key = "name", _key(reporter.split())
        else:
            kind = "pronoun"
        i += 1
    elif head in names or (head == "project" and i + 1 < len(tokens) and tokens[i + 1] in names):
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
        # "The Paris flight", "Acme weekly sync": a name modifying a noun is a thing
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
            key, kind = key | _key(extra), "thing"
    elif head in lex.RELATION_NOUNS and not (i + 1 < len(tokens) and tokens[i + 1] in {":", "'s"}):
        # "Friends call the user Bobby": people around the principal
        return Subject("principal", frozenset(), (canon(head)[0],))
    else:
        run = []
        while i < len(tokens) and tokens[i] not in _NP_STOP and not _is_verbish(tokens[i]) and len(run) < 5:
            run.append(tokens[i])
            i += 1
        key = _key(run)
        if not key:
            return Subject("none")
        if i < len(tokens) and tokens[i] == ":":
            # a key-value note: "Plan: Enterprise" names an attribute, not a subject
            return Subject("none", frozenset(), (), frozenset(), tuple(sorted(key)))
        kind = "thing"
    relations: list[str] = []
    apposition: set[str] = set()
    slot: list[str] = []
    possessive = (i < len(tokens) and tokens[i] == "'s") or head in {
        "my",
        "our",
        "his",
        "her",
        "their",
        "its",
    }
    while possessive and i < len(tokens):
        if tokens[i] == "'s":
            i += 1
        np: list[str] = []
        seen_rel = False
        while i < len(tokens) and tokens[i] not in _NP_STOP and not _is_verbish(tokens[i]) and len(np) < 5:
            if (
                seen_rel
                and np
                and np[-1] not in lex.RELATION_NOUNS
                and np[-1] in names
                and tokens[i] not in names
            ):
                break  # "husband Chris teaches": the apposed name ends the phrase
            seen_rel = seen_rel or tokens[i] in lex.RELATION_NOUNS
            np.append(tokens[i])
            i += 1
        rel = [w for w in np if w in lex.RELATION_NOUNS]
        after = np[np.index(rel[-1]) + 1 :] if rel else []
        value_next = (
            i + 1 < len(tokens)
            and tokens[i] in {"is", "are", ":"}
            and (
                tokens[i + 1] in names
                or tokens[i + 1]
                in {"now", "still", "dr", "dr.", "mr", "mr.", "mrs", "mrs.", "ms", "ms.", "prof", "prof."}
            )
        )
        if rel and after and all(w in names for w in after):
            relations.append(canon(rel[-1])[0])  # "User's daughter Emma is 7"
            apposition |= set(after)
            slot = []
        elif rel and not after and not value_next:
            relations.append(canon(rel[-1])[0])  # "User's sister lives in Leeds"
            slot = []
        else:
            # "Tom's manager is Priya", "User's dentist appointment": an attribute of the subject
            slot = [canon(w)[0] for w in np if w not in lex.STOPWORDS]
        possessive = i < len(tokens) and tokens[i] == "'s"
    return Subject(kind, key, tuple(relations), frozenset(apposition), tuple(slot))


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
    states: dict[str, set[str]] = field(default_factory=dict)  # lifecycle -> states
    attrs: set[str] = field(default_factory=set)
    memo: dict[str, Any] = field(default_factory=dict)  # derived views, computed once per fact

    @property
    def term_set(self) -> set[str]:
        ts = self.memo.get("terms")
        if ts is None:
            ts = self.memo["terms"] = frozenset(self.terms)
        return set(ts)


_CLASS_CONTEXT = {
    # classes whose words are ambiguous count only in these contexts
    "plan": re.compile(r"\b(?:plan|tier|subscription|upgrad\w*|downgrad\w*|edition|license)\b"),
    "deal_stage": re.compile(
        r"\bstage\b|\b(?:is|now|became|become|as) (?:a |an )?(?:paying )?(?:customer|prospect|lead)\b|\bsigned\b|\bpipeline\b"
    ),
    "commute": re.compile(
        r"\b(?:bikes?|biking|cycles?|cycling|drives?|driving|walks?|walking|takes? the (?:bus|train|subway|metro)|commutes?(?: by)?|rides?) (?:to )?(?:work|the office|school|campus)\b|\bcommut"
    ),
    "channel": re.compile(r"\b(?:reach|contact|way to|prefers?|best|fastest|channel|by|via|over)\b"),
    "payment": re.compile(
        r"\bpa(?:y|ys|id|ying|yment)\b|\bcard\b|\bending\b|\bon file\b|\bbill\w*|\bcharge\w*|\binvoic\w*|\bcheckout\b"
    ),
    "billing": re.compile(r"\bbill\w*|\bplan\b|\bsubscription\b|\bpay\w*|\brenew"),
    "frequency": re.compile(
        r"\b(?:summar\w*|report\w*|email\w*|digest\w*|update\w*|newsletter\w*|check-?ins?|sync\w*|meeting\w*|once)\b"
    ),
    "relationship": re.compile(
        r"\b(?:is|got|now|became|are|am|was) (?:single|dating|engaged|married|divorced|separated|widowed)\b|\bgot engaged\b|\bgot married\b|\bgot divorced\b"
    ),
    "release_stage": re.compile(
        r"\b(?:in|is|went|now|entered|reached|to|hit) (?:alpha|beta|ga|preview|launched|deprecated)\b|\b(?:alpha|beta)\b"
    ),
}
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


def _classes(tokens: list[str], text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, members in lex.VALUE_CLASSES.items():
        ctx = _CLASS_CONTEXT.get(name)
        if ctx is not None and not ctx.search(text):
            continue
        for idx, tok in enumerate(tokens):
            if tok in members:
                value = tok
                if (
                    name == "deal_stage"
                    and tok == "customer"
                    and not re.search(r"\b(?:a|an|paying) customer\b", text)
                ):
                    continue
                if name == "commute":
                    value = {
                        "bikes": "bike",
                        "biking": "bike",
                        "cycle": "bike",
                        "cycles": "bike",
                        "cycling": "bike",
                        "drives": "drive",
                        "driving": "drive",
                        "walks": "walk",
                        "walking": "walk",
                    }.get(tok, tok)
                if (
                    name == "channel"
                    and tok in ("phone", "call")
                    and not re.search(r"\b(?:by|via|over) (?:phone|call)\b|\bcall\b", text)
                ):
                    continue
                if (
                    tok in _VERSIONED
                    and idx + 1 < len(tokens)
                    and re.fullmatch(r"\d+(?:\.\d+)*", tokens[idx + 1])
                ):
                    value = f"{tok} {tokens[idx + 1]}"
                if name == "billing":
                    value = {"annually": "annual", "yearly": "annual"}.get(tok, tok)
                if name == "frequency":
                    value = {"fortnightly": "biweekly"}.get(tok, tok)
                out.setdefault(name, set()).add(value)
    # "once a week" and friends
    for pattern, value in (
        (r"\bonce a week\b|\bevery week\b", "weekly"),
        (r"\bonce a day\b|\bevery day\b", "daily"),
        (r"\bonce a month\b|\bevery month\b", "monthly"),
    ):
        if re.search(pattern, text) and _CLASS_CONTEXT["frequency"].search(text):
            out.setdefault("frequency", set()).add(value)
    # time zones named as zones ("Pacific time", "America/Chicago", "UTC+1", "Lisbon time")
    zones = set()
    for m in re.finditer(r"\butc ?([+-]) ?(\d{1,2})(?::?(\d\d))?\b|\bgmt ?([+-]) ?(\d{1,2})\b", text):
        if m.group(1):
            off = int(m.group(2)) * 60 + int(m.group(3) or 0)
            zones.add(str(off if m.group(1) == "+" else -off))
        else:
            off = int(m.group(5)) * 60
            zones.add(str(off if m.group(4) == "+" else -off))
    if re.search(r"\btimezone\b|\btime\b|\bhours\b|\b[a-z]+/[a-z_]+\b", text):
        offsets = bool(re.search(r"\b(?:utc|gmt) ?[+-] ?\d", text))
        found = {m.group(1) for m in _TZ_NAMED_RE.finditer(text)} | {
            m.group(1) for m in _TZ_AFTER_KEY_RE.finditer(text)
        }
        found |= {m.group(1) for m in _TZ_SLASH_RE.finditer(text) if m.group(1) in lex.TIMEZONES}
        for zone in found:
            if zone in ("utc", "gmt") and offsets:
                continue
            zones.add(str(lex.TIMEZONES[zone]))
    if zones:
        out["timezone"] = zones
    return out


_TYPED_RE = re.compile(r"\b(mo|tm|tu|hr|dt|dd|dm|yr|pc|ph|em|wd|mon|pron|qt|ord)_[\w.]+")


def _typed(text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for m in _TYPED_RE.finditer(text):
        out.setdefault(m.group(1), set()).add(m.group(0))
    return out


_COUNT_STEMS = frozenset(canon(w)[0] for w in lex.COUNT_NOUNS)


def _counts(tokens: list[str]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    # "seat count is now 42", "number of seats: 42"
    text = " ".join(tokens)
    for m in re.finditer(r"\b([a-z]+) (?:count|total) (?:is |: ?|of )?(?:now |at |still )?(\d+)\b", text):
        out.setdefault(canon(m.group(1))[0], set()).add(int(m.group(2)))
    for m in re.finditer(r"\bnumber of ([a-z]+) (?:is |: ?)(?:now |at |still )?(\d+)\b", text):
        out.setdefault(canon(m.group(1))[0], set()).add(int(m.group(2)))
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


def _states(tokens: list[str], text: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    surface = set(tokens)
    for cycle, words in lex.STATES.items():
        for w, state in words.items():
            if w in surface:
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
                    and w in ("blocked", "frozen", "locked", "closed", "deleted")
                    and not re.search(r"\baccount\b|\bplan\b|\bsubscription\b", text)
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


@lru_cache(maxsize=2048)
def analyze(raw: str) -> Fact:
    full = normalize(raw)
    text, reporter = strip_reporting(full)
    tokens = tokenize(text)
    names = _names(raw)
    subject = parse_subject(tokens, names, reporter)
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
    fact.classes = _classes(tokens, text)
    fact.typed = _typed(text)
    fact.counts = _counts(tokens)
    fact.states = _states(tokens, text)
    fact.attrs = _attributes(set(terms), text)
    return fact
