"""When to retry a request, and how long to wait first."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

# 429 and the 5xx answers that mean "try again": a gateway or the service was briefly unavailable.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date), or None."""
    value = headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int
    initial_delay: float = 0.5
    max_delay: float = 8.0
    # A server may ask for a long pause; waiting longer than this blocks the caller for too long.
    max_retry_after: float = 60.0
    # Source of jitter in [0, 1); replaceable for deterministic tests.
    rand: Callable[[], float] = field(default=random.random, compare=False)

    def can_retry(self, attempt: int) -> bool:
        """`attempt` counts from 0: attempt 0 is the first try, so up to max_retries more follow."""
        return attempt < self.max_retries

    def should_retry_response(self, response: httpx.Response, attempt: int) -> bool:
        return response.status_code in RETRY_STATUSES and self.can_retry(attempt)

    def should_retry_error(self, error: httpx.HTTPError, attempt: int) -> bool:
        # Timeouts and network/protocol failures are transient; a bad URL or a local protocol bug is not.
        transient = isinstance(error, (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError))
        return transient and self.can_retry(attempt)

    def delay(self, attempt: int, response: httpx.Response | None = None) -> float:
        """Seconds to sleep before the retry that follows `attempt`."""
        if response is not None:
            retry_after = parse_retry_after(response.headers)
            if retry_after is not None:
                return min(retry_after, self.max_retry_after)
        # Exponential backoff with jitter, so many clients failing together do not retry in lockstep.
        backoff = min(self.max_delay, self.initial_delay * (2.0**attempt))
        return backoff * (0.5 + 0.5 * self.rand())
