import uuid

import pytest

from aurra_core.classifiers.base import Candidate, validate_verdicts
from aurra_core.errors import ClassifierError
from aurra_core.models import Verdict
from aurra_core.write_path.pipeline import choose

A, B = uuid.uuid4(), uuid.uuid4()
CANDIDATES = [
    Candidate(A, "alice uses Vim", "preferences", 0.8),
    Candidate(B, "alice lives in Paris", "general", 0.4),
]


def v(cid, label="contradicts", confidence=0.9, reason="r"):
    return {"candidate_id": str(cid), "classifier": label, "confidence": confidence, "reason": reason}


def test_valid_verdicts_pass():
    out = validate_verdicts([v(A), v(B, "new_fact", 0.7)], CANDIDATES)
    assert {x.candidate_id for x in out} == {A, B}


@pytest.mark.parametrize(
    "bad",
    [
        v(uuid.uuid4()),  # a stranger id
        v(A, "replaces"),  # unknown verdict
        v(A, confidence=1.5),
        v(A, confidence=-0.1),
        v(A, confidence="high"),
        v(A, confidence=float("nan")),
        {**v(A), "reason": None},
        "not an object",
    ],
)
def test_malformed_verdicts_are_discarded(bad):
    out = validate_verdicts([bad, v(B, "new_fact", 0.7)], CANDIDATES)
    assert [x.candidate_id for x in out] == [B]


def test_two_verdicts_for_one_candidate_discard_both():
    out = validate_verdicts([v(A), v(A, "supplements", 0.9), v(B, "new_fact", 0.7)], CANDIDATES)
    assert [x.candidate_id for x in out] == [B]


def test_nothing_valid_is_a_classifier_error():
    with pytest.raises(ClassifierError):
        validate_verdicts([v(uuid.uuid4())], CANDIDATES)
    with pytest.raises(ClassifierError):
        validate_verdicts({"verdicts": []}, CANDIDATES)


def test_choose_acts_only_at_or_above_min_confidence():
    verdicts = validate_verdicts([v(A, "contradicts", 0.84), v(B, "supplements", 0.9)], CANDIDATES)
    chosen, act = choose(verdicts, 0.85)
    assert not act and chosen.verdict == Verdict.SUPPLEMENTS
    verdicts = validate_verdicts([v(A, "contradicts", 0.85), v(B, "supplements", 0.99)], CANDIDATES)
    chosen, act = choose(verdicts, 0.85)
    assert act and chosen.candidate_id == A
    chosen, act = choose(verdicts, 0.9)
    assert not act


def test_choose_prefers_a_duplicate_to_a_contradiction():
    verdicts = validate_verdicts([v(A, "contradicts", 0.99), v(B, "duplicate", 0.9)], CANDIDATES)
    chosen, act = choose(verdicts, 0.85)
    assert act and chosen.verdict == Verdict.DUPLICATE and chosen.candidate_id == B
