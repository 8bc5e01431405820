"""The server's worker processes beside the rules classifier's use (test_rules_processes.py): the
lexical embedder's batches and a batch's credential scans, each the same as in the caller's
thread; the caller's thread when no process is ready or one stopped; one set of processes for
all of them."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from aurra_core.classifiers.factory import create_classifier
from aurra_core.embedders import LexicalEmbedder, ReadInEnglish, create_embedder
from aurra_core.models import BatchWriteRequest
from aurra_core.runtime.config import ServiceConfig
from aurra_core.runtime.worker_processes import Worker, WorkerProcesses, worker_processes
from aurra_core.text_analysis import credentials
from aurra_core.write_path import redaction

TEXTS = [
    "User lives in Lisbon",
    "User switched from Vim to Emacs",
    "User's team has 12 engineers",
    "User said: ik ben verhuisd naar Leiden",
    "",
    "User pays $1,850 a month in rent",
]


@pytest.fixture
def processes() -> Iterator[WorkerProcesses]:
    started = WorkerProcesses(1)
    LexicalEmbedder(384, started)  # its imports asked for, then waited for
    started.warm_up()
    yield started
    started.close()


def _process_id(processes: WorkerProcesses) -> int:
    return next(iter(processes.workers[0].pool._processes))


def test_the_same_vectors_as_in_the_callers_thread(processes: WorkerProcesses) -> None:
    in_caller = ReadInEnglish(LexicalEmbedder(384))
    pooled = ReadInEnglish(LexicalEmbedder(384, processes))
    assert pooled.embed_many(TEXTS) == in_caller.embed_many(TEXTS)
    assert pooled.embed_many(TEXTS) == [in_caller.embed(text) for text in TEXTS]
    assert processes.workers[0].in_flight == 0


def test_the_batch_is_embedded_in_a_worker_process(
    processes: WorkerProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = LexicalEmbedder(384, processes)
    monkeypatch.setattr(LexicalEmbedder, "embed", lambda *_: pytest.fail("embedded in the caller's thread"))
    assert len(embedder.embed_many(TEXTS)) == len(TEXTS)


def test_no_process_ready_embeds_in_the_callers_thread(
    processes: WorkerProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Worker, "ready", property(lambda _: False))
    monkeypatch.setattr(processes.workers[0].pool, "submit", lambda *_: pytest.fail("sent to a process"))
    pooled = LexicalEmbedder(384, processes)
    assert pooled.embed_many(TEXTS) == LexicalEmbedder(384).embed_many(TEXTS)


def test_a_lost_process_loses_no_batch_and_is_replaced(processes: WorkerProcesses) -> None:
    lost = _process_id(processes)
    os.kill(lost, signal.SIGKILL)
    time.sleep(0.5)
    pooled = LexicalEmbedder(384, processes)
    assert pooled.embed_many(TEXTS) == LexicalEmbedder(384).embed_many(TEXTS)
    processes.warm_up()
    assert _process_id(processes) != lost
    assert processes.run(len, TEXTS) == len(TEXTS)  # the replacement takes work


def test_the_embedder_and_the_classifier_share_the_servers_processes() -> None:
    config = ServiceConfig(classifier="rules", embedder="local", classifier_processes=1)
    try:
        embedder = create_embedder(config)
        assert isinstance(embedder, ReadInEnglish) and isinstance(embedder.embedder, LexicalEmbedder)
        assert embedder.embedder.processes is create_classifier(config).processes  # type: ignore[attr-defined]
        alone = create_embedder(ServiceConfig(embedder="local"))
        assert alone.embedder.processes is None  # type: ignore[attr-defined]
    finally:
        worker_processes(1).close()
        worker_processes.cache_clear()


def test_a_batchs_credentials_are_found_in_a_worker_process(monkeypatch: pytest.MonkeyPatch) -> None:
    facts = [
        {"content": "my wifi password is Tr0ub4dor&3"},
        {"content": "User lives in Lisbon", "metadata": {"door_code": "4410"}},
        {"content": "the deploy token is ghp_Zq8rT2vLk9Xw3Hn6Yp1Fj4Bm7Cd0Gs5Ae2Ru for CI"},
        {"content": "User's team has 12 engineers"},
    ]
    batch = BatchWriteRequest.model_validate({"facts": facts})
    in_caller = redaction.screen_each(batch, "facts")
    assert [f.field for f in in_caller.found] == [
        "facts[0].content",
        "facts[1].metadata.door_code",
        "facts[2].content",
    ]
    monkeypatch.setattr(redaction, "get_config", lambda: ServiceConfig(classifier_processes=1))
    try:
        worker_processes(1).preload(credentials.__name__)
        worker_processes(1).warm_up()
        finds = credentials.find
        # a content scanned here would fail; a metadata string still is (its key is its context)
        monkeypatch.setattr(
            credentials,
            "find",
            lambda text: finds(text) if text.startswith("door code") else pytest.fail(text),
        )
        pooled = redaction.screen_each(batch, "facts")
        assert pooled == in_caller
        assert "[REDACTED:" in pooled.request.facts[0].content
    finally:
        worker_processes(1).close()
        worker_processes.cache_clear()


def test_a_process_that_does_not_answer_is_not_waited_for(
    processes: WorkerProcesses, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aurra_core.runtime import worker_processes as processes_module

    stopped = _process_id(processes)
    os.kill(stopped, signal.SIGSTOP)  # alive, answering nothing
    try:
        monkeypatch.setattr(processes_module, "ANSWER_WITHIN_S", 0.5)
        pooled = LexicalEmbedder(384, processes)
        assert pooled.embed_many(TEXTS) == LexicalEmbedder(384).embed_many(TEXTS)
        assert processes.workers[0].in_flight == 0
        processes.warm_up()
        assert _process_id(processes) != stopped  # replaced
    finally:
        os.kill(stopped, signal.SIGKILL)
