"""Candidates in small scopes (write_path/pipeline.py, SMALL_SCOPE): with the offline rules
classifier a fact is compared with every memory of a small scope, under the similarity floor
too; with any other classifier, and in a larger scope, the floor and the 3 nearest stand."""

from __future__ import annotations

from pipeline_support import ScriptedClassifier, deps

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import WriteRequest
from aurra_core.write_path import pipeline
from aurra_core.write_path.pipeline import write_memory


def put(caller, content, classifier, user="alice"):
    return write_memory(
        caller,
        WriteRequest(content=content, topic="general", user_id=user, auto_supersede=True),
        deps(classifier),
    )


def test_the_offline_classifier_sees_every_memory_of_a_small_scope(db, new_key):
    caller, _ = new_key()
    old = put(caller, "User keeps all their passwords in LastPass", RulesClassifier())
    for fact in ("User has 3 cats", "User lives in Leeds", "User's standup is at 9:30am"):
        put(caller, fact, RulesClassifier())
    out = put(caller, "User is switching to 1Password this week", RulesClassifier())
    outcome = out.result.auto_supersede
    assert outcome.candidates_examined == 4  # the whole scope, whatever the floor
    assert outcome.supersession is not None
    assert outcome.supersession.superseded_id == old.result.memory.id


def test_a_model_classifier_keeps_the_floor_and_the_nearest_three(db, new_key):
    caller, _ = new_key()
    scripted = ScriptedClassifier()
    for fact in (
        "User keeps their passwords in LastPass",
        "User has 3 cats",
        "User lives in Leeds",
        "User's standup is at 9:30am",
        "User drives a Honda Civic",
    ):
        put(caller, fact, scripted)
    put(caller, "User is switching to 1Password this week", scripted)
    assert all(len(candidates) <= 3 for _, candidates in scripted.calls)


def test_a_larger_scope_is_not_compared_whole(db, new_key, monkeypatch):
    monkeypatch.setattr(pipeline, "SMALL_SCOPE", 2)
    caller, _ = new_key()
    for fact in ("User keeps their passwords in LastPass", "User has 3 cats", "User lives in Leeds"):
        put(caller, fact, RulesClassifier())
    out = put(caller, "User's standup moved to 10am", RulesClassifier())
    assert out.result.auto_supersede.candidates_examined <= 3
