import pytest
from pydantic import ValidationError

from aurra_core.models import (
    BatchWriteRequest,
    SettingsPatch,
    SupersedeRequest,
    WriteRequest,
    format_timestamp,
)


def test_content_is_trimmed_and_bounded():
    assert WriteRequest(content="  alice uses Vim \n").content == "alice uses Vim"
    with pytest.raises(ValidationError, match="content"):
        WriteRequest(content="   ")
    with pytest.raises(ValidationError, match="NUL"):
        WriteRequest(content="a\x00b")
    with pytest.raises(ValidationError, match="unicode"):
        WriteRequest(content="a\udc00b")
    with pytest.raises(ValidationError, match="surrogates"):
        WriteRequest(content="a", metadata={"k\ud800": 1})
    WriteRequest(content="x" * 4000)
    with pytest.raises(ValidationError, match="at most 4000"):
        WriteRequest(content="x" * 4001)


def test_a_list_of_models_is_shown_by_its_length():
    # the router's debug line formats the handler's arguments at every request
    batch = BatchWriteRequest.model_validate({"facts": [{"content": "alice uses Vim"}] * 100})
    assert repr(batch) == "BatchWriteRequest(facts=<100 BatchFact>, auto_supersede=None)"
    assert "alice" in repr(batch.facts[0])  # a model on its own is shown whole


def test_unknown_fields_and_naive_timestamps_are_refused():
    with pytest.raises(ValidationError, match="Extra inputs"):
        WriteRequest(content="a", colour="blue")
    with pytest.raises(ValidationError, match="timezone"):
        WriteRequest(content="a", valid_from="2026-04-01T00:00:00")
    for not_rfc3339 in (0.5, 1700000000, "1700000000", "2026-04-01", "tomorrow"):
        with pytest.raises(ValidationError, match=r"RFC 3339|timezone"):
            WriteRequest(content="a", valid_from=not_rfc3339)
    assert (
        WriteRequest(content="a", valid_from="2026-04-01T00:00:00+02:00").valid_from.utcoffset().seconds
        == 7200
    )


def test_topic_pattern_and_metadata_size():
    with pytest.raises(ValidationError):
        WriteRequest(content="a", topic="Health Medical")
    with pytest.raises(ValidationError):
        WriteRequest(content="a", topic="x" * 65)
    with pytest.raises(ValidationError, match="metadata must be at most"):
        WriteRequest(content="a", metadata={"blob": "x" * 9000})
    WriteRequest(content="a", metadata={"blob": "x" * 8000})


def test_auto_supersede_is_strictly_boolean():
    with pytest.raises(ValidationError):
        WriteRequest(content="a", auto_supersede="yes")
    assert WriteRequest(content="a", auto_supersede=None).auto_supersede is None


@pytest.mark.parametrize("value", [0.0, 0.5, 0.849, 1.01])
def test_min_confidence_floor_is_the_servers(value):
    with pytest.raises(ValidationError) as info:
        SettingsPatch(min_confidence=value)
    assert ">= 0.85" in str(info.value) or "<= 1.0" in str(info.value)


def test_settings_patch_accepts_valid_values():
    patch = SettingsPatch(
        min_confidence=0.92,
        excluded_categories=["a", "a", "b"],
        classifier_model="claude-sonnet-4-5-20250929",
    )
    assert patch.excluded_categories == ["a", "b"]
    with pytest.raises(ValidationError, match="Anthropic model id"):
        SettingsPatch(classifier_model="gpt-4o")
    # a Claude id the deployment does not allow (the operator pays each call)
    with pytest.raises(ValidationError, match="one of this deployment's models: claude-haiku-4-5-20251001"):
        SettingsPatch(classifier_model="claude-opus-4-1-20250805")
    with pytest.raises(ValidationError):
        SettingsPatch(excluded_categories=[f"t{i}" for i in range(51)])


def test_supersede_request_forms():
    assert SupersedeRequest(content="new").as_new_memory().topic == "general"
    assert SupersedeRequest(superseded_by="0192f0c4-0000-7000-8000-000000000001").content is None


def test_timestamps_keep_microseconds_in_utc():
    from datetime import datetime, timedelta, timezone

    value = datetime(2026, 4, 1, 2, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    assert format_timestamp(value) == "2026-04-01T00:00:00.123456Z"


def test_build_models_builds_what_a_type_names_each_after_what_it_holds():
    """A route's adapters reuse a built model's schema; built after them, a model would have
    its schema generated inline by each of them, then once more on its own first use."""
    from aurra_core.models import Model, build_models

    built: list[str] = []

    class Traced(Model):
        @classmethod
        def __pydantic_on_complete__(cls) -> None:
            built.append(cls.__name__)

    class Leaf(Traced):
        value: int

    class Holder(Traced):
        leaves: list[Leaf]

    class Other(Traced):
        leaf: Leaf | None = None

    class Unused(Traced):
        value: int

    assert not any(m.__pydantic_complete__ for m in (Leaf, Holder, Other))
    build_models(Holder | Other, int)
    assert built == ["Leaf", "Holder", "Other"]
    assert not Unused.__pydantic_complete__
    build_models(Holder | Other)
    assert built == ["Leaf", "Holder", "Other"], "a built model is not built again"
    assert Holder.model_validate({"leaves": [{"value": 1}]}).leaves[0].value == 1
