"""Schemathesis fuzzes `aurra dev` from the committed OpenAPI document: no 5xx, and every
response (errors included) conforms to the schema. Bounded so CI stays quick."""

import json
import os
from collections import Counter
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import positive_data_acceptance, unsupported_method
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, NegativeDataRejectionConfig

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
schema = schemathesis.openapi.from_dict(json.loads(DOCUMENT.read_text()))
# A body over 64 KiB (413) and a query string or headers over the limit (431) are rejections
# too, and the document declares both on every route; schemathesis's default list has neither,
# so a generated oversized value failed the run now and then.
schema.config.checks.negative_data_rejection = NegativeDataRejectionConfig(
    expected_statuses=[*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413", "431"]
)
SENT = {"requests": 0}
STATUSES: Counter = Counter()
# CI's budget per operation; AURRA_FUZZ_EXAMPLES raises it for a longer run by hand.
EXAMPLES = int(os.environ.get("AURRA_FUZZ_EXAMPLES", "25"))


@pytest.fixture(scope="module", autouse=True)
def report_requests_sent():
    yield
    print(
        f"\nschemathesis sent {SENT['requests']} generated requests; statuses {dict(sorted(STATUSES.items()))}"
    )
    if not SENT["requests"]:
        return  # only the hostile-value tests ran (-k)
    # The fuzzing reached the handlers, not only the authorizer's 401.
    assert sum(n for code, n in STATUSES.items() if 200 <= code < 300) > 0
    assert sum(n for code, n in STATUSES.items() if code >= 500) == 0


KEY: dict[str, str] = {}


@schema.auth()
class BearerKey:
    """Tells schemathesis how the API authenticates, so its own auth mutations stay coherent."""

    def get(self, case, context):
        # Cases are partly generated while collecting, before the fixture made the key.
        return KEY.get("raw", "pending")

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {KEY.get('raw', data)}"}


@pytest.fixture(scope="module")
def fuzz_key(new_key_module):
    KEY["raw"] = new_key_module
    return new_key_module


@pytest.fixture(scope="module")
def new_key_module(pg_url):
    from aurra_core.access import keys
    from aurra_core.storage.db import get_database

    with get_database().transaction() as conn:
        _, raw = keys.create_key(conn, "fuzz-tenant")
    return raw


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case, dev_server, fuzz_key):
    SENT["requests"] += 1
    # Excluded: positive_data_acceptance (the API rightly refuses some schema-valid inputs:
    # an unknown cursor, metadata over 8 KiB, a valid_from earlier than the memory it replaces)
    # and unsupported_method (like API Gateway, an undeclared method is "no such route", 404).
    response = case.call_and_validate(
        base_url=dev_server.base_url, excluded_checks=[positive_data_acceptance, unsupported_method]
    )
    STATUSES[response.status_code] += 1


# ---------------------------------------------------------------- hostile values
# What schemathesis does not make from the schema: the values a hostile client probed with.
# Whatever comes, the answer is a 2xx or a 4xx in the envelope naming a field, never a 5xx,
# and whatever was stored reads back through list, search and get.


def _nest(depth: int, leaf: str, use_arrays: list[bool]) -> str:
    text = leaf
    for level in range(depth):
        text = f"[{text}]" if use_arrays[level % len(use_arrays)] else f'{{"k{level}": {text}}}'
    return text


deep_nesting = st.builds(
    _nest,
    st.integers(min_value=0, max_value=400),
    st.sampled_from(["1", '"x"', "null", "{}", "[]"]),
    st.lists(st.booleans(), min_size=1, max_size=4),
)
non_finite = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1E999", "-0.0", "1e-400"])
huge_integers = st.integers(min_value=1, max_value=6000).map(lambda digits: "9" * digits) | st.integers(
    min_value=2**62, max_value=2**65
).map(str)
metadata_values = deep_nesting | non_finite | huge_integers | non_finite.map(lambda n: f"[1, {n}]")


@st.composite
def extreme_timestamps(draw: st.DrawFn) -> str:
    year = draw(st.sampled_from([1, 2, 1969, 2026, 9998, 9999]))
    month, day = draw(st.sampled_from([(1, 1), (12, 31), (2, 28)]))
    hour = draw(st.integers(0, 23))
    sign = draw(st.sampled_from(["+", "-"]))
    offset = f"{sign}{draw(st.integers(0, 25)):02d}:{draw(st.integers(0, 59)):02d}"
    zone = draw(st.sampled_from(["Z", offset, offset, "+14:00", "-14:00"]))
    return f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:00:00{zone}"


def _accepted_or_refused_by_field(response: httpx.Response, *fields: str) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["details"] and error["details"][0]["field"] in fields, error


@given(value=metadata_values)
@settings(max_examples=EXAMPLES * 4, deadline=None, suppress_health_check=list(HealthCheck))
def test_hostile_metadata_is_stored_readably_or_refused_by_name(dev_server, fuzz_key, value):
    body = '{"content": "hostile metadata", "metadata": {"v": ' + value + "}}"
    with httpx.Client(
        base_url=dev_server.base_url, headers={"Authorization": f"Bearer {fuzz_key}"}
    ) as client:
        response = client.post("/agent/memories", content=body, headers={"Content-Type": "application/json"})
        _accepted_or_refused_by_field(response, "metadata")
        if response.status_code == 201:
            memory_id = response.json()["memory"]["id"]
            assert client.get(f"/agent/memories/{memory_id}").status_code == 200
        for params in ({"limit": 5}, {"q": "hostile metadata", "limit": 5}):
            assert client.get("/agent/memories", params=params).status_code == 200


@given(valid_from=extreme_timestamps(), as_of=extreme_timestamps())
@settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck))
def test_extreme_offsets_are_stored_readably_or_refused_by_name(dev_server, fuzz_key, valid_from, as_of):
    with httpx.Client(
        base_url=dev_server.base_url, headers={"Authorization": f"Bearer {fuzz_key}"}
    ) as client:
        written = client.post(
            "/agent/memories", json={"content": "an extreme time", "valid_from": valid_from}
        )
        _accepted_or_refused_by_field(written, "valid_from")
        if written.status_code == 201:
            memory_id = written.json()["memory"]["id"]
            assert client.get(f"/agent/memories/{memory_id}/history").status_code == 200
        listed = client.get("/agent/memories", params={"as_of": as_of, "known_at": as_of, "limit": 5})
        _accepted_or_refused_by_field(listed, "as_of", "known_at")
        audit = client.get("/agent/audit", params={"since": as_of, "limit": 5})
        _accepted_or_refused_by_field(audit, "since")
