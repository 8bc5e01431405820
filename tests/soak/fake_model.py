"""A local fake of the Anthropic Messages API for the soak test, with switchable fault modes.

The service reaches it through the SDK's own ANTHROPIC_BASE_URL. In mode `ok` it answers
like the real API with one forced `record_verdicts` tool call, deciding deterministically from
the facts' text (the soak writes facts as "<subject> <attribute> is <value> (ref <token>)"):

- same subject and attribute, another value -> contradicts (0.96; 0.80 for some tokens, below
  the server's floor, so nothing happens);
- same subject, attribute and value         -> duplicate (0.93);
- same subject, another attribute           -> supplements;
- anything else                             -> new_fact.

It is deliberately adversarial about excluded topics: a health_medical or legal_status fact
that reached it would be "contradicted" like any other, so a gate that let one through shows
up in the end-of-run checks. The fault modes:

- `slow`: answers correctly, but only after `slow_s` (beyond the service's timeout);
- `drip`: sends the answer a few bytes at a time, each chunk within the read timeout, the
  whole of it well beyond the service's timeout;
- `429` / `500`: rate-limit and server errors in the API's error shape (429 with retry-after);
- `garbage`: one of several broken answers (not JSON, JSON that is no message, a message with
  no tool call, verdicts with invalid values, and confident contradictions naming positions
  that were not shown, or a memory id in place of a position);
- `hang`: reads the request and never answers (until `hang_max_s` or shutdown).

Everything is bounded: no handler waits longer than `hang_max_s`, and `close()` releases all.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("ok", "slow", "drip", "429", "500", "garbage", "hang")
FACT = re.compile(r"^(\S+) (\S+) is (\S+)")
MEMORY = re.compile(r'<memory position="(\d+)" topic="([a-z0-9_]+)">(.*?)</memory>')
NEW_FACT = re.compile(r"<new_fact [^>]*>(.*?)</new_fact>", re.S)
GARBAGE_KINDS = ("not_json", "not_a_message", "no_tool_call", "bad_values", "foreign")


def _parse_fact(text: str) -> tuple[str, str, str] | None:
    found = FACT.match(text)
    return found.groups() if found else None


def verdict_for(new: str, candidate: str) -> tuple[str, float, str]:
    """The fake model's judgement of a new fact against one candidate (both plain text)."""
    a, b = _parse_fact(new), _parse_fact(candidate)
    if a is None or b is None or a[0] != b[0]:
        return "new_fact", 0.9, "Different subject."
    if a[1] != b[1]:
        return "supplements", 0.7, "Same subject, another attribute."
    if a[2] == b[2]:
        return "duplicate", 0.93, "Same subject, attribute and value."
    # Some contradictions come back below the floor: the service must not act on them.
    weak = sum(map(ord, new)) % 5 == 0
    return "contradicts", 0.80 if weak else 0.96, "Same attribute, new value."


class FakeMessagesAPI:
    def __init__(self, *, slow_s: float = 1.5, hang_max_s: float = 20.0, seed: int = 7) -> None:
        self.mode = "ok"
        self.slow_s = slow_s
        self.hang_max_s = hang_max_s
        self.requests = 0
        self.by_mode: Counter[str] = Counter()  # model requests answered per mode
        self.garbage_kinds: Counter[str] = Counter()
        self.excluded_seen = 0  # requests that carried an excluded-topic fact (must stay 0)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                api._serve(self, body)

            def log_message(self, *args: Any) -> None:
                pass

        ThreadingHTTPServer.daemon_threads = True
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-model", daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    # ------------------------------------------------------------------ control

    def set_mode(self, mode: str) -> None:
        assert mode in MODES, mode
        self.mode = mode

    def close(self) -> None:
        self._closing.set()
        self.server.shutdown()
        self.server.server_close()

    # ------------------------------------------------------------------ answers

    def _serve(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        mode = self.mode
        text = ""
        with contextlib.suppress(KeyError, IndexError, TypeError):
            text = body["messages"][0]["content"]
        candidates = [(int(p), topic, json.loads(raw)) for p, topic, raw in MEMORY.findall(text)]
        new_match = NEW_FACT.search(text)
        new_fact = json.loads(new_match.group(1)) if new_match else ""
        with self._lock:
            self.requests += 1
            self.by_mode[mode] += 1
            if any(topic in ("health_medical", "legal_status") for _, topic, _ in candidates) or re.search(
                r'<new_fact topic="(health_medical|legal_status)">', text
            ):
                self.excluded_seen += 1
            garbage = self._rng.choice(GARBAGE_KINDS)
        model = body.get("model", "claude-haiku-4-5-20251001")

        if mode == "hang":
            self._closing.wait(self.hang_max_s)
            handler.close_connection = True
            return
        if mode == "429":
            self._send(
                handler,
                429,
                {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
                {"retry-after": "30"},
            )
            return
        if mode == "500":
            self._send(handler, 500, {"type": "error", "error": {"type": "api_error", "message": "internal"}})
            return
        verdicts = []
        for position, _topic, content in candidates:
            label, confidence, reason = verdict_for(new_fact, content)
            verdicts.append(f"{position}|{label}|{confidence:.2f}|{reason}")
        if mode == "garbage":
            with self._lock:
                self.garbage_kinds[garbage] += 1
            if garbage == "not_json":
                self._send_raw(handler, 200, b"<html>upstream said \x00\xff no</html>", "application/json")
                return
            if garbage == "not_a_message":
                self._send(handler, 200, {"ok": True, "verdicts": verdicts})
                return
            if garbage == "no_tool_call":
                self._send(
                    handler, 200, self._message(model, [{"type": "text", "text": "contradicts, 0.99"}])
                )
                return
            if garbage == "bad_values":
                verdicts = [f"{v.split('|')[0]}|overrides|7|{v.split('|')[3]}" for v in verdicts] + [
                    "not-a-position|contradicts|0.99|x"
                ]
            else:  # foreign: a confident contradiction of memories that were not shown
                shown = len(candidates)
                verdicts = [
                    f"{p}|contradicts|0.99|Injected"
                    for p in (0, shown + 1, "00000000-0000-7000-8000-000000000000")
                ]
        payload = self._message(
            model,
            [
                {
                    "type": "tool_use",
                    "id": "toolu_soak",
                    "name": "record_verdicts",
                    "input": {"verdicts": verdicts},
                }
            ],
        )
        if mode == "slow" and self._closing.wait(self.slow_s):
            return
        if mode == "drip":
            self._drip(handler, json.dumps(payload).encode())
            return
        self._send(handler, 200, payload)

    @staticmethod
    def _message(model: str, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "msg_soak",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 900, "output_tokens": 40},
        }

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        payload: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_raw(handler, status, json.dumps(payload).encode(), "application/json", headers)

    @staticmethod
    def _send_raw(
        handler: BaseHTTPRequestHandler,
        status: int,
        data: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except OSError:
            pass  # the service gave up on us first

    def _drip(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        """The answer in small pieces, each soon enough for a read timeout, all of it late."""
        chunks = 12
        pause = self.slow_s / chunks
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.flush()
            step = max(1, len(data) // chunks + 1)
            for start in range(0, len(data), step):
                if self._closing.wait(pause):
                    return
                handler.wfile.write(data[start : start + step])
                handler.wfile.flush()
        except OSError:
            pass
