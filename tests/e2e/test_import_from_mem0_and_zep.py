"""`aurra import --format mem0|zep` into `aurra dev`, as a user runs it (docs/portability.md,
"Moving to Aurra"): the files in tests/fixtures/import are written as Mem0 and Zep write theirs,
and what Aurra answers afterwards, at any `as_of`, is what the source said at that date."""

import json
from pathlib import Path

from test_portability_cli import _aurra, _client

FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"
MEM0 = FIXTURES / "mem0_memories_and_history.jsonl"
ZEP = FIXTURES / "zep_edges.json"


def _true_on(client, day: str, **scope) -> set[str]:
    return {m.content for m in client.memories.list(as_of=f"{day}T00:00:00Z", limit=100, **scope)}


def _memory_count(client) -> int:
    return len({r["id"] for r in client.export() if r["kind"] == "memory_version"})


def test_mem0_memories_and_history_round_trip(dev_server, new_key):
    _, key = new_key()
    done = _aurra(dev_server.base_url, key, "import", str(MEM0), "--format", "mem0", "--user-id", "alice")
    assert done.returncode == 0, done.stderr
    assert "imported 8 facts" in done.stdout and "3 supersessions linked" in done.stdout, done.stdout
    client = _client(dev_server, key)
    alice = {"user_id": "alice"}
    # What Mem0's history says was true on each date.
    assert _true_on(client, "2023-03-01", **alice) == {"Uses Vim as their editor"}
    assert _true_on(client, "2023-07-01", **alice) == {"Uses Emacs as their editor"}
    assert _true_on(client, "2024-03-01", **alice) == {
        "Lives in Paris",
        "Is vegetarian",
        "Uses VS Code as their editor",
    }
    assert "Lives in Paris" in _true_on(client, "2024-05-31", **alice)
    assert {"Lives in Berlin", "Is vegetarian"} <= _true_on(client, "2024-07-01", **alice)
    assert "Lives in Paris" not in _true_on(client, "2024-07-01", **alice)
    now = {m.content: m for m in client.memories.list(limit=100, **alice)}
    assert "Is vegetarian" not in now and "Lives in Berlin" in now  # deleted in Mem0 on 2024-09-01
    assert "Is vegetarian" in _true_on(client, "2024-08-31", **alice)
    # The versions are one lineage, each retired at the time of the update that replaced it.
    berlin = now["Lives in Berlin"]
    chain = client.memories.history(berlin.id).chain
    assert [m.content for m in chain] == ["Lives in Paris", "Lives in Berlin"]
    assert chain[0].valid_to == berlin.valid_from and chain[0].status == "superseded"
    assert [m.content for m in client.memories.history(now["Uses VS Code as their editor"].id).chain] == [
        "Uses Vim as their editor",
        "Uses Emacs as their editor",
        "Uses VS Code as their editor",
    ]
    # The originals, the source and the scope.
    assert berlin.metadata["source"] == "chat" and berlin.metadata["imported"]["run_id"] == "run-7"
    assert berlin.source is not None and (berlin.source.type, berlin.source.id) == (
        "mem0",
        chain[0].source.id,
    )
    assert now["Prefers tea over coffee"].agent_id == "chef-bot"
    assert now["Takes medication for asthma"].topic == "health_medical"

    # Run again (an interrupted import resumed): nothing is stored or linked twice.
    before = _memory_count(client)
    again = _aurra(dev_server.base_url, key, "import", str(MEM0), "--format", "mem0", "--user-id", "alice")
    assert again.returncode == 0, again.stderr
    assert _memory_count(client) == before == 8


def test_zep_edges_round_trip(dev_server, new_key):
    _, key = new_key()
    done = _aurra(dev_server.base_url, key, "import", str(ZEP), "--format", "zep")
    assert done.returncode == 0, done.stderr
    assert "imported 5 facts" in done.stdout and "1 supersessions linked" in done.stdout, done.stdout
    client = _client(dev_server, key)
    alice = {"user_id": "alice"}
    assert _true_on(client, "2022-06-01", **alice) == {
        "Alice works at Acme as a data engineer",
        "Alice had a membership at the Riverside gym",
    }
    assert _true_on(client, "2023-06-01", **alice) == {
        "Alice works at Acme as a data engineer",
        "Alice likes hiking in the Alps",
    }
    assert _true_on(client, "2024-06-01", **alice) == {
        "Alice works at Globex",
        "Alice likes hiking in the Alps",
    }
    assert _true_on(client, "2021-01-01", user_id="bob") == {"Bob lives in Oslo"}
    globex = next(m for m in client.memories.list(limit=100, **alice) if m.content == "Alice works at Globex")
    acme = client.memories.get(globex.supersedes)
    assert (acme.content, acme.status, acme.superseded_by) == (
        "Alice works at Acme as a data engineer",
        "superseded",
        globex.id,
    )
    assert acme.metadata["imported"]["uuid"] == "e1000000-0000-4000-8000-000000000001"
    assert globex.source is not None and globex.source.id == "e9000000-0000-4000-8000-000000000002"
    gym = client.memories.list(as_of="2022-06-01T00:00:00Z", source_id="e9000000-0000-4000-8000-000000000004")
    assert [m.status for m in gym] == ["expired"]


def test_an_interrupted_import_resumes_without_duplicates(dev_server, new_key, tmp_path: Path):
    from aurra_local import portability

    _, key = new_key()
    client = _client(dev_server, key)
    edges = json.loads(ZEP.read_text())
    many = [
        dict(edges[4], uuid=f"e2000000-0000-4000-8000-{n:012d}", fact=f"Bob visited town {n}")
        for n in range(230)
    ]
    path = tmp_path / "edges.json"
    path.write_text(json.dumps([*edges, *many]))

    class Cut:
        """The client, whose connection breaks on the second batch."""

        def __init__(self) -> None:
            self.sent = 0
            self.memories = self
            self.imports = client.imports  # the announcement goes through

        def add_batch(self, facts, **kwargs):
            self.sent += 1
            if self.sent == 2:
                raise ConnectionError("the connection broke")
            return client.memories.add_batch(facts, **kwargs)

    try:
        portability.import_file(Cut(), path, fmt="zep", workers=1)
    except ConnectionError:
        pass
    else:
        raise AssertionError("the cut did not happen")
    assert _memory_count(client) == 100
    report = portability.import_file(client, path, fmt="zep", workers=2)
    assert (report.facts, report.links, report.links_failed) == (235, 1, 0)
    assert _memory_count(client) == 235


def test_auto_supersede_applies_the_file_in_valid_time_order(dev_server, new_key, tmp_path: Path):
    """Three editors over three years, the file out of order and in different batches: with
    Level 2 on, each is compared with what was true before it, so each replaces the one before."""
    _, key = new_key()
    vim, emacs, vscode = (
        "User uses Vim",
        "User has been using Emacs as their daily editor, having moved away from Vim",
        "User has been using VS Code as their daily editor, having moved away from Emacs",
    )
    lines = [{"content": f"User read book {n}", "user_id": "al"} for n in range(250)]
    lines[0] = {"content": vim, "topic": "preferences", "user_id": "al", "valid_from": "2020-01-01T00:00:00Z"}
    lines[120] = {
        "content": vscode,
        "topic": "preferences",
        "user_id": "al",
        "valid_from": "2022-01-01T00:00:00Z",
    }
    lines[240] = {
        "content": emacs,
        "topic": "preferences",
        "user_id": "al",
        "valid_from": "2021-01-01T00:00:00Z",
    }
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    done = _aurra(dev_server.base_url, key, "import", str(path), "--format", "jsonl", "--auto-supersede")
    assert done.returncode == 0, done.stderr
    assert "Level 2 superseded 2 memories as the facts came in" in done.stdout, done.stdout
    client = _client(dev_server, key)
    current = {m.content: m for m in client.memories.list(limit=100, user_id="al", topic="preferences")}
    assert set(current) == {vscode}
    assert [m.content for m in client.memories.history(current[vscode].id).chain] == [vim, emacs, vscode]


def test_auto_supersede_sends_scopes_side_by_side_each_in_valid_time_order(
    dev_server, new_key, tmp_path: Path
):
    """Twelve users' editor histories, interleaved and out of order across 400 lines, with four
    batches in flight: each user's three editors replace each other in valid-time order, no
    user's fact touches another's, and a run again with another --workers stores nothing twice."""
    _, key = new_key()
    editors = (
        ("User uses Vim", "2020-01-01T00:00:00Z"),
        (
            "User has been using Emacs as their daily editor, having moved away from Vim",
            "2021-01-01T00:00:00Z",
        ),
        (
            "User has been using VS Code as their daily editor, having moved away from Emacs",
            "2022-01-01T00:00:00Z",
        ),
    )
    users = [f"u{n}" for n in range(12)]
    lines: list[dict] = [{"content": f"User read book {n}", "user_id": users[n % 12]} for n in range(364)]
    # Latest first in the file, so only the valid-time order gets each chain right.
    for step, (content, when) in reversed(list(enumerate(editors))):
        for user in users:
            lines.insert(
                (step * 97 + len(user) * 13) % len(lines),
                {"content": content, "topic": "preferences", "user_id": user, "valid_from": when},
            )
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    args = ("import", str(path), "--format", "jsonl", "--auto-supersede")
    done = _aurra(dev_server.base_url, key, *args, "--workers", "4")
    assert done.returncode == 0, done.stderr
    client = _client(dev_server, key)
    for user in users:
        current = list(client.memories.list(limit=100, user_id=user, topic="preferences"))
        assert [m.content for m in current] == [editors[2][0]], user
        chain = client.memories.history(current[0].id).chain
        assert [m.content for m in chain] == [e[0] for e in editors], user
        assert {m.user_id for m in chain} == {user}
    again = _aurra(dev_server.base_url, key, *args, "--workers", "1")
    assert again.returncode == 0, again.stderr
    assert _memory_count(client) == len(lines)
