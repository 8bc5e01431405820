"""`client.imports`: a large import's index deferred to its end (POST /agent/imports, POST and
GET /agent/imports/index). Announced, an import's memories enter no index while they arrive;
the tenant's own index is built once, at the end, over all of them."""

from __future__ import annotations

from typing import Any

from aurra._request import APICall
from aurra.errors import InvalidArgumentError
from aurra.models import ImportIndexing
from aurra.resources._base import AsyncResource, SyncResource


def _announce_call(facts: int, auto_supersede: bool, largest_scope: int | None) -> APICall[ImportIndexing]:
    if isinstance(facts, bool) or not isinstance(facts, int) or facts < 1:
        raise InvalidArgumentError("facts must be a positive number of facts")
    body: dict[str, Any] = {"facts": facts, "auto_supersede": bool(auto_supersede)}
    if largest_scope is not None:
        if (
            isinstance(largest_scope, bool)
            or not isinstance(largest_scope, int)
            or not 1 <= largest_scope <= facts
        ):
            raise InvalidArgumentError("largest_scope must be a number of facts from 1 to facts")
        body["largest_scope"] = largest_scope
    # No Idempotency-Key: announcing again answers as the first time did.
    return APICall("POST", "/agent/imports", ImportIndexing.model_validate, body=body)


def _build_call() -> APICall[ImportIndexing]:
    return APICall("POST", "/agent/imports/index", ImportIndexing.model_validate, body={})


def _state_call() -> APICall[ImportIndexing]:
    return APICall("GET", "/agent/imports/index", ImportIndexing.model_validate)


class Imports(SyncResource):
    def announce(
        self, facts: int, *, auto_supersede: bool = False, largest_scope: int | None = None
    ) -> ImportIndexing:
        """An import of `facts` facts is about to start; `largest_scope`, the most of them in any
        one scope (user and agent). `indexing` "deferred": its memories enter no index until
        `build_index()`; "shared": they are indexed as they come (a small import, one with Level
        2 that takes a scope past 2,000 memories or does not say its largest scope, or no room
        for another tenant's own index)."""
        return self._transport.send(_announce_call(facts, auto_supersede, largest_scope))

    def build_index(self) -> ImportIndexing:
        """Build the tenant's own index now (after the import's last batch); `indexing()` says
        when it is "own"."""
        return self._transport.send(_build_call())

    def indexing(self) -> ImportIndexing:
        """Where the tenant's new memories are indexed now."""
        return self._transport.send(_state_call())


class AsyncImports(AsyncResource):
    async def announce(
        self, facts: int, *, auto_supersede: bool = False, largest_scope: int | None = None
    ) -> ImportIndexing:
        """An import of `facts` facts is about to start (see `Imports.announce`)."""
        return await self._transport.send(_announce_call(facts, auto_supersede, largest_scope))

    async def build_index(self) -> ImportIndexing:
        """Build the tenant's own index now."""
        return await self._transport.send(_build_call())

    async def indexing(self) -> ImportIndexing:
        """Where the tenant's new memories are indexed now."""
        return await self._transport.send(_state_call())
