"""Extractors: turn a conversation into atomic facts. One protocol (base), several real
implementations (model-backed and offline rules), one factory; as the classifiers are."""

from aurra_core.extractors.base import ExtractedFact, Extraction, Extractor
from aurra_core.extractors.factory import get_extractor

__all__ = ["ExtractedFact", "Extraction", "Extractor", "get_extractor"]
