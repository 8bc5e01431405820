"""What the erasure tests share: memories full of distinctive strings written through the real
pipeline (Level 2, a classifier whose reasons quote content, proposals, duplicates), and
scans of every table of the database for those strings, as the tables' owner (no row-level
security between the scan and the rows)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from pipeline_support import deps

from aurra_core.classifiers.base import Classification, ClassifierVerdict
from aurra_core.models import Verdict, WriteRequest
from aurra_core.write_path.pipeline import write_memory


class QuotingClassifier:
    """Answers like a model that quotes both facts in its reason: contradicts (acted on) when
    both facts share the marker word `moved`, contradicts below min_confidence (a proposal) for
    `likes`, duplicate for `again`, new_fact otherwise."""

    def classify(self, new_content, new_topic, candidates, model):
        verdicts = []
        for c in candidates:
            reason = f"'{new_content}' against '{c.content}'"
            if "again" in new_content:
                verdict, confidence = Verdict.DUPLICATE, 0.97
            elif "moved" in new_content and "moved" in c.content:
                verdict, confidence = Verdict.CONTRADICTS, 0.97
            elif "likes" in new_content and "likes" in c.content:
                verdict, confidence = Verdict.CONTRADICTS, 0.6
            else:
                verdict, confidence = Verdict.NEW_FACT, 0.6
            verdicts.append(ClassifierVerdict(c.id, verdict, confidence, reason))
        return Classification(verdicts, "quoting-model", {"prompt_version": "test"})


@dataclass
class Seeded:
    """A scope's memories, each with a string found nowhere else in the database."""

    strings: list[str] = field(default_factory=list)
    memory_ids: list[uuid.UUID] = field(default_factory=list)


def token(label: str) -> str:
    return f"{label}{uuid.uuid4().hex[:12]}"


def seed_scope(caller, *, user_id=None, agent_id=None, label="x") -> Seeded:
    """Five writes in one scope: a supersession (its event's reason quotes both facts), a
    proposal (likewise), a duplicate rejected (its event's details hold the rejected text)."""
    seeded = Seeded()
    clf = QuotingClassifier()
    place_a, place_b, food_a, food_b = (token(label) for _ in range(4))
    for content in (
        # words shared beside each random token keep every pair above the candidate floor (with
        # "User moved to <token>" alone, about 1 pair in 300 fell under it and found no candidate)
        f"User moved house to the seaside town of {place_a}",
        f"User moved house to the seaside town of {place_b}",
        f"User likes eating the spicy noodle dish {food_a}",
        f"User likes eating the spicy noodle dish {food_b}",
        f"User moved house to the seaside town of {place_b} again",
    ):
        outcome = write_memory(
            caller,
            WriteRequest(content=content, user_id=user_id, agent_id=agent_id, auto_supersede=True),
            deps(clf),
        )
        seeded.memory_ids.append(outcome.result.memory.id)
        if content == f"User moved house to the seaside town of {place_b}":
            # every count the erasure tests expect rests on this supersession: say so if it failed
            block = outcome.result.auto_supersede
            assert block is not None and block.supersession is not None, block
    seeded.strings = [place_a, place_b, food_a, food_b]
    return seeded


def tables(conn) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        ).fetchall()
    ]


def hits(db, strings: list[str]) -> dict[str, list[str]]:
    """Every table of the database, each row as text, searched for each string: where found."""
    found: dict[str, list[str]] = {}
    with db.transaction() as conn:
        for table in tables(conn):
            rows = conn.execute(f'SELECT t::text FROM "{table}" AS t').fetchall()
            for (text,) in rows:
                for string in strings:
                    if string in text:
                        found.setdefault(string, []).append(table)
    return found


def rows_of(db, tenant_id, table: str, order: str, user_id: str | None = None) -> list[str]:
    """A tenant's rows of a table (of one user, when given), as text (the owner's view:
    nothing hidden)."""
    scoped = "" if user_id is None else "AND user_id = %s"
    params = (tenant_id,) if user_id is None else (tenant_id, user_id)
    with db.transaction() as conn:
        return [
            r[0]
            for r in conn.execute(
                f"SELECT t::text FROM {table} AS t WHERE tenant_id = %s {scoped} ORDER BY {order}", params
            ).fetchall()
        ]


def tenant_state(db, tenant_id, user_id: str | None = None) -> tuple[list[str], list[str]]:
    """The tenant's (or one user's) versions and audit events, every column as text; never
    empty (a comparison of two empty states could not fail)."""
    state = (
        rows_of(db, tenant_id, "memory_versions", "version_id", user_id),
        rows_of(db, tenant_id, "audit_events", "created_at, id", user_id),
    )
    assert state[0] and state[1], "nothing to compare"
    return state


def run_maintenance() -> dict:
    from aurra_local.gateway import LambdaContext
    from aurra_local.lambda_functions import load_handler

    tick = {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
    handler = load_handler("maintenance").lambda_handler
    return handler(tick, LambdaContext(function_name="maintenance", aws_request_id="erasure-test"))
