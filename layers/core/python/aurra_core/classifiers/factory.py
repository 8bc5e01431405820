"""Chooses the classifier from configuration. Model SDKs load only when chosen."""

from __future__ import annotations

from functools import lru_cache

from aurra_core.classifiers.base import Classifier
from aurra_core.config import Settings, get_settings


def create_classifier(settings: Settings) -> Classifier:
    if settings.classifier == "rules":
        from aurra_core.classifiers.rules import RulesClassifier

        return RulesClassifier()
    raise NotImplementedError(f"the {settings.classifier!r} classifier is not available in this build")


@lru_cache(maxsize=1)
def get_classifier() -> Classifier:
    return create_classifier(get_settings())
