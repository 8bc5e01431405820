"""Any OpenAI-compatible Chat Completions endpoint as the classifier (BYO-LLM).

The same system prompt and the same `record_verdicts` contract as Claude, as a function tool
forced with tool_choice; one call per write, a short timeout, at most one retry and a deadline
over both. Every failure becomes ClassifierError, so the write goes on and reports
`classifier_error`. The audit trail records the model id the endpoint says answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aurra_core.classifiers.base import Candidate, Classification, provider_failure
from aurra_core.classifiers.claude import max_output_tokens, within_deadline
from aurra_core.classifiers.openai_endpoint import forced_tool_arguments, function_tool, token_counts
from aurra_core.classifiers.prompt import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    TOOL,
    TOOL_NAME,
    user_message,
    verdicts_from_answer,
)
from aurra_core.errors import ClassifierError

CHAT_TOOL = function_tool(TOOL_NAME, TOOL["description"], TOOL["input_schema"])


class OpenAIClassifier:
    """`client_factory` returns an `openai.OpenAI` client; `model` is the endpoint's model id
    (a key's `classifier_model` names a Claude model and does not apply here)."""

    provider = "openai"

    def __init__(
        self, client_factory: Callable[[], Any], model: str, deadline_s: float | None = None
    ) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self._model = model
        self._deadline_s = deadline_s

    def warm_up(self) -> None:
        """Load the SDK and build the client now, outside any call's time limit."""
        import openai  # noqa: F401

        if self._client is None:
            self._client = self._client_factory()

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        import openai

        try:
            if self._client is None:
                self._client = self._client_factory()
            completions = self._client.chat.completions

            def create() -> Any:
                return completions.create(
                    model=self._model,
                    max_tokens=max_output_tokens(len(candidates)),
                    messages=[
                        {"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": user_message(new_content, new_topic, candidates)},
                    ],
                    tools=[CHAT_TOOL],
                    tool_choice={"type": "function", "function": {"name": TOOL_NAME}},
                    temperature=0,
                )

            response = create() if self._deadline_s is None else within_deadline(self._deadline_s, create)
        except (openai.OpenAIError, ValueError) as exc:  # ValueError: a body that is not JSON
            raise ClassifierError(provider_failure(exc)) from exc
        arguments, answered_by = forced_tool_arguments(response, TOOL_NAME, ClassifierError)
        raw = arguments.get("verdicts")
        verdicts = verdicts_from_answer(raw, candidates)
        input_tokens, output_tokens = token_counts(response)
        return Classification(
            verdicts=verdicts,
            model=answered_by or self._model,
            details={
                "prompt_version": PROMPT_VERSION,
                "provider": self.provider,
                "verdicts_returned": len(raw) if isinstance(raw, list) else 0,
                "verdicts_kept": len(verdicts),
            },
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )
