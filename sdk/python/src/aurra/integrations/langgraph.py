"""Aurra as a LangGraph store: long-term memory that stays current without losing its history.

    from aurra.integrations.langgraph import AurraStore

    store = AurraStore(namespace=("memories", "{user_id}"), auto_supersede=True)
    graph = builder.compile(store=store)          # instead of InMemoryStore()

How LangGraph's items map onto Aurra's memories:

- A namespace names a scope. `namespace` is its template: `"{user_id}"` and `"{agent_id}"` mark
  the elements that are the memory's `user_id` and `agent_id`, every other element is literal
  (default `("{user_id}",)`). A namespace may be longer than the template (sub-collections); it
  is kept whole with the item, so reads match it exactly.
- An item is a memory. Its content is the value's `"content"` (or `"text"`, or `"memory"`),
  else the value as compact JSON; its topic the value's `"topic"` (else the store's `topic`);
  its valid time starts at the value's `"valid_from"` (ISO 8601) when given. The whole value,
  namespace and key are kept in the memory's metadata (`metadata.langgraph`), so `get` returns
  the value as it was put.
- `put` on a key that holds a current item supersedes it (Level 1: the caller says X replaces
  Y), so the old value stays in the memory's history. `put` of a new key writes a memory and,
  with `auto_supersede=True`, lets Level 2 retire the memory it contradicts.
- `get` and `search` return current memories only (or those valid at `as_of` on a store from
  `store.at(as_of)`); a memory written another way (a messages write, the API) is an item too,
  with its id as key and the template's namespace. `search` with a `query` ranks by Aurra's
  search; `filter` matches the item's value as LangGraph's in-memory store does.
- `delete` erases the item's memory and its whole lineage (`POST /agent/erasures`): content gone.
- `list_namespaces` reads the scope's memories to find the namespaces in use.

`abatch` runs `batch` in a worker thread: the SDK's retries and idempotency are the same.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

# LangGraph's own matching of namespaces and value filters, so that a filter means here what
# it means on the in-memory store an app starts with.
from langgraph.store.memory import _compare_values, _does_match

from aurra._client import Aurra
from aurra.models import Memory

METADATA_KEY = "langgraph"
CONTENT_FIELDS = ("content", "text", "memory")
_PAGE = 100


@dataclass(frozen=True)
class _Scope:
    user_id: str | None
    agent_id: str | None


@dataclass(frozen=True)
class _Reading:
    as_of: datetime | str | None = None
    known_at: datetime | str | None = None


class AurraStore(BaseStore):
    """A LangGraph `BaseStore` on Aurra (sync and async). See the module's docstring."""

    def __init__(
        self,
        client: Aurra | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        namespace: tuple[str, ...] = ("{user_id}",),
        agent_id: str | None = None,
        topic: str | None = None,
        auto_supersede: bool | None = None,
    ) -> None:
        if not namespace or not any(part in ("{user_id}", "{agent_id}") for part in namespace):
            raise ValueError('namespace must mark where the scope sits: "{user_id}" and/or "{agent_id}"')
        self._client = client if client is not None else Aurra(api_key=api_key, base_url=base_url)
        self._template = tuple(namespace)
        self._agent_id = agent_id
        self._topic = topic
        self._auto_supersede = auto_supersede
        self._reading = _Reading()

    @property
    def client(self) -> Aurra:
        return self._client

    def at(self, as_of: datetime | str, known_at: datetime | str | None = None) -> AurraStore:
        """A read-only view of this store as it was valid at `as_of` (and as Aurra knew it at
        `known_at`): "what did alice use in April?"."""
        view = object.__new__(AurraStore)
        view.__dict__.update(self.__dict__)
        view._reading = replace(self._reading, as_of=as_of, known_at=known_at)
        return view

    # BaseStore's two abstract methods: every other method of the interface goes through them.

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise TypeError(f"unknown store operation: {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # The operations

    def _get(self, op: GetOp) -> Item | None:
        memory = self._find(tuple(op.namespace), op.key)
        return None if memory is None else self._item(memory, Item)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        wanted = op.offset + op.limit
        found: list[SearchItem] = []
        for memory in self._memories(self._scope_of_prefix(prefix), op.query):
            item = self._item(memory, SearchItem)
            item.score = memory.relevance if memory.relevance is not None else memory.score
            if item.namespace[: len(prefix)] != prefix:
                continue
            if op.filter and not _matches(item.value, op.filter):
                continue
            found.append(item)
            if len(found) >= wanted:
                break
        return found[op.offset : wanted]

    def _put(self, op: PutOp) -> None:
        namespace = tuple(op.namespace)
        self._writable()
        if op.value is None:
            memory = self._find(namespace, op.key)
            if memory is not None:
                self._client.erasures.create(memory_id=memory.id)
            return
        value = dict(op.value)
        scope = self._scope_of(namespace)
        content = _content(value)
        topic = value.get("topic") if isinstance(value.get("topic"), str) else self._topic
        valid_from = value.get("valid_from") if isinstance(value.get("valid_from"), str) else None
        metadata = {METADATA_KEY: {"namespace": list(namespace), "key": op.key, "value": value}}
        current = self._find(namespace, op.key)
        if current is not None:
            self._client.memories.supersede(
                current.id, content=content, topic=topic, valid_from=valid_from, metadata=metadata
            )
            return
        self._client.memories.add(
            content,
            topic=topic,
            valid_from=valid_from,
            metadata=metadata,
            auto_supersede=self._auto_supersede,
            user_id=scope.user_id,
            agent_id=scope.agent_id,
        )

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces: set[tuple[str, ...]] = set()
        for memory in self._memories(_Scope(None, self._agent_id), None):
            namespace = self._namespace_of(memory)
            if all(_does_match(condition, namespace) for condition in op.match_conditions or ()):
                namespaces.add(namespace if op.max_depth is None else namespace[: op.max_depth])
        return sorted(namespaces)[op.offset : op.offset + op.limit]

    # Mapping

    def _writable(self) -> None:
        if self._reading != _Reading():
            raise TypeError("a store read at `as_of`/`known_at` is read-only: write through the store itself")

    def _scope_of(self, namespace: tuple[str, ...]) -> _Scope:
        if len(namespace) < len(self._template):
            raise InvalidNamespaceError(
                f"namespace {namespace!r} is shorter than the store's template {self._template!r}"
            )
        user_id, agent_id = None, self._agent_id
        for part, value in zip(self._template, namespace, strict=False):
            if part == "{user_id}":
                user_id = value
            elif part == "{agent_id}":
                agent_id = value
            elif part != value:
                raise InvalidNamespaceError(
                    f"namespace {namespace!r} does not fit the template {self._template!r}"
                )
        return _Scope(user_id, agent_id)

    def _scope_of_prefix(self, prefix: tuple[str, ...]) -> _Scope:
        """The scope a search prefix pins, as far as it reaches into the template."""
        user_id, agent_id = None, self._agent_id
        for part, value in zip(self._template, prefix, strict=False):
            if part == "{user_id}":
                user_id = value
            elif part == "{agent_id}":
                agent_id = value
        return _Scope(user_id, agent_id)

    def _namespace_of(self, memory: Memory) -> tuple[str, ...]:
        kept = _kept(memory)
        if kept is not None:
            return tuple(kept["namespace"])
        parts = {"{user_id}": memory.user_id or "", "{agent_id}": memory.agent_id or ""}
        return tuple(parts.get(part, part) for part in self._template)

    def _item(self, memory: Memory, kind: type[Item]) -> Any:
        kept = _kept(memory)
        if kept is not None:
            key, value = str(kept["key"]), dict(kept["value"])
        else:
            key, value = memory.id, {"content": memory.content, "topic": memory.topic}
        return kind(
            namespace=self._namespace_of(memory),
            key=key,
            value=value,
            created_at=memory.valid_from,
            updated_at=memory.recorded_at,
        )

    def _memories(self, scope: _Scope, query: str | None) -> Iterator[Memory]:
        reading = self._reading
        if query:
            yield from self._client.memories.search(
                query,
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                as_of=reading.as_of,
                known_at=reading.known_at,
                limit=_PAGE,
            )
        else:
            yield from self._client.memories.list(
                user_id=scope.user_id,
                agent_id=scope.agent_id,
                as_of=reading.as_of,
                known_at=reading.known_at,
                limit=_PAGE,
            )

    def _find(self, namespace: tuple[str, ...], key: str) -> Memory | None:
        """The current memory under (namespace, key): one put through this store, or, for a key
        that is a memory's id, that memory."""
        scope = self._scope_of(namespace)
        for memory in self._memories(scope, None):
            kept = _kept(memory)
            if kept is not None and tuple(kept["namespace"]) == namespace and kept["key"] == key:
                return memory
            if kept is None and memory.id == key and self._namespace_of(memory) == namespace:
                return memory
        return None


def _matches(value: Mapping[str, Any], conditions: Mapping[str, Any]) -> bool:
    """LangGraph's filter semantics, except that an item without a compared field (or with one
    that is not a number for `$gt` and friends) does not match, rather than failing the search."""
    try:
        return all(_compare_values(value.get(k), v) for k, v in conditions.items())
    except (TypeError, ValueError):
        return False


def _kept(memory: Memory) -> Mapping[str, Any] | None:
    kept = memory.metadata.get(METADATA_KEY)
    if isinstance(kept, Mapping) and isinstance(kept.get("namespace"), list) and "key" in kept:
        return kept
    return None


def _content(value: Mapping[str, Any]) -> str:
    for field in CONTENT_FIELDS:
        text = value.get(field)
        if isinstance(text, str) and text.strip():
            return text
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)


__all__ = ["AurraStore"]
