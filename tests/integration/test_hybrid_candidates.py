"""Hybrid candidate search on the real PostgreSQL: the vector list, the fact's own topic and
the full-text list (two shared words) fused by reciprocal rank, inside the tenant and scope."""

from __future__ import annotations

import numpy as np
import pytest

from aurra_core import store
from aurra_core.config import DEFAULT_EXCLUDED_CATEGORIES
from aurra_core.ids import new_id
from aurra_core.models import Scope

pytestmark = pytest.mark.integration

DIM = 384


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


def near(base: np.ndarray, seed: int, weight: float) -> np.ndarray:
    """A vector at a chosen closeness to `base` (weight 1: the same; 0: unrelated)."""
    vector = weight * base + (1 - weight) * unit(seed)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def put(conn, tenant_id, content, embedding, topic="general", scope=store.UNSCOPED):
    now = store.write_clock(conn)
    return store.insert_version(
        conn,
        memory_id=new_id(),
        tenant_id=tenant_id,
        content=content,
        topic=topic,
        metadata={},
        embedding=embedding,
        valid_from=now,
        valid_to=None,
        superseded_by=None,
        supersedes=None,
        recorded_at=now,
        scope=scope,
    ).memory_id


def search(conn, tenant_id, embedding, text, topic=None, scope=store.UNSCOPED, floor=0.1):
    found = store.find_candidates(
        conn,
        tenant_id,
        embedding,
        scope=scope,
        excluded_topics=list(DEFAULT_EXCLUDED_CATEGORIES),
        limit=3,
        min_similarity=floor,
        text=text,
        topic=topic,
    )
    return [row.memory_id for row, _ in found]


def test_shared_words_lift_a_memory_the_vector_ranks_fourth(db, new_key):
    caller, _ = new_key()
    query = unit(1)
    with db.transaction() as conn:
        closer = [
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 10 + i, 0.8)) for i in range(3)
        ]
        target = put(conn, caller.tenant_id, "User renewed the Lisbon apartment lease", near(query, 20, 0.6))
        vector_only = store.find_candidates(
            conn,
            caller.tenant_id,
            query,
            scope=store.UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.1,
        )
        hybrid = search(conn, caller.tenant_id, query, "User's Lisbon lease ends in May")
    assert target not in [row.memory_id for row, _ in vector_only]
    assert target in hybrid
    assert set(hybrid) <= {target, *closer}


def test_one_common_word_is_not_a_word_match(db, new_key):
    caller, _ = new_key()
    query = unit(2)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"note {i} about weather", near(query, 30 + i, 0.8))
        only_user = put(conn, caller.tenant_id, "User likes jazz", near(query, 40, 0.6))
        found = search(conn, caller.tenant_id, query, "User switched to Emacs")
    assert only_user not in found


def test_the_facts_own_topic_lifts_its_memories(db, new_key):
    caller, _ = new_key()
    query = unit(3)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"trip note {i}", near(query, 50 + i, 0.8), topic="travel")
        editor = put(conn, caller.tenant_id, "User codes in Vim", near(query, 60, 0.6), topic="preferences")
        found = search(conn, caller.tenant_id, query, "User's editor is now VS Code", topic="preferences")
    assert editor in found


def test_the_floor_holds_for_every_list(db, new_key):
    caller, _ = new_key()
    query = unit(4)
    with db.transaction() as conn:
        unlike = put(
            conn, caller.tenant_id, "User renewed the Lisbon apartment lease", unit(70), topic="home"
        )
        found = search(conn, caller.tenant_id, query, "User's Lisbon lease renewed", topic="home", floor=0.5)
    assert unlike not in found, "a word or topic match never lifts a memory below the similarity floor"


def test_word_matches_stay_in_the_tenant_and_the_scope(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    query = unit(5)
    with db.transaction() as conn:
        theirs = put(conn, other.tenant_id, "User renewed the Lisbon apartment lease", near(query, 80, 0.9))
        bobs = put(
            conn,
            caller.tenant_id,
            "User renewed the Lisbon apartment lease",
            near(query, 81, 0.9),
            scope=Scope(user_id="bob"),
        )
        alices = put(
            conn,
            caller.tenant_id,
            "User renewed the Lisbon apartment lease",
            near(query, 82, 0.9),
            scope=Scope(user_id="alice"),
        )
        found = search(
            conn, caller.tenant_id, query, "Lisbon apartment lease renewed", scope=Scope(user_id="alice")
        )
    assert found == [alices]
    assert theirs not in found and bobs not in found


def test_the_word_list_is_served_by_the_current_versions_gin_index(db, new_key):
    caller, _ = new_key()
    with db.transaction() as conn:
        now = store.write_clock(conn)
        conn.execute(
            """INSERT INTO memory_versions (memory_id, tenant_id, content, topic, embedding, valid_from, recorded_at)
               SELECT gen_random_uuid(), %(tenant)s,
                      'User note ' || i || CASE WHEN i %% 1000 = 0 THEN ' about gardening tomatoes'
                                                ELSE ' about weekly status' END,
                      'general', %(vector)s, %(now)s, %(now)s
               FROM generate_series(1, 3000) AS i""",
            {"tenant": caller.tenant_id, "vector": unit(100), "now": now},
        )
    with db.transaction() as conn:
        conn.execute("ANALYZE memory_versions")
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                """EXPLAIN SELECT memory_id FROM memory_versions
                   WHERE to_tsvector('english'::regconfig, content) @@ '(garden & tomato)'::tsquery
                     AND tenant_id = %s AND recorded_to IS NULL AND valid_to IS NULL""",
                (caller.tenant_id,),
            ).fetchall()
        )
    assert "memory_versions_current_content_words" in plan
