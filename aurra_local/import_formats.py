"""What `aurra import` reads: each format's file turned into facts to write (the body of a batch's
fact) and the supersessions to link between them, before anything is sent.

- `aurra`: Aurra's own export (docs/portability.md, "Leaving Aurra").
- `jsonl`: one fact a line, the fields of a batch's fact.
- `mem0`: Mem0's memories as `get_all` returns them (`id`, `memory`, `user_id`, `agent_id`,
  `run_id`, `metadata`, `categories`, `created_at`, `updated_at`, ...) and, when present, each
  memory's `history` entries (`memory_id`, `event` ADD/UPDATE/DELETE, `old_memory`,
  `new_memory`, `created_at`, `updated_at`): each value a memory held becomes a version, the
  next one superseding it at the time of the UPDATE; a DELETE is the last version's `valid_to`.
- `zep`: Zep / Graphiti entity edges (`uuid`, `fact`, `name`, `group_id`, `valid_at`,
  `invalid_at`, `created_at`, `expired_at`, `episodes`, `source_node_uuid`,
  `target_node_uuid`, `attributes`): `valid_at` is valid time, `invalid_at` its end; an edge
  Graphiti expired (`expired_at`) because a later edge invalidated it is superseded by that edge.

The original dates are the facts' valid time; what else the source said of a record is kept
under `metadata.imported`. The Mem0 and Zep files may be a JSON document (a list of records, or
an object holding them under `results`, `memories` or `edges`) or JSON Lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

# The fields a fact of a batch takes (docs/api.md, POST /agent/memories/batch).
FACT_FIELDS = ("content", "topic", "valid_from", "valid_to", "metadata", "user_id", "agent_id", "source")
# Source categories that name what Aurra's excluded topics hold: an import must not move a
# health or legal fact out of the topic the category gate keeps away from automatic supersession.
_SENSITIVE_TOPICS = {"health": "health_medical", "medical": "health_medical", "legal": "legal_status"}
# A Zep edge lists every episode that mentions it; the first ones are kept (metadata is 8 KiB).
_MAX_EPISODES_KEPT = 50
_ONE_MICROSECOND = timedelta(microseconds=1)


class ImportFailed(Exception):
    """A file that cannot be imported as it is: the message names the line."""


@dataclass
class Fact:
    """One fact to write, and where it came from (the line or record, for errors; the original
    id, for the supersessions to link)."""

    body: dict[str, Any]
    line: int
    original_id: str | None = None


@dataclass
class Plan:
    facts: list[Fact] = field(default_factory=list)
    # (original id superseded, original id that superseded it).
    links: list[tuple[str, str]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    # What the file's places are called in messages: lines of JSON Lines, records of a document.
    unit: str = "line"
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------- reading records


def _lines(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            try:
                yield number, json.loads(text)
            except ValueError as exc:
                raise ImportFailed(f"line {number}: not JSON ({exc})") from None


def _records(path: Path, plan: Plan, list_keys: tuple[str, ...]) -> Iterator[tuple[int, Any]]:
    """The records of a JSON document (a list, or an object holding one under `list_keys`),
    numbered from 1, or else the lines of a JSON Lines file."""
    with path.open(encoding="utf-8") as f:
        head = f.read(4096).lstrip()
    if head.startswith(("[", "{")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            document = None  # JSON Lines: several documents, one a line
        if isinstance(document, dict):
            document = next((document[k] for k in list_keys if isinstance(document.get(k), list)), None)
        if isinstance(document, list):
            plan.unit = "record"
            yield from enumerate(document, start=1)
            return
    yield from _lines(path)


def timestamp(value: Any, where: str) -> datetime | None:
    """A source's timestamp as an aware datetime. ISO 8601 with or without a zone (a time
    without one is read as UTC, as Mem0's history store writes it) and up to nanoseconds."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ImportFailed(f"{where}: not a timestamp: {value!r}")
    text = value.strip()
    # More than microseconds (Neo4j keeps nanoseconds): cut to what Python and PostgreSQL keep.
    text = re.sub(r"(\.\d{6})\d+", r"\1", text)
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ImportFailed(f"{where}: not a timestamp: {value!r}") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def rfc3339(value: datetime) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def topic_of(label: Any) -> str:
    """A source's category or relation name as an Aurra topic (`^[a-z0-9_]{1,64}$`)."""
    if not isinstance(label, str):
        return "general"
    topic = re.sub(r"[^a-z0-9]+", "_", label.casefold()).strip("_")[:64].strip("_")
    return _SENSITIVE_TOPICS.get(topic, topic) or "general"


def _scope_value(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _body(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


# ---------------------------------------------------------------- aurra and jsonl


def plan_aurra(path: Path) -> Plan:
    """An Aurra export: each memory once, as its last version in the file says (its content,
    topic, scopes, metadata, valid time and source), the original id, first transaction time
    and facts under `metadata.imported`; the supersessions between them as links."""
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
        # An expiry of its own, or the end of a supersession by a memory not in the file (an
        # export of one user's memories), stays an end; a supersession in the file is linked.
        if record.get("valid_to") and record.get("superseded_by") not in latest:
            body["valid_to"] = record["valid_to"]
        source = record.get("source")
        if isinstance(source, dict) and source.get("type") and source.get("id"):
            body["source"] = _body(type=source["type"], id=source["id"], uri=source.get("uri"))
        body["metadata"] = metadata
        plan.facts.append(Fact(_body(**body), first_line, memory_id))
        if record.get("superseded_by"):
            plan.links.append((memory_id, record["superseded_by"]))
    known = set(latest)
    plan.links = [(old, new) for old, new in plan.links if new in known]
    return plan


def plan_jsonl(path: Path) -> Plan:
    """A JSON Lines file of facts, one a line, each with the fields of a batch's fact."""
    plan = Plan()
    for number, record in _lines(path):
        if not isinstance(record, dict) or not isinstance(record.get("content"), str):
            raise ImportFailed(f"line {number}: a fact is a JSON object with a string `content`")
        unknown = sorted(set(record) - set(FACT_FIELDS))
        if unknown:
            raise ImportFailed(
                f"line {number}: unknown field {unknown[0]!r} (a fact takes {', '.join(FACT_FIELDS)})"
            )
        plan.facts.append(Fact(_body(**record), number))
    return plan


# ---------------------------------------------------------------- mem0


@dataclass
class _Mem0Version:
    content: str
    valid_from: datetime | None
    line: int
    event: dict[str, Any] | None = None


# Keys of a Mem0 record that are content (kept as the fact, or not kept at all: a history
# entry's `input` is the conversation it came from) or a search's, not the memory's.
_MEM0_NOT_KEPT = {"memory", "metadata", "history", "score", "input", "old_memory", "new_memory"}


def _mem0_event_time(entry: dict[str, Any], where: str) -> datetime | None:
    """When a history event happened: an ADD when the memory was created; an UPDATE or a
    DELETE at its `updated_at` (its `created_at` is the memory's creation)."""
    if str(entry.get("event", "")).upper() == "ADD":
        return timestamp(entry.get("created_at"), where)
    return timestamp(entry.get("updated_at"), where) or timestamp(entry.get("created_at"), where)


def plan_mem0(path: Path, *, user_id: str | None = None) -> Plan:
    """Mem0 memories and their history. `user_id`: the scope of records that name none."""
    plan = Plan()
    memories: dict[str, tuple[int, dict[str, Any]]] = {}
    history: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    order: dict[str, None] = {}
    for number, record in _records(path, plan, ("results", "memories")):
        where = f"{plan.unit} {number}"
        if isinstance(record, dict) and record.get("event") is not None and record.get("memory_id"):
            memory_id = str(record["memory_id"])
            history.setdefault(memory_id, []).append((number, record))
        elif isinstance(record, dict) and isinstance(record.get("memory"), str) and record.get("id"):
            memory_id = str(record["id"])
            memories[memory_id] = (number, record)
            for entry in record.get("history") or []:
                if isinstance(entry, dict):
                    history.setdefault(memory_id, []).append((number, entry))
        else:
            raise ImportFailed(
                f"{where}: not a Mem0 memory (`id`, `memory`) or history entry (`memory_id`, `event`)"
            )
        order.setdefault(memory_id)
    for memory_id in order:
        _plan_mem0_memory(plan, memory_id, memories.get(memory_id), history.get(memory_id, []), user_id)
    return plan


def _plan_mem0_memory(
    plan: Plan,
    memory_id: str,
    found: tuple[int, dict[str, Any]] | None,
    entries: list[tuple[int, dict[str, Any]]],
    default_user_id: str | None,
) -> None:
    line, memory = found if found is not None else (entries[0][0], {})
    where = f"{plan.unit} {line}"
    dated = [(_mem0_event_time(entry, f"{plan.unit} {n}"), n, entry) for n, entry in entries]
    # Mem0 lists a memory's history oldest first; a file put together by hand may not.
    dated.sort(key=lambda item: (item[0] is None, item[0] or datetime.min.replace(tzinfo=UTC), item[1]))
    versions: list[_Mem0Version] = []
    deleted: tuple[datetime | None, dict[str, Any]] | None = None
    for at, number, entry in dated:
        event = str(entry.get("event", "")).upper()
        if event == "ADD" and isinstance(entry.get("new_memory"), str):
            versions.append(_Mem0Version(entry["new_memory"], at, number, entry))
        elif event == "UPDATE" and isinstance(entry.get("new_memory"), str):
            if not versions and isinstance(entry.get("old_memory"), str):
                # The history starts mid-way: the value it replaced held since the memory's creation.
                created = timestamp(entry.get("created_at"), f"{plan.unit} {number}")
                versions.append(_Mem0Version(entry["old_memory"], created, number))
            versions.append(_Mem0Version(entry["new_memory"], at, number, entry))
        elif event == "DELETE":
            deleted = (at, entry)
        else:
            kind = f"mem0 {event or 'event'} entry"
            plan.skipped[kind] = plan.skipped.get(kind, 0) + 1
    text = memory.get("memory")
    if isinstance(text, str) and (not versions or versions[-1].content != text):
        # No history, or one that stops short of the memory's value: the value as get_all has it,
        # since the memory was created (no history) or last updated.
        since = memory.get("updated_at") if versions else memory.get("created_at")
        versions.append(_Mem0Version(text, timestamp(since or memory.get("created_at"), where), line))
    if not versions:
        plan.notes.append(f"{where}: Mem0 memory {memory_id} has no value to import (history without one)")
        return
    # A later version never starts before the one it replaces (Aurra refuses such a link).
    for earlier, later in pairwise(versions):
        if earlier.valid_from and later.valid_from and later.valid_from < earlier.valid_from:
            later.valid_from = earlier.valid_from

    kept = {k: v for k, v in memory.items() if k not in _MEM0_NOT_KEPT and v is not None}
    first_entry = next((e for _, _, e in dated), {})
    categories = memory.get("categories") or first_entry.get("categories")
    topic = topic_of(categories[0]) if isinstance(categories, list) and categories else "general"
    user = _scope_value(memory.get("user_id")) or _scope_value(first_entry.get("user_id")) or default_user_id
    metadata = memory.get("metadata") if isinstance(memory.get("metadata"), dict) else {}
    for index, version in enumerate(versions, start=1):
        imported: dict[str, Any] = {"from": "mem0", "id": memory_id, **kept}
        if len(versions) > 1:
            imported["version"], imported["versions"] = index, len(versions)
        if version.event is not None:
            imported["event"] = {
                k: v for k, v in version.event.items() if k not in _MEM0_NOT_KEPT and v is not None
            }
        valid_to = None
        if index == len(versions) and deleted is not None:
            deleted_at, entry = deleted
            imported["deleted"] = {
                k: v for k, v in entry.items() if k not in _MEM0_NOT_KEPT and v is not None
            }
            if deleted_at is None:
                plan.notes.append(
                    f"{where}: Mem0 memory {memory_id} was deleted at no given time: imported current"
                )
            elif version.valid_from is not None and deleted_at <= version.valid_from:
                valid_to = version.valid_from + _ONE_MICROSECOND  # deleted as it was written
            else:
                valid_to = deleted_at
        body = _body(
            content=version.content,
            topic=topic,
            valid_from=rfc3339(version.valid_from) if version.valid_from else None,
            valid_to=rfc3339(valid_to) if valid_to else None,
            metadata={**metadata, "imported": imported},
            user_id=user,
            agent_id=_scope_value(memory.get("agent_id")),
            source={"type": "mem0", "id": memory_id},
        )
        plan.facts.append(Fact(body, version.line, f"{memory_id}@{index}"))
        if index > 1:
            plan.links.append((f"{memory_id}@{index - 1}", f"{memory_id}@{index}"))


# ---------------------------------------------------------------- zep


@dataclass
class _Edge:
    line: int
    record: dict[str, Any]
    uuid: str
    group_id: str | None
    valid_from: datetime | None
    invalid_at: datetime | None
    expired_at: datetime | None
    created_at: datetime | None

    @property
    def nodes(self) -> set[Any]:
        return {self.record.get("source_node_uuid"), self.record.get("target_node_uuid")} - {None}


def plan_zep(path: Path, *, user_id: str | None = None) -> Plan:
    """Zep / Graphiti entity edges. `user_id`: the scope of edges that name no `group_id`."""
    plan = Plan()
    edges: list[_Edge] = []
    for number, record in _records(path, plan, ("edges", "results")):
        where = f"{plan.unit} {number}"
        uuid = record.get("uuid") or record.get("uuid_") if isinstance(record, dict) else None
        if not uuid or not isinstance(record.get("fact"), str):
            raise ImportFailed(f"{where}: not a Zep entity edge (`uuid`, `fact`)")
        created_at = timestamp(record.get("created_at"), where)
        edges.append(
            _Edge(
                number,
                record,
                str(uuid),
                _scope_value(record.get("group_id")) or user_id,
                timestamp(record.get("valid_at"), where) or created_at,
                timestamp(record.get("invalid_at"), where),
                timestamp(record.get("expired_at"), where),
                created_at,
            )
        )
    superseded_by = _zep_supersessions(edges)
    for edge in edges:
        record = edge.record
        valid_to = None
        if edge.uuid not in superseded_by:
            # Not replaced by an edge of the file: its own end of validity, else (expired with no
            # end given) when Graphiti stopped believing it.
            valid_to = edge.invalid_at or edge.expired_at
            if valid_to is not None and edge.valid_from is not None and valid_to <= edge.valid_from:
                valid_to = edge.valid_from + _ONE_MICROSECOND
        episodes = [e for e in record.get("episodes") or [] if isinstance(e, str)]
        imported = {
            k: v
            for k, v in record.items()
            if k not in ("fact", "fact_embedding", "episodes", "score", "uuid_") and v is not None
        }
        imported.update({"from": "zep", "uuid": edge.uuid})
        if episodes:
            imported["episodes"] = episodes[:_MAX_EPISODES_KEPT]
            if len(episodes) > _MAX_EPISODES_KEPT:
                imported["episodes_count"] = len(episodes)
        source = (
            {"type": "zep_episode", "id": episodes[0]} if episodes else {"type": "zep_edge", "id": edge.uuid}
        )
        body = _body(
            content=record["fact"],
            topic=topic_of(record.get("name")),
            valid_from=rfc3339(edge.valid_from) if edge.valid_from else None,
            valid_to=rfc3339(valid_to) if valid_to else None,
            metadata={"imported": imported},
            user_id=edge.group_id,
            source=source,
        )
        plan.facts.append(Fact(body, edge.line, edge.uuid))
    plan.links = [(old, new) for old, new in superseded_by.items()]
    return plan


def _zep_supersessions(edges: list[_Edge]) -> dict[str, str]:
    """Which edge replaced each edge Graphiti invalidated: an expired edge's `invalid_at` is the
    `valid_at` of the edge that contradicted it, an edge of the same graph about one of the
    same entities (the same relation from the same entity first). Each edge replaces at most
    one (an Aurra memory supersedes one); an edge with no such replacement keeps its end of
    validity as an expiry."""
    by_start: dict[tuple[str | None, datetime], list[_Edge]] = {}
    for edge in edges:
        if edge.valid_from is not None:
            by_start.setdefault((edge.group_id, edge.valid_from), []).append(edge)
    taken: set[str] = set()
    replaced: dict[str, str] = {}
    for old in sorted(edges, key=lambda e: (e.invalid_at or datetime.max.replace(tzinfo=UTC), e.line)):
        if old.expired_at is None or old.invalid_at is None:
            continue
        candidates = [
            new
            for new in by_start.get((old.group_id, old.invalid_at), [])
            if new.uuid != old.uuid and new.uuid not in taken and new.nodes & old.nodes
        ]
        if not candidates:
            continue

        def rank(new: _Edge, old: _Edge = old) -> tuple[int, int, int]:
            same_relation = new.record.get("name") == old.record.get("name")
            same_subject = new.record.get("source_node_uuid") == old.record.get("source_node_uuid")
            return (not same_relation, not same_subject, new.line)

        new = min(candidates, key=rank)
        taken.add(new.uuid)
        replaced[old.uuid] = new.uuid
    return replaced


PLANNERS = ("aurra", "jsonl", "mem0", "zep")


def plan_file(path: Path, fmt: str, *, user_id: str | None = None) -> Plan:
    if fmt == "aurra":
        return plan_aurra(path)
    if fmt == "jsonl":
        return plan_jsonl(path)
    if fmt == "mem0":
        return plan_mem0(path, user_id=user_id)
    if fmt == "zep":
        return plan_zep(path, user_id=user_id)
    raise ImportFailed(f"unknown format {fmt!r} (one of {', '.join(PLANNERS)})")
