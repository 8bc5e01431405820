"""Writes, searches and an erasure log no memory content: what the service's own log handler
writes (stdout in Lambda, hence CloudWatch) holds ids, counts, reasons for not acting and
error types, never a fact, a message, a quote, a search text or a model's reason, at the most
verbose level, failures included: a model endpoint whose refusals quote the request back,
for a classification and for an extraction."""

from __future__ import annotations

import io
import json
import uuid

from aurra_local import gateway
from tests.fakes.chat_completions import FakeChatCompletions


def test_logs_of_writes_searches_and_an_erasure_hold_no_content(new_key, monkeypatch, configure):
    endpoint = FakeChatCompletions()
    configure(
        AURRA_LEVEL2_ENABLED="true",
        AURRA_CLASSIFIER="rules",
        AURRA_EXTRACTOR="rules",
        AURRA_OPENAI_BASE_URL=endpoint.base_url,
        AURRA_OPENAI_MODEL="gpt-4o-mini",
        AURRA_OPENAI_API_KEY="sk-local",
    )
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "DEBUG")
    _, raw = new_key()
    headers = {"Authorization": f"Bearer {raw}", "Content-Type": "application/json"}
    secret = [f"Quokka{uuid.uuid4().hex[:10]}" for _ in range(8)]
    from aurra_core.runtime.observability import logger

    def call(method: str, path: str, body: object | None = None) -> int:
        encoded = None if body is None else json.dumps(body).encode()
        return gateway.handle(method, path, headers, encoded)["statusCode"]

    captured = io.StringIO()
    previous = logger.registered_handler.setStream(captured)
    logger.setLevel("DEBUG")
    try:
        statuses = [
            call("POST", "/agent/memories", {"content": f"User moved to {secret[0]}", "user_id": "lena"}),
            call(
                "POST",
                "/agent/memories",
                {"content": f"User moved to {secret[1]} now", "user_id": "lena", "auto_supersede": True},
            ),
            call(
                "POST",
                "/agent/memories",
                {
                    "messages": [
                        {"role": "user", "content": f"I moved to {secret[2]} and I drink {secret[3]}."}
                    ],
                    "user_id": "lena",
                    "conversation_id": "conv-lena",
                },
            ),
            call("POST", "/agent/memories", {"content": f"User hid {secret[4]}", "topic": "NOT A TOPIC"}),
            call("GET", f"/agent/memories?q=moved%20{secret[0]}"),
            call("GET", f"/agent/memories?q={secret[5]}&user_id=lena"),
        ]
        # a model endpoint that quotes the request back in its refusals
        endpoint.mode = "echo"
        configure(AURRA_CLASSIFIER="openai", AURRA_EXTRACTOR="openai")
        statuses += [
            call(
                "POST",
                "/agent/memories",
                {"content": f"User moved to {secret[6]} now", "user_id": "lena", "auto_supersede": True},
            ),
            call(
                "POST",
                "/agent/memories",
                {
                    "messages": [{"role": "user", "content": f"I keep {secret[7]} at home."}],
                    "user_id": "lena",
                },
            ),
            call("POST", "/agent/erasures", {"user_id": "lena"}),
            call("GET", "/agent/memories?include_superseded=true"),
        ]
    finally:
        logger.setLevel("WARNING")
        logger.registered_handler.setStream(previous)
        endpoint.close()
    assert statuses == [201, 201, 201, 422, 200, 200, 201, 503, 201, 200]
    assert any(secret[6] in json.dumps(r["body"]) for r in endpoint.requests), "the endpoint saw the content"
    text = captured.getvalue()
    assert "classifier failed" in text and "extraction failed" in text, "the failures were logged"
    assert "HTTP 400" in text
    assert [s for s in secret if s in text] == []
