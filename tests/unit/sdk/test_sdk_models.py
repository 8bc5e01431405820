"""Result models: reprs read like the launch examples, unknown fields are ignored, timestamps are aware."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pydantic
import pytest
from sdk_fakes import EVENT_ID, MEMORY_ID, OLD_MEMORY_ID, event_json, memory_json, settings_json, write_json

from aurra import (
    AuditEvent,
    AutoSupersedeResult,
    HistoryResult,
    Memory,
    RevertResult,
    SettingsResult,
    SupersedeResult,
    WriteResult,
)
from aurra.models import AuditPage, MemoryPage

SETTINGS_REPR = (
    "SettingsResult(auto_supersede_default=False, excluded_categories=['health_medical', 'legal_status'], "
    "min_confidence=0.85, classifier_model='claude-haiku-4-5-20251001')"
)
SKIPPED_REPR = "AutoSupersedeResult(ran=False, skipped_reason='level_2_disabled_by_env')"


def test_settings_repr_matches_launch_example() -> None:
    settings = SettingsResult.model_validate(settings_json())
    assert repr(settings) == SETTINGS_REPR
    assert str(settings) == SETTINGS_REPR


def test_settings_repr_shows_required_fields_even_when_false_or_empty() -> None:
    settings = SettingsResult.model_validate(settings_json(excluded_categories=[]))
    assert "auto_supersede_default=False" in repr(settings)
    assert "excluded_categories=[]" in repr(settings)


def test_skipped_auto_supersede_repr_omits_defaults() -> None:
    result = AutoSupersedeResult.model_validate(
        {
            "ran": False,
            "skipped_reason": "level_2_disabled_by_env",
            "candidates_examined": 0,
            "decision": None,
            "supersession": None,
        }
    )
    assert repr(result) == SKIPPED_REPR
    assert str(result) == SKIPPED_REPR


def test_auto_supersede_that_ran_shows_what_happened() -> None:
    result = AutoSupersedeResult.model_validate(
        {
            "ran": True,
            "skipped_reason": None,
            "candidates_examined": 3,
            "decision": {
                "candidate_id": OLD_MEMORY_ID,
                "classifier": "contradicts",
                "confidence": 0.92,
                "reason": "replaces",
                "model": "claude-haiku-4-5-20251001",
            },
            "supersession": {
                "superseded_id": OLD_MEMORY_ID,
                "classifier": "contradicts",
                "confidence": 0.92,
                "reason": "replaces",
                "model": "claude-haiku-4-5-20251001",
                "audit_event_id": EVENT_ID,
            },
        }
    )
    text = repr(result)
    assert text.startswith("AutoSupersedeResult(ran=True, candidates_examined=3, decision=Decision(")
    assert "skipped_reason" not in text
    assert f"supersession=Supersession(superseded_id='{OLD_MEMORY_ID}', classifier='contradicts'" in text
    assert result.supersession is not None and result.supersession.audit_event_id == EVENT_ID


def test_write_result_prints_auto_supersede_like_the_launch_example() -> None:
    result = WriteResult.model_validate(write_json())
    assert str(result.auto_supersede) == SKIPPED_REPR
    assert result.created is True
    assert result.duplicate_of is None
    assert "duplicate_of" not in repr(result)


def test_duplicate_write_result() -> None:
    result = WriteResult.model_validate(write_json(created=False, duplicate_of=MEMORY_ID))
    assert result.created is False
    assert result.duplicate_of == MEMORY_ID
    assert f"duplicate_of='{MEMORY_ID}'" in repr(result)


def test_unknown_fields_are_ignored_at_every_level() -> None:
    body = write_json(future_field=1)
    body["memory"]["embedding_model"] = "x"
    body["auto_supersede"]["cost_usd"] = 0.0001
    result = WriteResult.model_validate(body)
    assert not hasattr(result, "future_field")
    assert "embedding_model" not in repr(result.memory)
    assert repr(result.auto_supersede) == SKIPPED_REPR
    assert repr(SettingsResult.model_validate(settings_json(new_setting=True))) == SETTINGS_REPR


def test_new_enum_values_do_not_break_parsing() -> None:
    memory = Memory.model_validate(memory_json(status="archived"))
    assert memory.status == "archived"
    event = AuditEvent.model_validate(event_json(type="something_new", classifier="unsure"))
    assert event.type == "something_new"


def test_timestamps_are_timezone_aware() -> None:
    memory = Memory.model_validate(
        memory_json(valid_from="2026-05-03T10:00:00Z", recorded_at="2026-05-03T12:00:00.123+02:00")
    )
    assert memory.valid_from == datetime(2026, 5, 3, 10, 0, tzinfo=UTC)
    assert memory.valid_from.tzinfo is UTC
    assert memory.recorded_at.utcoffset() == timedelta(hours=2)
    assert memory.recorded_at == datetime(2026, 5, 3, 10, 0, 0, 123000, tzinfo=UTC)
    assert "tzinfo=datetime.timezone.utc" in repr(memory)


def test_a_timestamp_without_zone_is_read_as_utc() -> None:
    memory = Memory.model_validate(memory_json(valid_from="2026-05-03T10:00:00"))
    assert memory.valid_from == datetime(2026, 5, 3, 10, 0, tzinfo=UTC)


def test_memory_repr_leaves_out_empty_optional_fields() -> None:
    memory = Memory.model_validate(memory_json())
    text = repr(memory)
    assert text.startswith(f"Memory(id='{MEMORY_ID}', content='alice switched to Emacs', topic='preferences'")
    for absent in ("metadata=", "valid_to=", "superseded_by=", "supersedes=", "score=", "relevance="):
        assert absent not in text
    scored = Memory.model_validate(memory_json(score=0.87, metadata={"source": "chat"}))
    assert "score=0.87" in repr(scored)
    assert "metadata={'source': 'chat'}" in repr(scored)


def test_other_results_parse() -> None:
    old = memory_json(
        OLD_MEMORY_ID, status="superseded", superseded_by=MEMORY_ID, valid_to="2026-05-03T10:00:00Z"
    )
    new = memory_json(supersedes=OLD_MEMORY_ID)
    supersede = SupersedeResult.model_validate({"memory": new, "superseded": old})
    assert supersede.superseded.valid_to == supersede.memory.valid_from

    history = HistoryResult.model_validate(
        {
            "memory_id": MEMORY_ID,
            "chain": [old, new],
            "versions": [
                {
                    "valid_from": "2026-05-03T10:00:00Z",
                    "valid_to": None,
                    "superseded_by": None,
                    "supersedes": OLD_MEMORY_ID,
                    "status": "current",
                    "recorded_at": "2026-05-03T10:00:00.123Z",
                    "recorded_to": None,
                }
            ],
        }
    )
    assert [m.id for m in history.chain] == [OLD_MEMORY_ID, MEMORY_ID]
    assert history.versions[0].recorded_at.tzinfo is UTC

    revert = RevertResult.model_validate(
        {"event": event_json(type="revert"), "restored": memory_json(OLD_MEMORY_ID)}
    )
    assert revert.event.type == "revert" and revert.restored.id == OLD_MEMORY_ID

    assert MemoryPage.model_validate({"memories": [new], "next_cursor": None}).memories[0].id == MEMORY_ID
    assert AuditPage.model_validate({"events": [event_json()], "next_cursor": "c2"}).next_cursor == "c2"


def test_missing_required_field_is_a_validation_problem() -> None:
    body = settings_json()
    del body["min_confidence"]
    with pytest.raises(pydantic.ValidationError):
        SettingsResult.model_validate(body)
