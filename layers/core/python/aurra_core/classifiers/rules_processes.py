"""The rules classifier in worker processes, so that writes in flight together classify on every
core (AURRA_CLASSIFIER_PROCESSES; `aurra dev --classifier-processes`).

The rules classifier is pure Python: in one process, four batches of a Level 2 import take turns
at one interpreter while the host's other cores sit idle. A deployed stage runs each request in
a function instance of its own and leaves this off.

A scope's memories keep going to the process that last read any of them: the rules classifier
remembers each text's readings, and a scope's facts are compared with the same memories over and
over. A process that is not started yet, or that died, is not waited for: the caller classifies
in its own thread meanwhile. A process that died or failed to start is replaced, at most once per
RESTART_AFTER_S in each place, so that one that keeps failing does not start a process per write.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from uuid import UUID

from aurra_core.classifiers.base import Candidate, Classification
from aurra_core.classifiers.rules import MODEL_ID, RulesClassifier
from aurra_core.errors import ClassifierError
from aurra_core.runtime import deadline
from aurra_core.runtime.observability import logger

# The memories whose process is remembered; a scope forgotten goes to the least busy process.
REMEMBERED_MEMORIES = 50_000
# How often a worker looks whether the process that started it is still there.
PARENT_CHECK_S = 1.0
# A place's process is replaced at most this often.
RESTART_AFTER_S = 30.0


def _ready() -> bool:
    return True  # importing this module in the worker loaded the rules


def _exit_with(parent: int) -> None:
    """In the worker, at its start: exit once the process that started it is gone, however it
    ended (a `kill -9` runs no exit handler, and the worker's own end of its queue would keep it
    waiting for work forever)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="aurra-parent-watch", daemon=True).start()


def _classify(
    limit_s: float | None,
    ends_at: float | None,
    new_content: str,
    new_topic: str,
    candidates: list[Candidate],
    model: str,
) -> Classification:
    """In the worker: the caller's deadline (time.monotonic() is the host's clock, the same in
    every process) and the classifier's own limit, as in the caller's thread."""
    classifier = RulesClassifier(limit_s=limit_s)
    if ends_at is None:
        return classifier.classify(new_content, new_topic, candidates, model)
    with deadline.until(ends_at):
        return classifier.classify(new_content, new_topic, candidates, model)


class _Worker:
    """One process (a pool of one, so that work can be sent to it by name) and what it holds."""

    def __init__(self) -> None:
        self.pool = ProcessPoolExecutor(
            max_workers=1, mp_context=get_context("spawn"), initializer=_exit_with, initargs=(os.getpid(),)
        )
        self.in_flight = 0
        self.broken = False
        self.started: Future[bool] = self.pool.submit(_ready)

    @property
    def ready(self) -> bool:
        return self.started.done() and self.started.exception() is None and not self.broken

    @property
    def failed(self) -> bool:
        return self.broken or (self.started.done() and self.started.exception() is not None)


class ProcessRulesClassifier:
    """`RulesClassifier`, each classification sent to one of `processes` worker processes."""

    model = MODEL_ID
    offline = True
    # The caller waits for its answer until the deadline, which the worker also stops at.
    stops_at_deadline = True

    def __init__(self, processes: int, limit_s: float | None = None) -> None:
        self.limit_s = limit_s
        self._in_caller = RulesClassifier(limit_s=limit_s)
        self._lock = threading.Lock()
        self._workers = [_Worker() for _ in range(max(1, processes))]
        self._replaced_at = [float("-inf")] * len(self._workers)
        self._process_of: OrderedDict[UUID, int] = OrderedDict()

    def warm_up(self) -> None:
        """Wait until every process has loaded the rules (a first write does not wait for it)."""
        for worker in list(self._workers):
            try:
                worker.started.result()
            except Exception:  # noqa: BLE001 - a classification after it replaces it
                logger.warning("rules classifier process did not start")

    def close(self) -> None:
        for worker in self._workers:
            worker.pool.shutdown(wait=False, cancel_futures=True)

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        index = self._choose(candidates)
        if index is None:
            return self._in_caller.classify(new_content, new_topic, candidates, model)
        worker = self._workers[index]
        try:
            future = worker.pool.submit(
                _classify, self.limit_s, deadline.end(), new_content, new_topic, candidates, model
            )
            try:
                return future.result(timeout=deadline.remaining())
            except FutureTimeout as exc:
                future.cancel()  # not started yet; once started it stops at the deadline itself
                raise ClassifierError("the rules classifier did not finish within its time limit") from exc
        except BrokenProcessPool as exc:
            with self._lock:
                worker.broken = True
                self._replace_failed()
            raise ClassifierError("a rules classifier process stopped") from exc
        finally:
            with self._lock:
                worker.in_flight -= 1

    def _choose(self, candidates: list[Candidate]) -> int | None:
        """The process that last read one of the candidates, else the least busy ready one; None
        when none is ready. Counts the classification in flight there."""
        with self._lock:
            self._replace_failed()
            ready = [i for i, w in enumerate(self._workers) if w.ready]
            if not ready:
                return None
            index = next(
                (self._process_of[c.id] for c in candidates if self._process_of.get(c.id) in ready),
                None,
            )
            if index is None:
                index = min(ready, key=lambda i: self._workers[i].in_flight)
            for candidate in candidates:
                self._process_of[candidate.id] = index
                self._process_of.move_to_end(candidate.id)
            while len(self._process_of) > REMEMBERED_MEMORIES:
                self._process_of.popitem(last=False)
            self._workers[index].in_flight += 1
            return index

    def _replace_failed(self) -> None:
        """Under the lock: a process that died or failed to start replaced, unless its place's
        was replaced within RESTART_AFTER_S (it is skipped meanwhile)."""
        now = time.monotonic()
        for index, worker in enumerate(self._workers):
            if worker.failed and now - self._replaced_at[index] >= RESTART_AFTER_S:
                logger.warning("rules classifier process stopped or did not start; starting another")
                worker.pool.shutdown(wait=False, cancel_futures=True)
                self._workers[index] = _Worker()
                self._replaced_at[index] = now
