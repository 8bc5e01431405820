"""Budgets of model calls per key and UTC day, and the receipt of every write that reached a
model, on a real PostgreSQL."""

from __future__ import annotations

import json
import threading

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core import metering
from aurra_core.access import keys
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import SettingsPatch, SkippedReason, Verdict, WriteRequest
from aurra_core.storage.db import SERVICE_ROLE
from aurra_core.write_path.pipeline import write_memory


def supplementing() -> ScriptedClassifier:
    return ScriptedClassifier(lambda new, c: (Verdict.SUPPLEMENTS, 0.7))


def put(caller, content, classifier):
    request = WriteRequest(content=content, topic="preferences", auto_supersede=True)
    return write_memory(caller, request, deps(classifier)).result


def set_limit(db, caller, limit):
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn, caller, SettingsPatch.model_validate({"daily_model_calls_limit": limit})
        )


def test_a_key_with_a_limit_of_two_is_classified_twice_then_skips(db, new_key):
    caller, _ = new_key()
    set_limit(db, caller, 2)
    classifier = supplementing()
    put(caller, "alice uses Vim", classifier)  # no candidates yet: no call, nothing counted
    results = [put(caller, f"alice uses Vim on machine {i}", classifier) for i in range(4)]
    assert [r.auto_supersede.ran for r in results] == [True, True, False, False]
    assert [r.auto_supersede.skipped_reason for r in results[2:]] == [SkippedReason.BUDGET_EXHAUSTED] * 2
    assert all(r.created for r in results)  # a spent budget never loses a write
    assert results[2].auto_supersede.usage is None and results[2].auto_supersede.candidates_examined == 0
    assert len(classifier.calls) == 2
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert metering.calls_today(conn, caller) == 2
    # Raising the limit gives the key its calls back the same day; another key is not affected.
    set_limit(db, caller, 3)
    assert put(caller, "alice uses Vim at work", classifier).auto_supersede.ran
    other, _ = new_key()
    put(other, "bob uses Vim", classifier)
    assert put(other, "bob uses Vim at home", classifier).auto_supersede.ran


def test_a_limit_of_zero_allows_no_call_and_no_limit_counts_all(db, new_key):
    caller, _ = new_key()
    set_limit(db, caller, 0)
    classifier = supplementing()
    put(caller, "alice uses Vim", classifier)
    out = put(caller, "alice uses Vim daily", classifier)
    assert out.auto_supersede.skipped_reason == SkippedReason.BUDGET_EXHAUSTED and not classifier.calls
    set_limit(db, caller, None)
    for i in range(3):
        assert put(caller, f"alice uses Vim {i}", classifier).auto_supersede.ran
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert metering.calls_today(conn, caller) == 3


def test_concurrent_reservations_never_exceed_the_limit(pg_url, new_key):
    """Twelve connections of their own, each reserving at the same moment, many times."""
    caller, _ = new_key()
    limit, workers, attempts = 7, 12, 3
    granted: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(workers, timeout=30)

    def worker() -> None:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                "SELECT set_config('role', %s, false), set_config('aurra.tenant_id', %s, false)",
                (SERVICE_ROLE, str(caller.tenant_id)),
            )
            barrier.wait()
            for _ in range(attempts):
                ok = metering.reserve_model_call(conn, caller, limit)
                with lock:
                    granted.append(ok)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(granted) == workers * attempts
    assert granted.count(True) == limit
    with psycopg.connect(pg_url) as conn:
        (calls,) = conn.execute(
            "SELECT calls FROM model_call_counts WHERE api_key_id = %s AND day = (now() AT TIME ZONE 'UTC')::date",
            (caller.api_key_id,),
        ).fetchone()
    assert calls == limit


def test_counters_are_tenant_scoped(pg_url, new_key):
    """Row-level security: a tenant's connection cannot see another tenant's counters."""
    alice, _ = new_key()
    bob, _ = new_key()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "SELECT set_config('role', %s, false), set_config('aurra.tenant_id', %s, false)",
            (SERVICE_ROLE, str(alice.tenant_id)),
        )
        assert metering.reserve_model_call(conn, alice, None)
        assert metering.calls_today(conn, alice) == 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            metering.reserve_model_call(conn, bob, None)  # bob's row under alice's tenant: refused
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "SELECT set_config('role', %s, false), set_config('aurra.tenant_id', %s, false)",
            (SERVICE_ROLE, str(bob.tenant_id)),
        )
        assert conn.execute("SELECT count(*) FROM model_call_counts").fetchone()[0] == 0


# ---------------------------------------------------------------- receipts


def test_the_offline_classifier_costs_nothing(db, new_key):
    caller, _ = new_key()
    put(caller, "alice uses Vim", RulesClassifier())
    out = put(caller, "alice switched from Vim to Emacs", RulesClassifier())
    usage = out.auto_supersede.usage
    assert usage.model_calls == 1 and usage.cost_usd == 0.0
    assert (usage.input_tokens, usage.output_tokens) == (0, 0) and usage.latency_ms >= 0


def test_an_unknown_model_has_no_cost_and_a_failed_call_no_tokens(db, new_key):
    caller, _ = new_key()
    scripted = ScriptedClassifier()  # answers as "scripted-model", which has no price
    put(caller, "alice uses Vim", scripted)
    usage = put(caller, "alice uses Vim at home", scripted).auto_supersede.usage
    assert usage.model_calls == 1 and usage.cost_usd is None
    failed = put(caller, "alice uses Vim at work", ScriptedClassifier(fail=True)).auto_supersede
    assert failed.skipped_reason == SkippedReason.CLASSIFIER_ERROR
    assert (
        failed.usage.model_calls == 1 and failed.usage.input_tokens is None and failed.usage.cost_usd is None
    )
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert metering.calls_today(conn, caller) == 2  # a failed call still counts


def test_usage_is_emitted_as_metrics_per_key(db, new_key, monkeypatch, capsys):
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    caller, _ = new_key()
    put(caller, "alice uses Vim", RulesClassifier())
    capsys.readouterr()
    put(caller, "alice switched from Vim to Emacs", RulesClassifier())
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    (record,) = [r for r in records if "ModelCalls" in r]
    assert record["ApiKeyId"] == str(caller.api_key_id) and record["tenant_id"] == str(caller.tenant_id)
    assert record["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["ApiKeyId", "service"]]
    assert record["ModelCalls"] == [1.0] and record["ModelInputTokens"] == [0.0]
    assert record["ModelCostUSD"] == [0.0] and record["source"] == "classifier"
