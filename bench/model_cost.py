"""The estimated cost of Aurra's model calls, from the prompts the service would send.

Tokens are ESTIMATED as characters / 3.6 (no tokenizer runs here: the Claude tokenizer is
not public, and counting through the API needs the network). The estimate is rough both ways:
English prose runs about 3.5 to 4.5 characters a token, JSON punctuation and hex ids fewer.
The API's own tool-use system prompt (a few hundred tokens, added by the provider, in the
cached prefix) is not counted.

A classification call's input is a static prefix (system prompt + the record_verdicts tool
definition, the same bytes in every call) and the request's own part (the user message). With
prompt caching the prefix is billed as a cache write on the first call in five minutes (1.25x
the input price) and as a cache read on the others (0.1x), but only where the prefix reaches
the model's minimum cacheable length; below it the request is billed as if unmarked.

Output: the classification call's answer is built as the model would write it, and its
characters are counted like the input's: `{"verdicts": ["1|new_fact|0.90|Different person:
sister", ...]}`, one string per candidate in the grammar of the prompt's ANSWER_LINE. Each
string carries the verdict and confidence the stand-in classifier gave that candidate, and a
reason taken in turn from the prompt's own worked examples (the model is taught to write
reasons like them); `answer_at_reason_cap` is the same answer with every reason at the
grammar's longest, the most an answer inside the format can cost. The extraction call's
output is its answer, `{"facts": [...]}`, as JSON.

Prices are ASSUMED list prices, USD per million tokens, as published by Anthropic on
2026-11-30 (Bedrock on-demand prices Claude the same).
"""

from __future__ import annotations

import itertools
import json
import re
import statistics
from dataclasses import dataclass
from typing import Any

CHARS_PER_TOKEN = 3.6


@dataclass(frozen=True)
class ModelPrice:
    name: str
    input: float
    output: float
    cache_write: float  # 5-minute cache
    cache_read: float
    min_cacheable_tokens: int


MODELS = (
    ModelPrice("Claude Haiku 4.5", 1.00, 5.00, 1.25, 0.10, 4096),
    ModelPrice("Claude Sonnet 4.5", 3.00, 15.00, 3.75, 0.30, 1024),
)
# What a call can find in the cache: nothing marked (no breakpoint or a prefix under the
# model's minimum), the first call in five minutes (it writes), every later one (it reads).
CACHE_STATES = ("uncached", "first_call_cache_write", "steady_state_cache_read")


@dataclass(frozen=True)
class CallTokens:
    static: float  # the cacheable prefix (0 when the call marks none)
    dynamic: float  # the rest of the input
    output: float


def tokens(text: str) -> float:
    return len(text) / CHARS_PER_TOKEN


def example_reasons() -> list[str]:
    """The reasons of the prompt's worked examples, in the prompt's order."""
    from aurra_core.classifiers.prompt import SYSTEM_PROMPT

    joined = re.sub(r"\n +", " ", SYSTEM_PROMPT)
    return re.findall(r"-> 1\|\w+\|[\d.]+\|([^|\n]+)$", joined, re.MULTILINE)


_REASONS = itertools.cycle(example_reasons())


def answer(verdicts: list[tuple[str, float]], reasons: Any = _REASONS) -> str:
    """The record_verdicts input as the model writes it: one line per candidate, in order."""
    lines = [
        f"{position}|{label}|{confidence:.2f}|{next(reasons)}"
        for position, (label, confidence) in enumerate(verdicts, start=1)
    ]
    return json.dumps({"verdicts": lines})


def answer_at_reason_cap(verdicts: list[tuple[str, float]]) -> str:
    from aurra_core.classifiers.prompt import REASON_MAX_CHARS

    return answer(verdicts, itertools.repeat("x" * REASON_MAX_CHARS))


def stand_in_verdicts(candidates: list[Any], verdicts: list[Any] | None) -> list[tuple[str, float]]:
    """(label, confidence) per candidate as the stand-in classifier judged it; a candidate it
    gave no verdict gets new_fact 0.90 (the model answers every position)."""
    by_id = {v.candidate_id: (v.verdict.value, v.confidence) for v in verdicts or []}
    return [by_id.get(c.id, ("new_fact", 0.90)) for c in candidates]


def classification_tokens(
    new_content: str,
    new_topic: str,
    candidates: list[Any],
    verdicts: list[Any] | None = None,
    *,
    cap: bool = False,
) -> CallTokens:
    from aurra_core.classifiers.prompt import static_prefix, user_message

    judged = stand_in_verdicts(candidates, verdicts)
    return CallTokens(
        static=tokens(static_prefix()),
        dynamic=tokens(user_message(new_content, new_topic, candidates)),
        output=tokens(answer_at_reason_cap(judged) if cap else answer(judged)),
    )


def extraction_tokens(messages: list[Any], facts: list[Any]) -> CallTokens:
    """The extractor marks no cache breakpoint: its whole input is billed at the input price."""
    from aurra_core.extractors.prompt import SYSTEM_PROMPT, TOOL, user_message

    answer = {
        "facts": [{"content": f.content, "topic": f.topic, "message_index": f.message_index} for f in facts]
    }
    return CallTokens(
        static=0.0,
        dynamic=tokens(SYSTEM_PROMPT + json.dumps(TOOL) + user_message(messages)),
        output=tokens(json.dumps(answer)),
    )


def call_cost(call: CallTokens, model: ModelPrice, cache: str) -> float:
    """USD for one call in the given cache state."""
    cached = cache != "uncached" and call.static >= model.min_cacheable_tokens
    prefix_price = model.input
    if cached:
        prefix_price = model.cache_write if cache == "first_call_cache_write" else model.cache_read
    return (call.static * prefix_price + call.dynamic * model.input + call.output * model.output) / 1e6


def mean_tokens(calls: list[CallTokens]) -> dict[str, float]:
    if not calls:
        return {"calls": 0, "static": 0.0, "dynamic": 0.0, "output": 0.0}
    return {
        "calls": len(calls),
        "static": statistics.fmean(c.static for c in calls),
        "dynamic": statistics.fmean(c.dynamic for c in calls),
        "output": statistics.fmean(c.output for c in calls),
    }


def cost_table(calls: list[CallTokens]) -> dict[str, dict[str, float]]:
    """Mean USD per call, per model and cache state."""
    return {
        model.name: {
            cache: statistics.fmean(call_cost(c, model, cache) for c in calls) if calls else 0.0
            for cache in CACHE_STATES
        }
        for model in MODELS
    }
