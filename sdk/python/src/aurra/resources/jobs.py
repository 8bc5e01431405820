"""`client.jobs`: asynchronous Level 2's jobs (GET /agent/jobs[/{id}]): the decisions a write
with `auto_supersede="async"` left to a worker, pending, running or done with their outcome."""

from __future__ import annotations

from operator import attrgetter
from typing import Literal

from aurra._pagination import AsyncPager, PageCallFactory, Pager
from aurra._request import APICall, IdLike, path, query
from aurra.models import Job, JobPage
from aurra.resources._base import AsyncResource, SyncResource

# `pending` includes the jobs a worker holds now (their status reads `running`).
JobStatusFilter = Literal["pending", "done"]

_jobs = attrgetter("jobs")


def _page_calls(
    *, status: JobStatusFilter | None, memory_id: IdLike | None, user_id: str | None, limit: int | None
) -> PageCallFactory[JobPage]:
    """Validate the filters now (not at first iteration) and return the call for any cursor."""
    params = query(status=status, memory_id=memory_id, user_id=user_id, limit=limit)
    return lambda cursor: APICall(
        "GET", "/agent/jobs", JobPage.model_validate, params={**params, **query(cursor=cursor)}
    )


def _get_call(job_id: IdLike) -> APICall[Job]:
    return APICall("GET", path("/agent/jobs/{}", job_id), Job.model_validate)


class Jobs(SyncResource):
    def list(
        self,
        *,
        status: JobStatusFilter | None = None,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        limit: int | None = None,
    ) -> Pager[Job, JobPage]:
        """Every matching job, newest first, fetched page by page as you iterate (`limit` is the
        page size). `status="pending"`: the decisions still to come."""
        calls = _page_calls(status=status, memory_id=memory_id, user_id=user_id, limit=limit)
        return Pager(self._transport.send, calls, _jobs)

    def list_page(
        self,
        *,
        status: JobStatusFilter | None = None,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> JobPage:
        """One page of jobs; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(status=status, memory_id=memory_id, user_id=user_id, limit=limit)
        return self._transport.send(calls(cursor))

    def get(self, job_id: IdLike) -> Job:
        """One job (the `auto_supersede.job_id` of an asynchronous write)."""
        return self._transport.send(_get_call(job_id))


class AsyncJobs(AsyncResource):
    def list(
        self,
        *,
        status: JobStatusFilter | None = None,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        limit: int | None = None,
    ) -> AsyncPager[Job, JobPage]:
        """Every matching job, newest first, for `async for`, fetched page by page."""
        calls = _page_calls(status=status, memory_id=memory_id, user_id=user_id, limit=limit)
        return AsyncPager(self._transport.send, calls, _jobs)

    async def list_page(
        self,
        *,
        status: JobStatusFilter | None = None,
        memory_id: IdLike | None = None,
        user_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> JobPage:
        """One page of jobs; pass its `next_cursor` back as `cursor` for the next one."""
        calls = _page_calls(status=status, memory_id=memory_id, user_id=user_id, limit=limit)
        return await self._transport.send(calls(cursor))

    async def get(self, job_id: IdLike) -> Job:
        """One job (the `auto_supersede.job_id` of an asynchronous write)."""
        return await self._transport.send(_get_call(job_id))
