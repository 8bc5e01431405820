"""Claiming and running Level 2 jobs, and finding the ones nobody holds.

A claim leases a job (`level2_lease_s`) in its tenant's transaction, skipping one another
claim holds; the decision (write_path/deferred.py) then runs the classifier outside any
transaction and records itself with the job's completion. A worker killed mid-job leaves a
lease that passes; the sweeper (or a redelivered message) claims the job again, and the
completion's check applies a decision once.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from aurra_core.level2_jobs import nudge
from aurra_core.runtime.config import get_config
from aurra_core.runtime.observability import logger
from aurra_core.storage import level2_jobs
from aurra_core.storage.db import Database
from aurra_core.storage.level2_jobs import JobRef
from aurra_core.write_path import deferred
from aurra_core.write_path.pipeline import WriteDependencies


def run_job(ref: JobRef, deps: WriteDependencies) -> str | None:
    """Claim and decide one job; its outcome, or None when there was nothing to do (done
    already, leased by another worker, or not of the tenant the nudge named)."""
    config = get_config()
    with deps.db.tenant_transaction(ref.tenant_id) as conn:
        job = level2_jobs.claim(conn, ref, config.level2_lease_s)
    if job is None:
        return None
    if job.attempts > config.level2_max_attempts:
        logger.warning("level 2 job failed too often; given up", extra={"job_id": str(job.id)})
        return deferred.give_up(job, deps)
    return deferred.decide(job, deps)


def warm_up(deps: WriteDependencies) -> None:
    """Load the classifier's SDK and client before any job is claimed. Its first call would
    otherwise pay for them within the call's time limit: on a loaded host a fresh worker (one
    started after another died mid-job) answered its first jobs, the redelivered ones among
    them, `classifier_error`, which is final. Never raises: the call itself will say."""
    try:
        warm = getattr(deps.classifier_factory(), "warm_up", None)
        if warm is not None:
            warm()
    except Exception:  # noqa: BLE001 - a job's own call reports what is wrong
        logger.exception("level 2 classifier not warmed up")


def sweep(db: Database, *, older_than_s: float | None = None, at_most: int = 100) -> list[JobRef]:
    """Pending jobs nobody holds, made at least `older_than_s` ago (`level2_sweep_after_s`)."""
    older = get_config().level2_sweep_after_s if older_than_s is None else older_than_s
    with db.tenant_transaction(None) as conn:
        return level2_jobs.due(conn, older, at_most)


def run_due(deps: WriteDependencies, *, older_than_s: float | None = None, at_most: int = 100) -> int:
    """Sweep, then run what was found, one after another; the number of jobs decided."""
    decided = 0
    for ref in sweep(deps.db, older_than_s=older_than_s, at_most=at_most):
        if run_job(ref, deps) is not None:
            decided += 1
    return decided


class Worker(threading.Thread):
    """`aurra dev`'s and `aurra worker`'s runner: decides each job it is nudged about at once,
    a few at a time, and sweeps every `interval_s` for the ones whose nudge it never got
    (written by another process, or before it started)."""

    def __init__(
        self, deps: WriteDependencies, *, interval_s: float = 1.0, concurrency: int | None = None
    ) -> None:
        super().__init__(name="aurra-level2", daemon=True)
        self.deps, self.interval_s = deps, interval_s
        self.concurrency = concurrency or get_config().level2_worker_concurrency
        self.stopping = threading.Event()
        self._nudged: queue.Queue[JobRef | None] = queue.Queue()

    def _nudge(self, refs: list[JobRef]) -> None:
        for ref in refs:
            self._nudged.put(ref)

    def _run(self, ref: JobRef) -> None:
        try:
            run_job(ref, self.deps)
        except Exception:  # noqa: BLE001 - the job stays pending; its lease passes and it is retried
            logger.exception("level 2 job failed", extra={"job_id": str(ref.job_id)})

    def stop(self) -> None:
        self.stopping.set()
        self._nudged.put(None)

    def run(self) -> None:
        warm_up(self.deps)
        nudge.listen(self._nudge)
        swept_at = float("-inf")
        try:
            with ThreadPoolExecutor(self.concurrency, thread_name_prefix="aurra-level2-job") as pool:
                while not self.stopping.is_set():
                    if time.monotonic() - swept_at >= self.interval_s:
                        swept_at = time.monotonic()
                        try:
                            # No delay: in one process the nudges are the fast path, and what a
                            # sweep finds was written elsewhere, or before this worker started.
                            self._nudge(sweep(self.deps.db, older_than_s=0, at_most=self.concurrency * 4))
                        except Exception:  # noqa: BLE001 - the worker outlives a bad round
                            logger.exception("level 2 sweep failed")
                    try:
                        ref = self._nudged.get(timeout=self.interval_s)
                    except queue.Empty:
                        continue
                    if ref is not None:
                        pool.submit(self._run, ref)
        finally:
            nudge.unlisten(self._nudge)
