"""How `ServiceConfig` reads the environment: `AURRA_<FIELD>` in any case, Lambda's own
variables by their names, a list as JSON, the arguments over the environment, and a bad value a
validation error naming the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from aurra_core.runtime.config import ServiceConfig, get_config, reset_config


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    for name in ("AURRA_STAGE", "AURRA_LEVEL2_ENABLED", "AURRA_DB_POOL_MAX", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    reset_config()
    yield
    reset_config()


def test_a_field_comes_from_its_prefixed_variable_in_any_case(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_STAGE", "prod")
    monkeypatch.setenv("aurra_level2_enabled", "true")
    monkeypatch.setenv("Aurra_Db_Pool_Max", "9")
    config = get_config()
    assert (config.stage, config.level2_enabled, config.db_pool_max) == ("prod", True, 9)
    assert get_config() is config  # read once


def test_lambdas_own_variables_are_read_by_their_names(monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "token")
    monkeypatch.setenv("AURRA_AWS_REGION", "us-east-1")  # not the prefixed name
    config = ServiceConfig()
    assert config.aws_region == "eu-west-1"
    assert config.aws_session_token is not None and config.aws_session_token.get_secret_value() == "token"


def test_a_list_is_json(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_DB_LOGIN_SECRET_ARNS", '["arn:a", "arn:b"]')
    assert ServiceConfig().db_login_secret_arns == ["arn:a", "arn:b"]


def test_arguments_override_the_environment_by_field_name(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_STAGE", "prod")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    config = ServiceConfig(stage="test", aws_region="ap-southeast-2")
    assert (config.stage, config.aws_region) == ("test", "ap-southeast-2")
    assert ServiceConfig().stage == "prod"


def test_unset_fields_keep_their_defaults_and_unknown_variables_are_ignored(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_NOT_A_SETTING", "x")
    config = ServiceConfig()
    assert (config.stage, config.level2_enabled, config.db_pool_max) == ("local", False, 4)


def test_a_bad_value_is_a_validation_error_naming_the_field(monkeypatch) -> None:
    monkeypatch.setenv("AURRA_DB_POOL_MAX", "0")
    with pytest.raises(ValidationError, match="db_pool_max"):
        ServiceConfig()


def test_the_models_a_key_may_choose_and_new_keys_budget(monkeypatch) -> None:
    from aurra_core.runtime.config import DEFAULT_CLASSIFIER_MODEL, DEFAULT_CLASSIFIER_MODELS

    local = ServiceConfig()
    assert local.classifier_models == list(DEFAULT_CLASSIFIER_MODELS)
    assert local.default_classifier_model == DEFAULT_CLASSIFIER_MODEL
    assert local.default_daily_model_calls_limit is None
    monkeypatch.setenv("AURRA_CLASSIFIER_MODELS", '["claude-sonnet-4-5-20250929"]')
    monkeypatch.setenv("AURRA_DEFAULT_DAILY_MODEL_CALLS_LIMIT", "5000")
    stage = ServiceConfig()
    assert stage.classifier_models == ["claude-sonnet-4-5-20250929"]
    assert stage.default_classifier_model == "claude-sonnet-4-5-20250929"
    assert stage.default_daily_model_calls_limit == 5000
    # a setting the deployment no longer allows reaches its default model, never the one named
    assert stage.allowed_model("claude-opus-4-1-20250805") == "claude-sonnet-4-5-20250929"
    assert stage.allowed_model("claude-sonnet-4-5-20250929") == "claude-sonnet-4-5-20250929"
    monkeypatch.setenv("AURRA_CLASSIFIER_MODELS", "[]")
    with pytest.raises(ValidationError, match="classifier_models"):
        ServiceConfig()
