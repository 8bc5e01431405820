"""Every error the SDK raises, under one base class `AurraError`.

Three families:
- client-side mistakes found before anything is sent (`ConfigurationError`,
  `InvalidArgumentError`);
- the server answered with a non-2xx status (`APIStatusError` and one subclass
  per status the API documents);
- no usable answer at all (`APIConnectionError`, `APITimeoutError`,
  `UnexpectedResponseError`).
"""

from __future__ import annotations

from typing import Any

import httpx

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AurraError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "GoneError",
    "InvalidArgumentError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "UnexpectedResponseError",
    "ValidationError",
]


class AurraError(Exception):
    """Base class of every error raised by the Aurra SDK."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(AurraError):
    """The client cannot be built as asked: no API key, or an unusable base URL."""


class InvalidArgumentError(AurraError, ValueError):
    """A call's arguments are wrong before any request is sent (e.g. a naive datetime).

    Also a `ValueError`, so code that already guards with `except ValueError` keeps working.
    """


class APIStatusError(AurraError):
    """The API answered with a non-2xx status.

    `message` is the server's `error.message`, unchanged, and is also `str(error)`.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: str | None = None,
        details: Any = None,
        request_id: str | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code
        # The API sends a list of {field, problem} for 422s; other errors may send anything or nothing.
        self.details = details if details is not None else []
        self.request_id = request_id
        self.response = response

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status_code={self.status_code!r}, code={self.code!r}, "
            f"message={self.message!r}, request_id={self.request_id!r})"
        )


class BadRequestError(APIStatusError):
    """400: the request body was not JSON."""


class AuthenticationError(APIStatusError):
    """401: the API key is missing or wrong."""


class PermissionDeniedError(APIStatusError):
    """403: the gateway in front of the API refused the request."""


class NotFoundError(APIStatusError):
    """404: no such memory or audit event for this key's tenant."""


class ConflictError(APIStatusError):
    """409: e.g. the memory is already superseded, or an idempotency key was reused with another body."""


class GoneError(APIStatusError):
    """410: the memory was erased. `erasure_id` names the erasure (its receipt: `erasures.get`)."""

    @property
    def erasure_id(self) -> str | None:
        for detail in self.details if isinstance(self.details, list) else []:
            if isinstance(detail, dict) and isinstance(detail.get("erasure_id"), str):
                return str(detail["erasure_id"])
        return None


class PayloadTooLargeError(APIStatusError):
    """413: the request body is larger than the API accepts."""


class ValidationError(APIStatusError):
    """422: the server rejected a field; `details` lists which and why."""


class RateLimitError(APIStatusError):
    """429: too many requests. `retry_after` is the server's hint in seconds, if it sent one."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(APIStatusError):
    """5xx: the service failed. Retried automatically before it reaches you."""


class APIConnectionError(AurraError):
    """The request never got an HTTP answer (DNS, refused connection, broken stream...)."""


class APITimeoutError(APIConnectionError):
    """The request timed out (connect, read, write or pool)."""


class UnexpectedResponseError(AurraError):
    """A 2xx answer whose body is not what the API contract promises."""

    def __init__(self, message: str, *, status_code: int, response: httpx.Response | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.response = response
