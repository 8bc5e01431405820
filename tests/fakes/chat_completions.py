"""A local fake of an OpenAI-compatible Chat Completions endpoint with tool calling, for the
`openai` classifier and extractor (BYO-LLM). Tests reach it through the real openai SDK and
AURRA_OPENAI_BASE_URL: real HTTP on 127.0.0.1, no network.

It answers a forced `record_verdicts` call from the candidates and the new fact in the user
message (the same text -> duplicate; the same topic and a change word such as "now" or
"switched" -> contradicts; otherwise new_fact), and a forced `record_facts` call with the user's first-person sentences in the
third person. It reports a dated model id, as real endpoints do for an alias, so tests can
check that the audit trail records the model that answered. `mode` switches it to failures
(`echo`: a refusal that quotes the request back).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("ok", "500", "429", "garbage", "no_tool", "bad_arguments", "slow", "echo")
ANSWERING_MODEL = "fake-gpt-4o-mini-2026-11-01"
MEMORY = re.compile(r'<memory position="(\d+)" topic="([a-z0-9_]+)">(.*?)</memory>')
NEW_FACT = re.compile(r"<new_fact [^>]*>(.*?)</new_fact>", re.S)
MESSAGE = re.compile(r'<message index="(\d+)" role="(\w+)"[^>]*>(.*?)</message>')


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


CHANGE_WORDS = {"now", "switched", "moved", "anymore", "longer"}
NEW_TOPIC = re.compile(r'<new_fact topic="([a-z0-9_]+)">')


def default_verdict(new: str, old: str, new_topic: str, old_topic: str) -> tuple[str, float]:
    if _words(new) == _words(old):
        return "duplicate", 0.95
    if new_topic == old_topic and CHANGE_WORDS & set(_words(new)):
        return "contradicts", 0.96
    return "new_fact", 0.9


def default_facts(messages: list[tuple[int, str, str]]) -> list[dict[str, Any]]:
    facts = []
    for index, role, text in messages:
        if role != "user":
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            if sentence.startswith("I ") and not sentence.endswith("?"):
                facts.append(
                    {
                        "content": "User " + sentence[2:].rstrip("."),
                        "topic": "general",
                        "message_index": index,
                    }
                )
    return facts


class FakeChatCompletions:
    def __init__(self) -> None:
        self.mode = "ok"
        self.slow_s = 3.0
        self.requests: list[dict[str, Any]] = []
        self.verdict: Callable[[str, str, str, str], tuple[str, float]] = default_verdict
        self.facts: Callable[[list[tuple[int, str, str]]], list[dict[str, Any]]] = default_facts
        self._closing = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, payload = api.respond(body)
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("retry-after", "0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------ answers

    def tool_arguments(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        tool = body["tool_choice"]["function"]["name"]
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if tool == "record_verdicts":
            new = json.loads(NEW_FACT.search(user).group(1))
            new_topic = NEW_TOPIC.search(user).group(1)
            verdicts = []
            for position, topic, content in MEMORY.findall(user):
                label, confidence = self.verdict(new, json.loads(content), new_topic, topic)
                verdicts.append(f"{int(position)}|{label}|{confidence:.2f}|Fake: {label}")
            return tool, {"verdicts": verdicts}
        messages = [(int(i), role, json.loads(text)) for i, role, text in MESSAGE.findall(user)]
        return tool, {"facts": self.facts(messages)}

    def respond(self, body: dict[str, Any]) -> tuple[int, Any]:
        mode = self.mode
        if mode == "500":
            return 500, {"error": {"message": "boom", "type": "server_error", "code": None}}
        if mode == "429":
            return 429, {"error": {"message": "slow down", "type": "rate_limit_error", "code": None}}
        if mode == "garbage":
            return 200, b"<html>bad gateway</html>"
        if mode == "echo":
            # A provider whose refusal quotes the request back (the worst case for logs).
            user = next(m["content"] for m in body["messages"] if m["role"] == "user")
            return 400, {"error": {"message": f"invalid request: {user}", "type": "invalid_request_error"}}
        if mode == "slow":
            self._closing.wait(self.slow_s)
        tool, arguments = self.tool_arguments(body)
        if mode == "bad_arguments":
            call = {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{not json"}}
        else:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": tool, "arguments": json.dumps(arguments)},
            }
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        if mode == "no_tool":
            message = {"role": "assistant", "content": "contradicts, 0.99"}
        return 200, {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1_780_000_000,
            "model": ANSWERING_MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1500, "completion_tokens": 60, "total_tokens": 1560},
        }
