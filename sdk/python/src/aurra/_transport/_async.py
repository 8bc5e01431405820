"""Sends `APICall`s with an asyncio httpx client."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx

from aurra._config import ClientConfig
from aurra._request import APICall
from aurra._transport._base import BaseTransport

T = TypeVar("T")


class AsyncTransport(BaseTransport[httpx.AsyncClient]):
    def __init__(self, config: ClientConfig, http_client: httpx.AsyncClient | None) -> None:
        super().__init__(config, http_client)
        # An attribute rather than a direct call to asyncio.sleep, so tests can make retries instant.
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def _default_http_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=self.config.timeout)

    async def send(self, call: APICall[T]) -> T:
        # One request object for every attempt: same body, same Idempotency-Key.
        request = self.build_request(call)
        attempt = 0
        while True:
            try:
                response = await self.http.send(request)
            except httpx.TransportError as exc:
                delay = self.retry_delay_after_error(exc, request, attempt)
            else:
                retry_in = self.retry_delay_after_response(response, attempt)
                if retry_in is None:
                    return self.handle_response(response, call)
                await response.aclose()
                delay = retry_in
            await self.sleep(delay)
            attempt += 1

    async def close(self) -> None:
        if self._owns_http:
            await self.http.aclose()
