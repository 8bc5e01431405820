"""`client.audit`: the record of supersessions and settings changes, reverts, erasures, and
the review queue (`list(type="supersession_proposed", status="open")`, `approve`, `dismiss`)."""

from __future__ import annotations

from operator import attrgetter

from aurra._pagination import AsyncPager, PageCallFactory, Pager
from aurra._request import APICall, IdLike, TimestampLike, format_timestamp, new_idempotency_key, path, query
from aurra.models import ApproveResult, AuditEvent, AuditPage, DismissResult, ProposalStatus, RevertResult
from aurra.resources._base import AsyncResource, SyncResource

_events = attrgetter("events")


def _page_calls(
    *,
    memory_id: IdLike | None,
    type: str | None,
    user_id: str | None,
    status: ProposalStatus | None,
    conversation_id: str | None = None,
    source_id: str | None = None,
    since: TimestampLike | None,
    until: TimestampLike | None,
    limit: int | None,
) -> PageCallFactory[AuditPage]:
    """Validate the filters now (not at first iteration) and return the call for any cursor."""
    params = query(
        memory_id=memory_id,
        type=type,
        user_id=user_id,
        conversation_id=conversation_id,
        source_id=source_id,
        status=status,
        since=format_timestamp(since, "since") if since is not None else None,
        until=format_timestamp(until, "until") if until is not None else None,
        limit=limit,
    )
    return lambda cursor: APICall(
        "GET", "/agent/audit", AuditPage.model_validate, params={**params, **query(cursor=cursor)}
    )


def _get_call(event_id: IdLike) -> APICall[AuditEvent]:
    return APICall("GET", path("/agent/audit/{}", event_id), AuditEvent.model_validate)


def _revert_call(event_id: IdLike, idempotency_key: str | None) -> APICall[RevertResult]:
    return APICall(
        "POST",
        path("/agent/audit/{}/revert", event_id),
        RevertResult.model_validate,
        body={},
        idempotency_key=new_idempotency_key(idempotency_key),
    )


def _approve_call(event_id: IdLike, idempotency_key: str | None) -> APICall[ApproveResult]:
    return APICall(
        "POST",
        path("/agent/audit/{}/approve", event_id),
        ApproveResult.model_validate,
        body={},
        idempotency_key=new_idempotency_key(idempotency_key),
    )


def _dismiss_call(event_id: IdLike, idempotency_key: str | None) -> APICall[DismissResult]:
    return APICall(
        "POST",
        path("/agent/audit/{}/dismiss", event_id),
        DismissResult.model_validate,
        body={},
        idempotency_key=new_idempotency_key(idempotency_key),
    )


class Audit(SyncResource):
    def list(
        self,
        *,
        memory_id: IdLike | None = None,
        type: str | None = None,
        user_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        status: ProposalStatus | None = None,
        since: TimestampLike | None = None,
        until: TimestampLike | None = None,
        limit: int | None = None,
    ) -> Pager[AuditEvent, AuditPage]:
        """Every matching event, newest first, fetched page by page as you iterate (`limit` is the page size)."""
        calls = _page_calls(
            memory_id=memory_id,
            type=type,
            user_id=user_id,
            conversation_id=conversation_id,
            source_id=source_id,
            status=status,
            since=since,
            until=until,
            limit=limit,
        )
        return Pager(self._transport.send, calls, _events)

    def list_page(
        self,
        *,
        memory_id: IdLike | None = None,
        type: str | None = None,
        user_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        status: ProposalStatus | None = None,
        since: TimestampLike | None = None,
        until: TimestampLike | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> AuditPage:
        """One page of events; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            memory_id=memory_id,
            type=type,
            user_id=user_id,
            conversation_id=conversation_id,
            source_id=source_id,
            status=status,
            since=since,
            until=until,
            limit=limit,
        )
        return self._transport.send(calls(cursor))

    def get(self, event_id: IdLike) -> AuditEvent:
        """One audit event."""
        return self._transport.send(_get_call(event_id))

    def revert(self, event_id: IdLike, *, idempotency_key: str | None = None) -> RevertResult:
        """Undo the supersession that event `event_id` made: the old memory is current again."""
        return self._transport.send(_revert_call(event_id, idempotency_key))

    def approve(self, event_id: IdLike, *, idempotency_key: str | None = None) -> ApproveResult:
        """Apply the proposal `event_id` as a supersession (ConflictError when it is not open,
        or a memory of it is no longer current)."""
        return self._transport.send(_approve_call(event_id, idempotency_key))

    def dismiss(self, event_id: IdLike, *, idempotency_key: str | None = None) -> DismissResult:
        """Close the proposal `event_id` without acting on it (ConflictError when it is not open)."""
        return self._transport.send(_dismiss_call(event_id, idempotency_key))


class AsyncAudit(AsyncResource):
    def list(
        self,
        *,
        memory_id: IdLike | None = None,
        type: str | None = None,
        user_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        status: ProposalStatus | None = None,
        since: TimestampLike | None = None,
        until: TimestampLike | None = None,
        limit: int | None = None,
    ) -> AsyncPager[AuditEvent, AuditPage]:
        """Every matching event, newest first, for `async for`, fetched page by page."""
        calls = _page_calls(
            memory_id=memory_id,
            type=type,
            user_id=user_id,
            conversation_id=conversation_id,
            source_id=source_id,
            status=status,
            since=since,
            until=until,
            limit=limit,
        )
        return AsyncPager(self._transport.send, calls, _events)

    async def list_page(
        self,
        *,
        memory_id: IdLike | None = None,
        type: str | None = None,
        user_id: str | None = None,
        conversation_id: str | None = None,
        source_id: str | None = None,
        status: ProposalStatus | None = None,
        since: TimestampLike | None = None,
        until: TimestampLike | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> AuditPage:
        """One page of events; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(
            memory_id=memory_id,
            type=type,
            user_id=user_id,
            conversation_id=conversation_id,
            source_id=source_id,
            status=status,
            since=since,
            until=until,
            limit=limit,
        )
        return await self._transport.send(calls(cursor))

    async def get(self, event_id: IdLike) -> AuditEvent:
        """One audit event."""
        return await self._transport.send(_get_call(event_id))

    async def revert(self, event_id: IdLike, *, idempotency_key: str | None = None) -> RevertResult:
        """Undo the supersession that event `event_id` made: the old memory is current again."""
        return await self._transport.send(_revert_call(event_id, idempotency_key))

    async def approve(self, event_id: IdLike, *, idempotency_key: str | None = None) -> ApproveResult:
        """Apply the proposal `event_id` as a supersession (ConflictError when it is not open,
        or a memory of it is no longer current)."""
        return await self._transport.send(_approve_call(event_id, idempotency_key))

    async def dismiss(self, event_id: IdLike, *, idempotency_key: str | None = None) -> DismissResult:
        """Close the proposal `event_id` without acting on it (ConflictError when it is not open)."""
        return await self._transport.send(_dismiss_call(event_id, idempotency_key))
