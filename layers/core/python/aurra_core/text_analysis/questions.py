"""What a question asks for, so that a search ranks the memories that answer it.

"Where does the user work?" shares no word with "User left Shopify for Canva", and a small
embedding model rarely finds them alike; yet the question says what its answer looks like: a
workplace. A search (`store.fused_ranking`) reads the question once (`read_question`) and fuses
one more list, the memories that could answer it (`Question.answers`): a workplace, a home, a
count, an amount, a time of day, a day, a date, a version, an end or a thing got or switched to,
about the one the question is about ("the user's sister" is not the user). It only lifts
memories among those the search already ranks; a text that is not a question of these forms reads as None and changes nothing.

Written from the forms questions take in English, never from an evaluation set's texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from aurra_core.text_analysis import rules_lexicon as lex
from aurra_core.text_analysis.text import MONTH_NAMES, NUMBER_WORDS, WEEKDAY_NAMES


class Answer(Enum):
    WORKPLACE = "workplace"
    HOME = "home"
    COUNT = "count"
    AMOUNT = "amount"
    TIME = "time"
    DAY = "day"
    DATE = "date"
    VERSION = "version"
    ENDED = "ended"
    CHOSEN = "chosen"


# a typographic apostrophe ("user\u2019s") is read as a plain one
_TYPOGRAPHIC_APOSTROPHE = "\u2019"
_SPECIFIC = frozenset({Answer.WORKPLACE, Answer.HOME, Answer.ENDED})

_AUX = r"(?:does|do|did|is|are|was|were|will|has|have)"
# The one a question is about, as it names them: "the user", "the user's sister", "Rhona".
_WHO = r"(?P<who>[\w' .&-]+?)"

# Each form: a question's opening words (or words anywhere, for "how many"), the answers it
# takes. Order matters only for readability: a question may take the answers of several.
_FORMS: tuple[tuple[re.Pattern[str], frozenset[Answer]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), frozenset(answers))
    for pattern, answers in (
        (rf"\bwhere {_AUX} {_WHO} (?:work|working|worked|employed|job)\b", {Answer.WORKPLACE}),
        (rf"\bwho {_AUX} {_WHO} (?:work(?:s|ing)? for|employed by)\b", {Answer.WORKPLACE}),
        (
            r"\b(?:which|what) (?:company|firm|employer|organi[sz]ation|agency|business|hospital|school|"
            r"university|lab) (?:does|do|did|is|are) (?P<who>[\w' .&-]+?) (?:work|employed|teach)",
            {Answer.WORKPLACE},
        ),
        (
            # "What is the user's current nursing role?"
            r"\bwhat (?:is|'s|was) (?P<who>[\w' .&-]+?)'s (?:\w+ ){0,2}(?:job|employer|workplace|occupation|"
            r"profession|role|position|title|work status|employment(?: status)?)\b",
            {Answer.WORKPLACE},
        ),
        (
            r"\bwhere (?:is|are|was) (?P<who>[\w' .&-]+?)'s (?:\w+ )?(?:office|workplace|desk|studio|shop|"
            r"clinic|practice|stall|pitch|surgery)\b",
            {Answer.WORKPLACE},
        ),
        (rf"\bwhat {_AUX} {_WHO} do (?:for (?:a living|work)|now|these days)\b", {Answer.WORKPLACE}),
        (rf"\bwhere {_AUX} {_WHO} (?:live|living|lives|reside|residing|stay|staying|based)\b", {Answer.HOME}),
        (rf"\bwhere {_AUX} {_WHO} (?:moving|relocating|moved|relocated)\b", {Answer.HOME}),
        (
            r"\b(?:which|what) (?:city|town|country|neighbou?rhood|area|suburb|state|county|part of town) "
            rf"{_AUX} {_WHO} (?:live|living|lives|based|moving|moved|in)\b",
            {Answer.HOME},
        ),
        (r"\bwhat (?:is|'s) (?P<who>[\w' .&-]+?)'s (?:address|home ?town|city)\b", {Answer.HOME}),
        (r"\bhow many\b", {Answer.COUNT}),
        (r"\bhow (?:old|long|far|often|big|large)\b", {Answer.COUNT}),
        (r"\bhow much\b", {Answer.AMOUNT}),
        (
            r"\bwhat (?:is|'s) (?P<who>[\w' .&-]+?)'s (?:\w+ )?(?:rent|salary|rate|budget|price|"
            r"fee|pay|income|mortgage|bill|cost|dose|dosage|weight)\b",
            {Answer.AMOUNT},
        ),
        (r"\b(?:at )?what time\b|\bwhat hours\b|\bwhich (?:train|bus|flight|shift)\b", {Answer.TIME}),
        (r"\b(?:on )?(?:which|what) days?\b|\bhow often\b", {Answer.DAY}),
        (r"^\W*when\b", {Answer.TIME, Answer.DAY, Answer.DATE}),
        (r"\b(?:which|what) (?:\w+ )?(?:version|release)\b", {Answer.VERSION}),
        # "What phone does the user have?", "Which app does the user use to track food?", "What
        # does the user's team use for orchestration?": the one thing of a kind the user has or
        # uses, which a memory of getting or switching to it answers ("got the 15 Pro", "switched
        # to Cronometer") as well as one that names it
        (
            r"\b(?:which|what) (?![\w -]{0,30}?\b(?:time|days?|version|release)\b)[a-z][\w -]{0,30}? (?:does|do|is|are) "
            r"(?P<who>(?:the )?user(?:'s \w+)?) (?:use|using|have|has|drive|driving|ride|run|running|take|"
            r"taking|play|go to|attend|train at|shop at|bank with|sell at|work from|on)\b",
            {Answer.CHOSEN},
        ),
        (r"\bwhat (?:does|do) (?P<who>(?:the )?user(?:'s \w+)?) use (?:for|to)\b", {Answer.CHOSEN}),
        # "Does the user still sing in the choir?": whether it ended
        (rf"^\W*(?:does|do|is|are|has|have|did) {_WHO} still\b", {Answer.ENDED}),
        (
            r"^\W*(?:does|do|is|are|has|have|did) (?P<who>(?:the )?user(?:'s \w+)?|[A-Z][\w'-]+)\b"
            r".*\b(?:any ?more|no longer)\b",
            {Answer.ENDED},
        ),
    )
)

# Whose the answer is: "the user's sister" -> "sister", "the user's daughter Ava" -> "daughter"
# or "Ava"; "the user" -> nobody else. Only someone of the user's, or a group of their own
# people, is asked of: "the user's rent", "the user's office" ask what is the user's.
_RELATION = re.compile(r"\b[Uu]ser's (\w+)(?: ([A-Z][\w'-]+))?")
_PEOPLE = lex.RELATION_NOUNS | frozenset({"fiancé", "fiancée", "mate", "bestie"})
_ASKED_OF = _PEOPLE | frozenset({"team", "band", "choir", "club", "lab", "family", "household"})
_NAMED = re.compile(r"^[A-Z][\w'-]+(?: [A-Z][\w'-]+)?$")
_JUST_THE_USER = re.compile(r"^(?:the )?user$", re.IGNORECASE)


def _any_of(words: frozenset[str] | set[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# The normaliser's words for numbers, weekdays (in the languages users write in) and months,
# and how else a count, a day or a date is said.
_NUMBER_WORDS = _any_of(NUMBER_WORDS | {"thousand", "a few", "half", "single", "double", "twice", "once"})
_WEEKDAYS = rf"(?:{_any_of(WEEKDAY_NAMES)})s?|weekends?|weekdays?|daily|every day|each day|nightly|weekly"
_MONTHS = _any_of(MONTH_NAMES)

# (a student is at a school, not a workplace; "cooks lunch at home" is a verb)
_ROLES = (lex.ROLE_NOUNS - {"student", "cook"}) | {"partner", "sister", "prof", "driver"}
_WORK_WORDS = re.compile(
    r"\b(?:works?|worked|working|employ(?:ed|er|ment)|jobs?|joined|hired|freelanc\w*|contract(?:s|ed|or|ing)?|"
    r"consult(?:ant|ing)|intern(?:ing|ship)?|self-employed|unemployed|retired|laid off|redundant|quit|"
    r"resigned|promoted|promotion|started (?:at|a new job|with)|office|campus|company|firm|shifts?|clinic|hospital|"
    r"trabaj\w*|travail\w*|taf|arbeit\w*|lavor\w*|emprego|trabalh\w*)\b"
    r"|\bleft (?:\S+ ){1,4}?for\b"
    r"|\b(?:now|i'm|i am|she's|he's|they're) (?:at|with) \w"
    # a role at a place: the rules' role nouns, and a partner, a sister (the rank) or a driver
    rf"|\b(?:{_any_of(_ROLES)})s?\b[^.]*?\b(?:at|for|with|in)\b"
    r"|\b(?:does|doing|did) [\w -]+? (?:at|for)\b",
    re.IGNORECASE,
)
_HOME_WORDS = re.compile(
    r"(?i:\b(?:live[sd]?|living|reside[sd]?|moved|moving|move[sd]?|relocat\w*|based|home|house|flat|"
    r"apartment|condo|studio|place (?:in|near|outside)|rent(?:s|ed|ing)?|mortgage|neighbou?rhood|"
    r"mudado|mudamos|mudei|vivo|vive|vivimos|moro|habite|habitons|wohne?|wohnen|abito|viviamo)\b)"
    r"|\b(?:in|to|from|near|outside) [A-Z]",
)
_HAS_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
_HAS_TIME = re.compile(
    r"\b\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock|h)\b|\b\d{1,2}[:h]\d{2}\b|"
    r"\b(?:noon|midday|midnight|morning|mornings|afternoons?|evenings?|nights?|half (?:past )?\w+|"
    r"quarter (?:past|to) \w+|early|late|lunch(?:time)?|breakfast|dinner(?:time)?|bedtime|"
    r"(?:after|before) (?:work|school))\b",
    re.IGNORECASE,
)
_HAS_DAY = re.compile(rf"\b(?:{_WEEKDAYS})\b", re.IGNORECASE)
_HAS_DATE = re.compile(
    rf"\b(?:{_MONTHS})\b|\b(?:19|20)\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}\b|"
    r"\b(?:next|last|this) (?:week|month|year|spring|summer|autumn|fall|winter)\b|\btomorrow\b|\btoday\b",
    re.IGNORECASE,
)
_HAS_VERSION = re.compile(
    r"\bv?\d+(?:\.\d+)+\b|\b(?:version|v|release) ?\d+\b|\b[A-Za-z]+ ?\d+\b", re.IGNORECASE
)
_HAS_AMOUNT = re.compile(r"[$€£¥₹]|\d|\b(?:" + _NUMBER_WORDS + r")\b", re.IGNORECASE)

_HAS_ENDED = re.compile(
    r"\b(?:quit|quits|stopped|stops|gave (?:it |that |them )?up|given (?:it )?up|giving (?:it )?up|no longer|"
    r"not any ?more|any ?more|(?:is|are|was) over|done with|retired|ended|finished with|dropped out|"
    r"left|cancel+ed|pulled out|packed (?:it )?in|called it a day|hung up)\b",
    re.IGNORECASE,
)

# A thing got or switched to: "got the 15 Pro", "switched to Cronometer", "went with Dagster",
# "is on Fly.io now"
_HAS_CHOSEN = re.compile(
    r"\b(?:switch(?:ed|ing)? (?:\w+ )?(?:to|from)|mov(?:ed|ing) (?:\w+ ){0,3}?(?:to|into|onto)|migrat(?:ed|ing)|"
    r"went (?:with|for)|chang(?:ed|ing) to|upgraded to|got (?:the|a|an)|bought|picked up|traded|ditched|"
    r"ripped out|replaced|(?:is|are|'s|'re) (?:now |all |fully )?on \S+(?: \S+)? now|now (?:on|uses?|in)|"
    r"ended up (?:on|with|getting|at))\b",
    re.IGNORECASE,
)

_SHOWS: dict[Answer, re.Pattern[str]] = {
    Answer.WORKPLACE: _WORK_WORDS,
    Answer.HOME: _HOME_WORDS,
    Answer.COUNT: _HAS_NUMBER,
    Answer.AMOUNT: _HAS_AMOUNT,
    Answer.TIME: _HAS_TIME,
    Answer.DAY: _HAS_DAY,
    Answer.DATE: _HAS_DATE,
    Answer.VERSION: _HAS_VERSION,
    Answer.ENDED: _HAS_ENDED,
    Answer.CHOSEN: _HAS_CHOSEN,
}

# A memory about someone of the user's ("User's sister lives in Graz"), or kept as said and
# about a third person ("User said: she's in Linz"). A group the user is in is the user's own
# ("User's company moved to Leeds" answers where the user works).
_SOMEONE_ELSES = re.compile(r"^user's (\w+)", re.IGNORECASE)
_SAID_OF_ANOTHER = re.compile(
    r"^user said: (?:\W*\w+\W+){0,3}?(?:she|he|they|her|his|their)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Question:
    answers_wanted: frozenset[Answer]
    # The user's relation the question is about ("sister"), or None for the user themselves
    # (or someone named, whom a memory's wording cannot be held to).
    relation: str | None
    about_the_user: bool
    # The relation's name, when the question gives it ("the user's daughter Ava"), or the one
    # named ("Where does Marco work?").
    name: str | None = None

    @property
    def specific(self) -> bool:
        """Whether the answer has wording of its own (a workplace, a home), rather than any
        number, time or day, which many memories show."""
        return bool(self.answers_wanted & _SPECIFIC)

    def answers(self, content: str) -> bool:
        """Whether a memory could answer the question: it shows an answer of a wanted kind,
        about the one asked about."""
        content = content.replace(_TYPOGRAPHIC_APOSTROPHE, "'")
        if not any(_SHOWS[a].search(content) for a in self.answers_wanted):
            return False
        someone = _SOMEONE_ELSES.match(content)
        if someone is not None and someone.group(1).lower() not in _PEOPLE:
            someone = None  # "User's database runs Postgres 16" is about the user's own
        if self.relation is not None:
            return (
                _mentions(content, self.relation)
                or (self.name is not None and _mentions(content, self.name))
                or bool(_SAID_OF_ANOTHER.match(content))
            )
        if self.about_the_user:
            return someone is None
        if self.name is not None:
            return _mentions(content, self.name) or bool(_SAID_OF_ANOTHER.match(content))
        return True


def _mentions(content: str, word: str) -> bool:
    return _mention_of(word.lower()).search(content) is not None


@lru_cache(maxsize=256)
def _mention_of(word: str) -> re.Pattern[str]:
    """The word, or any the rules read as the same relation ("dad", "father", "daddy"), with a
    plural ending: "daughter" in "User's daughter's school", "team" in "teams". Compiled once a
    word: a search asks it of every memory it ranks."""
    same = lex.SYNONYMS.get(word, word)
    words = {word, same} | {w for w, s in lex.SYNONYMS.items() if s == same}
    return re.compile(rf"\b(?:{_any_of(words)})(?:s|es)?\b", re.IGNORECASE)


@lru_cache(maxsize=1024)
def read_question(text: str) -> Question | None:
    """The answers a question asks for, and whose; None when the text asks none of these."""
    text = text.replace(_TYPOGRAPHIC_APOSTROPHE, "'")
    wanted: set[Answer] = set()
    who: str | None = None
    for form, answers in _FORMS:
        found = form.search(text)
        if found is None:
            continue
        wanted |= answers
        if who is None and "who" in form.groupindex and found.group("who"):
            who = found.group("who").strip()
    if not wanted:
        return None
    relation = _RELATION.search(text)
    if relation is not None and relation.group(1).lower() not in _ASKED_OF:
        relation = None  # "the user's office", "the user's rent": the user's own
    about_the_user = relation is None and (who is None or _JUST_THE_USER.match(who) is not None)
    if relation is None:
        # Someone the question names ("Where does Marco work?"), whom the answer mentions.
        named = who if who is not None and not about_the_user and _NAMED.match(who) else None
        return Question(frozenset(wanted), None, about_the_user, named)
    return Question(frozenset(wanted), relation.group(1).lower(), False, relation.group(2))
