"""Sends `APICall`s with a blocking httpx client."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import httpx

from aurra._config import ClientConfig
from aurra._request import APICall
from aurra._transport._base import BaseTransport

T = TypeVar("T")


class SyncTransport(BaseTransport[httpx.Client]):
    def __init__(self, config: ClientConfig, http_client: httpx.Client | None) -> None:
        super().__init__(config, http_client)
        # An attribute rather than a direct call to time.sleep, so tests can make retries instant.
        self.sleep: Callable[[float], None] = time.sleep

    def _default_http_client(self) -> httpx.Client:
        return httpx.Client(timeout=self.config.timeout)

    def send(self, call: APICall[T]) -> T:
        # One request object for every attempt: same body, same Idempotency-Key.
        request = self.build_request(call)
        attempt = 0
        while True:
            try:
                response = self.http.send(request)
            except httpx.TransportError as exc:
                delay = self.retry_delay_after_error(exc, request, attempt)
            else:
                retry_in = self.retry_delay_after_response(response, attempt)
                if retry_in is None:
                    return self.handle_response(response, call)
                response.close()
                delay = retry_in
            self.sleep(delay)
            attempt += 1

    def close(self) -> None:
        if self._owns_http:
            self.http.close()
