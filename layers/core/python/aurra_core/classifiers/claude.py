"""Claude as the classifier, through the Anthropic API or Amazon Bedrock.

One call per write for all candidates, with the tool `record_verdicts` forced, a short
timeout and at most one retry. Every failure becomes ClassifierError: the write goes on.
The anthropic SDK is imported here, lazily: handlers that never classify never pay for it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from aurra_core.classifiers.base import Candidate, Classification, provider_failure
from aurra_core.classifiers.bedrock_profiles import inference_profile_id
from aurra_core.classifiers.prompt import (
    ANSWER_ITEM_MAX_CHARS,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    TOOL,
    TOOL_NAME,
    user_message,
    verdicts_from_answer,
)
from aurra_core.errors import ClassifierError
from aurra_core.metering import reported_count
from aurra_core.runtime import deadline

# The answer is one record_verdicts call: `{"verdicts": [...]}` with one string per candidate
# in the grammar of prompt.ANSWER_LINE. The limit leaves room for the longest string the
# grammar allows at two characters a token (JSON punctuation and numbers tokenize densely;
# prose runs 3.5-4.5), so it cuts no answer inside the format and bounds a runaway one (a cut
# answer misses positions and is refused whole). Output is billed as generated, not as limited.
OUTPUT_TOKENS_BASE = 20
OUTPUT_TOKENS_PER_CANDIDATE = math.ceil(ANSWER_ITEM_MAX_CHARS / 2)


def max_output_tokens(candidate_count: int) -> int:
    return OUTPUT_TOKENS_BASE + OUTPUT_TOKENS_PER_CANDIDATE * max(candidate_count, 1)


# The system prompt and the tool definition are the same bytes in every call: one cache
# breakpoint on the system block caches both (the cached prefix is tools, then system). A
# model caches a prefix only from its own minimum length on (1,024 tokens for Sonnet 4.5,
# Sonnet 4 and Opus 4.1; 4,096 for Haiku 4.5 and Opus 4.5); the prompt is written to be above
# the longest of them (tests/unit/test_supersession_prompt.py holds it there), so every call
# after the first in five minutes reads the prefix at a tenth of the input price.
SYSTEM = [{"type": "text", "text": SYSTEM_PROMPT, "cache_control": {"type": "ephemeral"}}]

# A stage outside AWS (or without AWS_REGION) calls Bedrock as from us-east-1, boto3's default.
DEFAULT_BEDROCK_REGION = "us-east-1"


def bedrock_model_id(model: str, region: str | None = None) -> str:
    """What to invoke the key's model with on Bedrock from `region`: the inference profile of
    the region's geography, else the model's global one (bedrock_profiles.py). A model no
    profile serves there is a ClassifierError, counted and alarmed like any failed call."""
    found = inference_profile_id(model, region or DEFAULT_BEDROCK_REGION)
    if found is None:
        raise ClassifierError(
            f"no Bedrock inference profile serves {model} from {region or DEFAULT_BEDROCK_REGION}"
        )
    return found


# The wall-clock limit of one model call (two attempts and the SDK's backoff).
call_deadline = deadline.model_call_limit


def within_deadline(
    deadline_s: float, call: Callable[[], Any], error: type[Exception] = ClassifierError
) -> Any:
    """`call()`, waited for at most `deadline_s` (or until the request's own deadline, if that
    comes first); past it the caller goes on without it (the daemon thread ends by itself;
    nothing it returns is used) and `error` is raised (runtime/deadline.py)."""
    return deadline.call_within(deadline_s, call, error, "the model")


class ClaudeClassifier:
    """`client_factory` returns an anthropic client (Anthropic or AnthropicBedrock)."""

    def __init__(
        self,
        client_factory: Callable[[], Any],
        model_id: Callable[[str], str] = lambda m: m,
        provider: str = "anthropic",
        deadline_s: float | None = None,
    ) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self._model_id = model_id
        self.provider = provider
        self._deadline_s = deadline_s

    def _messages(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client.messages

    def warm_up(self) -> None:
        """Load the SDK and build the client now, so that no call's time limit pays for them
        (seconds on a loaded host: a fresh worker's first decisions would all time out)."""
        import anthropic  # noqa: F401

        self._messages()

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        import anthropic

        try:
            messages = self._messages()

            def create() -> Any:
                return messages.create(
                    model=self._model_id(model),
                    max_tokens=max_output_tokens(len(candidates)),
                    system=SYSTEM,
                    tools=[TOOL],
                    tool_choice={"type": "tool", "name": TOOL_NAME},
                    messages=[{"role": "user", "content": user_message(new_content, new_topic, candidates)}],
                )

            response = create() if self._deadline_s is None else within_deadline(self._deadline_s, create)
        except anthropic.AnthropicError as exc:
            raise ClassifierError(provider_failure(exc)) from exc
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise ClassifierError("the endpoint did not answer with a Messages response")
        tool_inputs = [
            b.input
            for b in content
            if getattr(b, "type", None) == "tool_use" and getattr(b, "name", None) == TOOL_NAME
        ]
        if len(tool_inputs) != 1 or not isinstance(tool_inputs[0], dict):
            raise ClassifierError("the model did not answer with exactly one record_verdicts call")
        verdicts = verdicts_from_answer(tool_inputs[0].get("verdicts"), candidates)
        usage = getattr(response, "usage", None)
        return Classification(
            verdicts=verdicts,
            model=model,
            details={
                "prompt_version": PROMPT_VERSION,
                "provider": self.provider,
                "verdicts_returned": len(tool_inputs[0].get("verdicts") or []),
                "verdicts_kept": len(verdicts),
            },
            input_tokens=reported_count(getattr(usage, "input_tokens", None)),
            output_tokens=reported_count(getattr(usage, "output_tokens", None)),
            cache_read_input_tokens=reported_count(getattr(usage, "cache_read_input_tokens", None)),
            cache_creation_input_tokens=reported_count(getattr(usage, "cache_creation_input_tokens", None)),
        )


def anthropic_client(api_key: str | None, timeout_s: float) -> Any:
    import anthropic

    # base_url stays unset so the SDK's own ANTHROPIC_BASE_URL applies (gateways, tests).
    return anthropic.Anthropic(api_key=api_key, timeout=timeout_s, max_retries=1)


def bedrock_client(timeout_s: float, region: str | None = None) -> Any:
    import anthropic

    return anthropic.AnthropicBedrock(aws_region=region, timeout=timeout_s, max_retries=1)
