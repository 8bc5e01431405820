"""The entry points: `Aurra` (blocking) and `AsyncAurra` (asyncio)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import Any

import httpx

from aurra._config import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, ClientConfig
from aurra._request import APICall, query
from aurra._transport import AsyncTransport, SyncTransport
from aurra.models import ExportPage
from aurra.resources import (
    AsyncAudit,
    AsyncErasures,
    AsyncEvents,
    AsyncImports,
    AsyncJobs,
    AsyncMemories,
    AsyncSettings,
    AsyncWebhooks,
    Audit,
    Erasures,
    Events,
    Imports,
    Jobs,
    Memories,
    Settings,
    Webhooks,
)


def _export_call(user_id: str | None, limit: int | None, cursor: str | None) -> APICall[ExportPage]:
    params = query(user_id=user_id, limit=limit, cursor=cursor)
    return APICall("GET", "/agent/export", ExportPage.from_lines, params=params, ndjson=True)


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
    erasures: Erasures
    events: Events
    imports: Imports
    jobs: Jobs
    webhooks: Webhooks

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
        self.erasures = Erasures(self._transport)
        self.events = Events(self._transport)
        self.imports = Imports(self._transport)
        self.jobs = Jobs(self._transport)
        self.webhooks = Webhooks(self._transport)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    def export_page(
        self, *, user_id: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> ExportPage:
        """One response of GET /agent/export: `records` and the `next_cursor` to ask with next
        (None once the export is complete). Asking again with the same cursor gives the same
        page: keep the cursor of the page you were reading to resume after a failure."""
        return self._transport.send(_export_call(user_id, limit, cursor))

    def export(
        self, *, user_id: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every record of the tenant's export (docs/portability.md), following the cursors:
        memory versions, then audit events, each a dict with a `kind`. The end lines are not
        yielded. One snapshot: writes made while you iterate are not in it."""
        while True:
            page = self.export_page(user_id=user_id, limit=limit, cursor=cursor)
            yield from page.records
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

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
    erasures: AsyncErasures
    events: AsyncEvents
    imports: AsyncImports
    jobs: AsyncJobs
    webhooks: AsyncWebhooks

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
        self.erasures = AsyncErasures(self._transport)
        self.events = AsyncEvents(self._transport)
        self.imports = AsyncImports(self._transport)
        self.jobs = AsyncJobs(self._transport)
        self.webhooks = AsyncWebhooks(self._transport)

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def max_retries(self) -> int:
        return self._config.max_retries

    async def export_page(
        self, *, user_id: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> ExportPage:
        """One response of GET /agent/export (see `Aurra.export_page`)."""
        return await self._transport.send(_export_call(user_id, limit, cursor))

    async def export(
        self, *, user_id: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every record of the tenant's export, following the cursors (see `Aurra.export`)."""
        while True:
            page = await self.export_page(user_id=user_id, limit=limit, cursor=cursor)
            for record in page.records:
                yield record
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

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
