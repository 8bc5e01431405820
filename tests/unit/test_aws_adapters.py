"""The AWS adapters through moto and botocore's Stubber: the SSM flag, the secrets, Titan."""

import io
import json

import boto3
import numpy as np
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from moto import mock_aws

from aurra_core.embedders import BedrockTitanEmbedder, create_embedder
from aurra_core.runtime.config import ServiceConfig
from aurra_core.runtime.flags import EnvFlagSource, SsmFlagSource, create_flag_source


@pytest.fixture(autouse=True)
def aws_region(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


@mock_aws
def test_the_level2_flag_comes_from_ssm_in_aws():
    from aws_lambda_powertools.utilities import parameters

    ssm = boto3.client("ssm")
    source = create_flag_source(ServiceConfig(flag_source="ssm", stage="prod", flag_cache_s=0))
    assert isinstance(source, SsmFlagSource)
    assert source.level2_enabled() is False  # missing parameter: off
    ssm.put_parameter(Name="/aurra/prod/level2_enabled", Value="false", Type="String")
    parameters.clear_caches()
    assert source.level2_enabled() is False
    ssm.put_parameter(Name="/aurra/prod/level2_enabled", Value="true", Type="String", Overwrite=True)
    parameters.clear_caches()
    assert source.level2_enabled() is True
    ssm.put_parameter(Name="/aurra/prod/level2_enabled", Value="yes", Type="String", Overwrite=True)
    parameters.clear_caches()
    assert source.level2_enabled() is False  # only "true" turns it on


def test_locally_the_flag_is_the_environment():
    assert isinstance(create_flag_source(ServiceConfig(level2_enabled=True)), EnvFlagSource)
    assert create_flag_source(ServiceConfig(level2_enabled=True)).level2_enabled() is True
    assert create_flag_source(ServiceConfig()).level2_enabled() is False


@mock_aws
def test_database_and_anthropic_secrets_come_from_secrets_manager():
    from aws_lambda_powertools.utilities import parameters

    from aurra_core.classifiers.factory import anthropic_api_key
    from aurra_core.storage.db import resolve_conninfo

    sm = boto3.client("secretsmanager")
    db_arn = sm.create_secret(
        Name="aurra/prod/db",
        SecretString=json.dumps(
            {"host": "cluster.local", "port": 5432, "username": "aurra", "password": "pw", "dbname": "aurra"}
        ),
    )["ARN"]
    key_arn = sm.create_secret(Name="aurra/prod/anthropic-api-key", SecretString="sk-ant-test")["ARN"]
    parameters.clear_caches()
    conninfo = resolve_conninfo(ServiceConfig(database_url=None, db_secret_arn=db_arn, db_host="proxy.local"))
    assert "host=proxy.local" in conninfo and "sslmode=verify-full" in conninfo and "password=pw" in conninfo
    assert anthropic_api_key(ServiceConfig(anthropic_secret_arn=key_arn)) == "sk-ant-test"


@mock_aws
def test_the_openai_endpoints_key_comes_from_secrets_manager_in_aws():
    from aws_lambda_powertools.utilities import parameters

    from aurra_core.classifiers.openai_endpoint import openai_api_key

    sm = boto3.client("secretsmanager")
    plain = sm.create_secret(Name="aurra/prod/openai-api-key", SecretString="sk-openai-test")["ARN"]
    wrapped = sm.create_secret(Name="aurra/other/openai-api-key", SecretString='{"api_key": "sk-json"}')[
        "ARN"
    ]
    parameters.clear_caches()
    assert (
        openai_api_key(ServiceConfig(openai_secret_arn=plain, openai_api_key="ignored")) == "sk-openai-test"
    )
    assert openai_api_key(ServiceConfig(openai_secret_arn=wrapped)) == "sk-json"
    assert openai_api_key(ServiceConfig(openai_api_key="sk-local")) == "sk-local"
    assert openai_api_key(ServiceConfig()) is None


def test_titan_embeddings_through_bedrock_runtime():
    client = boto3.client("bedrock-runtime", region_name="us-east-1")
    vector = list(np.linspace(-1, 1, 512) / np.linalg.norm(np.linspace(-1, 1, 512)))
    body = json.dumps({"embedding": vector, "inputTextTokenCount": 4}).encode()
    with Stubber(client) as stub:
        stub.add_response(
            "invoke_model",
            {"body": StreamingBody(io.BytesIO(body), len(body)), "contentType": "application/json"},
            {
                "modelId": "amazon.titan-embed-text-v2:0",
                "contentType": "application/json",
                "accept": "application/json",
                "body": json.dumps({"inputText": "alice uses Vim", "dimensions": 512, "normalize": True}),
            },
        )
        out = BedrockTitanEmbedder(512, client=client).embed("alice uses Vim")
    assert out.dimensions() == 512 and np.isclose(np.linalg.norm(out.to_numpy()), 1.0)
    with pytest.raises(ValueError):
        BedrockTitanEmbedder(384)
    assert isinstance(
        create_embedder(ServiceConfig(embedder="bedrock", embedding_dim=1024)), BedrockTitanEmbedder
    )


@mock_aws
def test_cursors_are_signed_with_the_secrets_manager_key_in_aws(monkeypatch):
    import uuid
    from datetime import UTC, datetime

    from aws_lambda_powertools.utilities import parameters

    from aurra_core.errors import ValidationFailed
    from aurra_core.runtime.config import reset_config
    from aurra_core.storage import cursors
    from aurra_core.storage.queries import MEMORIES_ENDPOINT, MemoryCursor

    sm = boto3.client("secretsmanager")
    arn = sm.create_secret(Name="aurra/prod/cursor-signing-key", SecretString="first-key")["ARN"]
    monkeypatch.delenv("AURRA_CURSOR_SECRET", raising=False)
    monkeypatch.setenv("AURRA_CURSOR_SECRET_ARN", arn)
    reset_config()
    parameters.clear_caches()
    try:
        tenant, now = uuid.uuid4(), datetime(2026, 5, 1, tzinfo=UTC)
        position = MemoryCursor(f="fp", k=now, a=now, id=uuid.uuid4())
        cursor = cursors.encode(position, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT)
        decoded = cursors.decode(
            cursor, MemoryCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
        )
        assert decoded == position
        # Another secret (a new value put in Secrets Manager) no longer accepts the old cursor.
        sm.put_secret_value(SecretId=arn, SecretString="second-key")
        parameters.clear_caches()
        with pytest.raises(ValidationFailed):
            cursors.decode(
                cursor, MemoryCursor, tenant_id=tenant, endpoint=MEMORIES_ENDPOINT, expected_fingerprint="fp"
            )
    finally:
        monkeypatch.undo()
        reset_config()
        parameters.clear_caches()
