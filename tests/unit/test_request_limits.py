"""What a request may hold: the limits a hostile client probed, refused by field name."""

import json
import math

import pytest
from pydantic import ValidationError

from aurra_core.errors import ValidationFailed
from aurra_core.models import SettingsPatch, SupersedeRequest, WriteRequest
from aurra_core.request_json import MAX_METADATA_DEPTH, OversizedNumber, parse_body


def nested(levels: int, leaf: object = 1) -> dict:
    """Metadata `levels` containers deep (the metadata object itself is level 1), alternating
    arrays and objects as the probe did."""
    value: object = leaf
    for level in range(levels - 1):
        value = [value] if level % 2 == 0 else {"k": value}
    return {"k": value}


def problem(exc: ValidationError) -> tuple[str, str]:
    error = exc.errors()[0]
    return ".".join(str(part) for part in error["loc"]), error["msg"]


def test_metadata_nests_up_to_the_limit_and_no_further():
    WriteRequest(content="a", metadata=nested(MAX_METADATA_DEPTH))
    for levels in (MAX_METADATA_DEPTH + 1, 255, 10_000):
        with pytest.raises(ValidationError) as info:
            WriteRequest(content="a", metadata=nested(levels))
        assert problem(info.value) == (
            "metadata",
            f"Value error, metadata must not nest more than {MAX_METADATA_DEPTH} levels deep",
        )


@pytest.mark.parametrize(
    ("metadata", "where"),
    [
        ({"a": math.nan}, "metadata.a"),
        ({"a": [1, math.inf]}, "metadata.a[1]"),
        ({"a": {"b": -math.inf}}, "metadata.a.b"),
    ],
)
def test_non_finite_numbers_in_metadata_are_refused_where_they_are(metadata, where):
    with pytest.raises(ValidationError) as info:
        WriteRequest(content="a", metadata=metadata)
    field, message = problem(info.value)
    assert field == "metadata" and f"{where}: numbers must be finite" in message


def test_integers_in_metadata_stay_within_64_bits():
    WriteRequest(content="a", metadata={"max": 2**63 - 1, "min": -(2**63 - 1), "flag": True, "x": 1.5e300})
    for value in (2**63, -(2**64), OversizedNumber("9" * 5000)):
        with pytest.raises(ValidationError, match=r"metadata\.n: integers must be within a signed 64-bit"):
            WriteRequest(content="a", metadata={"n": value})


def test_metadata_refuses_what_is_not_json():
    with pytest.raises(ValidationError, match=r"metadata\.when: datetime is not a JSON value"):
        WriteRequest(content="a", metadata={"when": __import__("datetime").datetime(2026, 1, 1)})
    with pytest.raises(ValidationError, match=r"metadata.a\[0\]: text must not contain NUL"):
        SupersedeRequest(content="a", metadata={"a": ["x\x00"]})


def test_a_body_is_parsed_with_numbers_kept_checkable():
    body = parse_body('{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400, "e": ' + "7" * 5000 + "}")
    assert math.isnan(body["a"]) and body["b"] == math.inf and body["c"] == -math.inf
    assert body["d"] == math.inf
    assert isinstance(body["e"], OversizedNumber)
    assert parse_body('{"n": 12345678901234567890}') == {"n": 12345678901234567890}


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"content": "a", "metadata": {"k": ' + "[" * 10_000 + "]" * 10_000 + "}}", "metadata"),
        ('{"content": "a", "metadata": ' + '{"k":' * 400 + "1" + "}" * 400 + "}", "metadata"),
        ('{"a": 1, "b": "{[", "c": ' + "[" * 100 + "]" * 100 + "}", "c"),
        ("[" * 10_000 + "]" * 10_000, "body"),
    ],
)
def test_a_body_nested_past_any_use_is_refused_unparsed_naming_its_field(text, field):
    with pytest.raises(ValidationFailed) as info:
        parse_body(text)
    assert info.value.details[0]["field"] == field


def test_a_wide_body_is_not_deep():
    # a batch's hundred facts hold more brackets than the limit, side by side, and strings
    # that open brackets they never close
    fact = '{"content": "[[{{ \\" {[", "metadata": {"k": [[1], {"n": [2]}]}}'
    body = parse_body('{"facts": [' + ", ".join([fact] * 100) + "]}")
    assert len(body["facts"]) == 100 and body["facts"][0]["content"] == '[[{{ " {['
    deep = '{"facts": [' + ", ".join([fact] * 100) + ', {"metadata": ' + "[" * 70 + "]" * 70 + "}]}"
    with pytest.raises(ValidationFailed) as info:
        parse_body(deep)
    assert info.value.details[0]["field"] == "facts"


@pytest.mark.parametrize("text", ['[{"content": "a"}, {"content": "b"}]', '"content"', "1", "null"])
def test_a_body_must_be_an_object(text):
    with pytest.raises(ValidationFailed) as info:
        parse_body(text)
    assert info.value.details[0]["field"] == "body"


@pytest.mark.parametrize(
    "valid_from", ["0001-01-01T00:00:00+01:00", "9999-12-31T20:00:00-14:00", "9999-12-31T23:59:59-00:01"]
)
def test_valid_from_must_fall_within_years_1_to_9999_in_utc(valid_from):
    with pytest.raises(ValidationError) as info:
        WriteRequest(content="a", valid_from=valid_from)
    assert problem(info.value) == ("valid_from", "Value error, must fall within the years 1 to 9999 in UTC")
    WriteRequest(content="a", valid_from="0001-01-01T00:00:00Z")
    WriteRequest(content="a", valid_from="9999-12-31T23:59:59.999999Z")


@pytest.mark.parametrize("value", [math.nan, math.inf, "NaN", "nan", "0.9", True, OversizedNumber("9" * 30)])
def test_min_confidence_is_a_finite_json_number(value):
    with pytest.raises(ValidationError) as info:
        SettingsPatch(min_confidence=value)
    assert problem(info.value)[0] == "min_confidence"


def test_request_fields_take_json_types_only():
    assert SettingsPatch(min_confidence=1).min_confidence == 1.0
    cases = [
        (WriteRequest, {"content": 12}),
        (WriteRequest, {"content": "a", "topic": True}),
        (WriteRequest, {"content": "a", "auto_supersede": 1}),
        (WriteRequest, {"content": "a", "metadata": [["k", "v"]]}),
        (SupersedeRequest, {"content": "a", "metadata": "{}"}),
        (SettingsPatch, {"classifier_model": 3}),
        (SettingsPatch, {"excluded_categories": "general"}),
        (SettingsPatch, {"auto_supersede_default": "true"}),
    ]
    for model, body in cases:
        with pytest.raises(ValidationError):
            model(**body)


def test_json_numbers_that_are_allowed_round_trip_through_json():
    metadata = {"max": 2**63 - 1, "tiny": 5e-324, "big": 1.7976931348623157e308, "deep": nested(31)}
    request = WriteRequest(content="a", metadata=metadata)
    assert json.loads(json.dumps(request.metadata, allow_nan=False)) == metadata
