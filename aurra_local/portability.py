"""`aurra export` and `aurra import`: a tenant's memories out of and into Aurra through the public
API (the SDK, AURRA_BASE_URL and AURRA_API_KEY), as docs/portability.md describes.

Export writes the NDJSON of GET /agent/export, response after response, to a file. After each
whole response it records, in FILE.cursor, the file's length and the cursor of the next one:
run again after an interruption, it cuts the file back to that length and goes on from there.

Import reads a file (import_formats.py: Aurra's own export, JSON Lines of facts, Mem0's
memories and history, Zep / Graphiti edges), writes its facts with batch writes (POST
/agent/memories/batch), then links the supersessions the file records (POST
/agent/memories/{id}/supersede). Each batch's Idempotency-Key is made of its place in the file
and of its content, and each link's of the two original ids, so an import run again after an
interruption replays what was already stored (the service answers from its record, without
storing twice) and goes on with the rest.

A large import announces itself first (POST /agent/imports; with Level 2, with its largest
scope): when the service defers the index, its memories enter none while they arrive, and at its end it asks for the tenant's own index (POST
/agent/imports/index) and waits for it (GET /agent/imports/index), which is built once over all
of them instead of being walked at every insert (docs/portability.md, "Speed").
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from aurra_local.import_formats import Fact, ImportFailed, Plan, plan_file

__all__ = ["ImportFailed", "ImportReport", "export_to_file", "import_file"]

MAX_BATCH_FACTS = 100
# Under the API's 64 KiB body limit, with room for the envelope of the batch.
MAX_BATCH_BYTES = 60 * 1024
# With Level 2 on, the scopes are dealt into this many lanes, sent side by side. A constant,
# not the number of workers: the batches, and so their Idempotency-Keys, are the same whatever
# --workers a run that resumes an interrupted one is given.
LEVEL2_LANES = 8
# How long an import waits, at most, for the tenant's own index it deferred (a build of 100,000
# memories takes seconds to a minute; of millions, longer: the import is complete, and its
# memories are searched exactly, before it).
INDEX_WAIT_S = 600.0
INDEX_POLL_S = 1.0


# ---------------------------------------------------------------- export


def export_to_file(
    client: Any,
    out: Path,
    *,
    user_id: str | None = None,
    limit: int | None = None,
    progress: IO[str] | None = None,
) -> int:
    """The tenant's export into `out`; returns the number of records written. Resumes an
    interrupted export of the same file (FILE.cursor)."""
    checkpoint = out.with_name(out.name + ".cursor")
    cursor: str | None = None
    records = 0
    if checkpoint.exists() and out.exists():
        state = json.loads(checkpoint.read_text())
        cursor, length, records = state["cursor"], state["length"], state["records"]
        with out.open("r+b") as f:
            f.truncate(length)
        mode = "ab"
    else:
        mode = "wb"
    with out.open(mode) as f:
        while True:
            page = client.export_page(user_id=user_id, limit=limit, cursor=cursor)
            for record in page.records:
                f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
            records += len(page.records)
            if page.next_cursor is None:
                f.write(b'{"kind":"end","next_cursor":null}\n')
                break
            cursor = page.next_cursor
            f.flush()
            checkpoint.write_text(json.dumps({"cursor": cursor, "length": f.tell(), "records": records}))
            if progress is not None:
                progress.write(f"\rexported {records:,} records")
                progress.flush()
    checkpoint.unlink(missing_ok=True)
    if progress is not None:
        progress.write(f"\rexported {records:,} records\n")
    return records


# ---------------------------------------------------------------- writing


def batches(facts: list[Fact]) -> list[list[Fact]]:
    """Facts in file order, at most MAX_BATCH_FACTS and MAX_BATCH_BYTES of JSON a batch."""
    out: list[list[Fact]] = []
    current: list[Fact] = []
    size = 0
    for fact in facts:
        fact_size = len(json.dumps(fact.body, ensure_ascii=False, separators=(",", ":")).encode()) + 1
        if current and (len(current) >= MAX_BATCH_FACTS or size + fact_size > MAX_BATCH_BYTES):
            out.append(current)
            current, size = [], 0
        current.append(fact)
        size += fact_size
    if current:
        out.append(current)
    return out


def batch_key(batch: list[Fact], auto_supersede: bool) -> str:
    """The batch's Idempotency-Key: its first line in the file and a digest of what it sends."""
    digest = hashlib.sha256(
        json.dumps([f.body for f in batch] + [auto_supersede], sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    return f"import:{batch[0].line}:{digest[:40]}"


@dataclass
class ImportReport:
    facts: int = 0
    created: int = 0
    duplicates: int = 0
    # memories a fact's Level 2 superseded as it was written (--auto-supersede)
    superseded: int = 0
    links: int = 0
    links_failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # Where the import's memories are indexed at its end ("own", "shared", or "deferred" /
    # "building" when the wait for the tenant's own index ran out), and how long the wait took.
    indexing: str | None = None
    index_deferred: bool = False
    index_seconds: float = 0.0


class _Progress:
    """A bar on a terminal; nothing when the stream is None (not a terminal: a log or a pipe)."""

    def __init__(self, total: int, stream: IO[str] | None, what: str = "facts") -> None:
        self.total, self.stream, self.what = total, stream, what
        self.done, self.start = 0, time.monotonic()

    def add(self, n: int) -> None:
        self.done += n
        if self.stream is None:
            return
        elapsed = max(time.monotonic() - self.start, 1e-9)
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done:,}/{self.total:,} {self.what}"
            f" ({self.done / elapsed:,.0f}/s)"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.total:
            self.stream.write("\n")


def application_order(facts: list[Fact]) -> list[Fact]:
    """With Level 2 on, each fact must be compared with what was true before it: a scope's
    facts in `valid_from` order (a fact without one is valid from the import's time, so last),
    ties in the file's order."""
    return sorted(
        facts,
        key=lambda f: (f.body.get("valid_from") is None, _instant(f.body.get("valid_from")), f.line),
    )


def _scope_of(fact: Fact) -> str:
    return json.dumps([fact.body.get("user_id"), fact.body.get("agent_id")])


def largest_scope(plan: Plan) -> int:
    """The most facts of the plan in any one scope (user and agent)."""
    return max(Counter(_scope_of(fact) for fact in plan.facts).values(), default=0)


def level2_lanes(plan: Plan) -> list[list[Fact]]:
    """With Level 2 on, the facts dealt into lanes by scope (user and agent). A fact's
    candidates are only ever of its own scope (docs/api.md), so lanes never see each other's
    facts: they can be sent side by side, while within a lane one batch follows another. A
    lane holds its scopes one after the other, in the order the file first names them, each
    in valid-time order: a scope's facts sent together find its memories' readings still in
    the classifier's caches, each compared with those before it (interleaved with a thousand
    other scopes, they were read anew: twice the classifier's CPU, bench/notes/portability.md)."""
    lanes: list[dict[str, list[Fact]]] = [{} for _ in range(LEVEL2_LANES)]
    for fact in plan.facts:
        scope = _scope_of(fact)
        lane = lanes[hashlib.sha256(scope.encode()).digest()[0] % LEVEL2_LANES]
        lane.setdefault(scope, []).append(fact)
    return [[f for scope in lane.values() for f in application_order(scope)] for lane in lanes if lane]


def _instant(value: Any) -> float:
    from datetime import datetime

    return datetime.fromisoformat(value).timestamp() if isinstance(value, str) else 0.0


def import_file(
    client: Any,
    path: Path,
    *,
    fmt: str,
    auto_supersede: bool = False,
    workers: int = 1,
    progress: IO[str] | None = None,
    user_id: str | None = None,
    index_wait_s: float = INDEX_WAIT_S,
) -> ImportReport:
    """Import `path` (`fmt`: aurra, jsonl, mem0 or zep) into the client's tenant, `workers`
    batches in flight. An Aurra export is always imported with Level 2 off: its lineages are
    the export's. With `auto_supersede`, each scope's facts are sent in valid-time order, one
    batch after the other (level2_lanes). A deferred index (`announce`) is waited for at most
    `index_wait_s` seconds at the end (0: not waited for)."""
    started = time.monotonic()
    plan = plan_file(path, fmt, user_id=user_id)
    if fmt == "aurra":
        auto_supersede = False
    report = ImportReport(facts=len(plan.facts), skipped=plan.skipped, notes=plan.notes)
    deferred = bool(plan.facts) and _announce(client, plan, auto_supersede, report)
    # Each lane's batches go one after the other; lanes go side by side. Level 2 off, every
    # batch is a lane of its own.
    if auto_supersede:
        lanes = [batches(lane) for lane in level2_lanes(plan)]
    else:
        lanes = [[batch] for batch in batches(plan.facts)]
    bar = _Progress(len(plan.facts), progress)
    new_ids: dict[str, str] = {}
    lock = threading.Lock()
    failed = threading.Event()

    def send(batch: list[Fact]) -> Any:
        from aurra.errors import ValidationError

        try:
            return client.memories.add_batch(
                [f.body for f in batch],
                auto_supersede=auto_supersede,
                idempotency_key=batch_key(batch, auto_supersede),
            )
        except ValidationError as exc:
            raise ImportFailed(_where(exc, batch, plan.unit)) from None

    def record(batch: list[Fact], result: Any) -> None:
        with lock:
            for fact, written in zip(batch, result.results, strict=True):
                report.created += bool(written.created)
                report.duplicates += not written.created
                report.superseded += written.auto_supersede.supersession is not None
                if fact.original_id is not None:
                    new_ids[fact.original_id] = written.memory.id
            bar.add(len(batch))

    def run_lane(lane: list[list[Fact]]) -> None:
        for batch in lane:
            if failed.is_set():  # another lane failed: stop here, a run again goes on
                return
            try:
                record(batch, send(batch))
            except BaseException:
                failed.set()
                raise

    try:
        if workers <= 1:
            for lane in lanes:
                run_lane(lane)
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="aurra-import") as pool:
                for done in [pool.submit(run_lane, lane) for lane in lanes]:
                    done.result()
    finally:
        bar.close()
    _link(client, plan, new_ids, report, workers, progress)
    if deferred:
        report.index_deferred = True
        index_started = time.monotonic()
        report.indexing = _build_index(client, index_wait_s, progress)
        report.index_seconds = time.monotonic() - index_started
    report.seconds = time.monotonic() - started
    return report


def _announce(client: Any, plan: Plan, auto_supersede: bool, report: ImportReport) -> bool:
    """Tell the service the plan's import starts; whether its index is deferred. With Level 2,
    it also says its largest scope, which lets the service defer the index when no scope will
    need one. A service without the announcement (an older one) indexes as it goes; one that
    does not know `largest_scope` is asked without it."""
    from aurra.errors import NotFoundError, ValidationError

    facts = len(plan.facts)
    try:
        if auto_supersede:
            try:
                answer = client.imports.announce(
                    facts, auto_supersede=True, largest_scope=largest_scope(plan)
                )
            except ValidationError:
                answer = client.imports.announce(facts, auto_supersede=True)
        else:
            answer = client.imports.announce(facts)
    except NotFoundError:
        return False
    report.indexing = answer.indexing
    return answer.indexing in ("deferred", "building")


def _build_index(client: Any, wait_s: float, progress: IO[str] | None) -> str:
    """Ask for the tenant's own index and wait for it, at most `wait_s` seconds: where the
    tenant's memories are indexed when the wait ends."""
    state = client.imports.build_index().indexing
    deadline = time.monotonic() + wait_s
    if progress is not None and state in ("deferred", "building"):
        progress.write("building the tenant's search index...\n")
        progress.flush()
    while state in ("deferred", "building") and time.monotonic() < deadline:
        time.sleep(INDEX_POLL_S)
        state = client.imports.indexing().indexing
    return str(state)


def _link(
    client: Any,
    plan: Plan,
    new_ids: dict[str, str],
    report: ImportReport,
    workers: int,
    progress: IO[str] | None,
) -> None:
    """The file's supersessions between the memories written: each a manual supersession with
    `superseded_by` (the older memory's valid_to becomes the newer one's valid_from). Links of
    different lineages are independent, so several go at once."""
    from aurra.errors import APIStatusError, ConflictError

    pairs = [
        (old, new)
        for old, new in plan.links
        if old in new_ids and new in new_ids and new_ids[old] != new_ids[new]
    ]

    def link(pair: tuple[str, str]) -> str | None:
        old, new = pair
        try:
            client.memories.supersede(
                new_ids[old], superseded_by=new_ids[new], idempotency_key=_link_key(old, new)
            )
        except ConflictError as exc:
            # Already so (automatic supersession, with --auto-supersede, made the same link).
            if client.memories.get(new_ids[old]).superseded_by == new_ids[new]:
                return None
            return f"supersession {old} -> {new} not linked: {exc}"
        except APIStatusError as exc:
            return f"supersession {old} -> {new} not linked: {exc}"
        return None

    bar = _Progress(len(pairs), progress, "supersessions")
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="aurra-link") as pool:
        for failure in pool.map(link, pairs):
            bar.add(1)
            if failure is None:
                report.links += 1
            else:
                report.links_failed += 1
                report.notes.append(failure)
    bar.close()


def _link_key(old: str, new: str) -> str:
    """A link's Idempotency-Key: its two original ids (a digest when they are long)."""
    key = f"import-link:{old}:{new}"
    return key if len(key) <= 128 else "import-link:" + hashlib.sha256(f"{old}:{new}".encode()).hexdigest()


def _where(exc: Any, batch: list[Fact], unit: str = "line") -> str:
    """A batch's 422 as the lines (or records) of the file it names."""
    problems = []
    for detail in getattr(exc, "details", None) or []:
        field_name = str(detail.get("field", ""))
        problem = detail.get("problem", "")
        if field_name.startswith("facts[") and "]" in field_name:
            index = int(field_name[6 : field_name.index("]")])
            rest = field_name[field_name.index("]") + 1 :].lstrip(".")
            if 0 <= index < len(batch):
                problems.append(f"{unit} {batch[index].line}: {rest or 'fact'}: {problem}")
                continue
        problems.append(f"{field_name}: {problem}")
    return "; ".join(problems) or str(exc)


def client_from_environment() -> Any:
    """The SDK's client on AURRA_BASE_URL with AURRA_API_KEY, as the SDK reads them."""
    from aurra import Aurra

    return Aurra(timeout=120)
