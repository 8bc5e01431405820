"""`aurra export` and `aurra import`: a tenant's memories out of and into Aurra through the public
API (the SDK, AURRA_BASE_URL and AURRA_API_KEY), as docs/portability.md describes.

Export writes the NDJSON of GET /agent/export, response after response, to a file. After each
whole response it records, in FILE.cursor, the file's length and the cursor of the next one:
run again after an interruption, it cuts the file back to that length and goes on from there.

Import reads Aurra's own export (`aurra`) or a JSON Lines file of facts (`jsonl`), and writes
the facts with batch writes (POST /agent/memories/batch). Each batch's Idempotency-Key is made
of its place in the file and of its content, so an import run again after an interruption
replays the batches already stored (the service answers them from its record, without storing
them twice) and goes on with the rest.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

MAX_BATCH_FACTS = 100
# Under the API's 64 KiB body limit, with room for the envelope of the batch.
MAX_BATCH_BYTES = 60 * 1024
# The fields a fact of a batch takes (docs/api.md, POST /agent/memories/batch).
FACT_FIELDS = ("content", "topic", "valid_from", "metadata", "user_id", "agent_id")


class ImportFailed(Exception):
    """A file that cannot be imported as it is: the message names the line."""


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


# ---------------------------------------------------------------- reading a file


@dataclass
class Fact:
    """One fact to write, and where it came from (the line, for errors; the original memory
    id of an Aurra export, for its lineage)."""

    body: dict[str, Any]
    line: int
    original_id: str | None = None


@dataclass
class Plan:
    facts: list[Fact] = field(default_factory=list)
    # (original id superseded, original id that superseded it), for an Aurra export's lineages.
    links: list[tuple[str, str]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                yield number, json.loads(text)
            except ValueError as exc:
                raise ImportFailed(f"line {number}: not JSON ({exc})") from None


def plan_aurra(path: Path) -> Plan:
    """An Aurra export: each memory once, as its last version in the file says (its content,
    topic, scopes, metadata, valid time, expiry and source), the original id and first
    transaction time under `metadata.imported`; the supersessions between them as links."""
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    first_seen: dict[str, tuple[int, str]] = {}
    plan = Plan()
    for number, record in _lines(path):
        kind = record.get("kind") if isinstance(record, dict) else None
        if kind == "memory_version":
            memory_id = record["id"]
            first_seen.setdefault(memory_id, (number, record["recorded_at"]))
            latest[memory_id] = (number, record)
        elif kind is None:
            raise ImportFailed(f"line {number}: not a record of an Aurra export (no `kind`)")
        elif kind != "end":
            plan.skipped[kind] = plan.skipped.get(kind, 0) + 1
    for memory_id, (first_line, recorded_at) in sorted(first_seen.items(), key=lambda item: item[1][0]):
        _, record = latest[memory_id]
        metadata = dict(record.get("metadata") or {})
        imported: dict[str, Any] = {"id": memory_id, "recorded_at": recorded_at}
        if "imported" in metadata:  # an import of an import keeps the earlier origin
            imported["previous"] = metadata["imported"]
        metadata["imported"] = imported
        body = {k: record.get(k) for k in ("content", "topic", "valid_from", "user_id", "agent_id")}
        body["metadata"] = metadata
        source = record.get("source")
        if source:  # a conversation's message indexes and quote are the file's only
            body["source"] = {k: source.get(k) for k in ("type", "id", "uri") if source.get(k) is not None}
        if record.get("superseded_by") in latest:
            # Linked below, which ends it as the file says (an expiry sent too could make it
            # expired before the link, and an expired memory cannot be superseded).
            plan.links.append((memory_id, record["superseded_by"]))
        else:
            body["valid_to"] = record.get("valid_to")  # its own expiry (or an end outside the file)
        plan.facts.append(Fact({k: v for k, v in body.items() if v is not None}, first_line, memory_id))
    return plan


def plan_jsonl(path: Path) -> Plan:
    """A JSON Lines file of facts: {"content": ..., "topic"?, "valid_from"?, "metadata"?,
    "user_id"?, "agent_id"?} a line."""
    plan = Plan()
    for number, record in _lines(path):
        if not isinstance(record, dict) or not isinstance(record.get("content"), str):
            raise ImportFailed(f"line {number}: a fact is a JSON object with a string `content`")
        unknown = sorted(set(record) - set(FACT_FIELDS))
        if unknown:
            raise ImportFailed(
                f"line {number}: unknown field {unknown[0]!r} (a fact takes {', '.join(FACT_FIELDS)})"
            )
        plan.facts.append(Fact({k: v for k, v in record.items() if v is not None}, number))
    return plan


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
    links: int = 0
    links_failed: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


class _Progress:
    def __init__(self, total: int, stream: IO[str] | None) -> None:
        self.total, self.stream, self.done, self.start = total, stream, 0, time.monotonic()

    def add(self, n: int) -> None:
        self.done += n
        if self.stream is None:
            return
        elapsed = max(time.monotonic() - self.start, 1e-9)
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done:,}/{self.total:,} facts"
            f" ({self.done / elapsed:,.0f}/s)"
        )
        self.stream.flush()

    def close(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")


def import_file(
    client: Any,
    path: Path,
    *,
    fmt: str,
    auto_supersede: bool = False,
    workers: int = 1,
    progress: IO[str] | None = None,
) -> ImportReport:
    """Import `path` (`fmt` "aurra" or "jsonl") into the client's tenant. An Aurra export is
    always imported with Level 2 off: its lineages are the export's, linked afterwards."""
    from aurra.errors import APIStatusError, ValidationError

    started = time.monotonic()
    plan = plan_aurra(path) if fmt == "aurra" else plan_jsonl(path)
    if fmt == "aurra":
        auto_supersede = False
    report = ImportReport(facts=len(plan.facts), skipped=plan.skipped)
    groups = batches(plan.facts)
    bar = _Progress(len(plan.facts), progress)
    new_ids: dict[str, str] = {}

    def send(batch: list[Fact]) -> Any:
        try:
            return client.memories.add_batch(
                [f.body for f in batch],
                auto_supersede=auto_supersede,
                idempotency_key=batch_key(batch, auto_supersede),
            )
        except ValidationError as exc:
            raise ImportFailed(_where(exc, batch)) from None

    def record(batch: list[Fact], result: Any) -> None:
        for fact, written in zip(batch, result.results, strict=True):
            report.created += bool(written.created)
            report.duplicates += not written.created
            if fact.original_id is not None:
                new_ids[fact.original_id] = written.memory.id
        bar.add(len(batch))

    try:
        # With Level 2 on, each batch must see the ones before it: one at a time.
        if workers <= 1 or auto_supersede:
            for batch in groups:
                record(batch, send(batch))
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="aurra-import") as pool:
                for batch, result in zip(groups, pool.map(send, groups), strict=True):
                    record(batch, result)
    finally:
        bar.close()
    for old, new in plan.links:
        if old not in new_ids or new not in new_ids:
            continue
        try:
            client.memories.supersede(
                new_ids[old], superseded_by=new_ids[new], idempotency_key=f"import-link:{old}:{new}"
            )
            report.links += 1
        except APIStatusError as exc:
            report.links_failed += 1
            if progress is not None:
                progress.write(f"lineage {old} -> {new} not linked: {exc}\n")
    report.seconds = time.monotonic() - started
    return report


def _where(exc: Any, batch: list[Fact]) -> str:
    """A batch's 422 as the lines of the file it names."""
    problems = []
    for detail in getattr(exc, "details", None) or []:
        field_name = str(detail.get("field", ""))
        problem = detail.get("problem", "")
        if field_name.startswith("facts[") and "]" in field_name:
            index = int(field_name[6 : field_name.index("]")])
            rest = field_name[field_name.index("]") + 1 :].lstrip(".")
            if 0 <= index < len(batch):
                problems.append(f"line {batch[index].line}: {rest or 'fact'}: {problem}")
                continue
        problems.append(f"{field_name}: {problem}")
    return "; ".join(problems) or str(exc)


def client_from_environment() -> Any:
    """The SDK's client on AURRA_BASE_URL with AURRA_API_KEY, as the SDK reads them."""
    from aurra import Aurra

    return Aurra(timeout=120)
