"""The write pipeline with AURRA_CLASSIFIER=anthropic against a local fake Messages API,
reached through the SDK's own ANTHROPIC_BASE_URL: real HTTP, no network."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aurra_core import service
from aurra_core.models import SkippedReason, WriteRequest
from aurra_core.storage import store


class FakeMessagesAPI:
    def __init__(self) -> None:
        self.mode = "contradict"
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append(body)
                status, payload = api.respond(body)
                if status is None:
                    return
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def respond(self, body):
        positions = re.findall(r'<memory position="(\d+)"', body["messages"][0]["content"])
        if self.mode == "error":
            return 500, {"type": "error", "error": {"type": "api_error", "message": "boom"}}
        if self.mode == "slow":
            time.sleep(3)
            return 200, {}
        label = "contradicts" if "Vim" in body["messages"][0]["content"] else "new_fact"
        verdicts = [
            # bad_position: counted from 2, as a model that lost count might
            f"{int(p) + (1 if self.mode == 'bad_position' else 0)}|{label}|0.97|Explicit switch of the editor"
            for p in positions
        ]
        return 200, {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [
                {"type": "tool_use", "id": "t1", "name": "record_verdicts", "input": {"verdicts": verdicts}}
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            # As the API reports a call that read the static prefix from the prompt cache.
            "usage": {
                "input_tokens": 900,
                "output_tokens": 40,
                "cache_read_input_tokens": 5000,
                "cache_creation_input_tokens": 0,
            },
        }


@pytest.fixture
def messages_api(configure):
    api = FakeMessagesAPI()
    configure(
        AURRA_CLASSIFIER="anthropic",
        AURRA_LEVEL2_ENABLED="true",
        ANTHROPIC_BASE_URL=api.url,
        ANTHROPIC_API_KEY="sk-test",
        AURRA_CLASSIFIER_TIMEOUT_S="1",
    )
    yield api
    api.server.shutdown()


def test_claude_supersedes_through_the_real_sdk(messages_api, db, new_key):
    caller, _ = new_key()
    old = service.write_memory(caller, WriteRequest(content="alice uses Vim", topic="preferences"))[1].memory
    _, out = service.write_memory(
        caller,
        WriteRequest(content="alice switched from Vim to Emacs", topic="preferences", auto_supersede=True),
    )
    assert out.auto_supersede.supersession.superseded_id == old.id
    assert out.auto_supersede.decision.model == "claude-haiku-4-5-20251001"
    assert messages_api.requests[-1]["model"] == "claude-haiku-4-5-20251001"
    with db.transaction() as conn:
        event = store.select_audit_event(
            conn, caller.tenant_id, out.auto_supersede.supersession.audit_event_id
        )
    assert event.details["prompt_version"]
    # The receipt: tokens exactly as the endpoint reported them, priced at Haiku 4.5's $1/$5,
    # the cache reads at $0.10 per million.
    usage = out.auto_supersede.usage
    assert (usage.input_tokens, usage.output_tokens) == (900, 40)
    assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (5000, 0)
    assert usage.cost_usd == 0.0016  # 900 * 1e-6 + 40 * 5e-6 + 5000 * 0.1e-6
    assert event.details["usage"] == out.auto_supersede.usage.model_dump(mode="json")


@pytest.mark.parametrize("mode", ["error", "slow", "bad_position"])
def test_model_failures_never_lose_the_write(messages_api, db, new_key, mode):
    caller, _ = new_key()
    _, old = service.write_memory(caller, WriteRequest(content="alice uses Vim", topic="preferences"))
    messages_api.mode = mode
    started = time.monotonic()
    status, out = service.write_memory(
        caller,
        WriteRequest(content="alice switched from Vim to Emacs", topic="preferences", auto_supersede=True),
    )
    assert status == 201 and out.created
    assert out.auto_supersede.skipped_reason == SkippedReason.CLASSIFIER_ERROR
    assert out.auto_supersede.ran is True
    assert time.monotonic() - started < 10, "a failing model must not hold the write for long"
    assert out.auto_supersede.supersession is None
    with db.transaction() as conn:
        assert store.select_memory(conn, caller.tenant_id, out.memory.id) is not None
        assert store.select_memory(conn, caller.tenant_id, old.memory.id).superseded_by is None
