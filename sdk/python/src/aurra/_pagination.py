"""Iterators that follow `next_cursor` from page to page.

Nothing is fetched until iteration starts, and each iteration starts again
from the first page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Generic, Protocol, TypeVar

from aurra._request import APICall
from aurra.errors import UnexpectedResponseError


class _Page(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


ItemT = TypeVar("ItemT")
PageT = TypeVar("PageT", bound=_Page)

# Builds the call that fetches the page at a cursor (None: the first page).
PageCallFactory = Callable[[str | None], APICall[PageT]]


def _next_cursor(page: _Page, cursor: str | None) -> str | None:
    following = page.next_cursor or None
    if following is not None and following == cursor:
        # A server that hands back the cursor it was given would make us loop forever.
        raise UnexpectedResponseError(
            f"Aurra returned the same next_cursor twice ({cursor!r})", status_code=200
        )
    return following


class Pager(Generic[ItemT, PageT]):
    """Iterate to get every item across all pages; `pages()` yields the page objects instead."""

    def __init__(
        self,
        send: Callable[[APICall[PageT]], PageT],
        page_call: PageCallFactory[PageT],
        items: Callable[[PageT], Sequence[ItemT]],
    ) -> None:
        self._send = send
        self._page_call = page_call
        self._items = items

    def pages(self) -> Iterator[PageT]:
        cursor: str | None = None
        while True:
            page = self._send(self._page_call(cursor))
            yield page
            cursor = _next_cursor(page, cursor)
            if cursor is None:
                return

    def __iter__(self) -> Iterator[ItemT]:
        for page in self.pages():
            yield from self._items(page)


class AsyncPager(Generic[ItemT, PageT]):
    """`async for` over every item across all pages; `pages()` yields the page objects instead."""

    def __init__(
        self,
        send: Callable[[APICall[PageT]], Awaitable[PageT]],
        page_call: PageCallFactory[PageT],
        items: Callable[[PageT], Sequence[ItemT]],
    ) -> None:
        self._send = send
        self._page_call = page_call
        self._items = items

    async def pages(self) -> AsyncIterator[PageT]:
        cursor: str | None = None
        while True:
            page = await self._send(self._page_call(cursor))
            yield page
            cursor = _next_cursor(page, cursor)
            if cursor is None:
                return

    async def __aiter__(self) -> AsyncIterator[ItemT]:
        async for page in self.pages():
            for item in self._items(page):
                yield item
