"""`aurra eval --conversations`: memory from real conversations, end to end.

Each profile of the labeled set (`evals/conversations.jsonl`) is one end user talking over
several sessions. The profile gets a tenant of its own; each session, in order, is sent as a
messages write (`service.write_memory`, what POST /agent/memories with `messages` calls) with
its `valid_from`, the profile's `user_id` and `auto_supersede` on, Level 2 on, and the
extractor and classifier asked for. After the last session:

- update tests: an update is right when some current memory of the user contains one of its
  `new` strings, no current memory is stale (contains one of `old` and none of `new`), and a
  search for its `question` (`service.list_memories` with `q`, what GET /agent/memories?q=
  calls) ranks a memory containing a `new` string in the top 3. "Old value still current" is
  the share of updates with a stale memory. Strings match case-insensitively, as substrings,
  after the service's own folding of punctuation (`fold`).
- extraction: per session, the expected facts against the facts the write returned (a fact
  rejected as a duplicate is the memory it restates), matched by `aurra eval --extraction`'s
  rule (`evaluate_extraction.pair_up`).
- forbidden facts: stored memories of the user (current or superseded) that contain a
  `forbidden` string, each memory counted once.
- medical/legal violations: expected `health_medical` / `legal_status` facts whose matched
  stored memory has another topic (`evaluate_extraction.Judged.gate_violations`).
- value-swap recall: the share of right updates among those of kind count, time, day, amount,
  version and place.
- dependents: whether a current memory matching a dependent fact (the same matching rule) is
  flagged for review once the value it leaned on changed: an open `dependency_proposed` event
  names it, as a read with `possibly_stale` says (`is_flagged`). The flags' other side: current
  memories flagged that match none of the profile's dependents (a set's writer may not have
  listed every fact that leaned on a changed value, so this bounds the wrong flags from above).

It is a measurement: the targets are reported beside the figures, met or missed, and the
command exits 0 either way.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aurra_core.models import Caller, Memory, MemoryListQuery, MessagesWriteResult, WriteBody
from aurra_core.text_analysis.text import fold
from aurra_local.evaluate_extraction import SENSITIVE, Judged, match_score, pair_up, precision_recall

VALUE_SWAP_KINDS = frozenset({"count", "time", "day", "amount", "version", "place"})
SEARCH_TOP = 3
LIST_PAGE = 100
# (figure, what it is, comparison, target)
TARGETS: tuple[tuple[str, str, str, float], ...] = (
    ("update_right_rate", "update tests right", ">=", 0.80),
    ("old_value_current_rate", "old value still current", "<=", 0.05),
    ("extraction_recall", "extraction recall", ">=", 0.85),
    ("forbidden_facts", "forbidden facts", "<=", 0),
    ("medical_legal_violations", "medical/legal violations", "<=", 0),
    ("value_swap_recall", "value-swap recall", ">=", 0.75),
)
DEPENDENTS_NOTE = (
    "a dependent is flagged when an open dependency_proposed event names its current memory "
    "(read with possibly_stale)"
)


def load_profiles(path: Path) -> list[dict[str, Any]]:
    """One profile per line; a line that is not a profile is a ValueError naming it."""
    profiles = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            profile = json.loads(line)
        except json.JSONDecodeError:
            profile = None
        if not isinstance(profile, dict) or not isinstance(profile.get("sessions"), list):
            raise ValueError(f"{path}:{number}: not a conversation profile (a JSON object with sessions)")
        profiles.append(profile)
    return profiles


def contains(text: str, strings: list[str]) -> bool:
    folded = fold(text)
    return any(fold(s) in folded for s in strings)


def is_flagged(memory: Memory) -> bool:
    """Whether the service has flagged this memory for review because a fact it leaned on
    changed: an open `dependency_proposed` event names it, as a read with `possibly_stale`
    says."""
    return bool(memory.possibly_stale)


@dataclass
class UpdateCheck:
    update: dict[str, Any]
    new_current: bool  # some current memory holds a new value
    stale: bool  # some current memory holds an old value and no new one
    found_by_search: bool  # the question's search ranks a new value in the top 3
    # Every stale memory is one of the profile's dependents: a fact that leaned on the old
    # value and is to be flagged, not replaced (it counts as stale all the same).
    stale_only_in_dependents: bool = False

    @property
    def right(self) -> bool:
        return self.new_current and not self.stale and self.found_by_search

    @property
    def value_swap(self) -> bool:
        return self.update["kind"] in VALUE_SWAP_KINDS

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.update["question"],
            "kind": self.update["kind"],
            "right": self.right,
            "new_current": self.new_current,
            "old_value_current": self.stale,
            "old_value_only_in_dependents": self.stale_only_in_dependents,
            "found_by_search": self.found_by_search,
        }


@dataclass
class ProfileResult:
    profile: dict[str, Any]
    sessions: list[Judged] = field(default_factory=list)
    updates: list[UpdateCheck] = field(default_factory=list)
    forbidden: list[dict[str, Any]] = field(default_factory=list)  # memory, strings it holds
    dependents: list[dict[str, Any]] = field(default_factory=list)  # content, current, flagged
    # Current memories flagged for review that match none of the profile's dependents.
    flagged_other: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.profile["id"],
            "category": self.profile["category"],
            "updates": [u.as_dict() for u in self.updates],
            "forbidden_facts": self.forbidden,
            "medical_legal_violations": [v for j in self.sessions for v in j.gate_violations()],
            "missed": [
                e["content"]
                for j in self.sessions
                for k, e in enumerate(j.expected)
                if k not in {b for _, b in j.pairs}
            ],
            "extra": [
                p["content"]
                for j in self.sessions
                for k, p in enumerate(j.predicted)
                if k not in {a for a, _ in j.pairs}
            ],
            "dependents": self.dependents,
            "flagged_other": self.flagged_other,
            "current_memories": self.current,
            "errors": self.errors,
        }


@contextmanager
def pipeline(classifier: str, extractor: str) -> Iterator[None]:
    """The service as a messages write runs it, with Level 2 on and these models; the
    environment as it was afterwards."""
    from aurra_core import service
    from aurra_core.runtime.observability import logger

    overrides = {
        "AURRA_CLASSIFIER": classifier,
        "AURRA_EXTRACTOR": extractor,
        "AURRA_LEVEL2_ENABLED": "true",
        "AURRA_FLAG_SOURCE": "env",
    }
    saved = {name: os.environ.get(name) for name in overrides}
    os.environ.update(overrides)
    service.reset(database=False)
    # A failed write is in the report (`errors`); its warning on stdout would break --json.
    level = logger.log_level
    logger.setLevel("ERROR")
    try:
        yield
    finally:
        logger.setLevel(level)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        service.reset(database=False)


def _new_tenant(profile_id: str) -> Caller:
    from aurra_core.access import keys
    from aurra_core.storage.db import get_database

    with get_database().transaction() as conn:
        caller, _ = keys.create_key(conn, f"convos-{profile_id}-{uuid.uuid4().hex[:8]}")
    return caller


def _memories(
    caller: Caller, user_id: str, *, include_superseded: bool, possibly_stale: bool = False
) -> list[Memory]:
    """Every memory of the user, page by page, as GET /agent/memories lists them."""
    from aurra_core import service

    out: list[Memory] = []
    cursor = None
    while True:
        page = service.list_memories(
            caller,
            MemoryListQuery(
                user_id=user_id,
                include_superseded=include_superseded,
                possibly_stale=possibly_stale,
                limit=LIST_PAGE,
                cursor=cursor,
            ),
        )
        out.extend(page.memories)
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


def _write(caller: Caller, profile: dict[str, Any], session: dict[str, Any]) -> MessagesWriteResult:
    from aurra_core import service

    # The body of POST /agent/memories, as an agent would send the session.
    body = WriteBody.model_validate(
        {
            "messages": session["messages"],
            "valid_from": session["valid_from"],
            "user_id": profile["user_id"],
            "auto_supersede": True,
        }
    )
    _, result = service.write_memory(caller, body)
    assert isinstance(result, MessagesWriteResult)
    return result


def judge_profile(profile: dict[str, Any]) -> ProfileResult:
    from aurra_core import service

    caller = _new_tenant(profile["id"])
    user_id = profile["user_id"]
    result = ProfileResult(profile)
    for number, session in enumerate(profile["sessions"], 1):
        case = {"id": f"{profile['id']}/{number}", "category": profile["category"], "facts": session["facts"]}
        try:
            written = _write(caller, profile, session)
        except Exception as exc:  # noqa: BLE001 - an eval reports a failed write and goes on
            cause = f" ({type(exc.__cause__).__name__}: {exc.__cause__})" if exc.__cause__ else ""
            result.errors.append(f"session {number}: {type(exc).__name__}: {exc}{cause}"[:400])
            result.sessions.append(Judged(case, [], [], error=str(exc)))
            continue
        predicted = [{"content": f.memory.content, "topic": f.memory.topic} for f in written.facts]
        pairs = pair_up([p["content"] for p in predicted], [e["content"] for e in session["facts"]])
        result.sessions.append(Judged(case, predicted, pairs))

    current = _memories(caller, user_id, include_superseded=False, possibly_stale=True)
    result.current = [m.content for m in current]
    dependents = [d["content"] for d in profile.get("dependents", [])]
    for update in profile["updates"]:
        new, old = update["new"], update["old"]
        hits = service.list_memories(
            caller, MemoryListQuery(q=update["question"], user_id=user_id, limit=SEARCH_TOP)
        ).memories
        stale = [m for m in current if contains(m.content, old) and not contains(m.content, new)]
        result.updates.append(
            UpdateCheck(
                update,
                new_current=any(contains(m.content, new) for m in current),
                stale=bool(stale),
                found_by_search=any(contains(m.content, new) for m in hits[:SEARCH_TOP]),
                stale_only_in_dependents=bool(stale)
                and all(any(match_score(m.content, d) > 0 for d in dependents) for m in stale),
            )
        )

    for memory in _memories(caller, user_id, include_superseded=True):
        held = [s for s in profile.get("forbidden", []) if contains(memory.content, [s])]
        if held:
            result.forbidden.append({"content": memory.content, "status": memory.status, "strings": held})

    for dependent in profile.get("dependents", []):
        matching = [m for m in current if match_score(m.content, dependent["content"]) > 0]
        result.dependents.append(
            {
                "content": dependent["content"],
                "on": dependent["on"],
                "current": bool(matching),
                "flagged": any(is_flagged(m) for m in matching),
            }
        )
    result.flagged_other = [
        m.content
        for m in current
        if is_flagged(m) and not any(match_score(m.content, d) > 0 for d in dependents)
    ]
    return result


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def figures(results: list[ProfileResult]) -> dict[str, Any]:
    updates = [u for r in results for u in r.updates]
    swaps = [u for u in updates if u.value_swap]
    sessions = [j for r in results for j in r.sessions]
    dependents = [d for r in results for d in r.dependents]
    extraction = precision_recall(sessions)
    right = sum(u.right for u in updates)
    stale = sum(u.stale for u in updates)
    swaps_right = sum(u.right for u in swaps)
    return {
        "profiles": len(results),
        "sessions": len(sessions),
        "write_errors": sum(len(r.errors) for r in results),
        "updates": len(updates),
        "updates_right": right,
        "update_right_rate": _rate(right, len(updates)),
        "old_value_current": stale,
        "old_value_current_rate": _rate(stale, len(updates)),
        "old_value_only_in_dependents": sum(u.stale_only_in_dependents for u in updates),
        "new_value_current": sum(u.new_current for u in updates),
        "new_value_found_by_search": sum(u.found_by_search for u in updates),
        "extraction": extraction,
        "extraction_recall": extraction["recall"],
        "forbidden_facts": sum(len(r.forbidden) for r in results),
        "medical_legal_expected": sum(1 for j in sessions for e in j.expected if e["topic"] in SENSITIVE),
        "medical_legal_violations": sum(len(j.gate_violations()) for j in sessions),
        "value_swaps": len(swaps),
        "value_swaps_right": swaps_right,
        "value_swap_recall": _rate(swaps_right, len(swaps)),
        "dependents": len(dependents),
        "dependents_current": sum(d["current"] for d in dependents),
        "dependents_flagged": sum(d["flagged"] for d in dependents),
        "other_memories_flagged": sum(len(r.flagged_other) for r in results),
    }


def _met(value: float | None, comparison: str, target: float) -> bool | None:
    """None when there is nothing to measure (no update of that kind)."""
    if value is None:
        return None
    return value >= target if comparison == ">=" else value <= target


def targets(overall: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for name, label, comparison, target in TARGETS:
        value = overall[name]
        met = _met(value, comparison, target)
        shown = f"{comparison} {target:.2f}" if isinstance(target, float) else f"{comparison} {target}"
        out.append({"figure": name, "label": label, "value": value, "target": shown, "met": met})
    return out


@dataclass
class ConversationsReport:
    extractor: str
    classifier: str
    embedder: str
    results: list[ProfileResult]
    seconds: float
    dataset: str = ""

    def as_dict(self, *, details: bool = True) -> dict[str, Any]:
        by_category: dict[str, list[ProfileResult]] = defaultdict(list)
        for r in self.results:
            by_category[r.profile["category"]].append(r)
        overall = figures(self.results)
        checked = targets(overall)
        report: dict[str, Any] = {
            "dataset": self.dataset,
            "extractor": self.extractor,
            "classifier": self.classifier,
            "embedder": self.embedder,
            "level2_enabled": True,
            "seconds": round(self.seconds, 1),
            "overall": overall,
            "targets": checked,
            "missed_targets": [t["figure"] for t in checked if t["met"] is False],
            "dependents_note": DEPENDENTS_NOTE,
            # In the file's order of first appearance.
            "per_category": {name: figures(items) for name, items in by_category.items()},
        }
        if details:
            report["details"] = [r.as_dict() for r in self.results]
        return report


def evaluate(
    profiles: list[dict[str, Any]], *, classifier: str = "rules", extractor: str = "rules", dataset: str = ""
) -> ConversationsReport:
    """Every profile through the real service, each in a tenant of its own (AURRA_DATABASE_URL
    must name a migrated database)."""
    from aurra_core.runtime.config import get_config

    started = time.perf_counter()
    with pipeline(classifier, extractor):
        embedder = get_config().embedder
        results = [judge_profile(profile) for profile in profiles]
    return ConversationsReport(
        extractor, classifier, embedder, results, time.perf_counter() - started, dataset
    )


def _figure(value: float | None, part: int | None = None, whole: int | None = None) -> str:
    if value is None:
        return "-"
    shown = str(value) if isinstance(value, int) else f"{value:.3f}"
    return f"{shown} ({part}/{whole})" if part is not None else shown


def _cell(rate: float | None, count: int) -> str:
    """A rate over `count` items, or '-' when there are none."""
    return f"{'-':>5} ({count:>2})" if rate is None else f"{rate:>5.2f} ({count:>2})"


def _first_error(d: dict[str, Any]) -> list[str]:
    errors = [f"{p['id']} {e}" for p in d.get("details", []) for e in p["errors"]]
    return errors[:1]


def format_report(d: dict[str, Any]) -> str:
    o = d["overall"]
    x = o["extraction"]
    by_name = {t["figure"]: t for t in d["targets"]}

    def row(label: str, figure: str, name: str | None = None) -> str:
        if name is None:
            return f"  {label:<34}{figure}"
        t = by_name[name]
        verdict = {True: "met", False: "MISSED", None: "-"}[t["met"]]
        return f"  {label:<34}{figure:<18}{t['target']:<10}{verdict}"

    lines = [
        f"conversations {d['dataset']}: {o['profiles']} profiles, {o['sessions']} sessions, "
        f"{o['updates']} update tests",
        f"extractor {d['extractor']}, classifier {d['classifier']}, embedder {d['embedder']}, "
        f"Level 2 on, auto_supersede on; {d['seconds']} s; write errors {o['write_errors']}",
        *[f"first write error: {e}" for e in _first_error(d)],
        "",
        f"  {'overall':<34}{'figure':<18}{'target':<10}",
        row(
            "update tests right",
            _figure(o["update_right_rate"], o["updates_right"], o["updates"]),
            "update_right_rate",
        ),
        row("  a new value current", f"{o['new_value_current']}/{o['updates']}"),
        row("  a new value in search top 3", f"{o['new_value_found_by_search']}/{o['updates']}"),
        row(
            "old value still current",
            _figure(o["old_value_current_rate"], o["old_value_current"], o["updates"]),
            "old_value_current_rate",
        ),
        row("  only in dependent facts", f"{o['old_value_only_in_dependents']}/{o['updates']}"),
        row("extraction recall", _figure(x["recall"], x["matched"], x["expected"]), "extraction_recall"),
        row("extraction precision", _figure(x["precision"], x["matched"], x["predicted"])),
        row("forbidden facts", str(o["forbidden_facts"]), "forbidden_facts"),
        row(
            "medical/legal violations",
            f"{o['medical_legal_violations']} (of {o['medical_legal_expected']})",
            "medical_legal_violations",
        ),
        row(
            "value-swap recall",
            _figure(o["value_swap_recall"], o["value_swaps_right"], o["value_swaps"]),
            "value_swap_recall",
        ),
        row("dependents flagged", f"{o['dependents_flagged']} of {o['dependents']}"),
        f"  ({d['dependents_note']}; {o['dependents_current']} of {o['dependents']} still current)",
        row("  other memories flagged", str(o["other_memories_flagged"])),
        "",
        f"  {'per category':<28}{'profiles':>8}{'right':>11}{'old current':>12}{'recall':>8}"
        f"{'precision':>10}{'forbidden':>10}{'med/legal':>10}{'value swaps':>12}",
    ]
    for name, c in d["per_category"].items():
        lines.append(
            f"  {name:<28}{c['profiles']:>8}{_cell(c['update_right_rate'], c['updates']):>11}"
            f"{_cell(c['old_value_current_rate'], c['updates']):>12}"
            f"{c['extraction']['recall']:>8.2f}{c['extraction']['precision']:>10.2f}"
            f"{c['forbidden_facts']:>10}{c['medical_legal_violations']:>10}"
            f"{_cell(c['value_swap_recall'], c['value_swaps']):>12}"
        )
    missed = [by_name[name] for name in d["missed_targets"]]
    lines.append("")
    if missed:
        lines.append(
            "targets missed: "
            + "; ".join(f"{t['label']} {_figure(t['value'])} (target {t['target']})" for t in missed)
        )
    else:
        lines.append("targets: all met")
    return "\n".join(lines)
