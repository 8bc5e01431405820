"""Property-based tests: random sequences of writes (past, present and future valid_from),
manual and automatic supersessions, reverts and queries, against the real PostgreSQL, with the
bi-temporal invariants checked after every step.

CI runs a bounded profile; `AURRA_HYPOTHESIS_PROFILE=long make test ARGS=tests/integration/test_bitemporal_properties.py`
runs the long one.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from pipeline_support import ScriptedClassifier, deps

from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.errors import Conflict, ValidationFailed
from aurra_core.models import AuditType, MemoryListQuery, PointInTime, SupersedeRequest, Verdict, WriteRequest
from aurra_core.storage import queries, store
from aurra_core.storage.db import get_database
from aurra_core.write_path.pipeline import write_memory
from aurra_core.write_path.supersession import revert, supersede

settings.register_profile(
    "ci", max_examples=12, stateful_step_count=12, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.register_profile(
    "long", max_examples=300, stateful_step_count=40, deadline=None, suppress_health_check=list(HealthCheck)
)
PROFILE = os.environ.get("AURRA_HYPOTHESIS_PROFILE", "ci")

EMB = LexicalEmbedder(384)
SUBJECTS = ["ana", "ben", "cy"]
VALUES = ["vim", "emacs", "helix", "nano"]
BASE = datetime(2026, 6, 1, tzinfo=UTC)
DAYS = st.integers(min_value=-400, max_value=400)  # past, present and future valid_from


def same_subject(new: str, candidate) -> tuple[Verdict, float]:
    """Scripted classifier: a fact about the same subject replaces the older one."""
    if new.split()[0] == candidate.content.split()[0]:
        return Verdict.CONTRADICTS, 0.95
    return Verdict.NEW_FACT, 0.6


class BitemporalMachine(RuleBasedStateMachine):
    operations = 0  # across all runs: proves the machine did work

    @initialize()
    def start(self):
        self.db = get_database()
        with self.db.transaction() as conn:
            self.caller, _ = keys.create_key(conn, f"prop-{datetime.now(UTC).timestamp()}")
        self.memories: list = []
        self.observed: list[tuple] = []  # (known_at, as_of, answer) seen so far
        self.seen_versions: dict[int, tuple] = {}

    # ------------------------------------------------------------------ operations

    @rule(subject=st.sampled_from(SUBJECTS), value=st.sampled_from(VALUES), days=DAYS, auto=st.booleans())
    def write(self, subject, value, days, auto):
        BitemporalMachine.operations += 1
        request = WriteRequest(
            content=f"{subject} uses {value}", valid_from=BASE + timedelta(days=days), auto_supersede=auto
        )
        out = write_memory(self.caller, request, deps(ScriptedClassifier(same_subject))).result
        if out.created:
            self.memories.append(out.memory.id)

    @precondition(lambda self: self.memories)
    @rule(data=st.data(), days=DAYS)
    def manual_supersede(self, data, days):
        BitemporalMachine.operations += 1
        old = data.draw(st.sampled_from(self.memories))
        try:
            new = supersede(
                self.caller,
                old,
                SupersedeRequest(content=f"manual {days}", valid_from=BASE + timedelta(days=days)),
                self.db,
                EMB,
            ).memory
            self.memories.append(new.id)
        except (Conflict, ValidationFailed):
            pass

    @precondition(lambda self: len(self.memories) >= 2)
    @rule(data=st.data())
    def link(self, data):
        BitemporalMachine.operations += 1
        old, newer = data.draw(st.sampled_from(self.memories)), data.draw(st.sampled_from(self.memories))
        with contextlib.suppress(Conflict, ValidationFailed):
            supersede(self.caller, old, SupersedeRequest(superseded_by=newer), self.db, EMB)

    @rule(data=st.data())
    def revert_one(self, data):
        BitemporalMachine.operations += 1
        with self.db.transaction() as conn:
            events = [
                e
                for e in self._events(conn)
                if e.type in (AuditType.AUTO_SUPERSEDE, AuditType.MANUAL_SUPERSEDE)
            ]
        if not events:
            return
        with contextlib.suppress(Conflict):
            revert(self.caller, data.draw(st.sampled_from(events)).id, self.db)

    @rule(days=DAYS)
    def observe(self, days):
        BitemporalMachine.operations += 1
        as_of = BASE + timedelta(days=days)
        known_at = queries.believed_now(self.caller, self.db)
        self.observed.append((known_at, as_of, self._answer(known_at, as_of)))

    # ------------------------------------------------------------------ invariants

    def _events(self, conn):
        return store.select_audit_events(
            conn,
            self.caller.tenant_id,
            memory_id=None,
            type=None,
            since=None,
            until=None,
            before=None,
            limit=10_000,
            recorded_by=datetime.now(UTC) + timedelta(days=1),
        )

    def _answer(self, known_at, as_of):
        page = queries.read_memory_page(
            self.caller,
            MemoryListQuery(known_at=known_at, as_of=as_of, include_superseded=True, limit=100),
            self.db,
            EMB,
        )
        details = [
            (
                m.model_dump(),
                queries.read_memory(self.caller, m.id, PointInTime(known_at=known_at), self.db).model_dump(),
                [
                    x.id
                    for x in queries.read_memory_history(
                        self.caller, m.id, PointInTime(known_at=known_at), self.db
                    ).chain
                ],
            )
            for m in page.memories
        ]
        return page.model_dump(), details

    def _believed(self, conn):
        return (
            store.select_memories_by_id(conn, self.caller.tenant_id, self.memories) if self.memories else []
        )

    @invariant()
    def lineages_never_overlap(self):
        if not hasattr(self, "db"):
            return
        with self.db.transaction() as conn:
            rows = {r.memory_id: r for r in self._believed(conn)}
            for row in rows.values():
                chain = store.lineage(conn, self.caller.tenant_id, row)
                spans = sorted((r.valid_from, r.valid_to or datetime.max.replace(tzinfo=UTC)) for r in chain)
                for (_a_from, a_to), (b_from, _b_to) in itertools.pairwise(spans):
                    assert a_to <= b_from, f"overlapping validity in a lineage: {spans}"
                if row.superseded_by is not None:
                    successor = rows.get(row.superseded_by) or store.select_memory(
                        conn, self.caller.tenant_id, row.superseded_by
                    )
                    assert row.valid_to == successor.valid_from

    @invariant()
    def history_never_changes(self):
        for known_at, as_of, answer in getattr(self, "observed", []):
            assert self._answer(known_at, as_of) == answer, f"the answer at known_at={known_at} changed"

    @invariant()
    def rows_are_only_appended(self):
        if not hasattr(self, "db"):
            return
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.execute(
                """SELECT version_id, memory_id, content, valid_from, valid_to, superseded_by, supersedes,
                                  recorded_at, recorded_to FROM memory_versions WHERE tenant_id = %s""",
                (self.caller.tenant_id,),
            )
            now = {r[0]: r for r in cur.fetchall()}
        for version_id, before in self.seen_versions.items():
            after = now[version_id]  # never deleted
            assert after[:-1] == before[:-1], "a version changed in place"
            assert before[-1] is None or after[-1] == before[-1], "a closed version was reopened or re-closed"
        self.seen_versions = now

    @invariant()
    def audit_trail_replays_to_the_current_state(self):
        if not hasattr(self, "db"):
            return
        with self.db.transaction() as conn:
            events = sorted(self._events(conn), key=lambda e: (e.created_at, e.id))
            versions = {m: store.memory_versions(conn, self.caller.tenant_id, m) for m in self.memories}
            current = {r.memory_id: r.superseded_by for r in self._believed(conn)}
        replayed = {m: None for m in self.memories}
        for e in events:
            if e.type in (AuditType.AUTO_SUPERSEDE, AuditType.MANUAL_SUPERSEDE):
                replayed[e.superseded_id] = e.memory_id
            elif e.type == AuditType.REVERT:
                replayed[e.memory_id] = None
        assert replayed == current
        # Each change of a memory's superseded_by has exactly one audit event at the same instant.
        changes = []
        for m, vs in versions.items():
            previous = None
            for v in vs:
                if v.superseded_by != previous:
                    changes.append((m, v.recorded_at))
                previous = v.superseded_by
        stamped = [
            (e.superseded_id if e.type != AuditType.REVERT else e.memory_id, e.created_at)
            for e in events
            if e.type in (AuditType.AUTO_SUPERSEDE, AuditType.MANUAL_SUPERSEDE, AuditType.REVERT)
        ]
        assert sorted(changes) == sorted(stamped)

    def teardown(self):
        if not hasattr(self, "db"):
            return
        statements = []
        if self.memories:  # row triggers fire only for rows that exist
            statements += [
                "UPDATE memory_versions SET content = 'x' WHERE tenant_id = %s",
                "DELETE FROM memory_versions WHERE tenant_id = %s",
            ]
        with self.db.transaction() as conn:
            if self._events(conn):
                statements += [
                    "UPDATE audit_events SET reason = 'x' WHERE tenant_id = %s",
                    "DELETE FROM audit_events WHERE tenant_id = %s",
                ]
        for sql in statements:
            with pytest.raises(psycopg.errors.InsufficientPrivilege), self.db.transaction() as conn:
                conn.execute(sql, (self.caller.tenant_id,))


@pytest.fixture
def machine_settings(pg_url):
    return settings.get_profile(PROFILE)


def test_bitemporal_invariants(machine_settings):
    BitemporalMachine.TestCase.settings = machine_settings
    BitemporalMachine.operations = 0
    BitemporalMachine.TestCase().runTest()
    print(f"bitemporal machine: {BitemporalMachine.operations} operations, profile {PROFILE}")
    assert BitemporalMachine.operations >= machine_settings.max_examples
