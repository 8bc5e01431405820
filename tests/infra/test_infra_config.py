"""Context parsing and validation (no synthesis)."""

from __future__ import annotations

import pytest

from infra.components.common import retention
from infra.config import LOG_RETENTION_DAYS, AurraConfig, ConfigError


def config(**context) -> AurraConfig:
    return AurraConfig.from_mapping(context)


def test_defaults_need_no_context() -> None:
    cfg = config()
    assert cfg.stage == "dev"
    assert cfg.architecture == "arm64"
    assert cfg.classifier == "bedrock"
    assert cfg.uses_bedrock
    assert cfg.embedder == "bedrock"
    assert cfg.resolved_embedding_dim == 1024
    assert cfg.authorizer_cache_ttl_seconds == 300
    assert cfg.resolved_deletion_protection is False
    assert cfg.resolved_db_readers == 0
    assert cfg.resolved_create_vpc_endpoints is True
    assert cfg.needs_internet is False


def test_command_line_strings_are_parsed() -> None:
    cfg = config(
        stage="prod",
        alarmEmail="oncall@example.com",
        dbMinCapacity="0",
        dbMaxCapacity="8",
        wafEnabled="true",
        authorizerCacheTtlSeconds="60",
        embeddingDim="512",
        throttleRateLimit="25.5",
    )
    assert cfg.db_min_capacity == 0 and cfg.db_max_capacity == 8
    assert cfg.waf_enabled is True
    assert cfg.authorizer_cache_ttl_seconds == 60
    assert cfg.resolved_embedding_dim == 512
    assert cfg.throttle_rate_limit == 25.5
    assert cfg.resolved_deletion_protection is True
    assert cfg.resolved_db_readers == 1


def test_local_embedder_defaults_to_384_dimensions() -> None:
    assert config(embedder="local").resolved_embedding_dim == 384


def test_existing_vpc_skips_endpoints_unless_asked() -> None:
    assert config(vpcId="vpc-0123456789abcdef0").resolved_create_vpc_endpoints is False
    assert config(vpcId="vpc-0123456789abcdef0", createVpcEndpoints="yes").resolved_create_vpc_endpoints


@pytest.mark.parametrize(
    "context, key",
    [
        ({"stage": "Prod"}, "stage"),
        ({"stage": "a-b"}, "stage"),
        ({"architecture": "arm"}, "architecture"),
        ({"classifier": "gpt"}, "classifier"),
        ({"embedder": "openai"}, "embedder"),
        ({"embeddingDim": "384"}, "embeddingDim"),  # not a Titan V2 size
        ({"dbMinCapacity": "4", "dbMaxCapacity": "2"}, "dbMinCapacity"),
        ({"dbMaxCapacity": "3.3"}, "dbMaxCapacity"),
        ({"authorizerCacheTtlSeconds": "7200"}, "authorizerCacheTtlSeconds"),
        ({"logRetentionDays": "10"}, "logRetentionDays"),
        ({"logLevel": "TRACE"}, "logLevel"),
        ({"quotaPeriod": "YEAR"}, "quotaPeriod"),
        ({"vpcId": "my-vpc"}, "vpcId"),
        ({"vpcCidr": "10.0.0.0/8"}, "vpcCidr"),
        ({"wafEnabled": "maybe"}, "wafEnabled"),
        ({"dbMaxCapacity": "lots"}, "dbMaxCapacity"),
        ({"classifier": "anthropic", "natGateways": "0"}, "natGateways"),
    ],
)
def test_bad_values_name_their_context_key(context, key) -> None:
    with pytest.raises(ConfigError, match=f"context {key}="):
        config(**context)


def test_a_stage_other_than_dev_needs_someone_its_alarms_reach() -> None:
    with pytest.raises(ConfigError, match="context alarmEmail=None: stage 'staging' needs alarmEmail or"):
        config(stage="staging")
    assert config(stage="staging", alarmEmail="oncall@example.com").alarm_email == "oncall@example.com"
    pager = "https://events.pagerduty.com/integration/0123456789abcdef/enqueue"
    assert config(stage="staging", alarmEndpoint=pager).alarm_endpoint == pager
    with pytest.raises(ConfigError, match="context alarmEndpoint="):
        config(stage="staging", alarmEndpoint="http://pager.example.com/hook")
    # dev may go without: a developer's own stage
    assert config().alarm_email is None


def test_the_models_a_key_may_choose_and_new_keys_budget_are_stage_settings() -> None:
    cfg = config()
    assert cfg.classifier_models == ("claude-haiku-4-5-20251001",)
    assert cfg.daily_model_calls_limit == 5000
    listed = config(classifierModels=["claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"])
    assert listed.classifier_models == ("claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929")
    # on the command line, comma-separated
    assert config(classifierModels="claude-sonnet-4-5-20250929").classifier_models == (
        "claude-sonnet-4-5-20250929",
    )
    assert config(dailyModelCallsLimit="none").daily_model_calls_limit is None
    assert config(dailyModelCallsLimit="250").daily_model_calls_limit == 250
    for context, key in (
        ({"classifierModels": ["claude-opus-9"]}, "classifierModels"),
        ({"classifierModels": []}, "classifierModels"),
        ({"dailyModelCallsLimit": "-1"}, "dailyModelCallsLimit"),
        ({"dailyModelCallsLimit": True}, "dailyModelCallsLimit"),
    ):
        with pytest.raises(ConfigError, match=f"context {key}="):
            config(**context)


def test_every_allowed_retention_maps_to_cloudwatch() -> None:
    for days in LOG_RETENTION_DAYS:
        retention(days)
