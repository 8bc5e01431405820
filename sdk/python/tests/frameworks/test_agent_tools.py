"""The memory tools inside the OpenAI Agents SDK's and Strands Agents' real tool loops, driven by
a scripted local model: remember Vim (April), remember the switch to Emacs with Level 2, recall
now (Emacs) and in April (Vim), then the history and an erasure; every call bound to the user
in the run's context, never to one the model names."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import APRIL, EMACS, IN_APRIL, MAY, VIM
from scripted_models import ANSWER, Call, openai_agents_model, strands_model

from aurra import Aurra
from aurra.integrations.tools import AurraScope


def _remember_and_recall() -> list[Call | None]:
    return [
        Call("remember", {"content": VIM, "topic": "preferences", "valid_from": APRIL}),
        Call("remember", {"content": EMACS, "topic": "preferences", "valid_from": MAY}),
        Call("recall", {"query": "which editor does the user use", "as_of": None}),
        ANSWER,
    ]


def _recall(as_of: str | None) -> list[Call | None]:
    return [Call("recall", {"query": "which editor does the user use", "as_of": as_of}), ANSWER]


def _openai_agents(client: Aurra, script: list[Call | None], context: Any) -> str:
    from agents import Agent, Runner

    from aurra.integrations.openai_agents import aurra_tools

    agent = Agent(
        name="assistant", model=openai_agents_model(script), tools=aurra_tools(client, auto_supersede=True)
    )
    result = asyncio.run(Runner.run(agent, "hi", context=context))
    return str(result.final_output)


def _strands(client: Aurra, script: list[Call | None], state_user_id: str, **invocation: Any) -> str:
    from strands import Agent

    from aurra.integrations.strands import aurra_tools

    agent = Agent(
        model=strands_model(script),
        tools=aurra_tools(client, auto_supersede=True),
        state={"user_id": state_user_id},
        callback_handler=None,
    )
    return str(agent("hi", **invocation))


@pytest.mark.parametrize("framework", ["openai_agents", "strands"])
def test_remember_switch_recall_now_and_in_april(framework: str, client: Aurra, user_id: str) -> None:
    def run(script: list[Call | None]) -> str:
        if framework == "openai_agents":
            return _openai_agents(client, script, AurraScope(user_id=user_id))
        return _strands(client, script, user_id)

    now = run(_remember_and_recall())
    assert "Emacs" in now and VIM not in now
    assert [m.content for m in client.memories.list(user_id=user_id)] == [EMACS]
    april = run(_recall(IN_APRIL))
    assert VIM in april and "Emacs" not in april
    assert run(_recall("2026-04-15")) == april  # a bare date, as models write them, is midnight UTC

    [memory] = client.memories.list(user_id=user_id)
    history = run([Call("history", {"memory_id": memory.id}), ANSWER])
    assert VIM in history and "Emacs" in history
    forgotten = run([Call("forget", {"memory_id": memory.id}), ANSWER])
    assert "Erased" in forgotten
    assert list(client.memories.list(user_id=user_id, include_superseded=True)) == []


@pytest.mark.parametrize("framework", ["openai_agents", "strands"])
def test_the_model_cannot_reach_another_users_memory(framework: str, client: Aurra, user_id: str) -> None:
    other = client.memories.add("User banks with Monzo", topic="finance", user_id=user_id + "-other")
    script = [Call("forget", {"memory_id": other.memory.id}), ANSWER]
    if framework == "openai_agents":
        answer = _openai_agents(client, script, {"user_id": user_id})
    else:
        answer = _strands(client, script, user_id)
    assert "No memory" in answer
    assert client.memories.get(other.memory.id).content == "User banks with Monzo"


def test_strands_takes_the_user_from_the_invocation_over_the_state(client: Aurra, user_id: str) -> None:
    script = [
        Call("remember", {"content": "User drinks oolong tea", "topic": "food", "valid_from": None}),
        ANSWER,
    ]
    _strands(client, script, user_id + "-state", user_id=user_id)
    assert [m.content for m in client.memories.list(user_id=user_id)] == ["User drinks oolong tea"]
    assert list(client.memories.list(user_id=user_id + "-state")) == []


def test_openai_agents_refuses_a_run_without_a_user(client: Aurra) -> None:
    before = client.memories.list_page(limit=100).memories
    script = [Call("remember", {"content": "User likes tea", "topic": None, "valid_from": None}), ANSWER]
    answer = _openai_agents(client, script, context=None)
    assert "error" in answer.lower()  # the tool failed, and the model is told so
    assert client.memories.list_page(limit=100).memories == before  # nothing stored unscoped
