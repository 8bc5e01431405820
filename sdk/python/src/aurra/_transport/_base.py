"""What the sync and async transports share: building requests, reading answers, deciding retries.

The two transports differ only in `send` (which awaits or not); everything a
request or an answer means is decided here, once.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Generic, TypeVar

import httpx
import pydantic

from aurra._config import ClientConfig
from aurra._request import APICall
from aurra._transport._errors import error_from_response, error_from_transport
from aurra._transport._retry import RetryPolicy
from aurra._version import __version__
from aurra.errors import UnexpectedResponseError

T = TypeVar("T")
HttpClientT = TypeVar("HttpClientT", httpx.Client, httpx.AsyncClient)

logger = logging.getLogger("aurra")

USER_AGENT = f"aurra-python/{__version__}"


class BaseTransport(Generic[HttpClientT]):
    def __init__(self, config: ClientConfig, http_client: HttpClientT | None) -> None:
        self.config = config
        self.retry = RetryPolicy(max_retries=config.max_retries)
        # A client passed in belongs to the caller: we use it but never close it.
        self._owns_http = http_client is None
        self.http: HttpClientT = http_client if http_client is not None else self._default_http_client()

    def _default_http_client(self) -> HttpClientT:
        raise NotImplementedError

    def build_request(self, call: APICall[Any]) -> httpx.Request:
        headers = {
            "Authorization": f"Bearer {self.config.api_key}",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
        }
        if call.idempotency_key is not None:
            headers["Idempotency-Key"] = call.idempotency_key
        return self.http.build_request(
            call.method,
            self.config.base_url + call.path,
            params=dict(call.params) if call.params else None,
            json=dict(call.body) if call.body is not None else None,
            headers=headers,
            timeout=self.config.timeout,
        )

    def retry_delay_after_error(
        self, error: httpx.TransportError, request: httpx.Request, attempt: int
    ) -> float:
        """Seconds to wait before retrying after a transport failure; raises the typed error when out of retries."""
        if not self.retry.should_retry_error(error, attempt):
            raise error_from_transport(error, request) from error
        delay = self.retry.delay(attempt)
        logger.info(
            "Retrying %s %s in %.2fs after %s", request.method, request.url, delay, type(error).__name__
        )
        return delay

    def retry_delay_after_response(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying this answer, or None when it is final."""
        if not self.retry.should_retry_response(response, attempt):
            return None
        delay = self.retry.delay(attempt, response)
        logger.info(
            "Retrying %s %s in %.2fs after HTTP %d",
            response.request.method,
            response.request.url,
            delay,
            response.status_code,
        )
        return delay

    def handle_response(self, response: httpx.Response, call: APICall[T]) -> T:
        if not response.is_success:
            raise error_from_response(response)
        data: Any
        try:
            if call.ndjson:
                data = [json.loads(line) for line in response.text.splitlines() if line.strip()]
            else:
                data = response.json() if response.content else None
        except ValueError as exc:
            raise UnexpectedResponseError(
                f"Aurra answered HTTP {response.status_code} with a body that is not JSON",
                status_code=response.status_code,
                response=response,
            ) from exc
        try:
            if call.parse_with_status is not None:
                return call.parse_with_status(response.status_code, data)
            return call.parse(data)
        except (pydantic.ValidationError, ValueError) as exc:
            raise UnexpectedResponseError(
                f"Aurra's answer to {call.method} {call.path} does not match the API contract: {exc}",
                status_code=response.status_code,
                response=response,
            ) from exc
