"""Shape checks for the hand-labeled evaluation sets (evals/cases.jsonl, the tuning sets and
evals/conversations.jsonl).

These tests check the data, not any classifier: every line is a well-formed
case in its set's format, and each set is as broad as promised.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
EVALS_DIR = REPO_ROOT / "evals"
README_PATH = EVALS_DIR / "README.md"

LABELS = {"contradicts", "supplements", "duplicate", "new_fact"}
REQUIRED_KEYS = {"id", "category", "old", "new", "label"}
ALLOWED_KEYS = REQUIRED_KEYS | {"also"}
FACT_REQUIRED_KEYS = {"content", "topic"}
FACT_ALLOWED_KEYS = FACT_REQUIRED_KEYS | {"valid_from"}
TOPIC_RE = re.compile(r"^[a-z0-9_]{1,64}$")
# cases.jsonl ids are `<prefix>-NN`, tuning.jsonl's `<prefix>-tNN`, tuning2.jsonl's `<prefix>-uNN` and
# tuning3.jsonl's `<prefix>-wNN`, so the sets never collide.
ID_RE = {
    "cases.jsonl": re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*-\d{2,}$"),
    "tuning.jsonl": re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*-t\d{2,}$"),
    "tuning2.jsonl": re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*-u\d{2,}$"),
    "tuning3.jsonl": re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*-w\d{2,}$"),
}
RFC3339_Z_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$")
GATED = ("health_medical", "legal_status")

MIN_CASES = {"cases.jsonl": 121, "tuning.jsonl": 300, "tuning2.jsonl": 300, "tuning3.jsonl": 320}
MIN_CATEGORIES = 25
# The tuning sets cover every category of the README's table with at least this many cases,
# each with its own id marker after the prefix.
TUNING_MIN_PER_CATEGORY = 6
TUNING_ID_MARKER = {"tuning.jsonl": "t", "tuning2.jsonl": "u", "tuning3.jsonl": "w"}
CATEGORY_ROW_RE = re.compile(r"^\| `([a-z0-9_]+)` \| `([a-z0-9]+)` \|")


def _load_lines(path: Path) -> list[tuple[int, str]]:
    assert path.is_file(), f"missing {path}"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]


def _readme_categories() -> dict[str, str]:
    """Category -> id prefix, from the category table of evals/README.md."""
    rows = README_PATH.read_text(encoding="utf-8").splitlines()
    return {m.group(1): m.group(2) for m in map(CATEGORY_ROW_RE.match, rows) if m}


@pytest.fixture(scope="module", params=sorted(MIN_CASES))
def set_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def set_path(set_name: str) -> Path:
    return EVALS_DIR / set_name


@pytest.fixture(scope="module")
def cases(set_path: Path) -> list[dict]:
    out = []
    for n, line in _load_lines(set_path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:  # pragma: no cover - failure path
            pytest.fail(f"line {n} is not valid JSON: {exc}")
        assert isinstance(obj, dict), f"line {n} is not a JSON object"
        out.append(obj)
    return out


def test_file_has_no_blank_lines_in_the_middle(set_path):
    text = set_path.read_text(encoding="utf-8")
    body = text.rstrip("\n").split("\n")
    assert all(line.strip() for line in body), f"blank line inside {set_path.name}"


def test_every_line_parses(cases, set_path):
    assert len(cases) == len(_load_lines(set_path))


def test_required_keys_and_no_unknown_keys(cases, set_name):
    id_re = ID_RE[set_name]
    for case in cases:
        cid = case.get("id", "<no id>")
        missing = REQUIRED_KEYS - case.keys()
        assert not missing, f"{cid}: missing keys {sorted(missing)}"
        unknown = case.keys() - ALLOWED_KEYS
        assert not unknown, f"{cid}: unknown keys {sorted(unknown)}"
        assert isinstance(case["id"], str) and id_re.match(case["id"]), f"bad id {case['id']!r}"
        assert isinstance(case["category"], str) and TOPIC_RE.match(case["category"]), (
            f"{cid}: bad category {case['category']!r}"
        )
        for side in ("old", "new"):
            fact = case[side]
            assert isinstance(fact, dict), f"{cid}: {side} is not an object"
            missing = FACT_REQUIRED_KEYS - fact.keys()
            assert not missing, f"{cid}: {side} missing {sorted(missing)}"
            unknown = fact.keys() - FACT_ALLOWED_KEYS
            assert not unknown, f"{cid}: {side} has unknown keys {sorted(unknown)}"
            assert isinstance(fact["content"], str) and fact["content"].strip(), (
                f"{cid}: {side}.content is empty"
            )


def test_labels_are_valid(cases):
    for case in cases:
        assert case["label"] in LABELS, f"{case['id']}: bad label {case['label']!r}"


def test_also_labels_are_valid_and_differ_from_label(cases):
    for case in cases:
        also = case.get("also", [])
        assert isinstance(also, list), f"{case['id']}: also must be a list"
        for extra in also:
            assert extra in LABELS, f"{case['id']}: bad also label {extra!r}"
            assert extra != case["label"], f"{case['id']}: also repeats the label"
        assert len(also) == len(set(also)), f"{case['id']}: duplicate also labels"


def test_topics_match_pattern(cases):
    for case in cases:
        for side in ("old", "new"):
            topic = case[side]["topic"]
            assert isinstance(topic, str) and TOPIC_RE.match(topic), (
                f"{case['id']}: {side}.topic {topic!r} does not match {TOPIC_RE.pattern}"
            )


def test_valid_from_is_rfc3339_utc(cases):
    for case in cases:
        for side in ("old", "new"):
            value = case[side].get("valid_from")
            if value is None:
                continue
            assert isinstance(value, str) and RFC3339_Z_RE.match(value), (
                f"{case['id']}: {side}.valid_from {value!r} is not RFC 3339 with Z"
            )
            datetime.fromisoformat(value.replace("Z", "+00:00"))


def test_ids_unique(cases):
    counts = Counter(case["id"] for case in cases)
    dupes = sorted(i for i, n in counts.items() if n > 1)
    assert not dupes, f"duplicate ids: {dupes}"


def test_case_count(cases, set_name):
    need = MIN_CASES[set_name]
    assert len(cases) >= need, f"only {len(cases)} cases, need >= {need}"


def test_category_count(cases):
    categories = {case["category"] for case in cases}
    assert len(categories) >= MIN_CATEGORIES, f"only {len(categories)} categories, need >= {MIN_CATEGORIES}"


def test_every_label_is_represented(cases):
    labels = Counter(case["label"] for case in cases)
    assert set(labels) == LABELS, f"labels present: {dict(labels)}"


@pytest.mark.parametrize("gated", GATED)
def test_gated_categories_present(cases, gated):
    gated_cases = [c for c in cases if c["category"] == gated]
    assert gated_cases, f"no cases in gated category {gated}"
    for case in gated_cases:
        assert case["new"]["topic"] == gated, f"{case['id']}: gated case must carry topic {gated}"
    assert any(c["label"] == "contradicts" for c in gated_cases), (
        f"gated category {gated} needs at least one contradiction"
    )


def test_readme_category_table_is_parsed():
    categories = _readme_categories()
    assert len(categories) >= MIN_CATEGORIES
    assert categories["preferences"] == "pref"


@pytest.mark.parametrize("tuning_set", sorted(TUNING_ID_MARKER))
def test_tuning_set_covers_every_readme_category_with_its_prefix(tuning_set):
    categories = _readme_categories()
    tuning = [json.loads(line) for _, line in _load_lines(EVALS_DIR / tuning_set)]
    counts = Counter(case["category"] for case in tuning)
    thin = {c: counts[c] for c in categories if counts[c] < TUNING_MIN_PER_CATEGORY}
    assert not thin, f"categories under {TUNING_MIN_PER_CATEGORY} cases: {thin}"
    unknown = set(counts) - set(categories)
    assert not unknown, f"categories not in the README table: {sorted(unknown)}"
    for case in tuning:
        prefix = categories[case["category"]]
        marker = TUNING_ID_MARKER[tuning_set]
        assert case["id"].startswith(f"{prefix}-{marker}"), (
            f"{case['id']}: prefix should be {prefix}-{marker}"
        )


# ---------------------------------------------------------------- evals/conversations.jsonl
# The end-to-end set of `aurra eval --conversations`: one end user a profile, over several
# sessions. Its shape only, never a score.

# The blind set and the holdout written after it (ids `<prefix>-hNN`), with the size each has.
CONVERSATION_SETS = {"conversations.jsonl": 76, "conversations_holdout.jsonl": 57}
PROFILE_REQUIRED_KEYS = {"id", "category", "user_id", "sessions", "updates", "forbidden"}
PROFILE_ALLOWED_KEYS = PROFILE_REQUIRED_KEYS | {"dependents"}
PROFILE_ID_RE = re.compile(r"^[a-z]+(?:-[a-z]+)*-h?\d{2,}$")
UPDATE_KINDS = {
    "amount",
    "correction",
    "count",
    "day",
    "ended_activity",
    "job_change",
    "move",
    "other",
    "place",
    "preference_change",
    "promotion",
    "relationship",
    "team_size",
    "time",
    "tool_switch",
    "version",
}
MIN_PROFILE_CATEGORIES = 19


@pytest.fixture(scope="module", params=sorted(CONVERSATION_SETS))
def profiles(request) -> list[dict]:
    loaded = [json.loads(line) for _, line in _load_lines(EVALS_DIR / request.param)]
    assert len(loaded) >= CONVERSATION_SETS[request.param], request.param
    return loaded


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) and s.strip() for s in value)


def test_conversation_profiles_have_the_documented_keys(profiles):
    assert len({p["category"] for p in profiles}) >= MIN_PROFILE_CATEGORIES
    for profile in profiles:
        pid = profile.get("id", "<no id>")
        assert not PROFILE_REQUIRED_KEYS - profile.keys(), f"{pid}: missing keys"
        assert not profile.keys() - PROFILE_ALLOWED_KEYS, f"{pid}: unknown keys"
        assert PROFILE_ID_RE.match(pid), f"bad id {pid!r}"
        assert TOPIC_RE.match(profile["category"]), f"{pid}: bad category"
        assert _strings(profile["forbidden"]), f"{pid}: forbidden must be a list of strings"
        for dependent in profile.get("dependents", []):
            assert set(dependent) == {"content", "on"}, f"{pid}: a dependent is content and on"
            assert _strings([dependent["content"], dependent["on"]]), f"{pid}: empty dependent"
    for key in ("id", "user_id"):
        counts = Counter(p[key] for p in profiles)
        assert not [v for v, n in counts.items() if n > 1], f"duplicate {key}s"


def test_conversation_sessions_are_messages_writes_in_time_order(profiles):
    from aurra_core.models import MessagesWriteRequest

    for profile in profiles:
        pid = profile["id"]
        sessions = profile["sessions"]
        assert 2 <= len(sessions) <= 4, f"{pid}: 2 to 4 sessions"
        stamps = [s["valid_from"] for s in sessions]
        assert all(isinstance(v, str) and RFC3339_Z_RE.match(v) for v in stamps), pid
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps), f"{pid}: sessions out of order"
        for session in sessions:
            assert set(session) == {"valid_from", "messages", "facts"}, f"{pid}: session keys"
            # Each session is sent as it is: it must be a valid messages write.
            MessagesWriteRequest.model_validate(
                {
                    "messages": session["messages"],
                    "valid_from": session["valid_from"],
                    "user_id": profile["user_id"],
                    "auto_supersede": True,
                }
            )
            for fact in session["facts"]:
                assert set(fact) == FACT_REQUIRED_KEYS, f"{pid}: a fact is content and topic"
                assert isinstance(fact["content"], str) and fact["content"].strip(), pid
                assert TOPIC_RE.match(fact["topic"]), f"{pid}: bad topic {fact['topic']!r}"


def test_conversation_updates_are_well_formed(profiles):
    from aurra_core.models import MemoryListQuery

    kinds: Counter[str] = Counter()
    for profile in profiles:
        pid = profile["id"]
        for update in profile["updates"]:
            assert set(update) == {"question", "new", "old", "kind"}, f"{pid}: update keys"
            # The question is sent as a search (GET /agent/memories?q=).
            MemoryListQuery(q=update["question"], user_id=profile["user_id"], limit=3)
            assert _strings(update["new"]) and update["new"], f"{pid}: new must list strings"
            assert _strings(update["old"]), f"{pid}: old must list strings"
            assert update["kind"] in UPDATE_KINDS, f"{pid}: unknown kind {update['kind']!r}"
            kinds[update["kind"]] += 1
    assert sum(kinds.values()) > 0


# ---------------------------------------------------------------- evals/conversations_dev*.jsonl
# The development conversations: the shape of conversations.jsonl, ids of their own.

DEV_CONVERSATIONS = sorted(EVALS_DIR.glob("conversations_dev*.jsonl"))


def test_development_conversations_have_the_shape_of_the_blind_set():
    from aurra_core.models import MemoryListQuery, MessagesWriteRequest

    assert DEV_CONVERSATIONS, "the development conversations are missing"
    blind_ids = {
        json.loads(line)["id"] for name in CONVERSATION_SETS for _, line in _load_lines(EVALS_DIR / name)
    }
    seen: set[str] = set()
    for path in DEV_CONVERSATIONS:
        for _, line in _load_lines(path):
            profile = json.loads(line)
            pid = profile["id"]
            assert not PROFILE_REQUIRED_KEYS - profile.keys() and not profile.keys() - PROFILE_ALLOWED_KEYS, (
                pid
            )
            assert PROFILE_ID_RE.match(pid) and pid not in blind_ids and pid not in seen, pid
            assert profile["user_id"].startswith("dev-"), pid
            seen.add(pid)
            stamps = [s["valid_from"] for s in profile["sessions"]]
            assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps), pid
            for session in profile["sessions"]:
                MessagesWriteRequest.model_validate(
                    {
                        "messages": session["messages"],
                        "valid_from": session["valid_from"],
                        "user_id": profile["user_id"],
                        "auto_supersede": True,
                    }
                )
                assert all(set(f) == FACT_REQUIRED_KEYS for f in session["facts"]), pid
            for update in profile["updates"]:
                MemoryListQuery(q=update["question"], user_id=profile["user_id"], limit=3)
                assert update["kind"] in UPDATE_KINDS and _strings(update["new"]) and update["new"], pid


# ---------------------------------------------------------------- evals/probes.jsonl


def test_probe_pairs_are_well_formed_and_both_kinds_are_there():
    probes = [json.loads(line) for _, line in _load_lines(EVALS_DIR / "probes.jsonl")]
    assert len({p["id"] for p in probes}) == len(probes)
    for probe in probes:
        assert set(probe) == REQUIRED_KEYS | {"also"}
        assert probe["label"] in LABELS and probe["label"] not in probe["also"]
        assert set(probe["also"]) <= LABELS
        assert probe["old"]["content"].strip() and probe["new"]["content"].strip()
    kinds = Counter(p["category"] for p in probes)
    assert kinds == {"probe_keep": 400, "probe_replace": 100}
    assert all(p["label"] == "contradicts" for p in probes if p["category"] == "probe_replace")
    assert all(p["label"] != "contradicts" for p in probes if p["category"] == "probe_keep")


# ---------------------------------------------------------------- evals/followups.jsonl, frozen_followups.jsonl
# Follow-ups written blind by two writers: 12 categories of 20 pairs each, ids of their own.


@pytest.mark.parametrize(
    ("name", "prefix"), [("followups.jsonl", "followup-"), ("frozen_followups.jsonl", "frozen-followup-")]
)
def test_follow_up_pairs_are_well_formed(name: str, prefix: str) -> None:
    from aurra_core.models import TOPIC_PATTERN

    pairs = [json.loads(line) for _, line in _load_lines(EVALS_DIR / name)]
    assert len(pairs) == 240 and len({p["id"] for p in pairs}) == 240
    for pair in pairs:
        assert set(pair) == REQUIRED_KEYS | {"also"} and pair["id"].startswith(prefix), pair["id"]
        assert pair["label"] in LABELS and pair["label"] not in pair["also"] and set(pair["also"]) <= LABELS
        for side in ("old", "new"):
            assert pair[side]["content"].strip() and re.fullmatch(TOPIC_PATTERN, pair[side]["topic"]), pair[
                "id"
            ]
    assert set(Counter(p["category"] for p in pairs).values()) == {20}
    assert {p["label"] for p in pairs} == LABELS
