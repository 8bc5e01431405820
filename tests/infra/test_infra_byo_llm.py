"""The openai classifier (any OpenAI-compatible endpoint) in a synthesized stage, with the
extractor on Bedrock: a secret for the endpoint's key that only the write function reads,
the endpoint and model in its environment, Claude on Bedrock for extraction, a way out."""

from __future__ import annotations

import json

import pytest
from infra_testkit import Synth, synthesize
from test_infra_checks import unacknowledged
from test_infra_template import aurra_functions, ref, statements

from infra import constants as c
from infra.config import AurraConfig, ConfigError

ENDPOINT = "https://llm.example.com/v1"


@pytest.fixture(scope="module")
def byo(tmp_path_factory: pytest.TempPathFactory) -> Synth:
    return synthesize(
        tmp_path_factory.mktemp("cdk-byo"),
        stage="byo",
        alarmEmail="oncall@example.com",
        classifier="openai",
        extractor="bedrock",
        openaiBaseUrl=ENDPOINT,
        openaiModel="gpt-4o-mini",
        embedder="local",
    )


def test_the_endpoints_key_is_a_secret_only_the_write_function_reads(byo: Synth) -> None:
    (secret_id,) = [k for k in byo.of_type("AWS::SecretsManager::Secret") if "OpenAI" in k]
    secret = byo.resources[secret_id]["Properties"]
    assert secret["Name"] == "aurra/byo/openai-api-key"
    assert "GenerateSecretString" in secret and "SecretString" not in secret
    fns = aurra_functions(byo)
    readers = {
        name
        for name, fn in fns.items()
        if any(
            secret_id in json.dumps(s.get("Resource")) for s in statements(byo, ref(fn["Properties"]["Role"]))
        )
    }
    # the write function, and the Level 2 worker, which classifies (openai here) but never extracts
    assert readers == {c.WRITE, c.LEVEL2_WORKER}
    env = fns[c.WRITE]["Properties"]["Environment"]["Variables"]
    assert ref(env[c.ENV_OPENAI_SECRET_ARN]) == secret_id
    assert env[c.ENV_CLASSIFIER] == "openai" and env[c.ENV_EXTRACTOR] == "bedrock"
    assert env[c.ENV_OPENAI_BASE_URL] == ENDPOINT and env[c.ENV_OPENAI_MODEL] == "gpt-4o-mini"
    assert not [k for k in byo.of_type("AWS::SecretsManager::Secret") if "Anthropic" in k]


def test_the_bedrock_extractor_may_invoke_claude_and_the_endpoint_is_reachable(byo: Synth) -> None:
    fns = aurra_functions(byo)
    write = statements(byo, ref(fns[c.WRITE]["Properties"]["Role"]))
    assert any(s.get("Sid", "").startswith("InvokeClaude") for s in write)
    for name, fn in fns.items():
        if name != c.WRITE:
            assert not any(
                s.get("Sid", "").startswith("InvokeClaude")
                for s in statements(byo, ref(fn["Properties"]["Role"]))
            )
    assert len(byo.of_type("AWS::EC2::NatGateway")) == 2  # one per AZ outside dev


def test_awssolutions_has_no_unacknowledged_findings(byo: Synth) -> None:
    assert unacknowledged(byo.app) == []


def test_openai_context_values() -> None:
    assert AurraConfig.from_mapping({"classifier": "openai"}).model_providers == {"openai"}
    extractor_only = AurraConfig.from_mapping({"extractor": "openai"})
    assert extractor_only.needs_internet and extractor_only.resolved_extractor == "openai"
    assert not AurraConfig.from_mapping({}).needs_internet
    for context, key in (
        ({"extractor": "gpt"}, "extractor"),
        ({"classifier": "openai", "openaiBaseUrl": "llm.example.com"}, "openaiBaseUrl"),
        ({"classifier": "openai", "openaiModel": "gpt 4"}, "openaiModel"),
        ({"extractor": "openai", "natGateways": "0"}, "natGateways"),
    ):
        with pytest.raises(ConfigError, match=f"context {key}="):
            AurraConfig.from_mapping(context)
