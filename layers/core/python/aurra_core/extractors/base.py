"""The extractor port and the strict validation of whatever an extractor answers."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from aurra_core.errors import ExtractionError
from aurra_core.models import MAX_CONTENT_CHARS, MAX_QUOTE_CHARS, TOPIC_PATTERN, Message
from aurra_core.text_analysis.text import fold

# At most this many facts of one conversation are stored. A model is asked for at most this
# many (and an answer with more is one gone wrong); the rules extractor keeps the first this
# many and reports the rest as dropped (`Extraction.dropped`, the response's `facts_dropped`).
MAX_FACTS = 50
_TOPIC = re.compile(TOPIC_PATTERN)
# A verbatim fact is the user's words under this attribution: read later, out of its
# conversation, "I moved" or "gym at 6am" says whose it is (and an agent reading its memory
# never takes the user's "I" for its own).
SAID = "User said: "


@dataclass(frozen=True)
class ExtractedFact:
    content: str
    topic: str
    # The 0-based indexes of the messages the fact came from, ascending, at least one.
    message_indexes: tuple[int, ...]
    # The span of those messages the fact came from, exactly as the conversation has it (None
    # when the extractor gave none, or one that is not in the conversation).
    quote: str | None = None

    @property
    def message_index(self) -> int:
        """The message that completes the fact (the last it came from): its `created_at` is
        the fact's valid time."""
        return self.message_indexes[-1]


@dataclass(frozen=True)
class Extraction:
    facts: list[ExtractedFact]
    extractor: str  # the provider: rules, anthropic, bedrock, openai
    model: str  # the model that answered (for openai, the id the endpoint reports)
    prompt_version: str
    details: dict[str, Any] = field(default_factory=dict)
    # Tokens as the provider reported them, for the receipt; None when it did not say.
    input_tokens: int | None = None
    output_tokens: int | None = None
    # Valid facts found beyond MAX_FACTS, not stored.
    dropped: int = 0


class Extractor(Protocol):
    name: str

    def extract(
        self, messages: list[Message], model: str, relations: Collection[tuple[str, str]] = ()
    ) -> Extraction:
        """The durable facts the conversation states, in its order. Raises ExtractionError
        when it cannot answer; an empty list means there was nothing to keep. `relations`:
        whom of the user's their memories already name, each as the word after "User's" and
        the word after that (("sister", "lives"), ("boyfriend", "marco")), for a "she" or "he"
        the conversation itself does not explain (storage/store.relations_named). A messages
        write reads and passes them only to an extractor whose `reads_relations` is true."""
        ...


def _index(value: Any, messages: list[Message]) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(messages):
        return None
    return value


def _indexes(item: dict[str, Any], messages: list[Message]) -> tuple[int, ...] | None:
    """The message indexes an answer named (`message_indexes`, or the older single
    `message_index`): every one must be a message that exists, else the answer named none."""
    named = item.get("message_indexes")
    if named is None and "message_index" in item:
        named = [item["message_index"]]
    if not isinstance(named, list) or not named or len(named) > len(messages):
        return None
    found = [_index(value, messages) for value in named]
    if any(index is None for index in found):
        return None  # a fact from a message that does not exist was not read, it was made up
    return tuple(sorted({index for index in found if index is not None}))


def locate_quote(
    quote: Any, messages: list[Message], named: tuple[int, ...] | None
) -> tuple[int, str] | None:
    """Where `quote` is in the conversation: (message index, the span exactly as that message
    has it), looked for in the named messages first, then in all of them. Whitespace and
    letter case may differ from the message's; anything else is not a quote of it."""
    if not isinstance(quote, str):
        return None
    words = quote.split()
    if not words or len(quote) > MAX_QUOTE_CHARS:
        return None
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)
    order = [*(named or ()), *(i for i in range(len(messages)) if i not in (named or ()))]
    for index in order:
        found = pattern.search(messages[index].content)
        if found is not None and len(found.group(0)) <= MAX_QUOTE_CHARS:
            return index, found.group(0)
    return None


def _fact(item: Any, messages: list[Message]) -> ExtractedFact | None:
    """A well-formed fact, its messages checked: the named indexes must exist; the quote must
    be in the conversation (in a named message, else the message it is in is the fact's, and
    without valid indexes it is the only evidence of where the fact came from); a quote found
    nowhere is dropped, and a fact with neither is refused."""
    if not isinstance(item, dict):
        return None
    content, topic = item.get("content"), item.get("topic")
    if not isinstance(content, str):
        return None
    content = " ".join(content.split())
    if not 1 <= len(content) <= MAX_CONTENT_CHARS or "\x00" in content:
        return None
    named = _indexes(item, messages)
    located = locate_quote(item.get("quote"), messages, named)
    quote = None
    if located is not None:
        index, quote = located
        if named is None or index not in named:
            named = (index,)
    if named is None:
        return None
    if not isinstance(topic, str) or not _TOPIC.match(topic):
        topic = "general"  # advisory only: the topic gate and the caller's topic decide
    return ExtractedFact(content, topic, named, quote)


def validate_facts(raw: Any, messages: list[Message]) -> list[ExtractedFact]:
    """Keep the well-formed facts of a model's answer, in order, once each.

    The answer must be a list of at most MAX_FACTS; a fact must have 1..4000 characters and
    name messages that exist or quote one (`_fact`). Malformed facts are dropped; an answer that had facts but
    not one valid is nonsense, and an error."""
    if not isinstance(raw, list):
        raise ExtractionError("facts must be a list")
    if len(raw) > MAX_FACTS:
        raise ExtractionError(f"the extractor returned {len(raw)} facts; at most {MAX_FACTS} are accepted")
    return valid_facts(raw, messages)


def capped(facts: list[ExtractedFact]) -> tuple[list[ExtractedFact], int]:
    """The first MAX_FACTS facts, and how many beyond them are dropped."""
    return facts[:MAX_FACTS], max(0, len(facts) - MAX_FACTS)


def valid_facts(raw: list[Any], messages: list[Message]) -> list[ExtractedFact]:
    """The well-formed facts of `raw`, in order, once each, however many (see validate_facts)."""
    kept: list[ExtractedFact] = []
    seen: set[str] = set()
    for item in raw:
        fact = _fact(item, messages)
        if fact is None:
            continue
        key = fold(fact.content).rstrip(". ")
        if key in seen:
            continue
        seen.add(key)
        kept.append(fact)
    if raw and not kept:
        raise ExtractionError("the extractor returned no valid fact")
    return kept
