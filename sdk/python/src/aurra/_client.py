"""The entry points: `Aurra` (blocking) and `AsyncAurra` (asyncio)."""

from __future__ import annotations

from types import TracebackType

import httpx

from aurra._config import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ClientConfig
from aurra._transport import AsyncTransport, SyncTransport
from aurra.resources import (
    AsyncAudit,
    AsyncEvents,
    AsyncMemories,
    AsyncSettings,
    Audit,
    Events,
    Memories,
    Settings,
)


class Aurra:
    """Blocking client for the Aurra API.

    `api_key` falls back to `AURRA_API_KEY`, `base_url` to `AURRA_BASE_URL` and
    then to the hosted API. `timeout` (seconds, or an `httpx.Timeout`) applies
    to every request; `max_retries` bounds retries of 429s, 5xx answers and
    connection failures. Pass `http_client` to bring your own `httpx.Client`
    (proxies, custom transport); the SDK then leaves closing it to you.
    """

    memories: Memories
    settings: Settings
    audit: Audit
    events: Events

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._config = ClientConfig.resolve(api_key, base_url, timeout, max_retries)
        self._transport = SyncTransport(self._config, http_client)
        self.memories = Memories(self._transport)
        self.settings = Settings(self._transport)
        self.audit = Audit(self._transport)
        self.events = Events(self._transport)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    def close(self) -> None:
        """Release the connection pool (only if the SDK created the httpx client)."""
        self._transport.close()

    def __enter__(self) -> Aurra:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        # Never the key: a client is often logged.
        return f"Aurra(base_url={self.base_url!r})"


class AsyncAurra:
    """Asyncio client for the Aurra API, with the same surface as `Aurra`: every call is awaited,
    `list`/`search` return async iterators. Pass `http_client` to bring your own `httpx.AsyncClient`.
    """

    memories: AsyncMemories
    settings: AsyncSettings
    audit: AsyncAudit
    events: AsyncEvents

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._config = ClientConfig.resolve(api_key, base_url, timeout, max_retries)
        self._transport = AsyncTransport(self._config, http_client)
        self.memories = AsyncMemories(self._transport)
        self.settings = AsyncSettings(self._transport)
        self.audit = AsyncAudit(self._transport)
        self.events = AsyncEvents(self._transport)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    async def close(self) -> None:
        """Release the connection pool (only if the SDK created the httpx client)."""
        await self._transport.close()

    # Lets `contextlib.aclosing(client)` work too.
    aclose = close

    async def __aenter__(self) -> AsyncAurra:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncAurra(base_url={self.base_url!r})"
