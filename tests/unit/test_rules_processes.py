"""The rules classifier in the worker processes: the same verdicts as in the caller's thread, a
scope kept on one process, a lost process replaced, the deadline kept."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from aurra_core.classifiers.base import Candidate
from aurra_core.classifiers.factory import create_classifier
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.classifiers.rules_processes import ProcessRulesClassifier
from aurra_core.errors import ClassifierError
from aurra_core.runtime import deadline
from aurra_core.runtime.config import ServiceConfig
from aurra_core.runtime.worker_processes import WorkerProcesses, worker_processes

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases.jsonl"


@pytest.fixture(scope="module")
def pooled() -> Iterator[ProcessRulesClassifier]:
    classifier = ProcessRulesClassifier(WorkerProcesses(2), limit_s=10.0)
    classifier.processes.warm_up()
    yield classifier
    classifier.processes.close()


def _candidate(content: str, topic: str = "general") -> Candidate:
    return Candidate(uuid.uuid4(), content, topic, 0.5)


def _process_ids(classifier: ProcessRulesClassifier) -> list[int]:
    return [next(iter(worker.pool._processes)) for worker in classifier.processes.workers]


def test_the_same_verdicts_as_in_the_callers_thread(pooled: ProcessRulesClassifier) -> None:
    in_caller = RulesClassifier(limit_s=10.0)
    cases = [json.loads(line) for line in CASES.read_text().splitlines()[:120]]
    for case in cases:
        candidates = [_candidate(case["old"]["content"], case["old"]["topic"])]
        new = case["new"]
        expected = in_caller.classify(new["content"], new["topic"], candidates, "rules")
        got = pooled.classify(new["content"], new["topic"], candidates, "rules")
        assert got == expected, case["id"]


def test_a_scopes_memories_stay_on_one_process(pooled: ProcessRulesClassifier) -> None:
    lisbon, vim = _candidate("User lives in Lisbon"), _candidate("User uses Vim")
    pooled.classify("User moved to Porto", "location", [lisbon, vim], "rules")
    first = pooled._process_of[lisbon.id]
    # The next fact of the scope meets the same memories and one new one: the same process,
    # however busy the other is not.
    team = _candidate("User's team has 5 engineers")
    for _ in range(3):
        pooled.classify("User switched to Emacs", "tools", [vim, team], "rules")
        assert pooled._process_of[team.id] == first
    # Memories no process has read go to the least busy one.
    pooled.processes.workers[first].in_flight += 5
    try:
        other = _candidate("User drinks tea")
        pooled.classify("User drinks coffee now", "preferences", [other], "rules")
        assert pooled._process_of[other.id] == 1 - first
    finally:
        pooled.processes.workers[first].in_flight -= 5
    assert [w.in_flight for w in pooled.processes.workers] == [0, 0]


def test_a_process_not_started_yet_is_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    classifier = ProcessRulesClassifier(WorkerProcesses(1), limit_s=10.0)
    try:
        monkeypatch.setattr(type(classifier.processes.workers[0]), "ready", property(lambda _: False))
        candidate = _candidate("User lives in Lisbon")
        result = classifier.classify("User moved to Porto", "location", [candidate], "rules")
        assert result.verdicts[0].verdict.value == "contradicts"
        assert candidate.id not in classifier._process_of  # classified in the caller's thread
    finally:
        classifier.processes.close()


def test_a_lost_process_fails_one_classification_and_is_replaced() -> None:
    classifier = ProcessRulesClassifier(WorkerProcesses(1), limit_s=10.0)
    try:
        classifier.processes.warm_up()
        (lost,) = _process_ids(classifier)
        os.kill(lost, signal.SIGKILL)
        time.sleep(0.5)
        candidate = _candidate("User lives in Lisbon")
        with pytest.raises(ClassifierError, match="stopped"):
            classifier.classify("User moved to Porto", "location", [candidate], "rules")
        # the lost process's work is counted off it, not off its replacement
        assert [w.in_flight for w in classifier.processes.workers] == [0]
        classifier.processes.warm_up()
        result = classifier.classify("User moved to Porto", "location", [candidate], "rules")
        assert result.verdicts[0].verdict.value == "contradicts"
        assert _process_ids(classifier) != [lost]
    finally:
        classifier.processes.close()


def test_a_passed_deadline_is_a_classifier_error(pooled: ProcessRulesClassifier) -> None:
    with deadline.until(time.monotonic() - 1), pytest.raises(ClassifierError, match="time limit"):
        pooled.classify("User moved to Porto", "location", [_candidate("User lives in Lisbon")], "rules")
    assert [w.in_flight for w in pooled.processes.workers] == [0, 0]


def test_the_factory_chooses_processes_only_when_asked() -> None:
    assert isinstance(create_classifier(ServiceConfig(classifier="rules")), RulesClassifier)
    pooled = create_classifier(ServiceConfig(classifier="rules", classifier_processes=1))
    try:
        assert isinstance(pooled, ProcessRulesClassifier)
    finally:
        pooled.processes.close()
        worker_processes.cache_clear()


def test_the_processes_end_with_a_server_killed_outright(tmp_path: Path) -> None:
    """`kill -9` runs no exit handler: the workers see their parent gone and exit by themselves."""
    script = (
        "import os, signal, uuid\n"
        "from aurra_core.classifiers.base import Candidate\n"
        "from aurra_core.classifiers.rules_processes import ProcessRulesClassifier\n"
        "from aurra_core.runtime.worker_processes import WorkerProcesses\n"
        "c = ProcessRulesClassifier(WorkerProcesses(2), limit_s=10.0)\n"
        "c.processes.warm_up()\n"
        "print(' '.join(str(next(iter(w.pool._processes))) for w in c.processes.workers), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    import subprocess
    import sys

    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )
    assert ran.returncode == -signal.SIGKILL, ran.stderr
    workers = [int(pid) for pid in ran.stdout.split()]
    assert len(workers) == 2
    ends = time.monotonic() + 15
    while any(_running(pid) for pid in workers) and time.monotonic() < ends:
        time.sleep(0.2)
    assert not any(_running(pid) for pid in workers)


def _running(pid: int) -> bool:
    """Alive, not a zombie waiting for whoever adopted it to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _failed_start(worker) -> None:
    from concurrent.futures import Future

    failed: Future[bool] = Future()
    failed.set_exception(RuntimeError("no interpreter"))
    worker.started = failed


def test_a_process_that_failed_to_start_is_replaced_at_most_once_per_backoff(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aurra_core.runtime import worker_processes as processes_module

    classifier = ProcessRulesClassifier(WorkerProcesses(1), limit_s=10.0)
    replaced: list = []
    try:
        first = classifier.processes.workers[0]
        _failed_start(first)
        lisbon = _candidate("User lives in Lisbon")
        classifier.classify("User moved to Porto", "location", [lisbon], "rules")
        second = classifier.processes.workers[0]
        replaced += [first, second]
        assert second is not first
        # Its replacement fails too: within the backoff it is skipped, not replaced at every
        # classification (one new process per write); the caller's thread classifies meanwhile.
        _failed_start(second)
        for _ in range(3):
            result = classifier.classify("User moved to Porto", "location", [lisbon], "rules")
            assert result.verdicts[0].verdict.value == "contradicts"
        assert classifier.processes.workers[0] is second
        monkeypatch.setattr(processes_module, "RESTART_AFTER_S", 0.0)
        classifier.classify("User moved to Porto", "location", [lisbon], "rules")
        assert classifier.processes.workers[0] is not second
        classifier.processes.warm_up()
        assert classifier.processes.workers[0].ready
    finally:
        for worker in replaced:
            worker.pool.shutdown(wait=False, cancel_futures=True)
        classifier.processes.close()
