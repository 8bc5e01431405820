"""A resource holds the transport its calls go through."""

from __future__ import annotations

from aurra._transport import AsyncTransport, SyncTransport


class SyncResource:
    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport


class AsyncResource:
    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport
