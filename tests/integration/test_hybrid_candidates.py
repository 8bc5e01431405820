"""Hybrid candidate search on the real PostgreSQL: the vector list, the fact's own topic and the
memories that name the same kind of thing (full text over `kinds.py`'s phrases) fused by
reciprocal rank, inside the tenant and scope."""

from __future__ import annotations

import psycopg
import pytest
from pgvector.psycopg import register_vector
from vectors import near, unit

from aurra_core.models import Scope
from aurra_core.runtime.config import DEFAULT_EXCLUDED_CATEGORIES
from aurra_core.storage import store
from aurra_core.storage.ids import new_id
from aurra_core.text_analysis import kinds

pytestmark = pytest.mark.integration


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


def test_naming_the_same_kind_lifts_a_memory_the_vector_ranks_fourth(db, new_key):
    caller, _ = new_key()
    query = unit(1)
    with db.transaction() as conn:
        closer = [
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 10 + i, 0.8)) for i in range(3)
        ]
        target = put(conn, caller.tenant_id, "User writes code in Emacs", near(query, 20, 0.6))
        vector_only = store.find_candidates(
            conn,
            caller.tenant_id,
            query,
            scope=store.UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.1,
        )
        hybrid = search(conn, caller.tenant_id, query, "User's text editor is now VS Code")
    assert target not in [row.memory_id for row, _ in vector_only]
    assert target in hybrid
    assert set(hybrid) <= {target, *closer}


def test_a_kind_matches_whole_phrases_by_their_stems(db, new_key):
    """ "VS Code" names an editor, "code" alone does not; "browsers" is the stem of "browser"."""
    caller, _ = new_key()
    query = unit(2)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"note {i} about weather", near(query, 30 + i, 0.8))
        code_review = put(conn, caller.tenant_id, "User reviews code on Fridays", near(query, 40, 0.6))
        editor = put(conn, caller.tenant_id, "User tried VS Code once", near(query, 41, 0.6))
        browsers = put(conn, caller.tenant_id, "User tests in two browsers", near(query, 42, 0.6))
        editor_found = search(conn, caller.tenant_id, query, "User switched to Emacs")
        browser_found = search(conn, caller.tenant_id, query, "User's browser is Firefox now")
    assert editor in editor_found and code_review not in editor_found
    assert browsers in browser_found and editor not in browser_found


def test_words_shared_without_a_kind_lift_nothing(db, new_key):
    """Shared words are not a list of their own: they lift distractors that share words but not
    meaning more than the memories a fact is about."""
    caller, _ = new_key()
    query = unit(6)
    with db.transaction() as conn:
        closer = [
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 90 + i, 0.8)) for i in range(3)
        ]
        report = put(conn, caller.tenant_id, "User sent the quarterly report draft", near(query, 95, 0.6))
        found = search(conn, caller.tenant_id, query, "User's quarterly report draft was sent")
    assert report not in found
    assert set(found) == set(closer)


@pytest.mark.parametrize(
    ("memory", "fact"),
    [
        ("Priya holds an Indian passport", "Priya became a Canadian citizen"),
        ("Marco rents a studio near the station", "Marco bought a house with a mortgage"),
        ("Acme Corp's account manager is Dana", "Acme Corp's point of contact is now Raj"),
        ("User doesn't eat pork", "User keeps halal"),
    ],
)
def test_a_kind_of_the_wider_lexicon_lifts_a_memory_with_no_word_in_common(db, new_key, memory, fact):
    """Papers, homes, contacts and dietary laws: kinds whose memories share no word with the
    fact, matched by PostgreSQL's stems on the memory's side ("citizen", "rents")."""
    assert_lifted_past_closer_notes(db, new_key, memory, fact, seed=8)


@pytest.mark.parametrize(
    ("memory", "fact"),
    [
        ("I work remotely", "User works from home full-time"),  # "works": the fact's inflection
        ("Dana commuted by tram for years", "Dana now drives to the office"),
        ("User's timezone: America/Chicago", "Put me on Lisbon time for scheduling"),
        ("User likes concise answers", "User wants detailed, step-by-step explanations"),
        ("The repo is indented with tabs", "Use four spaces in this codebase"),
        ("Dana reports to Sam", "Dana's new boss is Lee"),
        ("Customer is billed monthly", "Customer is now billed annually"),
    ],
)
def test_a_fact_names_a_kind_in_any_inflection_and_the_newer_kinds_lift(db, new_key, memory, fact):
    """The fact's words are matched through their inflections, as the memory's are through
    PostgreSQL's stems; time zones named by a city, reply and code style, reporting lines and
    billing cycles are kinds."""
    assert_lifted_past_closer_notes(db, new_key, memory, fact, seed=9)


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
        unlike = put(conn, caller.tenant_id, "User writes code in Emacs", unit(70), topic="preferences")
        found = search(
            conn, caller.tenant_id, query, "User's editor is now VS Code", topic="preferences", floor=0.5
        )
    assert unlike not in found, "a kind or topic match never lifts a memory below the similarity floor"


def test_kind_matches_stay_in_the_tenant_and_the_scope(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    query = unit(5)
    with db.transaction() as conn:
        theirs = put(conn, other.tenant_id, "User writes code in Emacs", near(query, 80, 0.9))
        bobs = put(
            conn,
            caller.tenant_id,
            "User writes code in Emacs",
            near(query, 81, 0.9),
            scope=Scope(user_id="bob"),
        )
        alices = put(
            conn,
            caller.tenant_id,
            "User writes code in Emacs",
            near(query, 82, 0.9),
            scope=Scope(user_id="alice"),
        )
        found = search(
            conn, caller.tenant_id, query, "User's editor is VS Code", scope=Scope(user_id="alice")
        )
    assert found == [alices]
    assert theirs not in found and bobs not in found


@pytest.mark.parametrize("within_pool", [True, False])
def test_the_kind_list_is_read_from_the_nearest_memories_only(db, new_key, within_pool):
    """A memory of the fact's topic that names its kind rises above a same-topic memory that
    does not, when the embedder ranks it among the nearest NEAREST_POOL; below them its kind
    counts for nothing (the bound that keeps a large tenant's search cheap)."""
    caller, _ = new_key()
    query = unit(7)
    fillers = store.NEAREST_POOL - 2 if within_pool else store.NEAREST_POOL
    with db.transaction() as conn:
        for i in range(fillers):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 1000 + i, 0.6 + 0.002 * (i % 100)))
        put(conn, caller.tenant_id, "User likes quiet mornings", near(query, 2000, 0.3), topic="preferences")
        vim = put(conn, caller.tenant_id, "User once tried Vim", near(query, 2001, 0.05), topic="preferences")
        found = search(
            conn, caller.tenant_id, query, "User's editor is now VS Code", topic="preferences", floor=-1.0
        )
    assert (vim in found) is within_pool


@pytest.mark.parametrize("within_pool", [True, False])
def test_the_topic_list_is_read_from_the_nearest_memories_only(db, new_key, within_pool):
    """The fact's own topic lifts a memory the embedder ranks among the nearest NEAREST_POOL
    (one walk of the vector index serves every list); below them its topic counts for nothing."""
    caller, _ = new_key()
    query = unit(8)
    fillers = store.NEAREST_POOL - 1 if within_pool else store.NEAREST_POOL
    with db.transaction() as conn:
        for i in range(fillers):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 3000 + i, 0.6 + 0.002 * (i % 100)))
        commute = put(
            conn, caller.tenant_id, "User cycles to the office", near(query, 4000, 0.05), topic="commute"
        )
        found = search(
            conn, caller.tenant_id, query, "User now takes the train to work", topic="commute", floor=-1.0
        )
    assert (commute in found) is within_pool


def assert_lifted_past_closer_notes(db, new_key, memory: str, fact: str, seed: int) -> None:
    """`memory`, farther from the query vector than three unrelated notes, still reaches the
    fact's three candidates (only the kinds list can lift it)."""
    caller, _ = new_key()
    query = unit(seed)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, seed * 100 + i, 0.8))
        target = put(conn, caller.tenant_id, memory, near(query, seed * 100 + 10, 0.6))
        found = search(conn, caller.tenant_id, query, fact)
    assert target in found


# ---------------------------------------------------------------- the kinds' query, remembered


def test_each_phrases_query_is_learned_once_and_lifts_alike_from_memory(db, new_key, monkeypatch):
    """The first statement with phrases new to the process builds the kinds' query itself and
    returns each phrase's tsquery; the next ones send the query built from them, and find the
    same memories."""
    monkeypatch.setattr(store, "_phrase_queries", {})
    learned: list[int] = []
    remember = store._remember_phrase_queries
    monkeypatch.setattr(
        store,
        "_remember_phrase_queries",
        lambda phrases, queries: (learned.append(len(phrases)), remember(phrases, queries)),
    )
    caller, _ = new_key()
    query = unit(11)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 1100 + i, 0.8))
        target = put(conn, caller.tenant_id, "User writes code in Emacs", near(query, 1110, 0.6))
        first = search(conn, caller.tenant_id, query, "User's text editor is now VS Code")
        assert len(learned) == 1
        assert store.kinds_query(kinds.phrases_of(kinds.kinds_of("User's text editor is now VS Code")))
        again = search(conn, caller.tenant_id, query, "User's text editor is now VS Code")
    assert len(learned) == 1, "the second statement sent the query it remembered"
    assert target in first and first == again


def test_the_remembered_query_is_the_one_the_statement_builds_for_every_kind(db):
    """For every kind of the lexicon: the query joined from the phrases' remembered tsqueries
    is, as text, the one PostgreSQL builds from the phrases (a phrase of stop words only counts
    for nothing in both), so a memory names a kind alike either way."""
    every = kinds.phrases_of(set(kinds.KINDS))
    with db.transaction() as conn:
        queries = conn.execute(
            "SELECT array_agg(phraseto_tsquery('english', phrase)::text ORDER BY n) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS p(phrase, n)",
            ([*every, "the of and"],),
        ).fetchone()[0]
        saved = dict(store._phrase_queries)
        try:
            store._phrase_queries.clear()
            store._remember_phrase_queries([*every, "the of and"], queries)
            assert store.kinds_query(["the of and"]) == ""
            for kind in sorted(kinds.KINDS):
                phrases = [*kinds.phrases_of({kind}), "the of and"]
                built = conn.execute(
                    """SELECT string_agg(phraseto_tsquery('english', phrase)::text, ' | ')
                       FROM unnest(%s::text[]) AS phrase WHERE numnode(phraseto_tsquery('english', phrase)) > 0""",
                    (phrases,),
                ).fetchone()[0]
                assert store.kinds_query(phrases) == built, kind
        finally:
            store._phrase_queries.clear()
            store._phrase_queries.update(saved)


def test_an_exact_list_is_a_prepared_statement_and_an_hnsw_one_never(db, new_key, pg_url):
    caller, _ = new_key()
    query = unit(12)
    with db.transaction() as conn:
        for i in range(3):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 1200 + i, 0.8))
    prepared = (
        "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%%row_number() OVER () AS rank%%'"
    )
    with psycopg.connect(pg_url) as conn:  # a connection that has prepared nothing yet
        register_vector(conn)
        search(conn, caller.tenant_id, query, "User's text editor is now VS Code")
        assert conn.execute(prepared).fetchone()[0] == 1
        store.find_candidates(
            conn,
            caller.tenant_id,
            query,
            scope=store.UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.1,
            text="User's text editor is now VS Code",
            strategy="hnsw",
        )
        assert conn.execute(prepared).fetchone()[0] == 1, "the HNSW list was not prepared"
