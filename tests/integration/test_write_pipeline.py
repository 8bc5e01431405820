from datetime import UTC, datetime

from pipeline_support import ScriptedClassifier, contradicts_when, deps

from aurra_core.access import keys
from aurra_core.models import SettingsPatch, SkippedReason, Verdict, WriteRequest
from aurra_core.storage import store
from aurra_core.write_path.pipeline import write_memory


def write(caller, classifier, level2=True, **fields):
    fields.setdefault("auto_supersede", True)
    return write_memory(caller, WriteRequest(**fields), deps(classifier, level2))


def audit(db, caller):
    with db.transaction() as conn:
        return store.select_audit_events(
            conn,
            caller.tenant_id,
            memory_id=None,
            type=None,
            since=None,
            until=None,
            before=None,
            limit=100,
            recorded_by=datetime.now(UTC),
        )


def test_gates_run_in_order_before_any_model(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("alice uses Vim"))
    write(caller, clf, content="alice uses Vim", topic="preferences")

    off = write(caller, clf, level2=False, content="alice switched to Emacs", topic="preferences")
    assert off.result.auto_supersede.skipped_reason == SkippedReason.LEVEL_2_DISABLED_BY_ENV
    not_requested = write(
        caller, clf, content="alice switched to Emacs", topic="preferences", auto_supersede=None
    )
    assert not_requested.result.auto_supersede.skipped_reason == SkippedReason.AUTO_SUPERSEDE_OFF
    said_no = write(caller, clf, content="alice switched to Emacs", topic="preferences", auto_supersede=False)
    assert said_no.result.auto_supersede.skipped_reason == SkippedReason.AUTO_SUPERSEDE_OFF
    excluded = write(caller, clf, content="alice takes 20mg now", topic="health_medical")
    assert excluded.result.auto_supersede.skipped_reason == SkippedReason.EXCLUDED_CATEGORY
    for outcome in (off, not_requested, said_no, excluded):
        assert outcome.status_code == 201 and outcome.result.created
        assert outcome.result.auto_supersede.ran is False
        assert outcome.result.auto_supersede.candidates_examined == 0
    assert clf.calls == [], "no gated write may reach the classifier"


def test_no_candidates_means_no_model_call(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier()
    outcome = write(caller, clf, content="alice uses Vim", topic="preferences")
    assert outcome.result.auto_supersede.skipped_reason == SkippedReason.NO_CANDIDATES
    assert outcome.result.auto_supersede.ran is False
    assert clf.calls == []


def test_confident_contradiction_supersedes_atomically_with_its_audit_event(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("alice uses Vim", 0.92))
    old = write(caller, clf, content="alice uses Vim", topic="preferences").result.memory
    out = write(caller, clf, content="alice switched to Emacs", topic="preferences").result
    a = out.auto_supersede
    assert a.ran and a.skipped_reason is None and a.candidates_examined >= 1
    assert a.decision.classifier == Verdict.CONTRADICTS and a.decision.confidence == 0.92
    assert a.supersession.superseded_id == old.id and a.supersession.model == "scripted-model"
    assert out.memory.supersedes == old.id and out.memory.status == "current"
    with db.transaction() as conn:
        closed = store.select_memory(conn, caller.tenant_id, old.id)
    assert closed.superseded_by == out.memory.id and closed.valid_to == out.memory.valid_from
    events = audit(db, caller)
    assert [(e.type, e.memory_id, e.superseded_id) for e in events] == [
        ("auto_supersede", out.memory.id, old.id)
    ]
    assert events[0].id == a.supersession.audit_event_id
    assert events[0].confidence == 0.92 and events[0].reason and events[0].model == "scripted-model"


def test_below_threshold_is_reported_but_not_acted_on(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("alice uses Vim", 0.84))
    write(caller, clf, content="alice uses Vim", topic="preferences")
    out = write(caller, clf, content="alice switched to Emacs", topic="preferences").result.auto_supersede
    assert out.decision.classifier == Verdict.CONTRADICTS and out.decision.confidence == 0.84
    assert out.supersession is None


def test_the_keys_min_confidence_raises_the_bar(db, new_key):
    caller, _ = new_key()
    with db.transaction() as conn:
        keys.update_key_settings(conn, caller, SettingsPatch(min_confidence=0.95))
    clf = ScriptedClassifier(contradicts_when("alice uses Vim", 0.92))
    write(caller, clf, content="alice uses Vim", topic="preferences")
    out = write(caller, clf, content="alice switched to Emacs", topic="preferences").result.auto_supersede
    assert out.decision.confidence == 0.92 and out.supersession is None


def test_classifier_failure_never_loses_the_write(db, new_key):
    caller, _ = new_key()
    write(caller, ScriptedClassifier(), content="alice uses Vim", topic="preferences")
    out = write(caller, ScriptedClassifier(fail=True), content="alice switched to Emacs", topic="preferences")
    assert out.status_code == 201 and out.result.created
    a = out.result.auto_supersede
    assert a.ran is True and a.skipped_reason == SkippedReason.CLASSIFIER_ERROR and a.supersession is None
    with db.transaction() as conn:
        assert store.select_memory(conn, caller.tenant_id, out.result.memory.id) is not None


def test_duplicate_writes_nothing_and_is_audited(db, new_key):
    caller, _ = new_key()
    first = write(caller, ScriptedClassifier(), content="alice uses Vim", topic="preferences").result.memory
    clf = ScriptedClassifier(lambda new, c: (Verdict.DUPLICATE, 0.97))
    out = write(caller, clf, content="Alice uses Vim.", topic="preferences")
    assert out.status_code == 200 and out.result.created is False
    assert out.result.duplicate_of == first.id and out.result.memory.id == first.id
    with db.transaction() as conn:
        assert store.count_current(conn, caller.tenant_id) == 1
    assert [e.type for e in audit(db, caller)] == ["duplicate_rejected"]


def test_excluded_topics_never_reach_the_classifier(db, new_key):
    caller, _ = new_key()
    health = write(
        caller, ScriptedClassifier(), content="alice takes lisinopril 10mg daily", topic="health_medical"
    ).result.memory
    write(caller, ScriptedClassifier(), content="alice takes the bus daily", topic="general")
    clf = ScriptedClassifier(lambda new, c: (Verdict.CONTRADICTS, 0.99))
    out = write(caller, clf, content="alice takes the bus twice daily now", topic="general")
    seen = [c.topic for _, cands in clf.calls for c in cands]
    assert "health_medical" not in seen
    assert clf.calls, "the general-topic candidate was classified"
    assert out.result.auto_supersede.supersession.superseded_id != health.id
    with db.transaction() as conn:
        rows = store.select_memories(
            conn,
            caller.tenant_id,
            known_at=datetime.now(UTC),
            as_of=datetime.now(UTC),
            include_superseded=False,
            topic="health_medical",
            after=None,
            limit=10,
        )
    assert len(rows) == 1 and rows[0].is_current


def test_a_fact_written_without_a_topic_is_gated_by_the_matter_it_names(db, new_key):
    # the default topic stays what is stored; the gate reads the words, as for messages' facts
    caller, _ = new_key()
    old = write(caller, ScriptedClassifier(), content="alice takes lisinopril 10mg daily").result.memory
    assert old.topic == "general"
    clf = ScriptedClassifier(lambda new, c: (Verdict.CONTRADICTS, 0.99))
    out = write(caller, clf, content="alice takes lisinopril 20mg daily now")
    assert out.result.auto_supersede.skipped_reason == SkippedReason.EXCLUDED_CATEGORY
    assert out.result.memory.topic == "general"
    assert clf.calls == []
    with db.transaction() as conn:
        assert store.select_memory(conn, caller.tenant_id, old.id).is_current


def test_a_candidate_written_without_a_topic_is_gated_by_the_matter_it_names(db, new_key):
    caller, _ = new_key()
    therapist = write(
        caller, ScriptedClassifier(), content="alice sees a therapist on Tuesdays"
    ).result.memory
    gym = write(caller, ScriptedClassifier(), content="alice goes to the gym on Mondays").result.memory
    clf = ScriptedClassifier(lambda new, c: (Verdict.CONTRADICTS, 0.99))
    out = write(caller, clf, content="alice goes to the gym on Tuesdays now")
    seen = [c.id for _, cands in clf.calls for c in cands]
    assert gym.id in seen and therapist.id not in seen
    assert out.result.auto_supersede.supersession.superseded_id == gym.id
    with db.transaction() as conn:
        assert store.select_memory(conn, caller.tenant_id, therapist.id).is_current


def test_backdated_fact_is_stored_already_superseded(db, new_key):
    caller, _ = new_key()
    clf = ScriptedClassifier(contradicts_when("alice lives in Munich"))
    newer = write(
        caller,
        ScriptedClassifier(),
        content="alice lives in Munich",
        topic="location",
        valid_from="2026-05-01T00:00:00Z",
    ).result.memory
    out = write(
        caller, clf, content="alice lives in Berlin", topic="location", valid_from="2026-01-01T00:00:00Z"
    ).result
    assert out.memory.status == "superseded" and out.memory.superseded_by == newer.id
    assert out.memory.valid_to == newer.valid_from
    assert out.auto_supersede.supersession.superseded_id == out.memory.id
    with db.transaction() as conn:
        still = store.select_memory(conn, caller.tenant_id, newer.id)
    assert still.is_current and still.supersedes == out.memory.id


def test_a_candidate_that_changed_meanwhile_is_not_touched(db, new_key):
    caller, _ = new_key()
    old = write(caller, ScriptedClassifier(), content="alice uses Vim", topic="preferences").result.memory

    def supersede_it_first():
        # Another writer supersedes the candidate while the classifier is thinking.
        write(
            caller,
            ScriptedClassifier(contradicts_when("alice uses Vim")),
            content="alice switched to Helix",
            topic="preferences",
        )

    clf = ScriptedClassifier(contradicts_when("alice uses Vim"), before_answer=supersede_it_first)
    out = write(caller, clf, content="alice switched to Emacs", topic="preferences").result
    assert out.created and out.auto_supersede.supersession is None
    with db.transaction() as conn:
        closed = store.select_memory(conn, caller.tenant_id, old.id)
        helix = store.select_memory(conn, caller.tenant_id, closed.superseded_by)
    assert helix.content == "alice switched to Helix"
