"""Chooses the extractor from configuration (AURRA_EXTRACTOR, by default the classifier's
provider). Model SDKs load only when a call happens."""

from __future__ import annotations

from functools import lru_cache

from aurra_core.extractors.base import Extractor
from aurra_core.runtime.config import ServiceConfig, get_config
from aurra_core.runtime.deadline import model_call_limit


def extraction_limit_s(config: ServiceConfig) -> float:
    """The most one extraction may take, whatever the extractor does (the write pipeline abandons
    it there, runtime/deadline.py): the rules extractor's timeout itself; a model's two attempts
    of that timeout and the SDK's backoff."""
    if config.resolved_extractor == "rules":
        return config.extractor_timeout_s
    return model_call_limit(config.extractor_timeout_s)


def create_extractor(config: ServiceConfig) -> Extractor:
    provider = config.resolved_extractor
    if provider in ("anthropic", "bedrock"):
        from aurra_core.classifiers.claude import (
            anthropic_client,
            bedrock_client,
            bedrock_model_id,
            call_deadline,
        )
        from aurra_core.classifiers.factory import anthropic_api_key
        from aurra_core.extractors.claude import ClaudeExtractor

        timeout = config.extractor_timeout_s
        if provider == "anthropic":
            return ClaudeExtractor(
                lambda: anthropic_client(anthropic_api_key(config), timeout),
                deadline_s=call_deadline(timeout),
            )
        return ClaudeExtractor(
            lambda: bedrock_client(timeout),
            lambda model: bedrock_model_id(model, config.aws_region),
            "bedrock",
            deadline_s=call_deadline(timeout),
        )
    if provider == "openai":
        from aurra_core.classifiers.claude import call_deadline
        from aurra_core.classifiers.openai_endpoint import openai_client, openai_model
        from aurra_core.extractors.openai_chat import OpenAIExtractor

        timeout = config.extractor_timeout_s
        return OpenAIExtractor(
            lambda: openai_client(config, timeout),
            openai_model(config),
            deadline_s=call_deadline(timeout),
        )
    from aurra_core.extractors.rules import RulesExtractor

    return RulesExtractor(limit_s=extraction_limit_s(config))


@lru_cache(maxsize=1)
def get_extractor() -> Extractor:
    return create_extractor(get_config())
