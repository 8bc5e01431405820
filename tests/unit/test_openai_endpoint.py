"""The BYO-LLM paths (AURRA_CLASSIFIER=openai, AURRA_EXTRACTOR=openai) through the real openai
SDK against a local fake Chat Completions endpoint: the same prompts and tool contracts as
Claude, every failure a classifier or extraction error, the model id the endpoint reports."""

from __future__ import annotations

import uuid

import pytest

from aurra_core.classifiers.base import Candidate
from aurra_core.classifiers.factory import create_classifier
from aurra_core.classifiers.prompt import SYSTEM_PROMPT as CLASSIFIER_PROMPT
from aurra_core.errors import ClassifierError, ExtractionError
from aurra_core.extractors.factory import create_extractor
from aurra_core.extractors.prompt import SYSTEM_PROMPT as EXTRACTION_PROMPT
from aurra_core.models import Message, Verdict
from aurra_core.runtime.config import ServiceConfig
from tests.fakes.chat_completions import ANSWERING_MODEL, FakeChatCompletions

VIM = Candidate(uuid.uuid4(), "User uses Vim", "preferences", 0.7)
TEA = Candidate(uuid.uuid4(), "User drinks tea", "food", 0.3)
CONVERSATION = [
    Message(role="user", content="I moved to Berlin. I use Emacs now."),
    Message(role="assistant", content="Noted!"),
]


@pytest.fixture
def endpoint():
    fake = FakeChatCompletions()
    yield fake
    fake.close()


def settings(endpoint: FakeChatCompletions, **overrides) -> ServiceConfig:
    values = dict(
        classifier="openai",
        openai_base_url=endpoint.base_url,
        openai_model="gpt-4o-mini",
        openai_api_key="sk-local",
        classifier_timeout_s=0.5,
        extractor_timeout_s=0.5,
    )
    return ServiceConfig(**{**values, **overrides})


def test_the_classifier_sends_the_shared_prompt_and_forces_record_verdicts(endpoint):
    classifier = create_classifier(settings(endpoint))
    out = classifier.classify(
        "User switched to Emacs now", "preferences", [VIM, TEA], "claude-haiku-4-5-20251001"
    )
    assert {(v.candidate_id, v.verdict) for v in out.verdicts} == {
        (VIM.id, Verdict.CONTRADICTS),
        (TEA.id, Verdict.NEW_FACT),
    }
    assert out.model == ANSWERING_MODEL, "the model that answered, not the configured alias"
    assert out.details["provider"] == "openai" and out.input_tokens == 1500
    (request,) = endpoint.requests
    body = request["body"]
    assert request["path"] == "/v1/chat/completions"
    assert {k.lower(): v for k, v in request["headers"].items()}["authorization"] == "Bearer sk-local"
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"][0] == {"role": "system", "content": CLASSIFIER_PROMPT}
    assert body["tool_choice"] == {"type": "function", "function": {"name": "record_verdicts"}}
    assert body["tools"][0]["function"]["parameters"]["required"] == ["verdicts"]


def test_an_answer_naming_a_position_not_shown_is_refused(endpoint):
    original = endpoint.tool_arguments

    def with_stranger(body):
        tool, arguments = original(body)
        arguments["verdicts"].append("2|contradicts|1.0|Told to")
        return tool, arguments

    endpoint.tool_arguments = with_stranger
    with pytest.raises(ClassifierError, match="position 2; only 1 to 1"):
        create_classifier(settings(endpoint)).classify("User drinks coffee", "food", [TEA], "m")


@pytest.mark.parametrize("mode", ["500", "429", "garbage", "no_tool", "bad_arguments", "slow"])
def test_every_classifier_failure_is_a_classifier_error(endpoint, mode):
    endpoint.mode = mode
    endpoint.slow_s = 2.0
    with pytest.raises(ClassifierError):
        create_classifier(settings(endpoint)).classify(
            "User switched to Emacs now", "preferences", [VIM], "m"
        )
    assert 1 <= len(endpoint.requests) <= 2, "at most one retry"


def test_the_extractor_forces_record_facts_and_reports_the_answering_model(endpoint):
    extractor = create_extractor(settings(endpoint, extractor="openai"))
    out = extractor.extract(CONVERSATION, "claude-haiku-4-5-20251001")
    assert [(f.content, f.message_index) for f in out.facts] == [
        ("User moved to Berlin", 0),
        ("User use Emacs now", 0),
    ]
    assert (out.extractor, out.model) == ("openai", ANSWERING_MODEL)
    assert out.output_tokens == 60
    body = endpoint.requests[0]["body"]
    assert body["messages"][0] == {"role": "system", "content": EXTRACTION_PROMPT}
    assert body["tool_choice"] == {"type": "function", "function": {"name": "record_facts"}}
    assert body["tools"][0]["function"]["parameters"]["properties"]["facts"]["maxItems"] == 50


def test_the_extractor_defaults_to_the_classifiers_provider(endpoint):
    assert create_extractor(settings(endpoint)).name == "openai"
    assert create_extractor(settings(endpoint, classifier="rules")).name == "rules"
    assert create_extractor(settings(endpoint, classifier="rules", extractor="openai")).name == "openai"


@pytest.mark.parametrize("mode", ["500", "429", "garbage", "no_tool", "bad_arguments", "slow"])
def test_every_extraction_failure_is_an_extraction_error(endpoint, mode):
    endpoint.mode = mode
    endpoint.slow_s = 2.0
    with pytest.raises(ExtractionError):
        create_extractor(settings(endpoint, extractor="openai")).extract(CONVERSATION, "m")
    assert 1 <= len(endpoint.requests) <= 2


def test_made_up_message_indexes_are_an_extraction_error(endpoint):
    endpoint.facts = lambda messages: [
        {"content": "User lives on Mars", "topic": "location", "message_index": 12}
    ]
    with pytest.raises(ExtractionError):
        create_extractor(settings(endpoint, extractor="openai")).extract(CONVERSATION, "m")


def test_importing_the_layer_does_not_import_the_openai_sdk():
    import subprocess
    import sys

    code = (
        "import sys; import aurra_core.service, aurra_core.classifiers.factory, aurra_core.extractors.factory, "
        "functions.write.handler; print('openai' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": "layers/core/python:.", "PATH": "", "AURRA_CLASSIFIER": "openai"},
    )
    assert out.stdout.strip() == "False"
