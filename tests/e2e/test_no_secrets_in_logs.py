"""A full request cycle (authorizer, write, an error, an unhandled failure) logs no secret."""

import io
import json

from aurra_local import gateway


def test_logs_of_a_request_cycle_hold_no_secret(new_key, monkeypatch):
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "DEBUG")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-never-log-me")
    _, raw = new_key()
    headers = {
        "Authorization": f"Bearer {raw}",
        "Content-Type": "application/json",
        "x-api-key": "sk-ant-api03-x",
    }
    from aurra_core.runtime.observability import logger

    # What the service's own log handler writes (stdout in Lambda, hence CloudWatch).
    captured = io.StringIO()
    previous = logger.registered_handler.setStream(captured)
    logger.setLevel("DEBUG")
    try:
        ok = gateway.handle(
            "POST", "/agent/memories", headers, json.dumps({"content": f"my key is {raw}"}).encode()
        )
        bad = gateway.handle("PATCH", "/agent/settings", headers, b'{"min_confidence": 0.1}')
        refused = gateway.handle("GET", "/agent/settings", {"Authorization": f"Bearer {raw}x"}, None)
        logger.info("diagnostic", extra={"headers": headers, "event": {"headers": headers}})
        logger.exception("failure with a key in it: " + raw)
    finally:
        logger.setLevel("WARNING")
        logger.registered_handler.setStream(previous)
    assert (ok["statusCode"], bad["statusCode"], refused["statusCode"]) == (201, 422, 401)
    text = captured.getvalue()
    assert "diagnostic" in text and "failure with a key" in text  # the logs were captured
    secret = raw.split("_", 2)[2]
    for leaked in (raw, secret, "sk-ant-api03", "Bearer aurra"):
        assert leaked not in text, leaked
