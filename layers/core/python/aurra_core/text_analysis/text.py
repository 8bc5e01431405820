"""Text for matching facts: one normalisation, one tokenizer, one stemmer.

The rules classifier reads facts through these, and the local lexical embedder hashes the same
terms. `normalize` lower-cases and folds a fact into words and typed value tokens, so that equal
values meet whatever their spelling: `money_120000` for "$120k", `time_540` for "9am" (with its
UTC twin `utc_...` when a zone is named), `date_9_30`, `phone_5550142`, `email_...`,
`weekday_mon`, `pronouns_they`, counts as digits. `canon` maps a token to its canonical terms
(synonyms, irregular forms, the stem).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache

from aurra_core.runtime import deadline
from aurra_core.text_analysis import regex_programs
from aurra_core.text_analysis import rules_lexicon as lex

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
# The weekdays in the other languages users write in (Spanish, French, German, Italian, Dutch,
# Portuguese): "el pádel es los jueves", "Handball ist jetzt donnerstags". The extractor's
# translation names them in English from the same table.
FOREIGN_WEEKDAYS = {
    name.replace("-", " "): code  # folded text has "quinta feira"
    for names in (
        "lunes martes miércoles jueves viernes sábado domingo",
        "lundi mardi mercredi jeudi vendredi samedi dimanche",
        "montag dienstag mittwoch donnerstag freitag samstag sonntag",
        "lunedì martedì mercoledì giovedì venerdì sabato domenica",
        "maandag dinsdag woensdag donderdag vrijdag zaterdag zondag",
        "segunda-feira terça-feira quarta-feira quinta-feira sexta-feira sábado domingo",
    )
    for name, code in zip(names.split(), ("mon", "tue", "wed", "thu", "fri", "sat", "sun"), strict=True)
}
_WEEKDAYS.update(FOREIGN_WEEKDAYS)
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
# Words the normaliser reads as a value on their own or with the words after them ("three",
# "March 3rd", "Friday", "noon"): where a value written out in words may start.
VALUE_WORDS = frozenset(word for word in [*_NUMBER_WORDS, *_MONTHS, *_WEEKDAYS, "noon"] if " " not in word)
# The same words by what they name, for what a search's question asks (questions.py).
NUMBER_WORDS = frozenset(_NUMBER_WORDS)
MONTH_NAMES = frozenset(_MONTHS)
WEEKDAY_NAMES = frozenset(_WEEKDAYS)

Replacement = str | Callable[[re.Match[str]], str]


class Substitution:
    """One substitution of the normalisation, compiled at import (so its program is stored with
    the others, regex_programs, instead of translated by `re` on the first request). Most find
    nothing in a given fact, and a search that finds nothing still reads the whole text: a text
    holding none of the strings every match needs (regex_programs.literals) is returned as it
    is without one, as `sub` would return it."""

    __slots__ = ("needs", "pattern", "replacement")

    def __init__(self, pattern: str, replacement: Replacement) -> None:
        self.pattern = regex_programs.compile(pattern)
        self.replacement = replacement
        # none known: the empty string, which every text holds
        self.needs = regex_programs.literals(pattern) or ("",)

    def __call__(self, text: str) -> str:
        for needed in self.needs:
            if needed in text:
                return self.pattern.sub(self.replacement, text)
        return text


class Substitutions:
    """Substitutions applied in order, as each applied on its own would apply them. Which of
    them could find something is read in one pass over all their needed strings, and read
    again only after one has changed the text: most change nothing, and a call per
    substitution was half of the normaliser's time (an import's offline embedder spent a fifth
    of its server's CPU in it)."""

    __slots__ = ("_needs", "steps")

    def __init__(self, steps: list[Substitution]) -> None:
        self.steps = steps
        self._needs = tuple((needed, index) for index, step in enumerate(steps) for needed in step.needs)

    def _could_apply(self, text: str, start: int) -> list[int]:
        return sorted({index for needed, index in self._needs if index >= start and needed in text})

    def __call__(self, text: str) -> str:
        pending = self._could_apply(text, 0)
        position = 0
        while position < len(pending):
            index = pending[position]
            step = self.steps[index]
            changed = step.pattern.sub(step.replacement, text)
            position += 1
            if changed != text:
                # the later substitutions' needs, read in the changed text
                text, pending, position = changed, self._could_apply(changed, index + 1), 0
        return text


def unify_punctuation(text: str) -> str:
    """NFKC, and typographic quotes and dashes as their plain forms."""
    text = unicodedata.normalize("NFKC", text)
    return (
        text.replace("\u2019", "'")  # right single quotation mark
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
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


def _money(match: re.Match[str]) -> str:
    return _money_amount(match.group(2), match.group(3))


_DOTTED_THOUSANDS = regex_programs.compile(r"^\d{1,3}(?:\.\d{3})+$")


def _money_amount(digits: str, multiplier: str | None) -> str:
    if _DOTTED_THOUSANDS.match(digits):
        digits = digits.replace(".", "")  # "€1.150": a thousand and fifty, as most of Europe writes it
    amount = float(digits.replace(",", ""))
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
    amount *= mult.get((multiplier or "").strip(), 1)
    if amount < 100 and amount != round(amount):
        # "0.12 CAD a word" and "0.14": cents are the value when the amount is small
        return f" money_{round(amount, 2):g}".replace(".", "p") + " "
    return f" money_{round(amount)} "


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


def _time_token(match: re.Match[str]) -> str:
    minutes = _clock(int(match.group(1)), int(match.group(2) or 0), match.group(3))
    return f" time_{minutes} "


def _tz_time(match: re.Match[str]) -> str:
    minutes = int(match.group(1))
    zone = match.group(2)
    offset = lex.TIMEZONES.get(zone)
    if offset is None:
        return str(match.group(0))
    return f" time_{minutes} utc_{(minutes - offset) % 1440} "


_TZ_ALT = "|".join(re.escape(z) for z in _TZ_WORDS)
_TZ_TIMES = Substitution(rf"\btime_(\d+)\s+(?:us\s+)?({_TZ_ALT})\b(?:\s+time)?", _tz_time)
TIMEZONE_NAMED_RE = regex_programs.compile(
    rf"(?<![\w/])({_TZ_ALT})(?![\w/])(?=\s*(?:time|hours|timezone|$|[,.;)]))"
)
TIMEZONE_AFTER_KEY_RE = regex_programs.compile(rf"\btimezone\s*(?:is|:)?\s*(?:us )?({_TZ_ALT})\b")
TIMEZONE_SLASH_RE = regex_programs.compile(r"(?<![\w/])([a-z]+/[a-z_]+)\b")
_PHRASES = Substitutions([Substitution(pattern, replacement) for pattern, replacement in lex.PHRASES])
# ", TX" -> ", texas"
_STATE_CODES = Substitution(
    r",\s*(" + "|".join(lex.US_STATE_CODES) + r")\b(?=\s*(?:\d{5})?\s*(?:$|[,.;]))",
    lambda match: ", " + lex.US_STATE_CODES[match.group(1)],
)


_UNIT_WORDS = "one|two|three|four|five|six|seven|eight|nine"
_TEEN_WORDS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_BELOW_100 = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[ -](?:"
    + _UNIT_WORDS
    + r"))?|"
    + _TEEN_WORDS
    + "|"
    + _UNIT_WORDS
    + ")"
)
_NUMBER_WORD_SEPARATOR = regex_programs.compile(r"[ -]")


def _below_100(words: str) -> int:
    return sum(_NUMBER_WORDS[word] for word in _NUMBER_WORD_SEPARATOR.split(words))


def _compound_number(match: re.Match[str]) -> str:
    if match.group(3):
        return str(_NUMBER_WORDS[match.group(3)] + _NUMBER_WORDS[match.group(4)])
    hundreds = 1 if match.group(1) == "a" else _NUMBER_WORDS[match.group(1)]
    return str(hundreds * 100 + (_below_100(match.group(2)) if match.group(2) else 0))


_NUMBER_WORDS_SUBSTITUTIONS = Substitutions(
    [
        # "four hundred and twenty", "twenty-five": one number, not three
        Substitution(
            rf"\b(?:({_UNIT_WORDS}|{_TEEN_WORDS}|a) hundred(?:(?: and)? ({_BELOW_100}))?|"
            r"(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ -](" + _UNIT_WORDS + r"))\b",
            _compound_number,
        ),
        Substitution(
            r"\b(" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b",
            lambda match: str(_NUMBER_WORDS[match.group(1)]),
        ),
    ]
)


# "fifth grade", "a third baby": ordinals said in words, by their number
ORDINAL_WORDS = {
    word: number
    for number, word in enumerate(
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(), 1
    )
}


def number_words(text: str) -> str:
    """Numbers said in words written as digits: "twenty-five" -> "25", "six hens" -> "6 hens"."""
    return _NUMBER_WORDS_SUBSTITUTIONS(text)


# "400 euros", "2k dollars": money written out, as "€400" is
_MONEY_WORDS = Substitution(
    r"\b(\d[\d,]*(?:\.\d+)?)\s?(k|thousand|million|m|bn|billion)?\s?(?:euros?|dollars?|bucks|usd|eur|gbp|cad|aud|nzd|chf|quid)\b",
    lambda match: _money_amount(match.group(1), match.group(2)),
)
# "is on 48k", "salary is 65k", "sahod ko 28k": a pay in thousands, its currency unsaid. Only
# where it is said as a pay: "a 10k run", "240k on the clock" are no money.
_PAY_IN_THOUSANDS = Substitution(
    r"\b(?P<lead>(?:is|am|are|'m|'re|was) on (?:about |around |roughly |~)?|"
    r"(?:salary|pay|wage|wages|earn|earns|earning|making|makes|make|sahod(?: ko)?|gehalt|salario|salário) "
    r"(?:is |of |was |now |ko )?)"
    r"(?P<n>\d+(?:\.\d+)?)\s?k\b(?! (?:run|race|steps|miles|km|followers|views|subscribers|users|words)\b)",
    lambda match: match.group("lead") + _money_amount(match.group("n"), "k").strip(),
)
# "2,300 a month", "60/h", "0.14 a word": an amount a period is money with its currency unsaid.
# Below 20, "a month" and "a week" count times ("2 a month", "5 a week"), not money.
_MONEY_PER_PERIOD = Substitution(
    r"\b(\d+\.\d+|[2-9]\d|\d{3,})\s?(?P<per>(?:an?|each|every|/)\s?"
    r"(?:month|mo|week|wk|year|yr|hour|hr|h|word|night)\b|(?:monthly|weekly|yearly|hourly)\b)",
    lambda match: _money_amount(match.group(1), None) + match.group("per"),
)


def fold(text: str) -> str:
    """Unicode-folded, lower-cased text: the first step of `normalize`, for comparing wording as
    written (contractions, values and phrases left as they are)."""
    return unify_punctuation(text).lower()


_WHITESPACE = regex_programs.compile(r"\s+")


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """Lower-case text with typed value tokens and canonical phrases. Remembered per text: the
    rules classifier normalizes the new fact once per candidate, and each name of each fact
    again (a third of its time before; the same text always gives the same result)."""
    normalized = _WHITESPACE.sub(" ", fold(text)).strip()
    for step in (_expand_contractions, _mark_values, _canonical_phrases, _mark_times, _mark_dates):
        deadline.check()  # a classification's time limit (runtime/deadline.py); none elsewhere
        normalized = step(normalized)
    return _WHITESPACE.sub(" ", normalized).strip()


# Each step's substitutions, in the order they apply.
def _substitutions(*steps: tuple[str, Replacement]) -> Substitutions:
    return Substitutions([Substitution(pattern, replacement) for pattern, replacement in steps])


_CONTRACTIONS = _substitutions(
    (r"\bcan't\b|\bcannot\b", "can not"),
    (r"\bwon't\b", "will not"),
    (r"n't\b", " not"),
    (r"\bi'm\b", "i am"),
    (r"'re\b", " are"),
    (r"'ve\b", " have"),
    (r"'ll\b", " will"),
    (r"'d\b", " would"),
    (r"\b(he|she|it|that|there|what|who|where|here)'s\b", r"\1 is"),
    (r"(\w)'s\b", r"\1 's"),
    (r"(\w)s' ", r"\1s 's "),
)


def _expand_contractions(text: str) -> str:
    """can't -> can not, she's -> she is, alice's -> alice 's."""
    return _CONTRACTIONS(text)


expand_contractions = _expand_contractions  # the words of one written word, for the reasons' quotes


_NOT_EMAIL_CHARACTER = regex_programs.compile(r"[^a-z0-9]")
_NOT_DIGIT = regex_programs.compile(r"\D")
_VALUES = _substitutions(
    # typed values; ISO dates first ("2025-09-30" is September 30, 2025)
    (
        r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b",
        lambda match: f" date_{int(match.group(2))}_{int(match.group(3))} , {match.group(1)} ",
    ),
    # "2029-04" is April 2029
    (
        r"\b((?:19|20)\d\d)-(0[1-9]|1[0-2])\b(?!-)",
        lambda match: f" month_{int(match.group(2))} {match.group(1)} ",
    ),
    (
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
        lambda match: " email_" + _NOT_EMAIL_CHARACTER.sub("", match.group(0)) + " ",
    ),
    (
        r"(?<![\w/])(?:\+?1[ .-])?(?:\(\d{3}\) ?|\d{3}[ .-])?\d{3}[.-]\d{4}\b",
        lambda match: " phone_" + _NOT_DIGIT.sub("", match.group(0))[-7:] + " ",
    ),
    (r"([$€£₹¥₩₦₱₺₪฿])\s?(\d[\d,]*(?:\.\d+)?)\s?(k|m|mm|bn|b|thousand|million|billion)?\b", _money),
    # a currency written as letters before the amount, where the amount is unmistakable: "R4,500"
    # (rand), "Rs 15,000", "CHF 1200"
    (
        r"\b(r|rs\.?|inr|zar|chf|sek|nok|dkk|pln|huf|czk)\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{4,}(?:\.\d+)?)"
        r"\s?(k|m|thousand|million)?\b",
        _money,
    ),
    (r"\b(\d+(?:\.\d+)?)\s?%", r" percent_\1 "),
    (
        r"\b(\d{1,2})/(\d{2}|\d{4})\b(?!/)",
        lambda match: f" expiry_{int(match.group(1))}_{match.group(2)[-2:]} ",
    ),
    (r"\b(19\d\d|20\d\d)\b", r" year_\1 "),
    (r"\b(\d{1,3}(?:,\d{3})+)\b", lambda match: match.group(1).replace(",", "")),
    (
        r"\b(he|she|they|xe|ze)\s*/\s*(him|her|them|xem|zir|hir|hers|theirs)(?:\s*/\s*\w+)?\b",
        lambda match: f" pronouns_{match.group(1)} ",
    ),
    (r"\bq([1-4])\b", r" quarter_\1 "),
    (r"\s+", " "),
)


def _mark_values(text: str) -> str:
    """E-mail addresses, phone numbers, money, percentages, expiry dates, years, pronouns, quarters."""
    return _VALUES(text)


def _measure(kind: str, amount: float) -> str:
    return f" {kind}_{round(amount)} "


# Lengths in centimetres, masses in kilograms, areas in square metres: "6 feet" and "183 cm"
# are one height, rounded to the unit.
_MEASURES = Substitutions(
    [
        Substitution(
            r"\b(\d)\s?(?:'|feet|foot|ft)\s?(?:(\d{1,2})\s?(?:\"|''|inches|inch|in\b))?",
            lambda match: _measure("length", int(match.group(1)) * 30.48 + int(match.group(2) or 0) * 2.54),
        ),
        Substitution(
            r"\b(\d+(?:\.\d+)?)\s?(?:cm|centimet(?:er|re)s?)\b",
            lambda match: _measure("length", float(match.group(1))),
        ),
        Substitution(
            r"\b(\d(?:\.\d+)?)\s?(?:m|met(?:er|re)s?)\s(?=tall)",
            lambda match: _measure("length", float(match.group(1)) * 100),
        ),
        Substitution(
            r"\b(\d+(?:\.\d+)?)\s?(?:kg|kilos?|kilograms?)\b",
            lambda match: _measure("mass", float(match.group(1))),
        ),
        Substitution(
            r"\b(\d+(?:\.\d+)?)\s?lbs?\b",
            lambda match: _measure("mass", float(match.group(1)) * 0.45359237),
        ),
        Substitution(
            r"\b(\d+(?:\.\d+)?)\s?(?:sq\.? ?ft|square (?:feet|foot)|sqft|ft2)",
            lambda match: _measure("area", float(match.group(1)) * 0.09290304),
        ),
        Substitution(
            r"\b(\d+(?:\.\d+)?)\s?(?:sq\.? ?m\b|square met(?:er|re)s?|m2\b|m²)",
            lambda match: _measure("area", float(match.group(1))),
        ),
    ]
)


# "pounds" is a weight only where the fact speaks of weight; otherwise it may be money
_POUNDS_OF_WEIGHT = Substitution(
    r"\b(\d+(?:\.\d+)?)\s?pounds?\b", lambda match: _measure("mass", float(match.group(1)) * 0.45359237)
)
_WEIGHT_WORD = regex_programs.compile(r"\bweigh")


def _measures(text: str) -> str:
    text = _MEASURES(text)
    if _WEIGHT_WORD.search(text):
        text = _POUNDS_OF_WEIGHT(text)
    return text


_GOES_LIVE = Substitution(r"\b(?:went|is|are|now|goes|going) live\b", "ga")
_UNITS = _substitutions(
    (r"\b(\d+)-([a-z_])", r"\1 \2"),  # "12-month", but "9-5" stays a range
    (r"(?<=[a-z])-(?=[a-z])", " "),
    (r"\b(\d+)(gb|tb|mb|mg|ml|kg|km|mi|in|inch|cm|mm|hz|ghz|k)\b", r"\1 \2"),
)


def _canonical_phrases(text: str) -> str:
    """State codes, the lexicon's phrases, number words, hyphens and units."""
    text = _STATE_CODES(text)
    # phrases to canonical forms
    text = _GOES_LIVE(_PHRASES(text))
    # number words (after phrases, so "two-factor" is gone)
    text = _measures(_MONEY_PER_PERIOD(_PAY_IN_THOUSANDS(_MONEY_WORDS(number_words(text)))))
    return _UNITS(text)


def _hour_range(match: re.Match[str]) -> str:
    """ "9 to 5" is a range of hours; "from 30 to 22" is not."""
    if int(match.group(1)) > 24 or int(match.group(4)) > 24:
        return str(match.group(0))
    return (
        f" hours_{_clock(int(match.group(1)), int(match.group(2) or 0), match.group(3) or 'am')}_"
        f"{_clock(int(match.group(4)), int(match.group(5) or 0), match.group(6) or 'pm')} "
    )


def _spoken_time(match: re.Match[str]) -> str:
    """ "half past 10", "quarter past 9", "quarter to 11", and the British "at half 10"."""
    words, hour = match.group(1), int(match.group(2))
    minutes = {"half past": 30, "half": 30, "quarter past": 15, "quarter to": -15}[words]
    if minutes < 0:
        hour, minutes = (hour - 1) % 24, 45
    prefix = "at " if match.group(0).startswith("at ") else ""
    return f"{prefix} time_{_clock(hour, minutes, None)} "


def _clock_24h(match: re.Match[str]) -> str:
    """ "7h12", "6u48": a 24-hour clock, so no hour is taken for the afternoon."""
    return f" time_{int(match.group(1)) * 60 + int(match.group(2))} "


def _dot_time(match: re.Match[str]) -> str:
    return f"{match.group(1)} time_{_clock(int(match.group(2)), int(match.group(3)), None)} "


# Clock times written with a dot ("standup at 10.45", as British English writes them) or with
# "h"/"u" ("le train de 7h12", "de trein van 6u48"). A dot time only after "at" or a verb that
# moves something to a time: "upgraded to 3.12" is a version, "costs 10.45" an amount.
_DOT_TIME_AFTER = (
    r"(\bat|\b(?:moved|pushed|bumped|shoved|shifted|rescheduled|changed|brought forward|"
    r"put back) to)"
)
_NOT_A_CLOCK_UNIT = (
    r"(?!\s*(?:%|percent|kg|km|mi|miles|lbs|k\b|m\b|secs?|seconds|mins?|minutes|hours?|hrs?|"
    r"euros?|dollars?|pounds?|gb|mb|tb|x\b))"
)
_TIMES = _substitutions(
    (r"\b(half past|quarter past|quarter to) (\d{1,2})\b(?![.:\d])", _spoken_time),
    (r"\bat (half) (\d{1,2})\b(?![.:\d])" + _NOT_A_CLOCK_UNIT, _spoken_time),
    (r"\b(\d{1,2})[.h]([0-5]\d)\s?(am|pm|a\.m\.|p\.m\.)", _time_token),
    (r"\b(1[0-2]|0?[1-9])()\s?o'clock\b()", _time_token),  # "at 10 o'clock"
    # "thursdays at five", "at 6 on Fridays": an hour alone after "at", where the clause ends
    (
        r"(?<=\bat )(1[0-2]|0?[1-9])()(?![\d.:,]\d)(?=\s*(?:$|[,.;!]|\s(?:on (?:weekday_|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|sharp|tonight)))()",
        _time_token,
    ),
    (r"\b([01]?\d|2[0-3])[hu]([0-5]\d)\b", _clock_24h),
    (_DOT_TIME_AFTER + r" (\d{1,2})\.([0-5]\d)(?![\d.])" + _NOT_A_CLOCK_UNIT, _dot_time),
    # "starts at eight thirty" (number words make it "at 8 30"): minutes on the quarter hour
    (_DOT_TIME_AFTER + r" (1[0-2]|0?[1-9]) (15|30|45)\b(?![\d.])" + _NOT_A_CLOCK_UNIT, _dot_time),
    # "pickup's 2.45 now": a time said to have changed, on the five minutes
    (r"(\bis|'s) (1[0-2]|0?[1-9])\.([0-5][05])(?![\d.])(?= (?:now|these days|instead)\b)", _dot_time),
    # hour ranges, then times ("9am pacific" keeps its UTC twin for comparisons across zones)
    (
        r"\b(\d{1,2})(?::(\d\d))?\s?(am|pm)?\s?(?:to|-|until|till)\s?(\d{1,2})(?::(\d\d))?\s?(am|pm)?\b(?!\s*(?:seats|people|users|kids|years|days|weeks|months|minutes|mins|hours|hrs|miles|km|kg|lbs|employees|licenses|percent|%))",
        _hour_range,
    ),
    (r"\b(\d{1,2})(?::(\d\d))?\s?(am|pm|a\.m\.|p\.m\.)", _time_token),
    (r"\b(\d{1,2}):(\d\d)\b()", _time_token),
    (r"\bnoon\b", " time_720 "),
)


def _mark_times(text: str) -> str:
    """Hour ranges, clock times (with their UTC twin when a zone is named)."""
    return _TZ_TIMES(_TIMES(text))


_DATES = _substitutions(
    (
        rf"\bthe end of {_MONTH_RE}\b",
        lambda match: (
            f" date_{_MONTHS[match.group(1)[:3] if match.group(1)[:3] in _MONTHS else match.group(1)]}_{_MONTH_DAYS[_MONTHS[match.group(1)[:3]]]} "
        ),
    ),
    (
        rf"\b{_MONTH_RE}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)",
        lambda match: f" date_{_MONTHS[match.group(1)[:3]]}_{int(match.group(2))} ",
    ),
    (
        rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?{_MONTH_RE}\b",
        lambda match: f" date_{_MONTHS[match.group(2)[:3]]}_{int(match.group(1))} ",
    ),
    (r"\bthe (\d{1,2})(?:st|nd|rd|th)\b", r" dayofmonth_\1 "),
    (r"\b(\d{1,3})(?:st|nd|rd|th)\b", r" ordinal_\1 "),
    (
        r"\b(?<!\bi )(?<!\bthey )(?<!\bwe )(?<!\bhe )(?<!\bshe )(?<!\bit )(?<!\byou )may\b(?! (?:be|have|not|move|switch|go|get|want|need|try|use|take|stay|change|cancel|expand|raise|apply|drop|leave|join|start|stop|upgrade|downgrade|\w+ing))",
        " month_5 ",
    ),
    (
        rf"\b(?:in|since|until|by|of|early|late|mid|from|last|next|this|every|each) {_MONTH_RE}\b",
        lambda match: match.group(0).split()[0] + f" month_{_MONTHS[match.group(1)[:3]]} ",
    ),
    (
        r"\b(january|february|march|april|june|july|august|september|october|november|december)\b",
        lambda match: f" month_{_MONTHS[match.group(1)[:3]]} ",
    ),
    (
        r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
        + "|".join(sorted(FOREIGN_WEEKDAYS, key=len, reverse=True))
        + r")s?\b",
        lambda match: f" weekday_{_WEEKDAYS[match.group(1)]} ",
    ),
)


def _mark_dates(text: str) -> str:
    """Dates, days of the month, ordinals, months and weekdays."""
    return _DATES(text)


_TOKEN = regex_programs.compile(r"'s|[a-z0-9_][a-z0-9_.+#/]*[a-z0-9_+#]|[a-z0-9_]|[,;:()\"!?]")


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


# Words the embedder leaves out: they carry no content, or name whoever every fact is about.
EMBEDDING_STOPWORDS = lex.STOPWORDS | frozenset({"user", "users", "customer", "customers", "s"})
_STRUCTURAL = frozenset({",", ";", ":", "(", ")", '"', "!", "?", "'s"})


def content_terms(text: str) -> list[str]:
    """The canonical content terms of a text, in order."""
    return [
        term
        for token in tokenize(normalize(text))
        if token not in _STRUCTURAL and token not in EMBEDDING_STOPWORDS
        for term in canon(token)
        if term not in EMBEDDING_STOPWORDS
    ]


# Every expression of this module is compiled by now: keep the programs any of them needed
# translating (regex_programs), as Python keeps bytecode.
regex_programs.save()
