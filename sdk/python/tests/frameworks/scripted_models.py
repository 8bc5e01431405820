"""Scripted local models for the agent frameworks: each turn of a script either calls one tool
with given arguments or answers with the text of the last tool result. They speak each
framework's own model interface, so the framework runs its real tool loop; nothing reaches
the network."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]


ANSWER = None  # a script step: answer with the last tool result


def openai_agents_model(script: Sequence[Call | None]) -> Any:
    from agents import ModelResponse, Usage
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    steps = list(script)

    class ScriptedModel(Model):
        async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: A002 (the interface names it)
            step = steps.pop(0)
            if step is not None:
                n = len(steps)
                call = ResponseFunctionToolCall(
                    arguments=json.dumps(step.arguments),
                    call_id=f"call_{n}",
                    name=step.tool,
                    type="function_call",
                    id=f"fc_{n}",
                    status="completed",
                )
                return ModelResponse(output=[call], usage=Usage(), response_id=None)
            outputs = [
                item
                for item in input
                if isinstance(item, dict) and item.get("type") == "function_call_output"
            ]
            text = str(outputs[-1]["output"]) if outputs else ""
            message = ResponseOutputMessage(
                id="msg_1",
                content=[ResponseOutputText(annotations=[], text=text, type="output_text")],
                role="assistant",
                status="completed",
                type="message",
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            raise NotImplementedError("the scripted model does not stream")

    return ScriptedModel()


def strands_model(script: Sequence[Call | None]) -> Any:
    from strands.models.model import Model

    steps = list(script)

    class ScriptedModel(Model):
        def update_config(self, **model_config: Any) -> None:
            return None

        def get_config(self) -> Any:
            return {}

        def structured_output(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            step = steps.pop(0)
            yield {"messageStart": {"role": "assistant"}}
            if step is not None:
                yield {
                    "contentBlockStart": {
                        "start": {"toolUse": {"toolUseId": f"t{len(steps)}", "name": step.tool}}
                    }
                }
                yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(step.arguments)}}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "tool_use"}}
                return
            results = [
                block["toolResult"]
                for message in messages
                for block in message.get("content", [])
                if "toolResult" in block
            ]
            text = " ".join(part.get("text", "") for part in results[-1]["content"]) if results else ""
            yield {"contentBlockDelta": {"delta": {"text": text}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}

    return ScriptedModel()
