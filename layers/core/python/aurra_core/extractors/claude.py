"""Claude as the extractor, through the Anthropic API or Amazon Bedrock.

One call per messages write with the tool `record_facts` forced, a short timeout, at most one
retry and a deadline over both, as the classifier has. Every failure becomes ExtractionError.
The anthropic SDK is imported lazily: handlers that never extract never pay for it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from aurra_core.classifiers.base import provider_failure
from aurra_core.classifiers.claude import within_deadline
from aurra_core.errors import ExtractionError
from aurra_core.extractors.base import Extraction, validate_facts
from aurra_core.extractors.prompt import PROMPT_VERSION, SYSTEM_PROMPT, TOOL, TOOL_NAME, user_message
from aurra_core.metering import reported_count
from aurra_core.models import Message

# Fifty facts of a sentence each fit with room to spare.
MAX_OUTPUT_TOKENS = 4096


class ClaudeExtractor:
    """`client_factory` returns an anthropic client (Anthropic or AnthropicBedrock)."""

    def __init__(
        self,
        client_factory: Callable[[], Any],
        model_id: Callable[[str], str] = lambda m: m,
        name: str = "anthropic",
        deadline_s: float | None = None,
    ) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self._model_id = model_id
        self.name = name
        self._deadline_s = deadline_s

    def _messages(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client.messages

    def extract(
        self, messages: list[Message], model: str, relations: Collection[tuple[str, str]] = ()
    ) -> Extraction:
        """`relations` is not sent: the model reads whom a "she" or "he" is from the
        conversation alone, and its prompt (and its cost) stay as they are."""
        import anthropic

        try:
            api = self._messages()

            def create() -> Any:
                return api.create(
                    model=self._model_id(model),
                    max_tokens=MAX_OUTPUT_TOKENS,
                    system=SYSTEM_PROMPT,
                    tools=[TOOL],
                    tool_choice={"type": "tool", "name": TOOL_NAME},
                    messages=[{"role": "user", "content": user_message(messages)}],
                )

            response = (
                create()
                if self._deadline_s is None
                else within_deadline(self._deadline_s, create, ExtractionError)
            )
        except anthropic.AnthropicError as exc:
            raise ExtractionError(provider_failure(exc)) from exc
        content = getattr(response, "content", None)
        if not isinstance(content, list):
            raise ExtractionError("the endpoint did not answer with a Messages response")
        tool_inputs = [
            b.input
            for b in content
            if getattr(b, "type", None) == "tool_use" and getattr(b, "name", None) == TOOL_NAME
        ]
        if len(tool_inputs) != 1 or not isinstance(tool_inputs[0], dict):
            raise ExtractionError(f"the model did not answer with exactly one {TOOL_NAME} call")
        facts = validate_facts(tool_inputs[0].get("facts"), messages)
        usage = getattr(response, "usage", None)
        return Extraction(
            facts=facts,
            extractor=self.name,
            model=model,
            prompt_version=PROMPT_VERSION,
            input_tokens=reported_count(getattr(usage, "input_tokens", None)),
            output_tokens=reported_count(getattr(usage, "output_tokens", None)),
        )
