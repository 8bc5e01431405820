"""Classifiers: one protocol (base), several real implementations, one factory."""

from aurra_core.classifiers.base import Candidate, Classification, Classifier, ClassifierVerdict
from aurra_core.classifiers.factory import get_classifier

__all__ = ["Candidate", "Classification", "Classifier", "ClassifierVerdict", "get_classifier"]
