"""The extractor port and the strict validation of whatever an extractor answers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from aurra_core.errors import ExtractionError
from aurra_core.models import MAX_CONTENT_CHARS, TOPIC_PATTERN, Message
from aurra_core.text_analysis.text import fold

# At most this many facts of one conversation are stored. A model is asked for at most this
# many (and an answer with more is one gone wrong); the rules extractor keeps the first this
# many and reports the rest as dropped (`Extraction.dropped`, the response's `facts_dropped`).
MAX_FACTS = 50
_TOPIC = re.compile(TOPIC_PATTERN)


@dataclass(frozen=True)
class ExtractedFact:
    content: str
    topic: str
    message_index: int


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

    def extract(self, messages: list[Message], model: str) -> Extraction:
        """The durable facts the conversation states, in its order. Raises ExtractionError
        when it cannot answer; an empty list means there was nothing to keep."""
        ...


def _fact(item: Any, messages: list[Message]) -> ExtractedFact | None:
    if not isinstance(item, dict):
        return None
    content, index, topic = item.get("content"), item.get("message_index"), item.get("topic")
    if not isinstance(content, str) or isinstance(index, bool) or not isinstance(index, int):
        return None
    content = " ".join(content.split())
    if not 1 <= len(content) <= MAX_CONTENT_CHARS or "\x00" in content:
        return None
    if not 0 <= index < len(messages):
        return None  # a fact from a message that does not exist was not read, it was made up
    if not isinstance(topic, str) or not _TOPIC.match(topic):
        topic = "general"  # advisory only: the topic gate and the caller's topic decide
    return ExtractedFact(content, topic, index)


def validate_facts(raw: Any, messages: list[Message]) -> list[ExtractedFact]:
    """Keep the well-formed facts of a model's answer, in order, once each.

    The answer must be a list of at most MAX_FACTS; a fact must have 1..4000 characters and
    name a message that exists. Malformed facts are dropped; an answer that had facts but
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
