"""Budgets of model calls per key and UTC day, and the receipt of every write that reached a
model, on a real PostgreSQL."""

from __future__ import annotations

import json
import threading
from decimal import Decimal

import psycopg
import pytest
from pipeline_support import ScriptedClassifier, deps

from aurra_core import metering
from aurra_core.access import keys
from aurra_core.classifiers.base import Classification
from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.models import SettingsPatch, SkippedReason, Verdict, WriteRequest
from aurra_core.storage.db import SERVICE_ROLE
from aurra_core.write_path import pipeline
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
                ok = metering.reserve_model_call(conn, caller, limit) is not None
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


# ---------------------------------------------------------------- budgets in dollars

HAIKU = "claude-haiku-4-5-20251001"


class PricedClassifier(ScriptedClassifier):
    """Answers as the model it is asked for, with the tokens a receipt prices."""

    def __init__(self, input_tokens: int, output_tokens: int) -> None:
        super().__init__(lambda new, c: (Verdict.SUPPLEMENTS, 0.7))
        self.tokens = (input_tokens, output_tokens)

    def failing(self) -> PricedClassifier:
        self.fail = True
        return self

    def classify(self, new_content, new_topic, candidates, model):
        answered = super().classify(new_content, new_topic, candidates, model)
        return Classification(answered.verdicts, model, answered.details, *self.tokens)


def set_cost_limit(db, caller, dollars):
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn, caller, SettingsPatch.model_validate({"daily_model_cost_limit_usd": dollars})
        )


def spent(db, caller) -> Decimal:
    with db.tenant_transaction(caller.tenant_id) as conn:
        return metering.cost_today(conn, caller)


def test_a_dollar_budget_takes_calls_while_their_most_fits_and_counts_their_receipts(db, new_key, configure):
    """A Claude classifier on a key with $0.05 a day: each call holds the most a classification
    can cost, then the receipt's price replaces the hold; a call whose hold no longer fits is
    not made, and the write is stored unclassified."""
    configure(AURRA_CLASSIFIER="bedrock")
    caller, _ = new_key()
    set_cost_limit(db, caller, 0.05)
    with db.tenant_transaction(caller.tenant_id) as conn:
        hold = pipeline.classification_hold(keys.get_key_settings(conn, caller))
    price = metering.cost_usd(HAIKU, 10_000, 100)
    assert price == 0.0105 and 0.02 < hold < 0.05 and hold > price  # the hold bounds the call
    classifier = PricedClassifier(10_000, 100)
    put(caller, "alice uses Vim", classifier)
    results = [put(caller, f"alice uses Vim on machine {i}", classifier) for i in range(5)]
    # taken while spent + hold <= 0.05: at 0, 0.0105 and 0.021; not at 0.0315
    assert [r.auto_supersede.ran for r in results] == [True, True, True, False, False]
    assert [r.auto_supersede.usage.cost_usd for r in results[:3]] == [price] * 3
    assert results[3].auto_supersede.skipped_reason == SkippedReason.BUDGET_EXHAUSTED
    assert all(r.created for r in results)
    assert spent(db, caller) == Decimal("0.0315")  # the receipts, no hold left over
    # raising it gives the key its calls back the same day
    set_cost_limit(db, caller, 0.1)
    assert put(caller, "alice uses Vim at work", classifier).auto_supersede.ran
    assert spent(db, caller) == Decimal("0.0420")
    # a failed call keeps its hold: its cost is unknown, so it counts at its most
    failed = put(caller, "alice uses Vim at home", PricedClassifier(0, 0).failing()).auto_supersede
    assert failed.skipped_reason == SkippedReason.CLASSIFIER_ERROR
    assert spent(db, caller) == Decimal("0.0420") + Decimal(str(hold))


def test_a_batch_under_a_dollar_budget_holds_what_it_may_spend_and_keeps_only_its_receipts(
    db, new_key, configure
):
    """The same $0.05 budget, the five facts in one batch: the batch holds one most-cost a fact
    it may classify, as many as fit; after it, the key's spend is the three receipts alone."""
    from aurra_core.models import BatchFact, BatchWriteRequest
    from aurra_core.write_path.batch import write_batch

    configure(AURRA_CLASSIFIER="bedrock")
    caller, _ = new_key()
    set_cost_limit(db, caller, 0.05)
    classifier = PricedClassifier(10_000, 100)
    put(caller, "alice uses Vim", classifier)
    facts = [BatchFact(content=f"alice uses Vim on machine {i}", topic="preferences") for i in range(5)]
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), deps(classifier))
    ran = [r.auto_supersede.ran for r in result.results]
    with db.tenant_transaction(caller.tenant_id) as conn:
        hold = pipeline.classification_hold(keys.get_key_settings(conn, caller))
    held = int(Decimal("0.05") // Decimal(str(hold)))  # the holds that fit under the limit at once
    assert 1 <= held < 5
    assert ran == [True] * held + [False] * (5 - held)
    assert spent(db, caller) == Decimal("0.0105") * held
    assert calls_counted(db, caller) == held


def test_concurrent_calls_never_hold_more_than_the_dollar_limit(pg_url, new_key):
    """Twelve connections reserving at once, each call holding $0.01 of a $0.05 budget: five
    are taken, whatever the interleaving; settling them leaves their prices."""
    caller, _ = new_key()
    workers, attempts = 12, 2
    granted: list = []
    lock = threading.Lock()
    barrier = threading.Barrier(workers, timeout=30)

    def connect() -> psycopg.Connection:
        conn = psycopg.connect(pg_url, autocommit=True)
        conn.execute(
            "SELECT set_config('role', %s, false), set_config('aurra.tenant_id', %s, false)",
            (SERVICE_ROLE, str(caller.tenant_id)),
        )
        return conn

    def worker() -> None:
        with connect() as conn:
            barrier.wait()
            for _ in range(attempts):
                day = metering.reserve_model_call(conn, caller, None, 0.05, 0.01)
                with lock:
                    granted.append(day)

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    taken = [d for d in granted if d is not None]
    assert len(granted) == workers * attempts and len(taken) == 5
    with connect() as conn:
        assert metering.cost_today(conn, caller) == Decimal("0.05")
        for day in taken:
            metering.settle_model_call(conn, caller, day, 0.004 - 0.01)
        assert metering.cost_today(conn, caller) == Decimal("0.02")
        assert metering.calls_today(conn, caller) == 5
        # a call holding more than what is left is refused; one that fits is taken
        assert metering.reserve_model_call(conn, caller, None, 0.05, 0.031) is None
        assert metering.reserve_model_call(conn, caller, None, 0.05, 0.03) is not None


def test_a_zero_dollar_budget_still_allows_the_free_offline_classifier(db, new_key):
    caller, _ = new_key()
    set_cost_limit(db, caller, 0)
    put(caller, "alice uses Vim", RulesClassifier())
    out = put(caller, "alice switched from Vim to Emacs", RulesClassifier())
    assert out.auto_supersede.ran and out.auto_supersede.usage.cost_usd == 0.0
    assert spent(db, caller) == 0


def test_a_messages_write_past_the_dollar_budget_is_refused_before_anything(db, new_key, configure):
    from aurra_core.errors import BudgetExhausted
    from aurra_core.models import MessagesWriteRequest

    configure(AURRA_EXTRACTOR="bedrock")
    caller, _ = new_key()
    set_cost_limit(db, caller, 0.01)  # under the most an extraction can cost
    request = MessagesWriteRequest.model_validate(
        {"messages": [{"role": "user", "content": "I moved to Berlin"}]}
    )
    with pytest.raises(BudgetExhausted, match=r"daily_model_cost_limit_usd \(\$0.01\)"):
        pipeline.write_messages(caller, request, deps(supplementing()))
    with db.tenant_transaction(caller.tenant_id) as conn:
        assert metering.calls_today(conn, caller) == 0


# ---------------------------------------------------------------- the deployment's models and defaults


def test_new_keys_start_on_the_deployments_model_and_daily_limit(db, new_key, configure):
    from pydantic import ValidationError

    configure(
        AURRA_CLASSIFIER_MODELS='["claude-sonnet-4-5-20250929"]', AURRA_DEFAULT_DAILY_MODEL_CALLS_LIMIT="500"
    )
    caller, _ = new_key()
    with db.tenant_transaction(caller.tenant_id) as conn:
        settings = keys.get_key_settings(conn, caller)
    assert settings.classifier_model == "claude-sonnet-4-5-20250929"
    assert settings.daily_model_calls_limit == 500
    # only the deployment's models may be chosen: the operator pays every call
    with pytest.raises(ValidationError, match="one of this deployment's models: claude-sonnet-4-5-20250929"):
        SettingsPatch.model_validate({"classifier_model": HAIKU})


def test_a_key_set_on_a_model_the_deployment_no_longer_allows_gets_its_default(db, new_key, configure):
    """A setting made before the allow-list (or under a wider one) never reaches that model."""
    caller, _ = new_key()
    with db.tenant_transaction(caller.tenant_id) as conn:
        keys.update_key_settings(
            conn, caller, SettingsPatch.model_validate({"classifier_model": "claude-sonnet-4-5-20250929"})
        )
    configure(AURRA_CLASSIFIER_MODELS=f'["{HAIKU}"]')
    classifier = PricedClassifier(10, 1)
    asked: list[str] = []
    answer = classifier.classify

    def recording(new_content, new_topic, candidates, model):
        asked.append(model)
        return answer(new_content, new_topic, candidates, model)

    classifier.classify = recording  # type: ignore[method-assign]
    put(caller, "alice uses Vim", classifier)
    assert put(caller, "alice uses Vim daily", classifier).auto_supersede.ran
    assert asked == [HAIKU]


def calls_counted(db, caller) -> int:
    with db.tenant_transaction(caller.tenant_id) as conn:
        return metering.calls_today(conn, caller)


def test_a_batch_takes_its_calls_at_once_and_gives_back_what_it_did_not_use(db, new_key):
    """A limit of 3 and a batch of 6 facts of which 5 meet a candidate: 3 calls are made, the
    other 2 facts are stored unclassified, and the day counts exactly the 3 calls made."""
    from aurra_core.models import BatchFact, BatchWriteRequest, SkippedReason
    from aurra_core.write_path.batch import write_batch

    caller, _ = new_key()
    set_limit(db, caller, 3)
    classifier = supplementing()
    facts = [BatchFact(content=f"alice uses Vim on machine {i}", topic="preferences") for i in range(6)]
    result = write_batch(caller, BatchWriteRequest(facts=facts, auto_supersede=True), deps(classifier))
    reasons = [r.auto_supersede.skipped_reason for r in result.results]
    assert len(classifier.calls) == 3
    assert reasons == [SkippedReason.NO_CANDIDATES, None, None, None, *[SkippedReason.BUDGET_EXHAUSTED] * 2]
    assert calls_counted(db, caller) == 3
    # No limit: the batch takes one call a fact and gives back the one it did not need.
    set_limit(db, caller, None)
    more = [
        BatchFact(content=f"bob uses Emacs on machine {i}", topic="work", user_id="bob") for i in range(3)
    ]
    write_batch(caller, BatchWriteRequest(facts=more, auto_supersede=True), deps(classifier))
    assert len(classifier.calls) == 5 and calls_counted(db, caller) == 5


def test_a_batch_classifying_does_not_hold_up_the_keys_other_level_2_writes(db, new_key, configure):
    """While a batch waits on its model, another Level 2 write of the same key takes its call
    and is stored: the batch holds no lock on the key's budget through its classifications."""
    import threading

    from aurra_core.models import BatchFact, BatchWriteRequest
    from aurra_core.write_path.batch import write_batch

    # The batch's call may wait 20 s for its model: the other write must not wait for it.
    configure(AURRA_CLASSIFIER_TIMEOUT_S="20", AURRA_MESSAGES_WRITE_DEADLINE_S="25")
    caller, _ = new_key()
    put(caller, "alice uses Vim", supplementing())
    in_model, release = threading.Event(), threading.Event()

    def waits_for_release() -> None:
        in_model.set()
        release.wait(60)

    batch = threading.Thread(
        target=write_batch,
        args=(
            caller,
            BatchWriteRequest(
                facts=[BatchFact(content="alice uses Vim daily", topic="preferences")], auto_supersede=True
            ),
            deps(
                ScriptedClassifier(lambda new, c: (Verdict.SUPPLEMENTS, 0.7), before_answer=waits_for_release)
            ),
        ),
    )
    batch.start()
    try:
        assert in_model.wait(30)
        alone = threading.Thread(target=put, args=(caller, "alice uses Vim at work", supplementing()))
        alone.start()
        alone.join(8)
        assert not alone.is_alive(), "the write waited for the batch"
        assert calls_counted(db, caller) == 2
    finally:
        release.set()
        batch.join(60)
