"""`client.memories`: write, list, search, read, trace and supersede memories."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, overload

from aurra._pagination import AsyncPager, PageCallFactory, Pager
from aurra._request import (
    APICall,
    IdLike,
    TimestampLike,
    compact,
    format_timestamp,
    new_idempotency_key,
    path,
    query,
)
from aurra.errors import InvalidArgumentError
from aurra.models import (
    BatchWriteResult,
    HistoryResult,
    Memory,
    MemoryPage,
    MessagesWriteResult,
    SupersedeResult,
    WriteResult,
)
from aurra.resources._base import AsyncResource, SyncResource

_memories = attrgetter("memories")


def _timestamp(value: TimestampLike | None, name: str) -> str | None:
    return None if value is None else format_timestamp(value, name)


# One turn of a conversation: {"role": "user"|"assistant"|"system", "content": str, "created_at": optional}.
MessageLike = Mapping[str, Any]


def _message(message: MessageLike, index: int) -> dict[str, Any]:
    if not isinstance(message, Mapping):
        raise InvalidArgumentError(f"messages[{index}] must be a mapping with role and content")
    out = dict(message)
    if out.get("created_at") is not None:
        out["created_at"] = format_timestamp(out["created_at"], f"messages[{index}].created_at")
    return out


def _add_call(
    content: str | None,
    messages: Sequence[MessageLike] | None,
    topic: str | None,
    valid_from: TimestampLike | None,
    metadata: Mapping[str, Any] | None,
    auto_supersede: bool | None,
    user_id: str | None,
    agent_id: str | None,
    idempotency_key: str | None,
    valid_to: TimestampLike | None = None,
    source: Mapping[str, Any] | None = None,
    conversation_id: str | None = None,
) -> APICall[WriteResult | MessagesWriteResult]:
    if (content is None) == (messages is None):
        raise InvalidArgumentError("add() takes exactly one of content=... (one fact) and messages=[...]")
    if source is not None and messages is not None:
        raise InvalidArgumentError("source= is for a content write; a messages write takes conversation_id=")
    if conversation_id is not None and content is not None:
        raise InvalidArgumentError("conversation_id= is for a messages write; a content write takes source=")
    body = compact(
        content=content,
        messages=None if messages is None else [_message(m, i) for i, m in enumerate(messages)],
        topic=topic,
        valid_from=_timestamp(valid_from, "valid_from"),
        valid_to=_timestamp(valid_to, "valid_to"),
        metadata=dict(metadata) if metadata is not None else None,
        auto_supersede=auto_supersede,
        user_id=user_id,
        agent_id=agent_id,
        source=dict(source) if source is not None else None,
        conversation_id=conversation_id,
    )
    parse: Callable[[Any], WriteResult | MessagesWriteResult] = (
        WriteResult.model_validate if messages is None else MessagesWriteResult.model_validate
    )
    return APICall(
        "POST",
        "/agent/memories",
        parse,
        body=body,
        idempotency_key=new_idempotency_key(idempotency_key),
    )


# One fact of a batch: {"content": str, "topic"?, "valid_from"?, "metadata"?, "user_id"?, "agent_id"?}.
FactLike = Mapping[str, Any]
MAX_BATCH_FACTS = 100


def _batch_call(
    facts: Sequence[FactLike], auto_supersede: bool | None, idempotency_key: str | None
) -> APICall[BatchWriteResult]:
    if isinstance(facts, (str, bytes, Mapping)) or not 1 <= len(facts) <= MAX_BATCH_FACTS:
        raise InvalidArgumentError(f"add_batch() takes a list of 1 to {MAX_BATCH_FACTS} facts")
    body_facts = []
    for i, fact in enumerate(facts):
        if not isinstance(fact, Mapping):
            raise InvalidArgumentError(f"facts[{i}] must be a mapping with content")
        out = {k: v for k, v in fact.items() if v is not None}
        for name in ("valid_from", "valid_to"):
            if name in out:
                out[name] = format_timestamp(out[name], f"facts[{i}].{name}")
        body_facts.append(out)
    return APICall(
        "POST",
        "/agent/memories/batch",
        BatchWriteResult.model_validate,
        body=compact(facts=body_facts, auto_supersede=auto_supersede),
        idempotency_key=new_idempotency_key(idempotency_key),
    )


def _page_calls(
    *,
    q: str | None,
    topic: str | None,
    user_id: str | None,
    agent_id: str | None,
    as_of: TimestampLike | None,
    known_at: TimestampLike | None,
    include_superseded: bool | None,
    limit: int | None,
    conversation_id: str | None = None,
    source_id: str | None = None,
) -> PageCallFactory[MemoryPage]:
    """Validate the filters now (not at first iteration) and return the call for any cursor."""
    if q is not None and not q.strip():
        raise InvalidArgumentError("q must not be empty")
    params = query(
        q=q,
        topic=topic,
        user_id=user_id,
        agent_id=agent_id,
        conversation_id=conversation_id,
        source_id=source_id,
        as_of=_timestamp(as_of, "as_of"),
        known_at=_timestamp(known_at, "known_at"),
        include_superseded=include_superseded,
        limit=limit,
    )
    return lambda cursor: APICall(
        "GET", "/agent/memories", MemoryPage.model_validate, params={**params, **query(cursor=cursor)}
    )


def _get_call(
    memory_id: IdLike, as_of: TimestampLike | None, known_at: TimestampLike | None
) -> APICall[Memory]:
    params = query(as_of=_timestamp(as_of, "as_of"), known_at=_timestamp(known_at, "known_at"))
    return APICall("GET", path("/agent/memories/{}", memory_id), Memory.model_validate, params=params)


def _history_call(
    memory_id: IdLike, as_of: TimestampLike | None = None, known_at: TimestampLike | None = None
) -> APICall[HistoryResult]:
    params = query(as_of=_timestamp(as_of, "as_of"), known_at=_timestamp(known_at, "known_at"))
    return APICall(
        "GET", path("/agent/memories/{}/history", memory_id), HistoryResult.model_validate, params=params
    )


def _supersede_call(
    memory_id: IdLike,
    content: str | None,
    topic: str | None,
    valid_from: TimestampLike | None,
    metadata: Mapping[str, Any] | None,
    superseded_by: IdLike | None,
    idempotency_key: str | None,
) -> APICall[SupersedeResult]:
    # The API takes exactly one of two shapes; say which mix is wrong instead of letting the server guess.
    if superseded_by is not None:
        if any(v is not None for v in (content, topic, valid_from, metadata)):
            raise InvalidArgumentError(
                "supersede() takes either superseded_by=<existing id> or content=... (with optional topic, "
                "valid_from, metadata), not both"
            )
        body: dict[str, Any] = {"superseded_by": str(superseded_by)}
    elif content is not None:
        body = compact(
            content=content,
            topic=topic,
            valid_from=_timestamp(valid_from, "valid_from"),
            metadata=dict(metadata) if metadata is not None else None,
        )
    else:
        raise InvalidArgumentError(
            "supersede() needs content=... (a new fact) or superseded_by=<existing id>"
        )
    return APICall(
        "POST",
        path("/agent/memories/{}/supersede", memory_id),
        SupersedeResult.model_validate,
        body=body,
        idempotency_key=new_idempotency_key(idempotency_key),
    )


class Memories(SyncResource):
    @overload
    def add(
        self,
        content: str,
        *,
        topic: str | None = ...,
        valid_from: TimestampLike | None = ...,
        metadata: Mapping[str, Any] | None = ...,
        auto_supersede: bool | None = ...,
        user_id: str | None = ...,
        agent_id: str | None = ...,
        idempotency_key: str | None = ...,
        valid_to: TimestampLike | None = ...,
        source: Mapping[str, Any] | None = ...,
    ) -> WriteResult: ...

    @overload
    def add(
        self,
        *,
        messages: Sequence[MessageLike],
        topic: str | None = ...,
        valid_from: TimestampLike | None = ...,
        metadata: Mapping[str, Any] | None = ...,
        auto_supersede: bool | None = ...,
        user_id: str | None = ...,
        agent_id: str | None = ...,
        idempotency_key: str | None = ...,
        valid_to: TimestampLike | None = ...,
        conversation_id: str | None = ...,
    ) -> MessagesWriteResult: ...

    def add(
        self,
        content: str | None = None,
        *,
        messages: Sequence[MessageLike] | None = None,
        topic: str | None = None,
        valid_from: TimestampLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        auto_supersede: bool | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        idempotency_key: str | None = None,
        valid_to: TimestampLike | None = None,
        source: Mapping[str, Any] | None = None,
        conversation_id: str | None = None,
    ) -> WriteResult | MessagesWriteResult:
        """Write a fact, or the facts of a conversation (POST /agent/memories).

        `content="..."` writes one fact and returns a `WriteResult`. `messages=[{"role":
        "user", "content": "..."}, ...]` has the service extract the conversation's durable
        facts and write each one as if it had been sent as content; it returns a
        `MessagesWriteResult` with `facts` (one `WriteResult` each) and `extraction`.

        `user_id` and `agent_id` scope the memories inside the tenant: automatic
        supersession only compares them with memories of the same user and agent (an
        absent one matches only absent). `auto_supersede=None` uses the key's
        `auto_supersede_default`. Every call sends one `Idempotency-Key` (generated unless
        given) on all its retries, so a retried write is never stored twice; a messages
        write is one unit, all of its facts or none.
        """
        return self._transport.send(
            _add_call(
                content,
                messages,
                topic,
                valid_from,
                metadata,
                auto_supersede,
                user_id,
                agent_id,
                idempotency_key,
                valid_to,
                source,
                conversation_id,
            )
        )

    def add_batch(
        self,
        facts: Sequence[FactLike],
        *,
        auto_supersede: bool | None = None,
        idempotency_key: str | None = None,
    ) -> BatchWriteResult:
        """Write 1..100 facts as one unit (POST /agent/memories/batch): all of them or none.

        Each fact is a mapping with the fields of a content write: `content` (required),
        `topic`, `valid_from`, `valid_to`, `metadata`, `user_id`, `agent_id`, `source`. `auto_supersede` applies to
        the whole batch; the facts are applied in `valid_from` order, each seeing the batch's
        earlier facts, so a history sent at once supersedes itself as it happened. Returns one
        `WriteResult` per fact in the order given. One `Idempotency-Key` (generated unless
        given) covers the batch on all its retries. The body must stay within 64 KiB.
        """
        return self._transport.send(_batch_call(facts, auto_supersede, idempotency_key))

    def list(
        self,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
    ) -> Pager[Memory, MemoryPage]:
        """Every matching memory, fetched page by page as you iterate (`limit` is the page size)."""
        calls = _page_calls(
            q=None,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return Pager(self._transport.send, calls, _memories)

    def list_page(
        self,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> MemoryPage:
        """One page of memories; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            q=None,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return self._transport.send(calls(cursor))

    def search(
        self,
        q: str,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
    ) -> Pager[Memory, MemoryPage]:
        """Memories ranked by meaning, shared words and kinds for `q` (at most 200), each with a `score`
        (cosine similarity) and a `relevance` (the fused score they are ordered by), page by page."""
        calls = _page_calls(
            q=q,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return Pager(self._transport.send, calls, _memories)

    def search_page(
        self,
        q: str,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> MemoryPage:
        """One page of search results; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            q=q,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return self._transport.send(calls(cursor))

    def get(
        self, memory_id: IdLike, *, as_of: TimestampLike | None = None, known_at: TimestampLike | None = None
    ) -> Memory:
        """One memory, as it was valid at `as_of` and as the service knew it at `known_at`."""
        return self._transport.send(_get_call(memory_id, as_of, known_at))

    def history(
        self, memory_id: IdLike, *, as_of: TimestampLike | None = None, known_at: TimestampLike | None = None
    ) -> HistoryResult:
        """The supersession chain this memory belongs to and its recorded versions, oldest first
        (as known at `known_at`)."""
        return self._transport.send(_history_call(memory_id, as_of, known_at))

    def supersede(
        self,
        memory_id: IdLike,
        *,
        content: str | None = None,
        topic: str | None = None,
        valid_from: TimestampLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        superseded_by: IdLike | None = None,
        idempotency_key: str | None = None,
    ) -> SupersedeResult:
        """Replace `memory_id` by a new fact (`content=...`) or by an existing memory (`superseded_by=...`)."""
        return self._transport.send(
            _supersede_call(memory_id, content, topic, valid_from, metadata, superseded_by, idempotency_key)
        )


class AsyncMemories(AsyncResource):
    @overload
    async def add(
        self,
        content: str,
        *,
        topic: str | None = ...,
        valid_from: TimestampLike | None = ...,
        metadata: Mapping[str, Any] | None = ...,
        auto_supersede: bool | None = ...,
        user_id: str | None = ...,
        agent_id: str | None = ...,
        idempotency_key: str | None = ...,
        valid_to: TimestampLike | None = ...,
        source: Mapping[str, Any] | None = ...,
    ) -> WriteResult: ...

    @overload
    async def add(
        self,
        *,
        messages: Sequence[MessageLike],
        topic: str | None = ...,
        valid_from: TimestampLike | None = ...,
        metadata: Mapping[str, Any] | None = ...,
        auto_supersede: bool | None = ...,
        user_id: str | None = ...,
        agent_id: str | None = ...,
        idempotency_key: str | None = ...,
        valid_to: TimestampLike | None = ...,
        conversation_id: str | None = ...,
    ) -> MessagesWriteResult: ...

    async def add(
        self,
        content: str | None = None,
        *,
        messages: Sequence[MessageLike] | None = None,
        topic: str | None = None,
        valid_from: TimestampLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        auto_supersede: bool | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        idempotency_key: str | None = None,
        valid_to: TimestampLike | None = None,
        source: Mapping[str, Any] | None = None,
        conversation_id: str | None = None,
    ) -> WriteResult | MessagesWriteResult:
        """Write a fact or the facts of a conversation (POST /agent/memories); see `Memories.add`."""
        return await self._transport.send(
            _add_call(
                content,
                messages,
                topic,
                valid_from,
                metadata,
                auto_supersede,
                user_id,
                agent_id,
                idempotency_key,
                valid_to,
                source,
                conversation_id,
            )
        )

    async def add_batch(
        self,
        facts: Sequence[FactLike],
        *,
        auto_supersede: bool | None = None,
        idempotency_key: str | None = None,
    ) -> BatchWriteResult:
        """Write 1..100 facts as one unit (POST /agent/memories/batch): all of them or none.

        Each fact is a mapping with the fields of a content write: `content` (required),
        `topic`, `valid_from`, `valid_to`, `metadata`, `user_id`, `agent_id`, `source`. `auto_supersede` applies to
        the whole batch; the facts are applied in `valid_from` order, each seeing the batch's
        earlier facts, so a history sent at once supersedes itself as it happened. Returns one
        `WriteResult` per fact in the order given. One `Idempotency-Key` (generated unless
        given) covers the batch on all its retries. The body must stay within 64 KiB.
        """
        return await self._transport.send(_batch_call(facts, auto_supersede, idempotency_key))

    def list(
        self,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
    ) -> AsyncPager[Memory, MemoryPage]:
        """Every matching memory, for `async for`, fetched page by page (`limit` is the page size)."""
        calls = _page_calls(
            q=None,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return AsyncPager(self._transport.send, calls, _memories)

    async def list_page(
        self,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> MemoryPage:
        """One page of memories; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            q=None,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return await self._transport.send(calls(cursor))

    def search(
        self,
        q: str,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
    ) -> AsyncPager[Memory, MemoryPage]:
        """Memories ranked by meaning, shared words and kinds for `q` (at most 200), for `async for`,
        fetched page by page."""
        calls = _page_calls(
            q=q,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return AsyncPager(self._transport.send, calls, _memories)

    async def search_page(
        self,
        q: str,
        *,
        topic: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        as_of: TimestampLike | None = None,
        known_at: TimestampLike | None = None,
        include_superseded: bool | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> MemoryPage:
        """One page of search results; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            q=q,
            topic=topic,
            user_id=user_id,
            agent_id=agent_id,
            conversation_id=conversation_id,
            source_id=source_id,
            as_of=as_of,
            known_at=known_at,
            include_superseded=include_superseded,
            limit=limit,
        )
        return await self._transport.send(calls(cursor))

    async def get(
        self, memory_id: IdLike, *, as_of: TimestampLike | None = None, known_at: TimestampLike | None = None
    ) -> Memory:
        """One memory, as it was valid at `as_of` and as the service knew it at `known_at`."""
        return await self._transport.send(_get_call(memory_id, as_of, known_at))

    async def history(
        self, memory_id: IdLike, *, as_of: TimestampLike | None = None, known_at: TimestampLike | None = None
    ) -> HistoryResult:
        """The supersession chain this memory belongs to and its recorded versions, oldest first
        (as known at `known_at`)."""
        return await self._transport.send(_history_call(memory_id, as_of, known_at))

    async def supersede(
        self,
        memory_id: IdLike,
        *,
        content: str | None = None,
        topic: str | None = None,
        valid_from: TimestampLike | None = None,
        metadata: Mapping[str, Any] | None = None,
        superseded_by: IdLike | None = None,
        idempotency_key: str | None = None,
    ) -> SupersedeResult:
        """Replace `memory_id` by a new fact (`content=...`) or by an existing memory (`superseded_by=...`)."""
        return await self._transport.send(
            _supersede_call(memory_id, content, topic, valid_from, metadata, superseded_by, idempotency_key)
        )
