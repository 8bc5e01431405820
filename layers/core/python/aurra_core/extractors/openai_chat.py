"""Any OpenAI-compatible Chat Completions endpoint as the extractor (BYO-LLM): the extraction
prompt and the `record_facts` contract as a forced function tool, one call per messages write,
timeout, one retry and a deadline. Every failure becomes ExtractionError."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from aurra_core.classifiers.base import provider_failure
from aurra_core.classifiers.claude import within_deadline
from aurra_core.classifiers.openai_endpoint import forced_tool_arguments, function_tool, token_counts
from aurra_core.errors import ExtractionError
from aurra_core.extractors.base import Extraction, validate_facts
from aurra_core.extractors.claude import MAX_OUTPUT_TOKENS
from aurra_core.extractors.prompt import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    TOOL_PARAMETERS,
    user_message,
)
from aurra_core.models import Message

CHAT_TOOL = function_tool(TOOL_NAME, TOOL_DESCRIPTION, TOOL_PARAMETERS)


class OpenAIExtractor:
    name = "openai"

    def __init__(
        self, client_factory: Callable[[], Any], model: str, deadline_s: float | None = None
    ) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self._model = model
        self._deadline_s = deadline_s

    def extract(
        self, messages: list[Message], model: str, relations: Collection[tuple[str, str]] = ()
    ) -> Extraction:
        """`relations` is not sent: the model reads whom a "she" or "he" is from the
        conversation alone, and its prompt (and its cost) stay as they are."""
        import openai

        try:
            if self._client is None:
                self._client = self._client_factory()
            completions = self._client.chat.completions

            def create() -> Any:
                return completions.create(
                    model=self._model,
                    max_tokens=MAX_OUTPUT_TOKENS,
                    messages=[
                        {"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": user_message(messages)},
                    ],
                    tools=[CHAT_TOOL],
                    tool_choice={"type": "function", "function": {"name": TOOL_NAME}},
                    temperature=0,
                )

            response = (
                create()
                if self._deadline_s is None
                else within_deadline(self._deadline_s, create, ExtractionError)
            )
        except (openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise ExtractionError(provider_failure(exc)) from exc
        arguments, answered_by = forced_tool_arguments(response, TOOL_NAME, ExtractionError)
        input_tokens, output_tokens = token_counts(response)
        return Extraction(
            facts=validate_facts(arguments.get("facts"), messages),
            extractor=self.name,
            model=answered_by or self._model,
            prompt_version=PROMPT_VERSION,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )
