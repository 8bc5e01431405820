"""Worker processes for the offline work that is pure Python: the rules classifier's
classifications, and a batch's embedding by the lexical embedder and its credential scans
(AURRA_CLASSIFIER_PROCESSES; `aurra dev --classifier-processes`).

In one process, four batches of an import take turns at one interpreter while the host's other
cores sit idle. A deployed stage runs each request in a function instance of its own and leaves
this off.

A process that is not started yet, or that died, is not waited for: the caller does the work in
its own thread meanwhile. A process that died or failed to start is replaced, at most once per
RESTART_AFTER_S in each place, so that one that keeps failing does not start a process per
request.
"""

from __future__ import annotations

import importlib
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import lru_cache
from multiprocessing import get_context
from typing import Any, TypeVar

from aurra_core.runtime.observability import logger

# How often a worker looks whether the process that started it is still there.
PARENT_CHECK_S = 1.0
# A place's process is replaced at most this often.
RESTART_AFTER_S = 30.0
# How long `run` waits for a process's answer (a batch's work takes milliseconds) before the
# caller does the work itself: a process that hangs never holds up a request.
ANSWER_WITHIN_S = 10.0

T = TypeVar("T")


def _load(modules: tuple[str, ...]) -> bool:
    for module in modules:
        importlib.import_module(module)
    return True


def _exit_with(parent: int) -> None:
    """In the worker, at its start: exit once the process that started it is gone, however it
    ended (a `kill -9` runs no exit handler, and the worker's own end of its queue would keep it
    waiting for work forever)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="aurra-parent-watch", daemon=True).start()


class Worker:
    """One process (a pool of one, so that work can be sent to it by place) and what it holds.
    It has started once it has imported `modules`, what the work sent to it needs."""

    def __init__(self, modules: tuple[str, ...] = ()) -> None:
        self.pool = ProcessPoolExecutor(
            max_workers=1, mp_context=get_context("spawn"), initializer=_exit_with, initargs=(os.getpid(),)
        )
        self.in_flight = 0
        self.broken = False
        self.started: Future[bool] = self.pool.submit(_load, modules)

    @property
    def ready(self) -> bool:
        return self.started.done() and self.started.exception() is None and not self.broken

    @property
    def failed(self) -> bool:
        return self.broken or (self.started.done() and self.started.exception() is not None)


class WorkerProcesses:
    """`processes` worker processes, each in its place; work goes to a ready one."""

    def __init__(self, processes: int) -> None:
        self._lock = threading.Lock()
        self._modules: tuple[str, ...] = ()
        self.workers = [Worker() for _ in range(max(1, processes))]
        self._replaced_at = [float("-inf")] * len(self.workers)

    def preload(self, module: str) -> None:
        """Have every process import `module` (what the work its user sends needs), and every
        process started later at its start: a process is ready once its imports are done, and
        until then the caller does the work itself (a first write does not wait for them)."""
        with self._lock:
            if module in self._modules:
                return
            self._modules += (module,)
            for worker in self.workers:
                # ready once this import is done too (a pool of one runs its work in order)
                worker.started = worker.pool.submit(_load, (module,))

    def take(self, prefer: Callable[[list[int]], int | None] | None = None) -> tuple[int, Worker] | None:
        """A ready process and its place, counted in flight there until `release`: the one
        `prefer` picks among the ready places, else the least busy; None when none is ready."""
        with self._lock:
            self._replace_failed()
            ready = [i for i, w in enumerate(self.workers) if w.ready]
            if not ready:
                return None
            index = prefer(ready) if prefer is not None else None
            if index is None:
                index = min(ready, key=lambda i: self.workers[i].in_flight)
            worker = self.workers[index]
            worker.in_flight += 1
            return index, worker

    def release(self, worker: Worker) -> None:
        """The work `take` counted on `worker` is over (its place may hold another by now)."""
        with self._lock:
            worker.in_flight -= 1

    def lost(self, worker: Worker) -> None:
        """Its process stopped (BrokenProcessPool) or hangs: replaced, within the backoff."""
        with self._lock:
            worker.broken = True
            self._replace_failed()

    def run(self, function: Callable[..., T], *args: Any) -> T | None:
        """`function(*args)` in the least busy ready process; None when none is ready, or it
        stopped or did not answer within ANSWER_WITHIN_S (the caller then does the work itself,
        and the process is replaced)."""
        from concurrent.futures import TimeoutError as FutureTimeout
        from concurrent.futures.process import BrokenProcessPool

        taken = self.take()
        if taken is None:
            return None
        _, worker = taken
        try:
            return worker.pool.submit(function, *args).result(timeout=ANSWER_WITHIN_S)
        except (BrokenProcessPool, FutureTimeout):
            logger.warning("a worker process did not answer; the caller does the work")
            self.lost(worker)
            return None
        finally:
            self.release(worker)

    def warm_up(self) -> None:
        """Wait until every process has started (a first request does not wait for it)."""
        for worker in list(self.workers):
            try:
                worker.started.result()
            except Exception:  # noqa: BLE001 - the next piece of work replaces it
                logger.warning("a worker process did not start")

    def close(self) -> None:
        for worker in self.workers:
            worker.pool.shutdown(wait=False, cancel_futures=True)

    def _replace_failed(self) -> None:
        """Under the lock: a process that died or failed to start replaced, unless its place's
        was replaced within RESTART_AFTER_S (it is skipped meanwhile)."""
        now = time.monotonic()
        for index, worker in enumerate(self.workers):
            if worker.failed and now - self._replaced_at[index] >= RESTART_AFTER_S:
                logger.warning("a worker process stopped or did not start; starting another")
                worker.pool.shutdown(wait=False, cancel_futures=True)
                self.workers[index] = Worker(self._modules)
                self._replaced_at[index] = now


@lru_cache(maxsize=1)
def worker_processes(count: int) -> WorkerProcesses:
    """The server's `count` worker processes (the configuration's `classifier_processes`, when
    it asks for any: never in AWS), started once and shared by all their users."""
    return WorkerProcesses(count)
