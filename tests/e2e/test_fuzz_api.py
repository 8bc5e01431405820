"""Schemathesis fuzzes `aurra dev` from the committed OpenAPI document: no 5xx, and every
response (errors included) conforms to the schema. Bounded so CI stays quick."""

import json
import os
from collections import Counter
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance, unsupported_method

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
schema = schemathesis.openapi.from_dict(json.loads(DOCUMENT.read_text()))
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
    from aurra_core import keys
    from aurra_core.db import get_database

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
