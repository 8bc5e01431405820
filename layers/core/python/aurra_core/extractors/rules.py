"""The offline rules extractor: deterministic, free, precision first. For tests, `aurra dev`
and teams that want no model anywhere.

It reads only the user's messages and keeps their first-person statements, rewritten in the
third person: "I moved to Berlin last month, and I use Emacs now" gives "User moved to Berlin
last month" and "User uses Emacs now". Questions, greetings, thanks, requests to the
assistant and passing states ("I'm tired") are not facts; the assistant's and the system's
words never are. A hedge stays a hedge ("I'm thinking about moving to Rome" gives "User is
thinking about moving to Rome"), and what the user says about others stays theirs ("my sister
lives in Rome" gives "User's sister lives in Rome").
"""

from __future__ import annotations

import re

from aurra_core.errors import ExtractionError
from aurra_core.extractors.base import Extraction, capped, valid_facts
from aurra_core.models import MAX_CONTENT_CHARS, Message, Role
from aurra_core.runtime import deadline
from aurra_core.text_analysis.sensitive_topics import sensitive_topic

NAME = "rules"
MODEL_ID = "aurra-rules-extractor-v1"
PROMPT_VERSION = "rules-v1"

# Sentences end at . ! ? ; or a line break; a clause starts again at ", and I", " but I"...
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE = re.compile(
    r",?\s+(?:and|but|so|although|though|while|because)\s+(?=(?:I|I'm|I've|I'd|I'll|my)\b)|"
    r",\s+(?=(?:I|I'm|I've|I'd|I'll)\s)",
)
_QUESTION_START = re.compile(
    r"^(?:what|who|whom|whose|which|where|when|why|how|is|are|am|was|were|do|does|did|can|could|"
    r"will|would|should|shall|may|might|have|has|had|isn't|aren't|don't|doesn't|didn't|won't)\b",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^(?:hi|hello|hey|yo|thanks|thank you|thx|cheers|ok|okay|sure|great|cool|nice|awesome|"
    r"good (?:morning|afternoon|evening|night)|bye|goodbye|see you|lol|haha|yes|yeah|yep|no|nope|"
    r"please|sorry|welcome|noted|got it|sounds good|perfect|right|well|oh|ah|hmm|um)\b[\s,.!]*",
    re.IGNORECASE,
)
# "I ..." that says something about the conversation, not about the user's life.
_NOT_A_FACT = re.compile(
    r"^I (?:"
    r"think so|guess|suppose|see|know|agree|disagree|understand|mean|hope so|wonder|was wondering|"
    r"(?:do not|don't) know|have a question|had a question|appreciate|forgot|said|asked|meant|"
    r"need (?:you|help|to know)|want (?:you|to know|to ask)|would like (?:you|to know|to ask)|"
    r"wanted to ask|have to go|will (?:check|think|get back)|just (?:wanted|asked|said)|"
    r"(?:love|like|hate) (?:it|that|this)\b)"
    r"|^I'd like (?:you|to know|to ask)|^I'll (?:check|think|get back)"
    r"|^I(?:'m| am) (?:(?:just |so |very |really |a bit |pretty )?(?:"
    r"fine|good|ok|okay|well|great|back|here|done|ready|curious|confused|kidding|joking|asking|"
    r"wondering|sorry|glad|happy to hear|tired|hungry|thirsty|bored|sleepy|exhausted|in a hurry|"
    r"on my way|checking|not sure|listening|excited|nervous|busy today|stressed today)\b)",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"^(?:I|I'm|I've|I'd|I'll|My|User and their)\b")
# "My wife and I bought a house": one fact about both, its verb already plural.
_TOGETHER = re.compile(r"\b[Mm]y (\w+) and I\b(?!')")

_MODALS = frozenset(
    "can could will would should shall may might must can't couldn't won't wouldn't shouldn't "
    "mustn't cannot".split()
)
_ADVERBS = frozenset(
    "now just also recently finally still usually always often never sometimes mostly really "
    "actually currently already only even mainly generally basically definitely certainly "
    "probably rarely seldom occasionally totally absolutely officially".split()
)
_IRREGULAR_PRESENT = {"am": "is", "have": "has", "do": "does", "go": "goes", "was": "was", "'m": "is"}
_IRREGULAR_PAST = frozenset(
    "was were had did went got made took came saw knew thought bought brought left felt kept "
    "began became broke chose drove fell found flew forgot gave grew held heard hurt lost met "
    "paid put quit ran read said sold sent set sat slept spent spoke stood stole swam taught "
    "told understood woke won wore wrote built caught dealt dug drew ate fed fought hid hit led "
    "lent let lit meant rode rang rose shook shot shut sang sank slid spun split spread stuck "
    "struck swore swept swung tore threw".split()
)
_OBJECT_PRONOUNS = {
    "my": "their",
    "me": "them",
    "mine": "theirs",
    "myself": "themselves",
    "i": "they",
    "i'm": "they're",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
}
_TOPICS = (
    (
        "location",
        r"\b(?:live[sd]?|living|moved?|moving|relocat\w*|from|based in|hometown|city|apartment|house|flat)\b",
    ),
    (
        "work",
        r"\b(?:work(?:s|ed|ing)?|job|employer|company|hired|promot\w*|boss|colleague|office|role|"
        r"position|career|salary|freelanc\w*|startup|retired)\b",
    ),
    (
        "family",
        r"\b(?:sister|brother|mother|father|mom|mum|dad|wife|husband|partner|son|daughter|kids?|"
        r"children|child|parents?|grandm\w*|grandf\w*|married|engaged|boyfriend|girlfriend|baby|family)\b",
    ),
    ("pets", r"\b(?:dog|cat|puppy|kitten|pet|parrot|hamster|rabbit|horse|fish)\b"),
    (
        "food",
        r"\b(?:vegan|vegetarian|eat|eats|ate|eating|drink|drinks|coffee|tea|food|cook\w*|meat|diet|"
        r"pescatarian|gluten|dairy)\b",
    ),
    ("travel", r"\b(?:travel\w*|trip|flight|vacation|holiday|visit\w*)\b"),
    (
        "preferences",
        r"\b(?:use[sd]?|using|prefer\w*|like[sd]?|love[sd]?|hate[sd]?|favou?rite|switched|enjoy\w*|"
        r"editor|fan of|into)\b",
    ),
)


def _third_person_verb(word: str) -> str:
    lower = word.lower()
    if lower in _MODALS or lower in _IRREGULAR_PAST or lower.endswith("ed"):
        return word
    if lower in _IRREGULAR_PRESENT:
        return _IRREGULAR_PRESENT[lower]
    if lower.endswith("n't"):  # don't -> doesn't, haven't -> hasn't
        base = lower[:-3]
        return {"do": "doesn't", "have": "hasn't", "am": "isn't", "were": "wasn't"}.get(base, word)
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return word + "es"
    if re.search(r"[^aeiou]y$", lower):
        return word[:-1] + "ies"
    return word + "s"


def _rewrite(clause: str) -> str | None:
    """A first-person clause in the third person, or None when it is not one."""
    text = clause.strip().strip(" ,-—").rstrip(".!;: ")
    text = re.sub(
        r"^(?:also|and|but|so|oh|well|actually|btw|by the way|fyi|anyway)\b[,\s]*", "", text, flags=re.I
    )
    text = re.sub(r"^my\b", "My", text)
    if not _FIRST_PERSON.match(text) or _NOT_A_FACT.match(text):
        return None
    tokens = text.split()
    head = tokens[0]
    out: list[str] = []
    rest = tokens[1:]
    if text.startswith("User and their"):
        out, rest = tokens[:3], tokens[3:]
    elif head == "My":
        out = ["User's"]
    elif head in ("I'm", "I've", "I'd", "I'll"):
        out = ["User", {"I'm": "is", "I've": "has", "I'd": "would", "I'll": "will"}[head]]
    else:  # "I": the first verb after any adverbs takes the third person
        out = ["User"]
        while rest and (
            rest[0].lower().strip(",") in _ADVERBS or [w.lower() for w in rest[:2]] == ["no", "longer"]
        ):
            out.append(rest.pop(0))
            if out[-1].lower() == "no":
                out.append(rest.pop(0))
        if rest:
            out.append(_third_person_verb(rest.pop(0)))
    for token in rest:
        bare = token.lower().strip(",.;:!?\"'()")
        if bare in _OBJECT_PRONOUNS:
            replacement = _OBJECT_PRONOUNS[bare]
            token = token.replace(token.strip(",.;:!?\"'()"), replacement)
        out.append(token)
    fact = " ".join(out)
    if len(out) < 3:  # "User is", "User agrees": nothing to keep
        return None
    return fact[:MAX_CONTENT_CHARS]


def _topic(fact: str) -> str:
    sensitive = sensitive_topic(fact)
    if sensitive:
        return sensitive
    for topic, pattern in _TOPICS:
        if re.search(pattern, fact, re.IGNORECASE):
            return topic
    return "general"


def _pieces(pattern: re.Pattern[str], text: str, offset: int) -> list[tuple[int, str]]:
    """`pattern.split(text)` (a pattern without groups), each piece with where it starts in
    the message (`offset`: where `text` starts there)."""
    pieces, start = [], 0
    for separator in pattern.finditer(text):
        pieces.append((offset + start, text[start : separator.start()]))
        start = separator.end()
    pieces.append((offset + start, text[start:]))
    return pieces


def _quote(original: str, start: int, piece: str) -> str:
    """The span of the message a piece covers, as the message has it, without the spaces and
    the punctuation around it."""
    lead = len(piece) - len(piece.lstrip(" \t\n,-—"))
    kept = piece.strip(" \t\n,-—").rstrip(".!;: ")
    return original[start + lead : start + lead + len(kept)]


def facts_of(text: str) -> list[str]:
    """The third-person facts of one user message, in order."""
    return [fact for fact, _ in facts_and_quotes(text)]


def facts_and_quotes(text: str) -> list[tuple[str, str]]:
    """The third-person facts of one user message, in order, each with the span of the
    message it came from (its clause; the whole sentence when the sentence was rewritten
    before its clauses were found)."""
    found: list[tuple[str, str]] = []
    # The same length as the message: positions in it are positions in the message.
    normalized = text.replace("\u2019", "'")
    for start, sentence in _pieces(_SENTENCES, normalized, 0):
        deadline.check()
        start += len(sentence) - len(sentence.lstrip())
        sentence = sentence.strip()
        pleasantry = _PLEASANTRY.match(sentence)
        if pleasantry is not None:
            start += pleasantry.end()
            sentence = sentence[pleasantry.end() :]
            start += len(sentence) - len(sentence.lstrip())
            sentence = sentence.strip()
        together = _TOGETHER.sub(r"User and their \1", sentence)
        if not together or together.endswith("?") or _QUESTION_START.match(together):
            continue
        for clause_start, clause in _pieces(_CLAUSE, together, start):
            fact = _rewrite(clause)
            if not fact:
                continue
            if together == sentence:
                quote = _quote(text, clause_start, clause)
            else:
                quote = _quote(text, start, sentence)
            found.append((fact, quote))
    return found


class RulesExtractor:
    """`limit_s`: the most one extraction may take (AURRA_EXTRACTOR_TIMEOUT_S in the service):
    the work checks its deadline as it goes (runtime/deadline.py) and stops with an
    ExtractionError once it has passed."""

    name = NAME

    def __init__(self, limit_s: float | None = None) -> None:
        self.limit_s = limit_s

    def extract(self, messages: list[Message], model: str) -> Extraction:
        raw = []
        try:
            with deadline.limited(self.limit_s):
                for index, message in enumerate(messages):
                    if message.role != Role.USER:
                        continue  # the assistant's and the system's words are not the user's facts
                    for fact, quote in facts_and_quotes(message.content):
                        raw.append(
                            {
                                "content": fact,
                                "topic": _topic(fact),
                                "message_indexes": [index],
                                "quote": quote,
                            }
                        )
        except deadline.DeadlinePassed as exc:
            raise ExtractionError("the rules extractor did not finish within its time limit") from exc
        # Every fact is found; the first MAX_FACTS are kept and the rest counted as dropped.
        facts, dropped = capped(valid_facts(raw, messages))
        return Extraction(
            facts=facts,
            extractor=NAME,
            model=MODEL_ID,
            prompt_version=PROMPT_VERSION,
            input_tokens=0,
            output_tokens=0,
            dropped=dropped,
        )
