"""Chooses the classifier from configuration. Model SDKs load only when a call happens."""

from __future__ import annotations

import json
from functools import lru_cache

from aurra_core.classifiers.base import Classifier
from aurra_core.runtime.config import ServiceConfig, get_config
from aurra_core.runtime.deadline import model_call_limit


def anthropic_api_key(config: ServiceConfig) -> str | None:
    """ANTHROPIC_API_KEY locally; in AWS the secret, fetched once per container (and cached)."""
    if not config.anthropic_secret_arn:
        return None  # the SDK reads ANTHROPIC_API_KEY itself
    from aws_lambda_powertools.utilities.parameters import get_secret

    value = get_secret(config.anthropic_secret_arn, max_age=3600)
    try:
        key = json.loads(value)["api_key"]
        return key if isinstance(key, str) else None
    except (ValueError, KeyError, TypeError):
        return str(value).strip()


def classification_limit_s(config: ServiceConfig) -> float:
    """The most one classification may take, whatever the classifier does (the write pipeline
    abandons it there, runtime/deadline.py): the rules classifier's timeout itself; a model's
    two attempts of that timeout and the SDK's backoff."""
    if config.classifier == "rules":
        return config.classifier_timeout_s
    return model_call_limit(config.classifier_timeout_s)


def create_classifier(config: ServiceConfig) -> Classifier:
    if config.classifier == "anthropic":
        from aurra_core.classifiers.claude import ClaudeClassifier, anthropic_client, call_deadline

        return ClaudeClassifier(
            lambda: anthropic_client(anthropic_api_key(config), config.classifier_timeout_s),
            deadline_s=call_deadline(config.classifier_timeout_s),
        )
    if config.classifier == "bedrock":
        from aurra_core.classifiers.claude import (
            ClaudeClassifier,
            bedrock_client,
            bedrock_model_id,
            call_deadline,
        )

        return ClaudeClassifier(
            lambda: bedrock_client(config.classifier_timeout_s),
            lambda model: bedrock_model_id(model, config.aws_region),
            "bedrock",
            deadline_s=call_deadline(config.classifier_timeout_s),
        )
    if config.classifier == "openai":
        from aurra_core.classifiers.claude import call_deadline
        from aurra_core.classifiers.openai_chat import OpenAIClassifier
        from aurra_core.classifiers.openai_endpoint import openai_client, openai_model

        return OpenAIClassifier(
            lambda: openai_client(config, config.classifier_timeout_s),
            openai_model(config),
            deadline_s=call_deadline(config.classifier_timeout_s),
        )
    if config.classifier_processes:
        from aurra_core.classifiers.rules_processes import ProcessRulesClassifier
        from aurra_core.runtime.worker_processes import worker_processes

        return ProcessRulesClassifier(
            worker_processes(config.classifier_processes), limit_s=classification_limit_s(config)
        )
    from aurra_core.classifiers.rules import RulesClassifier

    return RulesClassifier(limit_s=classification_limit_s(config))


@lru_cache(maxsize=1)
def get_classifier() -> Classifier:
    return create_classifier(get_config())
