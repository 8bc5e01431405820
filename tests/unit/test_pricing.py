"""The price table: costs from published prices, null for what it does not know."""

from datetime import date

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.metering import PRICES, PRICES_CHECKED, cost_usd
from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODEL


def test_the_default_model_is_priced_at_its_published_rate():
    # Haiku 4.5: $1 per million input tokens, $5 per million output tokens.
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1577, 170) == 0.002427
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1_000_000, 0) == 1.0
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 0, 1_000_000) == 5.0


def test_prompt_cache_reads_and_writes_are_priced_apart_from_the_other_input():
    # Haiku 4.5: cache writes $1.25 per million (1.25x input), cache reads $0.10 (0.1x).
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 130, 90, cache_read_input_tokens=5000) == 0.00108
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 130, 90, cache_creation_input_tokens=5000) == 0.00683
    assert (
        cost_usd(DEFAULT_CLASSIFIER_MODEL, 130, 90, 0, 0)
        == cost_usd(DEFAULT_CLASSIFIER_MODEL, 130, 90)
        == 0.00058
    )
    # Sonnet 4.5: $3 input, $3.75 cache write, $0.30 cache read, $15 output.
    assert cost_usd("claude-sonnet-4-5-20250929", 100, 0, 1000, 1000) == (300 + 3750 + 300) / 1e6
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, None, 90, cache_read_input_tokens=5000) is None


def test_an_unknown_model_or_unknown_tokens_cost_null_never_a_guess():
    assert cost_usd("claude-some-future-model", 1000, 100) is None
    assert cost_usd(None, 1000, 100) is None
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, None, 100) is None
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1000, None) is None


def test_the_offline_classifier_is_in_the_table_at_zero():
    assert RulesClassifier.model in PRICES
    assert cost_usd(RulesClassifier.model, 0, 0) == 0.0


def test_every_model_the_service_maps_for_bedrock_has_a_price_and_the_table_is_dated():
    from aurra_core.classifiers.bedrock_profiles import CLAUDE_MODELS

    assert set(CLAUDE_MODELS) <= set(PRICES)
    assert isinstance(PRICES_CHECKED, date)


def test_a_receipt_carries_the_cache_counts_prices_them_and_meters_them(monkeypatch, capsys):
    import json
    import uuid

    from aurra_core.metering import emit_usage_metrics, receipt
    from aurra_core.models import Caller

    usage = receipt(
        DEFAULT_CLASSIFIER_MODEL, 130, 90, 412, cache_read_input_tokens=5000, cache_creation_input_tokens=0
    )
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (5000, 0)
    assert usage.cost_usd == 0.00108
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    capsys.readouterr()
    emit_usage_metrics(
        Caller(tenant_id=uuid.uuid4(), api_key_id=uuid.uuid4()), usage, source="classifier", model="m"
    )
    (record,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert record["ModelCacheReadTokens"] == [5000.0] and record["ModelCacheWriteTokens"] == [0.0]
    assert record["ModelCostUSD"] == [0.00108]


def test_every_model_a_key_may_choose_has_a_price_and_an_inference_profile():
    """Dollar budgets count from the price table, so a model without a price may not be chosen."""
    from aurra_core.classifiers.bedrock_profiles import CLAUDE_MODELS
    from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODELS

    assert DEFAULT_CLASSIFIER_MODEL in DEFAULT_CLASSIFIER_MODELS
    assert set(DEFAULT_CLASSIFIER_MODELS) <= set(CLAUDE_MODELS) <= set(PRICES)


def test_the_most_a_call_can_cost_prices_every_input_token_as_a_cache_write():
    from aurra_core.metering import most_usd

    assert most_usd(DEFAULT_CLASSIFIER_MODEL, 1_000_000, 0) == 1.25  # $1 input, written to the cache
    assert most_usd(DEFAULT_CLASSIFIER_MODEL, 0, 1_000_000) == 5.0
    assert most_usd(DEFAULT_CLASSIFIER_MODEL, 1, 0) == 0.00000125
    assert most_usd(DEFAULT_CLASSIFIER_MODEL, 3, 0) == 0.00000375
    assert most_usd("a-model-without-a-price", 10_000, 10_000) == 0.0
