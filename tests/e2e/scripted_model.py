"""A scripted local fake of the Anthropic Messages API, for end-to-end tests over `aurra dev`.

The service reaches it through the SDK's own ANTHROPIC_BASE_URL, over real HTTP. Each
answer is one forced `record_verdicts` tool call: for every candidate memory in the request,
the first scripted rule whose two substrings appear in the new fact and in the candidate
gives the verdict, else `new_fact`. Every answer reports its own token counts (they differ
from one answer to the next), and the fake remembers them, so a test can check a receipt
against exactly what "the provider" reported.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MEMORY = re.compile(r'<memory position="(\d+)" topic="[a-z0-9_]+">(.*?)</memory>')
NEW_FACT = re.compile(r"<new_fact [^>]*>(.*?)</new_fact>", re.S)


@dataclass(frozen=True)
class Rule:
    new_contains: str
    candidate_contains: str
    verdict: str
    confidence: float


@dataclass(frozen=True)
class Answer:
    new_fact: str
    model: str
    input_tokens: int
    output_tokens: int


class ScriptedModel:
    def __init__(self) -> None:
        self.rules: list[Rule] = []
        self.answers: list[Answer] = []
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                data = json.dumps(model._answer(body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="scripted-model", daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def script(self, new_contains: str, candidate_contains: str, verdict: str, confidence: float) -> None:
        self.rules.append(Rule(new_contains, candidate_contains, verdict, confidence))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _verdict(self, new: str, candidate: str) -> tuple[str, float]:
        for rule in self.rules:
            if rule.new_contains in new and rule.candidate_contains in candidate:
                return rule.verdict, rule.confidence
        return "new_fact", 0.9

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][0]["content"]
        new_fact = json.loads(NEW_FACT.search(text).group(1))
        verdicts = []
        for position, raw in MEMORY.findall(text):
            verdict, confidence = self._verdict(new_fact, json.loads(raw))
            verdicts.append(f"{int(position)}|{verdict}|{confidence:.2f}|Scripted")
        with self._lock:
            n = len(self.answers)
            answer = Answer(new_fact, body["model"], input_tokens=1500 + 37 * n, output_tokens=120 + 11 * n)
            self.answers.append(answer)
        return {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{n}",
                    "name": "record_verdicts",
                    "input": {"verdicts": verdicts},
                }
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": answer.input_tokens, "output_tokens": answer.output_tokens},
        }
