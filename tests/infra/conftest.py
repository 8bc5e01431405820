"""Fixtures of the infrastructure tests: each configuration synthesized once
per session (see infra_testkit.py)."""

from __future__ import annotations

import pytest
from infra_testkit import EXISTING_VPC, Synth, existing_vpc_lookup, synthesize


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "layer_build: builds the Lambda layer with pip for the Lambda platform "
        "(needs the package index; deselect with -m 'not layer_build')",
    )


@pytest.fixture(scope="session")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """The default configuration: stage dev, rules classifier, Bedrock embedder."""
    return synthesize(tmp_path_factory.mktemp("cdk-dev"))


@pytest.fixture(scope="session")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """A production-like stage: Anthropic classifier (internet through NAT),
    local embedder (so no Bedrock at all), WAF on, an alarm subscription."""
    return synthesize(
        tmp_path_factory.mktemp("cdk-prod"),
        stage="prod",
        classifier="anthropic",
        embedder="local",
        wafEnabled="true",
        alarmEmail="ops@example.com",
        authorizerCacheTtlSeconds="120",
        throttleRateLimit="10",
        throttleBurstLimit="20",
        quotaLimit="5000",
        quotaPeriod="DAY",
    )


@pytest.fixture(scope="session")
def existing(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """An existing VPC by id (the lookup answered from context, as from a
    committed cdk.context.json), with the Bedrock classifier."""
    account, region = "123456789012", "eu-west-1"
    return synthesize(
        tmp_path_factory.mktemp("cdk-existing"),
        stage="shared",
        vpcId=EXISTING_VPC,
        account=account,
        region=region,
        classifier="bedrock",
        **existing_vpc_lookup(account, region),
    )
