"""Aurra's memory tools for the OpenAI Agents SDK.

    from agents import Agent, Runner
    from aurra.integrations.openai_agents import aurra_tools
    from aurra.integrations.tools import AurraScope

    agent = Agent(name="assistant", tools=aurra_tools(auto_supersede=True))
    await Runner.run(agent, "I switched to Emacs", context=AurraScope(user_id="alice"))

`aurra_tools()` returns function tools `remember`, `recall` (with `as_of`), `history` and
`forget`. Each is bound to the end user (and agent) in the run's context (`AurraScope`, any
object with `user_id`/`agent_id`, or a mapping), never to one the model names.
"""

from __future__ import annotations

import asyncio

from agents import FunctionTool, RunContextWrapper, function_tool

from aurra._client import Aurra
from aurra.integrations.tools import FORGET, HISTORY, RECALL, REMEMBER, MemoryTools, scope_of


def aurra_tools(
    client: Aurra | None = None,
    *,
    auto_supersede: bool | None = None,
    topic: str | None = None,
    forget: bool = True,
) -> list[FunctionTool]:
    """The memory tools for an `Agent` (`forget=False` leaves erasure out)."""
    tools = MemoryTools(client if client is not None else Aurra(), auto_supersede=auto_supersede, topic=topic)

    @function_tool(name_override="remember", description_override=REMEMBER)
    async def remember(
        ctx: RunContextWrapper[object], content: str, topic: str | None = None, valid_from: str | None = None
    ) -> str:
        """The tool.

        Args:
        content: the fact, in the third person.
        topic: optional topic such as preferences, work or location.
        valid_from: optional ISO 8601 time the fact became true.
        """
        return await asyncio.to_thread(tools.remember, scope_of(ctx.context), content, topic, valid_from)

    @function_tool(name_override="recall", description_override=RECALL)
    async def recall(ctx: RunContextWrapper[object], query: str, as_of: str | None = None) -> str:
        """The tool.

        Args:
        query: what to look for.
        as_of: optional ISO 8601 date: the facts true then instead of now.
        """
        return await asyncio.to_thread(tools.recall, scope_of(ctx.context), query, as_of)

    @function_tool(name_override="history", description_override=HISTORY)
    async def history(ctx: RunContextWrapper[object], memory_id: str) -> str:
        """The tool.

        Args:
        memory_id: the memory's id, as recall shows it.
        """
        return await asyncio.to_thread(tools.history, scope_of(ctx.context), memory_id)

    @function_tool(name_override="forget", description_override=FORGET)
    async def erase(ctx: RunContextWrapper[object], memory_id: str) -> str:
        """The tool.

        Args:
        memory_id: the memory's id, as recall shows it.
        """
        return await asyncio.to_thread(tools.forget, scope_of(ctx.context), memory_id)

    made: list[FunctionTool] = [remember, recall, history]
    if forget:
        made.append(erase)
    return made


__all__ = ["aurra_tools"]
