"""`client.events`: the change stream, every change of the tenant's memories once, in commit
order. `list()` iterates until it has caught up; keep its `next_cursor` and pass it back as
`after` to read what committed since."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator

from aurra._request import APICall, query
from aurra.models import ChangeEvent, EventPage
from aurra.resources._base import AsyncResource, SyncResource


def _page_call(after: str | None, types: Iterable[str] | None, limit: int | None) -> APICall[EventPage]:
    params = query(after=after, types=None if types is None else ",".join(types), limit=limit)
    return APICall("GET", "/agent/events", EventPage.model_validate, params=params)


class EventStream:
    """The events after a cursor, page by page, until a page comes back empty. `next_cursor`
    is where the next walk starts (after iteration: past every event yielded)."""

    def __init__(self, events: Events, after: str | None, types: list[str] | None, limit: int | None) -> None:
        self._events, self._types, self._limit = events, types, limit
        self.next_cursor = after

    def __iter__(self) -> Iterator[ChangeEvent]:
        while True:
            page = self._events.list_page(after=self.next_cursor, types=self._types, limit=self._limit)
            yield from page.events
            self.next_cursor = page.next_cursor
            if not page.events:
                return


class Events(SyncResource):
    def list(
        self, *, after: str | None = None, types: Iterable[str] | None = None, limit: int | None = None
    ) -> EventStream:
        """Every event after `after` (from the oldest kept when None), oldest first, until caught up."""
        return EventStream(self, after, None if types is None else list(types), limit)

    def list_page(
        self, *, after: str | None = None, types: Iterable[str] | None = None, limit: int | None = None
    ) -> EventPage:
        """One page; pass its `next_cursor` back as `after`."""
        return self._transport.send(_page_call(after, types, limit))


class AsyncEventStream:
    """`EventStream` for asyncio: `async for`, and `next_cursor` after it."""

    def __init__(
        self, events: AsyncEvents, after: str | None, types: list[str] | None, limit: int | None
    ) -> None:
        self._events, self._types, self._limit = events, types, limit
        self.next_cursor = after

    async def __aiter__(self) -> AsyncIterator[ChangeEvent]:
        while True:
            page = await self._events.list_page(after=self.next_cursor, types=self._types, limit=self._limit)
            for event in page.events:
                yield event
            self.next_cursor = page.next_cursor
            if not page.events:
                return


class AsyncEvents(AsyncResource):
    def list(
        self, *, after: str | None = None, types: Iterable[str] | None = None, limit: int | None = None
    ) -> AsyncEventStream:
        """Every event after `after` (from the oldest kept when None), oldest first, until caught up."""
        return AsyncEventStream(self, after, None if types is None else list(types), limit)

    async def list_page(
        self, *, after: str | None = None, types: Iterable[str] | None = None, limit: int | None = None
    ) -> EventPage:
        """One page; pass its `next_cursor` back as `after`."""
        return await self._transport.send(_page_call(after, types, limit))
