"""Domain errors. Handlers map them to the API error envelope in one place (aurra_core.api.handlers)."""

from __future__ import annotations

from typing import Any


class AurraError(Exception):
    status_code = 500
    code = "internal"

    def __init__(self, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []


class BadRequest(AurraError):
    status_code = 400
    code = "bad_request"


class Unauthorized(AurraError):
    status_code = 401
    code = "unauthorized"


class NotFound(AurraError):
    status_code = 404
    code = "not_found"


class Conflict(AurraError):
    status_code = 409
    code = "conflict"


class Gone(AurraError):
    """The memory was erased: only a content-free tombstone is left."""

    status_code = 410
    code = "gone"


class PayloadTooLarge(AurraError):
    status_code = 413
    code = "payload_too_large"


class ValidationFailed(AurraError):
    status_code = 422
    code = "validation_error"


class SensitiveContent(AurraError):
    """A write carries credentials and the key's `secrets` setting refuses it: nothing stored,
    nothing sent to a model. The details name where (never what)."""

    status_code = 422
    code = "sensitive_content"


class ServiceUnavailable(AurraError):
    status_code = 503
    code = "unavailable"


class RateLimited(AurraError):
    status_code = 429
    code = "rate_limited"


class BudgetExhausted(RateLimited):
    """The key's daily_model_calls_limit is used up for the current UTC day."""


class ExtractionUnavailable(ServiceUnavailable):
    """Fact extraction failed: nothing was written, and a retry (with the same
    Idempotency-Key) is safe."""


class ClassifierError(Exception):
    """The classifier failed, timed out or answered nonsense. Never surfaces to the caller as an error."""


class ExtractionError(Exception):
    """An extractor failed, timed out or answered nonsense. The messages write stores nothing
    and answers 503, so that a retry can extract again."""
