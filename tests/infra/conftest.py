"""Fixtures of the infrastructure tests: each configuration synthesized once
per session (see infra_testkit.py)."""

from __future__ import annotations

import pytest
from infra_testkit import (
    EXISTING_VPC,
    PROD_CERTIFICATE,
    PROD_COPY_VAULT,
    PROD_DOMAIN,
    Synth,
    existing_vpc_lookup,
    synthesize,
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "layer_build: builds the Lambda layer with pip for the Lambda platform "
        "(needs the package index; deselect with -m 'not layer_build')",
    )


@pytest.fixture(scope="session")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """The default configuration: stage dev, Claude on Bedrock as the classifier, Bedrock embedder."""
    return synthesize(tmp_path_factory.mktemp("cdk-dev"))


@pytest.fixture(scope="session")
def prod(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """A production-like stage: cdk.json's prod settings (hosted mode: KMS keys,
    backups, the access-log export; WAF), plus the Anthropic classifier
    (internet through NAT), the local embedder (so no Bedrock at all), an alarm
    subscription, a custom domain with its DNS record and a backup copy."""
    return synthesize(
        tmp_path_factory.mktemp("cdk-prod"),
        stage="prod",
        classifier="anthropic",
        embedder="local",
        alarmEmail="ops@example.com",
        authorizerCacheTtlSeconds="120",
        throttleRateLimit="10",
        throttleBurstLimit="20",
        quotaLimit="5000",
        quotaPeriod="DAY",
        domainName=PROD_DOMAIN,
        certificateArn=PROD_CERTIFICATE,
        hostedZoneId="Z0123456789ABCDEFGHIJ",
        hostedZoneName="example.com",
        backupCopyVaultArn=PROD_COPY_VAULT,
    )


@pytest.fixture(scope="session")
def bare_prod(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """`cdk deploy -c stage=prod` and nothing else: what cdk.json keeps."""
    return synthesize(tmp_path_factory.mktemp("cdk-bare-prod"), stage="prod")


@pytest.fixture(scope="session")
def offline_rules(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """The rules classifier chosen explicitly, with the local embedder: no model at all."""
    return synthesize(tmp_path_factory.mktemp("cdk-rules"), classifier="rules", embedder="local")


@pytest.fixture(scope="session")
def existing(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    """An existing VPC by id (the lookup answered from context, as from a
    committed cdk.context.json), with the Bedrock classifier."""
    account, region = "123456789012", "eu-west-1"
    return synthesize(
        tmp_path_factory.mktemp("cdk-existing"),
        stage="shared",
        alarmEmail="oncall@example.com",
        vpcId=EXISTING_VPC,
        account=account,
        region=region,
        classifier="bedrock",
        **existing_vpc_lookup(account, region),
    )
