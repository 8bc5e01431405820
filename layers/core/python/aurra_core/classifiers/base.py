"""The classifier port and the strict validation of whatever a classifier answers."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol
from uuid import UUID

from aurra_core.errors import ClassifierError
from aurra_core.models import Verdict


@dataclass(frozen=True)
class Candidate:
    id: UUID
    content: str
    topic: str
    similarity: float


@dataclass(frozen=True)
class ClassifierVerdict:
    candidate_id: UUID
    verdict: Verdict
    confidence: float
    reason: str


@dataclass(frozen=True)
class Classification:
    verdicts: list[ClassifierVerdict]
    model: str
    details: dict[str, Any] = field(default_factory=dict)
    # Tokens as the provider reported them; None when it did not say. Cache reads and
    # writes are input tokens the provider counts (and bills) apart from input_tokens.
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class Classifier(Protocol):
    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        """One verdict per candidate. Raises ClassifierError when it cannot answer."""
        ...


def validate_verdicts(raw: Any, candidates: list[Candidate]) -> list[ClassifierVerdict]:
    """Keep only well-formed verdicts about real candidates, at most one per candidate.

    A verdict naming an id that was not a candidate, an unknown label, a confidence outside
    [0, 1] or a second verdict for the same id is discarded. Nothing valid at all is an error.
    """
    if not isinstance(raw, list):
        raise ClassifierError("verdicts must be a list")
    allowed = {str(c.id): c.id for c in candidates}
    seen: dict[UUID, ClassifierVerdict | None] = {}
    for item in raw:
        if not isinstance(item, dict):
            continue
        candidate_id = allowed.get(str(item.get("candidate_id", "")).strip().lower())
        try:
            verdict = Verdict(str(item.get("classifier")))
            confidence = float(item.get("confidence"))  # type: ignore[arg-type]  # TypeError is caught
        except (ValueError, TypeError):
            continue
        reason = item.get("reason")
        if candidate_id is None or not isinstance(reason, str) or not math.isfinite(confidence):
            continue
        if not 0.0 <= confidence <= 1.0:
            continue
        if candidate_id in seen:
            seen[candidate_id] = None  # two answers for one memory: trust neither
            continue
        seen[candidate_id] = ClassifierVerdict(candidate_id, verdict, confidence, reason.strip()[:500])
    valid = [v for v in seen.values() if v is not None]
    if not valid:
        raise ClassifierError("the classifier returned no valid verdict")
    return valid


def provider_failure(exc: BaseException) -> str:
    """What a failed model call's error may say: its type and HTTP status, never the provider's
    message (it is logged, and a provider may quote the request back)."""
    status = getattr(exc, "status_code", None)
    return type(exc).__name__ + (f" (HTTP {status})" if isinstance(status, int) else "")
