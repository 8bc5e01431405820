"""The gates that run before any model sees a fact. Plain code, in the documented order."""

from __future__ import annotations

from functools import lru_cache

from aurra_core.classifiers.base import Candidate
from aurra_core.models import DEFAULT_TOPIC, AutoSupersede, KeySettings, SkippedReason
from aurra_core.text_analysis.sensitive_topics import sensitive_topic


@lru_cache(maxsize=2048)
def gate_topic(topic: str, content: str) -> str:
    """The topic the excluded-category gate reads: the fact's own, or, for a fact written with
    the default topic, the medical or legal matter its words name (the same reading in code a
    messages write's facts get), so that "I see a therapist on Tuesdays" written without a
    topic is neither classified nor superseded automatically. Cached: a scope's candidates are
    read again by each write to it, and the lexicon's search costs about 0.3 ms a text."""
    if topic != DEFAULT_TOPIC:
        return topic
    return sensitive_topic(content) or topic


def outside_the_gate(candidates: list[Candidate], key_settings: KeySettings) -> list[Candidate]:
    """The candidates whose gate topic the key does not exclude: the search leaves out those of
    an excluded topic; this, those written with the default topic that name such a matter."""
    excluded = key_settings.excluded_categories
    return [c for c in candidates if gate_topic(c.topic, c.content) not in excluded]


def asks_level2(requested: AutoSupersede | None) -> bool | None:
    """A write's `auto_supersede` as a request for Level 2: "async" asks for it as true does
    (only its timing differs), so it opens no gate that true would not."""
    return True if requested == "async" else requested


def decides_later(requested: AutoSupersede | None, key_settings: KeySettings) -> bool:
    """Whether an opted-in Level 2 decides after the write answers (a job): the request said
    "async", or the key's `auto_supersede_mode` is "async"."""
    return requested == "async" or key_settings.auto_supersede_mode == "async"


def auto_supersede_requested(requested: AutoSupersede | None, key_settings: KeySettings) -> bool:
    """The request wins over the key's default."""
    asked = asks_level2(requested)
    return key_settings.auto_supersede_default if asked is None else asked


def gate_before_settings(*, level2_enabled: bool, requested: AutoSupersede | None) -> SkippedReason | None:
    """The gates the key's settings cannot open: a write they close never reads the settings."""
    if not level2_enabled:
        return SkippedReason.LEVEL_2_DISABLED_BY_ENV
    if requested is False:
        return SkippedReason.AUTO_SUPERSEDE_OFF
    return None


def gate(
    *,
    level2_enabled: bool,
    requested: AutoSupersede | None,
    key_settings: KeySettings,
    topic: str,
    content: str,
) -> SkippedReason | None:
    """Why Level 2 must not run for this write, or None when it may. The topic gated is the
    fact's `gate_topic`, read from its topic and its words."""
    skipped = gate_before_settings(level2_enabled=level2_enabled, requested=requested)
    if skipped is not None:
        return skipped
    if not auto_supersede_requested(requested, key_settings):
        return SkippedReason.AUTO_SUPERSEDE_OFF
    if gate_topic(topic, content) in key_settings.excluded_categories:
        return SkippedReason.EXCLUDED_CATEGORY
    return None
