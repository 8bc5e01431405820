"""A fake Anthropic Messages endpoint: builds the JSON the real API returns."""

from __future__ import annotations

import json
from typing import Any


def tool_message(verdicts: list[dict[str, Any]], model: str = "claude-haiku-4-5-20251001") -> dict[str, Any]:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [
            {"type": "tool_use", "id": "toolu_01", "name": "record_verdicts", "input": {"verdicts": verdicts}}
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1234, "output_tokens": 56},
    }


def text_message(text: str) -> dict[str, Any]:
    return {
        "id": "msg_02",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 10},
    }


def error_body(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
