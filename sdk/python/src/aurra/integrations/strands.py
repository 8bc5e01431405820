"""Aurra's memory tools for Strands Agents.

    from strands import Agent
    from aurra.integrations.strands import aurra_tools

    agent = Agent(tools=aurra_tools(auto_supersede=True), state={"user_id": "alice"})
    agent("I switched to Emacs")

`aurra_tools()` returns Strands tools `remember`, `recall` (with `as_of`), `history` and
`forget`. Each is bound to the end user (and agent) named by the invocation's keyword arguments
(`agent("...", user_id="alice")`) or else by the agent's state (`state={"user_id": ...,
"agent_id": ...}`), never to one the model names.
"""

from __future__ import annotations

import asyncio
from typing import Any

from strands import ToolContext, tool
from strands.types.tools import AgentTool

from aurra._client import Aurra
from aurra.integrations.tools import FORGET, HISTORY, RECALL, REMEMBER, AurraScope, MemoryTools, scope_of


def _scope(context: ToolContext[Any]) -> AurraScope:
    if context.invocation_state.get("user_id"):
        return scope_of(context.invocation_state)
    state = context.agent.state
    return scope_of({"user_id": state.get("user_id"), "agent_id": state.get("agent_id")})


def aurra_tools(
    client: Aurra | None = None,
    *,
    auto_supersede: bool | None = None,
    topic: str | None = None,
    forget: bool = True,
) -> list[AgentTool]:
    """The memory tools for an `Agent` (`forget=False` leaves erasure out)."""
    tools = MemoryTools(client if client is not None else Aurra(), auto_supersede=auto_supersede, topic=topic)

    @tool(name="remember", description=REMEMBER, context=True)
    async def remember(
        content: str, tool_context: ToolContext[Any], topic: str | None = None, valid_from: str | None = None
    ) -> str:
        """The tool.

        Args:
        content: the fact, in the third person.
        topic: optional topic such as preferences, work or location.
        valid_from: optional ISO 8601 time the fact became true.
        """
        return await asyncio.to_thread(tools.remember, _scope(tool_context), content, topic, valid_from)

    @tool(name="recall", description=RECALL, context=True)
    async def recall(query: str, tool_context: ToolContext[Any], as_of: str | None = None) -> str:
        """The tool.

        Args:
        query: what to look for.
        as_of: optional ISO 8601 date: the facts true then instead of now.
        """
        return await asyncio.to_thread(tools.recall, _scope(tool_context), query, as_of)

    @tool(name="history", description=HISTORY, context=True)
    async def history(memory_id: str, tool_context: ToolContext[Any]) -> str:
        """The tool.

        Args:
        memory_id: the memory's id, as recall shows it.
        """
        return await asyncio.to_thread(tools.history, _scope(tool_context), memory_id)

    @tool(name="forget", description=FORGET, context=True)
    async def erase(memory_id: str, tool_context: ToolContext[Any]) -> str:
        """The tool.

        Args:
        memory_id: the memory's id, as recall shows it.
        """
        return await asyncio.to_thread(tools.forget, _scope(tool_context), memory_id)

    made: list[AgentTool] = [remember, recall, history]
    if forget:
        made.append(erase)
    return made


__all__ = ["aurra_tools"]
