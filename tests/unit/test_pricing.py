"""The price table: costs from published prices, null for what it does not know."""

from datetime import date

from aurra_core.classifiers.rules import RulesClassifier
from aurra_core.config import DEFAULT_CLASSIFIER_MODEL
from aurra_core.metering import PRICES, PRICES_CHECKED, cost_usd


def test_the_default_model_is_priced_at_its_published_rate():
    # Haiku 4.5: $1 per million input tokens, $5 per million output tokens.
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1577, 170) == 0.002427
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1_000_000, 0) == 1.0
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 0, 1_000_000) == 5.0


def test_an_unknown_model_or_unknown_tokens_cost_null_never_a_guess():
    assert cost_usd("claude-some-future-model", 1000, 100) is None
    assert cost_usd(None, 1000, 100) is None
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, None, 100) is None
    assert cost_usd(DEFAULT_CLASSIFIER_MODEL, 1000, None) is None


def test_the_offline_classifier_is_in_the_table_at_zero():
    assert RulesClassifier.model in PRICES
    assert cost_usd(RulesClassifier.model, 0, 0) == 0.0


def test_every_model_the_service_maps_for_bedrock_has_a_price_and_the_table_is_dated():
    from aurra_core.classifiers.claude import BEDROCK_MODEL_IDS

    assert set(BEDROCK_MODEL_IDS) <= set(PRICES)
    assert isinstance(PRICES_CHECKED, date)
