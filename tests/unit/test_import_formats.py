"""What `aurra import` makes of Mem0's and Zep's own formats (aurra_local/import_formats.py), on
files written as those products write them (tests/fixtures/import/), before anything is sent."""

import io
import json
from pathlib import Path

import pytest

from aurra_local import import_formats
from aurra_local.import_formats import ImportFailed, plan_mem0, plan_zep

FIXTURES = Path(__file__).parents[1] / "fixtures" / "import"
M1, M2, M5 = (f"5f1b2a8e-3c41-4f0e-9a7d-1b2c3d4e5f0{n}" for n in (1, 2, 5))


def _by_original(plan) -> dict[str, dict]:
    return {f.original_id: f.body for f in plan.facts}


def test_mem0_history_becomes_versions_in_valid_time():
    plan = plan_mem0(FIXTURES / "mem0_memories_and_history.jsonl", user_id="alice")
    facts = _by_original(plan)
    assert len(plan.facts) == 8
    # An UPDATE: the old value until the update's time, the new one from then.
    paris, berlin = facts[f"{M1}@1"], facts[f"{M1}@2"]
    assert (paris["content"], paris["valid_from"]) == ("Lives in Paris", "2024-01-10T17:30:00.123456Z")
    assert (berlin["content"], berlin["valid_from"]) == ("Lives in Berlin", "2024-06-01T19:00:00.654321Z")
    assert "valid_to" not in paris  # the link to its successor ends it
    assert (f"{M1}@1", f"{M1}@2") in plan.links
    # Three values of one memory: two links, oldest first; a time without a zone is UTC.
    assert [facts[f"{M5}@{n}"]["valid_from"] for n in (1, 2, 3)] == [
        "2023-01-01T09:00:00Z",
        "2023-06-01T09:00:00Z",
        "2024-01-01T09:00:00Z",
    ]
    assert {(f"{M5}@1", f"{M5}@2"), (f"{M5}@2", f"{M5}@3")} <= set(plan.links)
    # A DELETE: the memory's valid_to. Not in get_all: its scope is the --user-id given.
    vegetarian = facts[M2 if M2 in facts else f"{M2}@1"]
    assert (vegetarian["valid_from"], vegetarian["valid_to"]) == (
        "2024-02-01T18:00:00Z",
        "2024-09-01T07:15:00Z",
    )
    assert vegetarian["user_id"] == "alice"
    assert vegetarian["metadata"]["imported"]["deleted"]["event"] == "DELETE"


def test_mem0_fields_are_kept_under_metadata_imported_and_mapped_where_aurra_has_them():
    facts = _by_original(plan_mem0(FIXTURES / "mem0_memories_and_history.jsonl"))
    berlin = facts[f"{M1}@2"]
    assert berlin["metadata"]["source"] == "chat"  # the memory's own metadata, as it was
    imported = berlin["metadata"]["imported"]
    assert (imported["from"], imported["id"], imported["run_id"], imported["categories"]) == (
        "mem0",
        M1,
        "run-7",
        ["personal_details"],
    )
    assert (imported["version"], imported["versions"], imported["event"]["event"]) == (2, 2, "UPDATE")
    assert "new_memory" not in imported["event"] and "memory" not in imported
    assert berlin["source"] == {"type": "mem0", "id": M1}
    assert (berlin["topic"], berlin["user_id"]) == ("personal_details", "alice")
    tea = next(
        f.body
        for f in plan_mem0(FIXTURES / "mem0_memories_and_history.jsonl").facts
        if "tea" in f.body["content"]
    )
    assert (tea["agent_id"], tea["topic"], tea["valid_from"]) == ("chef-bot", "food", "2024-03-05T16:00:00Z")
    # Mem0's health category is what Aurra keeps from automatic supersession.
    asthma = next(b for b in facts.values() if "asthma" in b["content"])
    assert asthma["topic"] == "health_medical"


def test_mem0_get_all_document_without_history():
    plan = plan_mem0(FIXTURES / "mem0_get_all.json")
    assert plan.unit == "record" and plan.links == []
    peanuts, cello = (f.body for f in plan.facts)
    assert (peanuts["content"], peanuts["valid_from"], peanuts["user_id"]) == (
        "Is allergic to peanuts",
        "2025-02-03T18:00:00Z",
        "bo",
    )
    assert cello["valid_from"] == "2025-02-04T18:00:00Z"  # created_at: no history says more
    assert (cello["agent_id"], cello["metadata"]["confidence"], cello["metadata"]["imported"]["run_id"]) == (
        "tutor",
        "high",
        "lesson-3",
    )


def test_zep_edges_map_to_valid_time_supersessions_and_expiries():
    plan = plan_zep(FIXTURES / "zep_edges.json")
    facts = _by_original(plan)
    acme, globex, gym, hiking, oslo = (facts[f"e1000000-0000-4000-8000-00000000000{n}"] for n in range(1, 6))
    # Expired by the edge valid from its invalid_at, about the same entity: superseded by it.
    assert plan.links == [("e1000000-0000-4000-8000-000000000001", "e1000000-0000-4000-8000-000000000002")]
    assert acme["valid_from"] == "2022-03-01T00:00:00Z" and "valid_to" not in acme
    assert globex["valid_from"] == "2024-02-01T00:00:00Z"
    # invalid_at without expiry: a fact that ended, not one replaced.
    assert (gym["valid_from"], gym["valid_to"]) == ("2021-01-01T00:00:00Z", "2023-01-01T00:00:00Z")
    assert hiking["valid_from"] == "2023-05-05T12:00:00Z"  # no valid_at: created_at
    assert (acme["user_id"], oslo["user_id"], acme["topic"], oslo["topic"]) == (
        "alice",
        "bob",
        "works_at",
        "lives_in",
    )
    assert globex["source"] == {"type": "zep_episode", "id": "e9000000-0000-4000-8000-000000000002"}
    assert oslo["source"] == {"type": "zep_edge", "id": "e1000000-0000-4000-8000-000000000005"}
    imported = acme["metadata"]["imported"]
    assert (imported["from"], imported["expired_at"], imported["attributes"]) == (
        "zep",
        "2024-02-03T08:00:00.000001Z",
        {"role": "data engineer"},
    )
    assert "fact_embedding" not in imported and "fact" not in imported


def test_zep_an_edge_replaces_at_most_one(tmp_path):
    edges = json.loads((FIXTURES / "zep_edges.json").read_text())
    twin = dict(edges[0], uuid="e1000000-0000-4000-8000-0000000000a1", fact="Alice leads the Acme data team")
    path = tmp_path / "edges.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [*edges, twin]) + "\n")
    plan = plan_zep(path)
    assert plan.unit == "line" and len(plan.links) == 1
    ended = _by_original(plan)["e1000000-0000-4000-8000-0000000000a1"]
    assert ended["valid_to"] == "2024-02-01T00:00:00Z"  # its end kept as an expiry


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        ("mem0", '{"id": "x"}\n', "line 1: not a Mem0 memory"),
        ("zep", '[{"uuid": "x", "fact": "ok"}, {"fact": "no uuid"}]', "record 2: not a Zep entity edge"),
        ("zep", '{"uuid": "x", "fact": "f", "valid_at": "yesterday"}\n', "line 1: not a timestamp"),
        ("mem0", "{not json\n", "line 1: not JSON"),
    ],
)
def test_a_record_that_is_not_of_the_format_is_named(tmp_path, fmt, text, message):
    path = tmp_path / "file"
    path.write_text(text)
    with pytest.raises(ImportFailed, match=message):
        import_formats.plan_file(path, fmt)


def test_the_progress_bar_is_for_a_terminal_only():
    from aurra_local.cli import _terminal
    from aurra_local.portability import _Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, log = Terminal(), io.StringIO()
    assert _terminal(terminal) is terminal and _terminal(log) is None
    bar = _Progress(200, _terminal(terminal))
    bar.add(100)
    bar.close()
    assert "100/200 facts" in terminal.getvalue()


def test_an_aurra_export_keeps_expiries_and_ends_by_memories_outside_the_file(tmp_path):
    def version(memory_id, **fields):
        record = {
            "kind": "memory_version",
            "id": memory_id,
            "content": f"fact {memory_id}",
            "topic": "general",
            "metadata": {},
            "valid_from": "2024-01-01T00:00:00Z",
            "valid_to": None,
            "superseded_by": None,
            "recorded_at": "2024-01-01T00:00:01Z",
            "user_id": "al",
            "agent_id": None,
            "source": None,
        }
        return record | fields

    ended = {"valid_to": "2024-06-01T00:00:00Z"}
    records = [
        version("a", **ended, superseded_by="b"),  # superseded by a memory of the file: linked
        version("b", valid_from="2024-06-01T00:00:00Z"),
        version("c", **ended, superseded_by="elsewhere"),  # by one not exported with it
        version("d", **ended, source={"type": "crm", "id": "r-1", "uri": None, "quote": None}),  # an expiry
        {"kind": "end", "next_cursor": None},
    ]
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    plan = import_formats.plan_aurra(path)
    facts = _by_original(plan)
    assert plan.links == [("a", "b")]
    assert "valid_to" not in facts["a"]
    assert facts["c"]["valid_to"] == facts["d"]["valid_to"] == "2024-06-01T00:00:00Z"
    assert facts["d"]["source"] == {"type": "crm", "id": "r-1"}
