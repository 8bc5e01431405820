"""GET /agent/memories?q= on the real PostgreSQL: the vector list, the full-text list and the
kinds of things the query names fused by reciprocal rank, every filter inside each list, tenants
apart, and a cursor that walks the fused list of a pinned snapshot."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from pgvector import Vector
from vectors import DIM, near, unit

from aurra_core.errors import ValidationFailed
from aurra_core.models import AuditListQuery, MemoryListQuery, Scope
from aurra_core.storage import queries, store
from aurra_core.storage.ids import new_id

pytestmark = pytest.mark.integration

LEASE = "Lisbon apartment lease"


class QueryEmbedder:
    """Stands in for the embedding model only: every query text embeds to one chosen vector,
    so a test decides where each memory ranks by vector."""

    dim = DIM

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def embed(self, text: str) -> Vector:
        return Vector(self.vector)


def put(
    conn,
    tenant_id,
    content,
    embedding,
    *,
    topic="general",
    scope=store.UNSCOPED,
    valid_from=None,
    valid_to=None,
):
    now = store.write_clock(conn)
    return store.insert_version(
        conn,
        memory_id=new_id(),
        tenant_id=tenant_id,
        content=content,
        topic=topic,
        metadata={},
        embedding=embedding,
        valid_from=valid_from or now,
        valid_to=valid_to,
        superseded_by=None,
        supersedes=None,
        recorded_at=now,
        scope=scope,
    )


def search(db, caller, vector, **query):
    return queries.read_memory_page(caller, MemoryListQuery(**query), db, QueryEmbedder(vector))


def walk(db, caller, vector, **query):
    """Every page of a search, following next_cursor."""
    pages = [search(db, caller, vector, **query)]
    while pages[-1].next_cursor is not None:
        pages.append(search(db, caller, vector, **query, cursor=pages[-1].next_cursor))
    return pages


def test_a_memory_that_shares_the_words_is_found_though_the_vector_ranks_it_last(db, new_key):
    caller, _ = new_key()
    query = unit(1)
    with db.transaction() as conn:
        for i in range(30):
            put(conn, caller.tenant_id, f"unrelated note {i} about the weather", near(query, 100 + i, 0.8))
        target = put(conn, caller.tenant_id, "User renewed the Lisbon apartment lease", unit(2)).memory_id
    found = search(db, caller, query, q=LEASE, limit=10).memories
    assert found[0].id == target
    everything = [m for p in walk(db, caller, query, q=LEASE, limit=10) for m in p.memories]
    # by vector alone it is the last of 31: its similarity is the lowest
    assert min(everything, key=lambda m: m.score).id == target
    # relevance (the fused score) orders the results; score stays the cosine similarity
    relevance = [m.relevance for m in everything]
    assert relevance == sorted(relevance, reverse=True)
    assert all(m.score is not None and -1.0 <= m.score <= 1.0 for m in everything)


def test_a_one_word_query_matches_on_that_word(db, new_key):
    caller, _ = new_key()
    query = unit(3)
    with db.transaction() as conn:
        for i in range(30):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 200 + i, 0.8))
        target = put(conn, caller.tenant_id, "User writes code in Emacs", unit(4)).memory_id
    assert search(db, caller, query, q="emacs", limit=5).memories[0].id == target


def test_a_kind_finds_its_instances_that_share_no_word(db, new_key):
    """q=editor: the memory naming Emacs rises above closer ones that name no editor, though no
    word is shared; one naming a browser does not."""
    caller, _ = new_key()
    query = unit(6)
    with db.transaction() as conn:
        for i in range(10):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 300 + i, 0.8))
        emacs = put(conn, caller.tenant_id, "User writes code in Emacs", near(query, 320, 0.6)).memory_id
        firefox = put(conn, caller.tenant_id, "User browses with Firefox", near(query, 321, 0.65)).memory_id
    found = [m.id for m in search(db, caller, query, q="editor", limit=20).memories]
    assert found[0] == emacs
    assert found.index(firefox) > 0


def test_a_question_lifts_the_memories_that_answer_it(db, new_key):
    """q="Where does the user work?" shares no word with "User left Shopify for Canva" and the
    vector ranks that memory last; the question's form (a workplace, about the user) lifts it
    to the top, and not the sister's job, nor anything for a text that asks nothing."""
    caller, _ = new_key()
    query = unit(10)
    with db.transaction() as conn:
        for i in range(10):
            put(conn, caller.tenant_id, f"User enjoys hobby number {i}", near(query, 500 + i, 0.8))
        sisters = put(
            conn, caller.tenant_id, "User's sister is a nurse at St James's", near(query, 520, 0.7)
        ).memory_id
        canva = put(conn, caller.tenant_id, "User left Shopify for Canva", unit(11)).memory_id
    found = [m.id for m in search(db, caller, query, q="Where does the user work?", limit=20).memories]
    assert found[0] == canva
    # the sister's job is no answer about the user: below every hobby, where the vector has it
    assert found.index(sisters) == 11
    # the sister's question lifts the sister's job, not the user's
    asked = [
        m.id for m in search(db, caller, query, q="Where does the user's sister work?", limit=20).memories
    ]
    assert asked[0] == sisters
    # a text that is no such question ranks by vector and words alone: Canva last
    plain = [m.id for m in search(db, caller, query, q="hobby", limit=20).memories]
    assert plain[-1] == canva


def test_every_filter_holds_in_every_list(db, new_key):
    """Each memory outside the filters comes twice: once near the query by vector (without its
    words), once with its words (far by vector). If either list missed a filter, its twin would
    show up: the search must return the one memory inside the filters, and nothing else."""
    caller, _ = new_key()
    other, _ = new_key()
    query = unit(5)
    alice = Scope(user_id="alice", agent_id="coach")
    january, march, june, july = (datetime(2026, m, 1, tzinfo=UTC) for m in (1, 3, 6, 7))

    def twins(conn, tenant_id, **fields):
        vector_twin = put(
            conn, tenant_id, "unrelated note on the weather", near(query, new_seed(), 0.95), **fields
        )
        word_twin = put(conn, tenant_id, f"User signed a {LEASE} today", unit(new_seed()), **fields)
        return {vector_twin.memory_id, word_twin.memory_id}

    seeds = iter(range(300, 400))

    def new_seed():
        return next(seeds)

    with db.transaction() as conn:
        keeper = put(
            conn,
            caller.tenant_id,
            f"User keeps the {LEASE}",
            near(query, 6, 0.5),
            topic="home",
            scope=alice,
            valid_from=january,
        ).memory_id
        home = {"topic": "home", "valid_from": january}
        outside = set()
        outside |= twins(conn, caller.tenant_id, scope=Scope(user_id="bob", agent_id="coach"), **home)
        outside |= twins(conn, caller.tenant_id, scope=Scope(user_id="alice", agent_id="planner"), **home)
        outside |= twins(conn, caller.tenant_id, scope=Scope(user_id="alice"), **home)
        outside |= twins(conn, caller.tenant_id, scope=alice, topic="travel", valid_from=january)
        outside |= twins(conn, caller.tenant_id, scope=alice, topic="home", valid_from=july)
        ended = twins(conn, caller.tenant_id, scope=alice, topic="home", valid_from=january, valid_to=march)
        theirs = twins(conn, other.tenant_id, scope=alice, **home)
    known_at = queries.believed_now(caller, db)
    with db.transaction() as conn:
        late = twins(conn, caller.tenant_id, scope=alice, **home)

    filters = {
        "q": LEASE,
        "user_id": "alice",
        "agent_id": "coach",
        "topic": "home",
        "as_of": june.isoformat(),
        "known_at": known_at.isoformat(),
    }
    assert [m.id for m in search(db, caller, query, **filters).memories] == [keeper]
    # The same request with one filter relaxed admits exactly the twins that filter kept out.
    with_ended = search(db, caller, query, **filters, include_superseded=True).memories
    assert {m.id for m in with_ended} == {keeper, *ended}
    written_later = search(
        db, caller, query, **{**filters, "known_at": datetime.now(UTC).isoformat()}
    ).memories
    assert {m.id for m in written_later} == {keeper, *late}
    # nothing of the other tenant, whatever it shares with the query
    assert not {m.id for m in search(db, caller, query, q=LEASE).memories} & theirs
    assert {m.id for m in search(db, other, query, q=LEASE).memories} == theirs
    # and without filters, every memory of the tenant's own, none of the other's
    unfiltered = {
        m.id for p in walk(db, caller, query, q=LEASE, include_superseded=True, limit=100) for m in p.memories
    }
    assert outside <= unfiltered and not unfiltered & theirs


def test_a_past_valid_time_finds_a_superseded_memory_by_its_words(db, new_key):
    """The superseded version is outside the current versions' index: the word list reads it
    through the index over the others, and it ranks first, though the vector ranks it last."""
    caller, _ = new_key()
    query = unit(7)
    with db.transaction() as conn:
        for i in range(30):
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 400 + i, 0.8))
        lisbon = put(conn, caller.tenant_id, "User lives in Lisbon near the river", unit(8))
    before = queries.believed_now(caller, db)
    with db.transaction() as conn:
        store.revise_version(conn, lisbon, store.write_clock(conn), valid_to=store.write_clock(conn))
    assert lisbon.memory_id not in [m.id for m in search(db, caller, query, q="Lisbon river").memories]
    in_the_past = search(db, caller, query, q="Lisbon river", as_of=before.isoformat(), limit=5).memories
    assert in_the_past[0].id == lisbon.memory_id
    known_then = search(db, caller, query, q="Lisbon river", known_at=before.isoformat(), limit=5).memories
    assert known_then[0].id == lisbon.memory_id
    with_superseded = search(db, caller, query, q="Lisbon river", include_superseded=True, limit=5).memories
    assert with_superseded[0].id == lisbon.memory_id and with_superseded[0].valid_to is not None


def test_the_cursor_walks_the_fused_list_without_duplicates_or_gaps(db, new_key):
    caller, _ = new_key()
    query = unit(9)
    with db.transaction() as conn:
        rows = [
            put(
                conn,
                caller.tenant_id,
                f"User note {i} " + (f"about the {LEASE}" if i % 7 == 0 else "about the weekly status"),
                near(query, 1000 + i, (i % 13) / 13),
            )
            for i in range(store.SEARCH_DEPTH + 40)
        ]
    now = queries.believed_now(caller, db)
    with db.tenant_transaction(caller.tenant_id) as conn:
        expected = store.search_memories(
            conn,
            caller.tenant_id,
            query,
            LEASE,
            known_at=now,
            as_of=now,
            include_superseded=False,
            topic=None,
        )
    first = search(db, caller, query, q=LEASE, limit=17)
    # Writes between pages: a memory retired, new memories that share the words. The pages read
    # the first page's snapshot, so none of it shows.
    with db.transaction() as conn:
        store.revise_version(conn, rows[7], store.write_clock(conn), valid_to=store.write_clock(conn))
        for i in range(5):
            put(conn, caller.tenant_id, f"User's new {LEASE} {i}", near(query, 2000 + i, 0.9))
    pages = [first]
    while pages[-1].next_cursor is not None:
        pages.append(search(db, caller, query, q=LEASE, limit=17, cursor=pages[-1].next_cursor))
    walked = [m.id for p in pages for m in p.memories]
    assert len(expected) == store.SEARCH_DEPTH < len(rows)
    assert walked == [hit.row.memory_id for hit in expected]
    assert rows[7].memory_id in walked
    assert [len(p.memories) for p in pages] == [17] * (len(pages) - 1) + [store.SEARCH_DEPTH % 17]
    relevance = [m.relevance for p in pages for m in p.memories]
    assert relevance == sorted(relevance, reverse=True)


def test_a_cursor_belongs_to_its_query_tenant_and_route(db, new_key):
    caller, _ = new_key()
    other, _ = new_key()
    query = unit(10)
    with db.transaction() as conn:
        for tenant_id in (caller.tenant_id, other.tenant_id):
            for i in range(6):
                put(conn, tenant_id, f"User note {i} about the {LEASE}", near(query, 3000 + i, 0.5))
    cursor = search(db, caller, query, q=LEASE, limit=2).next_cursor
    assert cursor is not None
    assert search(db, caller, query, q=LEASE, limit=2, cursor=cursor).memories
    refused = [
        lambda: search(db, caller, query, q="another query", limit=2, cursor=cursor),
        lambda: search(db, caller, query, q=LEASE, topic="home", limit=2, cursor=cursor),
        lambda: search(db, other, query, q=LEASE, limit=2, cursor=cursor),
        lambda: search(db, caller, query, limit=2, cursor=cursor),  # the list without q
        lambda: queries.read_audit_page(caller, AuditListQuery(cursor=cursor), db),
        lambda: search(db, caller, query, q=LEASE, limit=2, cursor=cursor[:-2] + "AA"),
    ]
    for call in refused:
        with pytest.raises(ValidationFailed, match="cursor") as raised:
            call()
        assert raised.value.details[0]["field"] == "cursor"
    list_cursor = search(db, caller, query, limit=2).next_cursor
    with pytest.raises(ValidationFailed, match="cursor"):
        search(db, caller, query, q=LEASE, limit=2, cursor=list_cursor)


def test_a_changed_ranking_refuses_the_cursor(db, new_key):
    """The same rows always rank the same way; if they do not (the embedding model changed
    between pages), the next page says so instead of repeating or skipping memories."""
    caller, _ = new_key()
    query = unit(11)
    with db.transaction() as conn:
        for i in range(6):
            put(conn, caller.tenant_id, f"note {i}", near(query, 4000 + i, i / 6))
    cursor = search(db, caller, query, q="note", limit=2).next_cursor
    with pytest.raises(ValidationFailed, match="ranking"):
        search(db, caller, -query, q="note", limit=2, cursor=cursor)


def test_the_word_list_of_any_snapshot_is_served_by_the_full_text_indexes(db, new_key):
    """A search's snapshot admits versions no longer current: their words are matched through
    the index over them (migration 0008), the current ones' through theirs (0007), never by
    computing the words of every row of the tenant. As the service role too: under row-level
    security PostgreSQL does not use an index for the full-text match (its operator is not
    leakproof), so the lookup runs in aurra_word_matches (0009) and the rows come by primary key."""
    caller, _ = new_key()
    with db.transaction() as conn:
        now = store.write_clock(conn)
        for closed in (False, True):
            conn.execute(
                """INSERT INTO memory_versions
                       (memory_id, tenant_id, content, topic, embedding, valid_from, valid_to, recorded_at)
                   SELECT gen_random_uuid(), %(tenant)s,
                          'User note ' || i || CASE WHEN i %% 1000 = 0 THEN ' about the Lisbon apartment lease'
                                                    ELSE ' about weekly status' END,
                          'general', %(vector)s, %(now)s, %(valid_to)s, %(now)s
                   FROM generate_series(1, 3000) AS i""",
                {
                    "tenant": caller.tenant_id,
                    "vector": unit(12),
                    "now": now,
                    "valid_to": now if closed else None,
                },
            )
    with db.transaction() as conn:
        conn.execute("ANALYZE memory_versions")
        lookup = "\n".join(
            row[0]
            for row in conn.execute(
                """EXPLAIN SELECT version_id FROM memory_versions
                   WHERE to_tsvector('english'::regconfig, content) @@ '(lisbon & leas)'::tsquery
                     AND tenant_id = %(t)s AND (recorded_to IS NOT NULL OR valid_to IS NOT NULL)""",
                {"t": caller.tenant_id},
            ).fetchall()
        )
    assert "memory_versions_past_content_words" in lookup, lookup
    where, params = store.snapshot_filter(
        caller.tenant_id,
        known_at=datetime.now(UTC),
        as_of=datetime.now(UTC),
        include_superseded=True,
        topic=None,
        user_id=None,
        agent_id=None,
    )
    statement_params = {
        **params,
        "q": unit(12),
        "text": LEASE,
        "max_stems": 10,
        "limit": 200,
        "past_versions": True,
    }
    with db.tenant_transaction(caller.tenant_id) as conn:
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                f"EXPLAIN {store.word_list_sql(where)}", statement_params, prepare=False
            ).fetchall()
        )
        found = conn.execute(store.word_list_sql(where), statement_params, prepare=False).fetchall()
    assert "Index Cond: (version_id = ANY" in plan and "memory_versions_pkey" in plan, plan
    assert "@@" not in plan and "Seq Scan on memory_versions" not in plan, plan
    assert len(found) == 6  # 3 current and 3 closed versions share "Lisbon" and "lease"


def test_the_word_lookup_keeps_to_the_transactions_tenant(db, new_key):
    """aurra_word_matches runs as the owner, past the policy: it answers for the tenant the
    transaction names, and for no other."""
    caller, _ = new_key()
    other, _ = new_key()
    with db.transaction() as conn:
        theirs = put(conn, other.tenant_id, f"User signed the {LEASE}", unit(13))
    with db.tenant_transaction(caller.tenant_id) as conn:
        asked = conn.execute(
            "SELECT * FROM aurra_word_matches(%s, '(lisbon & leas)'::tsquery, true)", (other.tenant_id,)
        ).fetchall()
    with db.tenant_transaction(other.tenant_id) as conn:
        own = conn.execute(
            "SELECT * FROM aurra_word_matches(%s, '(lisbon & leas)'::tsquery, true)", (other.tenant_id,)
        ).fetchall()
    assert asked == [] and own == [(theirs.version_id,)]


def test_candidates_find_word_matches_as_the_service_role(db, new_key):
    """The write path's candidate search runs as the service role, under row-level security:
    the word list still lifts a memory the vector ranks fourth (the same case as in
    test_hybrid_candidates.py, which runs as the owner)."""
    caller, _ = new_key()
    query = unit(14)
    with db.transaction() as conn:
        closer = [
            put(conn, caller.tenant_id, f"unrelated note {i}", near(query, 5000 + i, 0.8)).memory_id
            for i in range(3)
        ]
        target = put(
            conn, caller.tenant_id, "User renewed the Lisbon apartment lease", near(query, 5010, 0.6)
        )
    with db.tenant_transaction(caller.tenant_id) as conn:
        found = store.find_candidates(
            conn,
            caller.tenant_id,
            query,
            scope=store.UNSCOPED,
            excluded_topics=[],
            limit=3,
            min_similarity=0.1,
            text="User's Lisbon lease ends in May",
        )
    ids = [row.memory_id for row, _ in found]
    assert target.memory_id in ids and set(ids) <= {target.memory_id, *closer}
