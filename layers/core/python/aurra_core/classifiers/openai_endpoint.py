"""The OpenAI-compatible endpoint (BYO-LLM) that the `openai` classifier and extractor call:
OpenAI, Azure OpenAI, vLLM, Ollama, LiteLLM or anything that speaks Chat Completions with
tool calling. Base URL, model and key come from configuration; in AWS the key is a Secrets
Manager secret. The openai SDK is imported only when a client is made."""

from __future__ import annotations

import json
from typing import Any

from aurra_core.metering import reported_count
from aurra_core.runtime.config import ServiceConfig

# Chat Completions with the tool forced: what every function-calling endpoint accepts.
DEFAULT_MODEL = "gpt-4o-mini"


def openai_model(config: ServiceConfig) -> str:
    return config.openai_model or DEFAULT_MODEL


def openai_api_key(config: ServiceConfig) -> str | None:
    """AURRA_OPENAI_API_KEY locally; in AWS the secret, fetched once per container (and cached).
    None lets the SDK read OPENAI_API_KEY itself."""
    if config.openai_secret_arn:
        from aws_lambda_powertools.utilities.parameters import get_secret

        value = get_secret(config.openai_secret_arn, max_age=3600)
        try:
            return str(json.loads(value)["api_key"])
        except (ValueError, KeyError, TypeError):
            return str(value).strip()
    return config.openai_api_key


def openai_client(config: ServiceConfig, timeout_s: float) -> Any:
    import openai

    # A local endpoint (Ollama, vLLM) often needs no key, but the SDK insists on one.
    return openai.OpenAI(
        api_key=openai_api_key(config) or "unused",
        base_url=config.openai_base_url,  # None: the SDK's OPENAI_BASE_URL, else OpenAI's API
        timeout=timeout_s,
        max_retries=1,
    )


def function_tool(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool in the Chat Completions form."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def forced_tool_arguments(
    response: Any, tool_name: str, error: type[Exception]
) -> tuple[dict[str, Any], str]:
    """The arguments of the one call to `tool_name` in a Chat Completions response, and the
    model id the endpoint reports; anything else raises `error`."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise error("the endpoint did not answer with a Chat Completions response")
    message = getattr(choices[0], "message", None)
    calls = [
        call
        for call in (getattr(message, "tool_calls", None) or [])
        if getattr(getattr(call, "function", None), "name", None) == tool_name
    ]
    if len(calls) != 1:
        raise error(f"the model did not answer with exactly one {tool_name} call")
    try:
        arguments = json.loads(calls[0].function.arguments or "")
    except (TypeError, ValueError) as exc:
        raise error(f"the {tool_name} arguments are not JSON") from exc
    if not isinstance(arguments, dict):
        raise error(f"the {tool_name} arguments are not an object")
    model = getattr(response, "model", None)
    return arguments, model if isinstance(model, str) and model else ""


def token_counts(response: Any) -> tuple[int | None, int | None]:
    """(input, output) tokens as the endpoint reported them; None for a count it did not give."""
    usage = getattr(response, "usage", None)
    return (
        reported_count(getattr(usage, "prompt_tokens", None)),
        reported_count(getattr(usage, "completion_tokens", None)),
    )
