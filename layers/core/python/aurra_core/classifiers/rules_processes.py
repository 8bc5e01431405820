"""The rules classifier in the server's worker processes (runtime/worker_processes.py), so that
writes in flight together classify on every core (AURRA_CLASSIFIER_PROCESSES; `aurra dev
--classifier-processes`).

A scope's memories keep going to the process that last read any of them: the rules classifier
remembers each text's readings, and a scope's facts are compared with the same memories over and
over. When no process is ready, the caller classifies in its own thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from uuid import UUID

from aurra_core.classifiers.base import Candidate, Classification
from aurra_core.classifiers.rules import MODEL_ID, RulesClassifier
from aurra_core.errors import ClassifierError
from aurra_core.runtime import deadline
from aurra_core.runtime.worker_processes import Worker, WorkerProcesses

# The memories whose process is remembered; a scope forgotten goes to the least busy process.
REMEMBERED_MEMORIES = 50_000


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


class ProcessRulesClassifier:
    """`RulesClassifier`, each classification sent to one of the worker processes."""

    model = MODEL_ID
    offline = True
    # The caller waits for its answer until the deadline, which the worker also stops at.
    stops_at_deadline = True

    def __init__(self, processes: WorkerProcesses, limit_s: float | None = None) -> None:
        self.limit_s = limit_s
        self.processes = processes
        processes.preload(__name__)  # the rules, read before a first classification
        self._in_caller = RulesClassifier(limit_s=limit_s)
        self._lock = threading.Lock()
        self._process_of: OrderedDict[UUID, int] = OrderedDict()

    def classify(
        self, new_content: str, new_topic: str, candidates: list[Candidate], model: str
    ) -> Classification:
        taken = self._choose(candidates)
        if taken is None:
            return self._in_caller.classify(new_content, new_topic, candidates, model)
        worker = taken[1]
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
            self.processes.lost(worker)
            raise ClassifierError("a rules classifier process stopped") from exc
        finally:
            self.processes.release(worker)

    def _choose(self, candidates: list[Candidate]) -> tuple[int, Worker] | None:
        """The process that last read one of the candidates, else the least busy ready one, and
        its place; None when none is ready. Counts the classification in flight there."""
        with self._lock:

            def last_reader(ready: list[int]) -> int | None:
                return next(
                    (self._process_of[c.id] for c in candidates if self._process_of.get(c.id) in ready),
                    None,
                )

            taken = self.processes.take(last_reader)
            if taken is None:
                return None
            for candidate in candidates:
                self._process_of[candidate.id] = taken[0]
                self._process_of.move_to_end(candidate.id)
            while len(self._process_of) > REMEMBERED_MEMORIES:
                self._process_of.popitem(last=False)
            return taken
