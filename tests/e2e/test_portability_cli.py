"""`aurra export` and `aurra import` against `aurra dev`, as a user runs them (docs/portability.md)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dev_server import REPO

VIM = "User uses Vim"
EMACS = "User has been using Emacs as their daily editor, having moved away from Vim"


def _aurra(base_url: str, key: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AURRA_BASE_URL": base_url, "AURRA_API_KEY": key}
    return subprocess.run(
        [sys.executable, "-m", "aurra_local.cli", *args],
        check=False,
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _client(dev_server, key: str):
    from aurra import Aurra

    return Aurra(api_key=key, base_url=dev_server.base_url)


def _memories(records: list[dict]) -> dict[str, dict]:
    """Each memory's last version in an export, by id."""
    latest: dict[str, dict] = {}
    for record in records:
        if record["kind"] == "memory_version":
            latest[record["id"]] = record
    return latest


def _seed(client) -> None:
    client.memories.add(
        VIM, topic="preferences", valid_from="2021-01-01T00:00:00Z", user_id="al", metadata={"n": 1}
    )
    client.memories.add(
        EMACS, topic="preferences", valid_from="2023-01-01T00:00:00Z", user_id="al", auto_supersede=True
    )
    client.memories.add_batch(
        [
            {
                "content": "User lives in Berlin",
                "topic": "location",
                "agent_id": "bot",
                "valid_from": "2020-02-02T00:00:00Z",
                "valid_to": "2021-02-02T00:00:00Z",
                "source": {"type": "crm", "id": "c-1", "uri": "https://crm.example.com/c-1"},
            },
            {"content": "User likes tea"},
            {  # an expiry already past, and where the fact came from
                "content": "User is in Paris",
                "user_id": "al",
                "valid_from": "2022-06-01T00:00:00Z",
                "valid_to": "2022-06-12T00:00:00Z",
                "source": {"type": "calendar", "id": "event-81", "uri": "https://cal.example.com/e/81"},
            },
            {
                "content": "User likes jazz",
                "user_id": "al",
                "source": {"type": "conversation", "id": "conv-1"},
            },
        ]
    )


def test_export_then_import_into_a_fresh_tenant_round_trips(dev_server, new_key, tmp_path: Path):
    _, alice_key = new_key()
    _, fresh_key = new_key()
    alice = _client(dev_server, alice_key)
    _seed(alice)
    out = tmp_path / "alice.ndjson"
    exported = _aurra(dev_server.base_url, alice_key, "export", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[-1] == {"kind": "end", "next_cursor": None}
    assert lines[:-1] == list(alice.export())

    imported = _aurra(dev_server.base_url, fresh_key, "import", str(out), "--format", "aurra")
    assert imported.returncode == 0, imported.stderr
    assert "imported 6 facts" in imported.stdout and "1 supersessions linked" in imported.stdout
    assert "facts (" not in imported.stderr  # no progress bar when stderr is not a terminal

    fresh = _client(dev_server, fresh_key)
    before, after = _memories(lines[:-1]), _memories(list(fresh.export()))
    assert len(after) == len(before) == 6
    by_original = {m["metadata"]["imported"]["id"]: m for m in after.values()}
    assert set(by_original) == set(before)
    new_to_old = {m["id"]: old for old, m in by_original.items()}
    for old_id, old in before.items():
        new = by_original[old_id]
        for name in ("content", "topic", "user_id", "agent_id", "valid_from", "valid_to", "status", "source"):
            assert new[name] == old[name], (name, old, new)
        assert new["source"] == old["source"]  # so conversation_id and source_id still select it
        assert {k: v for k, v in new["metadata"].items() if k != "imported"} == old["metadata"]
        assert new["metadata"]["imported"]["recorded_at"] == min(
            r["recorded_at"] for r in lines[:-1] if r.get("id") == old_id
        )
        assert new["recorded_at"] > old["recorded_at"]  # transaction time is the import's
        for link in ("superseded_by", "supersedes"):
            assert (new_to_old[new[link]] if new[link] else None) == old[link], link

    paris = fresh.memories.list(source_id="event-81", as_of="2022-06-05T00:00:00Z")
    assert [m.content for m in paris] == ["User is in Paris"]
    assert list(fresh.memories.list(source_id="event-81", as_of="2022-06-12T00:00:00Z")) == []
    assert [m.content for m in fresh.memories.list(conversation_id="conv-1")] == ["User likes jazz"]

    # Run again (an interrupted import resumed): nothing is stored twice.
    again = _aurra(dev_server.base_url, fresh_key, "import", str(out), "--format", "aurra")
    assert again.returncode == 0, again.stderr
    assert len(_memories(list(fresh.export()))) == 6


def test_an_interrupted_export_resumes_where_it_stopped(dev_server, new_key, tmp_path: Path):
    from aurra_local import portability

    _, key = new_key()
    client = _client(dev_server, key)
    _seed(client)

    class Cut:
        def __init__(self) -> None:
            self.calls = 0

        def export_page(self, **kwargs):
            self.calls += 1
            if self.calls == 3:
                raise ConnectionError("the connection broke")
            return client.export_page(**kwargs)

    out = tmp_path / "export.ndjson"
    with pytest.raises(ConnectionError):
        portability.export_to_file(Cut(), out, limit=2)
    assert (tmp_path / "export.ndjson.cursor").exists()
    out.open("a").write('{"kind":"memory_version","half a line')  # what the broken response left
    portability.export_to_file(client, out, limit=2)
    assert not (tmp_path / "export.ndjson.cursor").exists()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == [*client.export(), {"kind": "end", "next_cursor": None}]


def test_a_jsonl_file_of_facts(dev_server, new_key, tmp_path: Path):
    _, key = new_key()
    facts = [{"content": f"User read book {i}", "user_id": "al" if i % 2 else None} for i in range(250)]
    facts[7]["valid_from"] = "2022-02-02T00:00:00Z"
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps(f) for f in facts) + "\n")
    done = _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    client = _client(dev_server, key)
    stored = {m.content: m for m in client.memories.list(limit=100)}
    assert len(stored) == 250
    assert stored["User read book 7"].valid_from.year == 2022 and stored["User read book 7"].user_id == "al"
    assert stored["User read book 8"].user_id is None
    assert _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl").returncode == 0
    assert len(list(client.memories.list(limit=100))) == 250


def test_a_bad_line_is_named_and_its_batch_is_not_stored(dev_server, new_key, tmp_path: Path):
    _, key = new_key()
    path = tmp_path / "facts.jsonl"
    path.write_text(
        '{"content": "User likes jazz"}\n{"content": "User likes rock", "topic": "Not A Topic"}\n'
    )
    failed = _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl")
    assert failed.returncode == 2
    assert "line 2: topic" in failed.stderr
    assert list(_client(dev_server, key).memories.list()) == []
    path.write_text('{"content": "User likes jazz", "mood": "happy"}\n')
    unknown = _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl")
    assert unknown.returncode == 2 and "line 1: unknown field 'mood'" in unknown.stderr
    path.write_text('{"content": "x"}\nnot json\n')
    assert (
        "line 2: not JSON"
        in _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl").stderr
    )


def test_a_refused_key_or_a_missing_file_is_one_line_not_a_traceback(dev_server, tmp_path: Path):
    refused = _aurra(
        dev_server.base_url, "aurra_no_such_key", "export", "--out", str(tmp_path / "out.ndjson")
    )
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"aurra export: {tmp_path / 'out.ndjson'}: missing or invalid API key"
    ]
    missing = _aurra(dev_server.base_url, "aurra_no_such_key", "import", str(tmp_path / "none.ndjson"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith(f"aurra import: {tmp_path / 'none.ndjson'}: [Errno 2] No such file")


def test_a_large_import_defers_its_index_and_waits_for_it(dev_server, new_key, tmp_path: Path):
    """Past the threshold, with Level 2 off, the import's memories enter no index while they
    arrive and the tenant's own index is built at the end, by aurra dev's own builder."""
    from aurra_core.storage.store import HNSW_MIN_TENANT_MEMORIES

    _, key = new_key()
    n = HNSW_MIN_TENANT_MEMORIES + 50
    source = tmp_path / "facts.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {"content": f"User's project {i} runs on server rack {i * 7919 % 10007}", "user_id": "u"}
            )
            + "\n"
            for i in range(n)
        )
    )
    client = _client(dev_server, key)
    assert client.imports.indexing().indexing == "shared"
    imported = _aurra(dev_server.base_url, key, "import", str(source), "--format", "jsonl")
    assert imported.returncode == 0, imported.stderr
    assert f"imported {n:,} facts" in imported.stdout
    assert "search index built in" in imported.stdout, imported.stdout
    assert client.imports.indexing().indexing == "own"
    found = client.memories.search_page("project 1234 rack", user_id="u", limit=3).memories
    assert found[0].content == f"User's project 1234 runs on server rack {1234 * 7919 % 10007}"
    # Nothing left to build; a small import afterwards goes into the own index as it comes.
    assert client.imports.build_index().indexing == "own"
    small = tmp_path / "small.jsonl"
    small.write_text(json.dumps({"content": "User likes tea", "user_id": "u"}) + "\n")
    again = _aurra(dev_server.base_url, key, "import", str(small), "--format", "jsonl")
    assert again.returncode == 0, again.stderr
    assert "search index" not in again.stdout
