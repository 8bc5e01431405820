"""AurraStore is a LangGraph BaseStore: the interface's own methods, and a compiled graph that
reads it, with Level 2 retiring the old fact and `at(as_of)` reading the past."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest
from conftest import APRIL, EMACS, IN_APRIL, MAY, VIM
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError

from aurra import Aurra
from aurra.integrations.langgraph import AurraStore


def _store(client: Aurra) -> AurraStore:
    return AurraStore(client, namespace=("memories", "{user_id}"), auto_supersede=True)


def test_put_get_and_a_new_value_under_the_same_key_supersedes(client: Aurra, user_id: str) -> None:
    store = _store(client)
    namespace = ("memories", user_id)
    store.put(namespace, "editor", {"content": VIM, "topic": "preferences", "valid_from": APRIL})
    item = store.get(namespace, "editor")
    assert item is not None and item.value["content"] == VIM and item.namespace == namespace
    store.put(namespace, "editor", {"content": EMACS, "topic": "preferences", "valid_from": MAY})
    assert store.get(namespace, "editor").value["content"] == EMACS
    # the old value is history, not gone: valid in April, superseded since
    assert store.at(IN_APRIL).get(namespace, "editor").value["content"] == VIM
    [memory] = client.memories.list(user_id=user_id)
    assert memory.content == EMACS and memory.supersedes is not None
    assert store.get(namespace, "no-such-key") is None


def test_level_2_retires_the_contradicted_fact_and_as_of_reads_april(client: Aurra, user_id: str) -> None:
    store = _store(client)
    namespace = ("memories", user_id)
    store.put(namespace, "vim", {"content": VIM, "topic": "preferences", "valid_from": APRIL})
    store.put(namespace, "emacs", {"content": EMACS, "topic": "preferences", "valid_from": MAY})
    now = [item.value["content"] for item in store.search(namespace, query="which editor")]
    assert now == [EMACS]
    april = [item.value["content"] for item in store.at(IN_APRIL).search(namespace, query="which editor")]
    assert april == [VIM]
    with pytest.raises(TypeError):
        store.at(IN_APRIL).put(namespace, "x", {"content": "User likes tea"})


def test_search_filters_values_and_namespaces_like_the_in_memory_store(client: Aurra, user_id: str) -> None:
    store = _store(client)
    store.put(("memories", user_id), "tea", {"content": "User drinks green tea", "kind": "drink", "cups": 3})
    store.put(("memories", user_id, "work"), "job", {"content": "User works at Globex", "kind": "job"})
    assert {i.key for i in store.search(("memories", user_id))} == {"tea", "job"}
    assert [i.key for i in store.search(("memories", user_id, "work"))] == ["job"]
    assert [i.key for i in store.search(("memories", user_id), filter={"kind": "drink"})] == ["tea"]
    assert [i.key for i in store.search(("memories", user_id), filter={"cups": {"$gte": 2}})] == ["tea"]
    assert store.search(("memories", user_id), filter={"cups": {"$gt": 5}}) == []
    assert len(store.search(("memories", user_id), limit=1)) == 1
    assert store.list_namespaces(prefix=("memories", user_id)) == [
        ("memories", user_id),
        ("memories", user_id, "work"),
    ]
    assert store.list_namespaces(prefix=("memories", user_id), max_depth=2) == [("memories", user_id)]


def test_a_memory_written_another_way_is_an_item_too(client: Aurra, user_id: str) -> None:
    written = client.memories.add("User lives in Lisbon", topic="location", user_id=user_id)
    store = _store(client)
    [item] = store.search(("memories", user_id))
    assert item.key == written.memory.id and item.value == {
        "content": "User lives in Lisbon",
        "topic": "location",
    }
    assert store.get(("memories", user_id), written.memory.id) == item


def test_delete_erases_the_memory_and_its_history(client: Aurra, user_id: str) -> None:
    store = _store(client)
    namespace = ("memories", user_id)
    store.put(namespace, "editor", {"content": VIM, "valid_from": APRIL})
    store.put(namespace, "editor", {"content": EMACS, "valid_from": MAY})
    store.delete(namespace, "editor")
    assert store.get(namespace, "editor") is None
    assert store.at(IN_APRIL).get(namespace, "editor") is None
    assert list(client.memories.list(user_id=user_id, include_superseded=True)) == []


def test_namespaces_outside_the_template_are_refused(client: Aurra, user_id: str) -> None:
    store = _store(client)
    with pytest.raises(InvalidNamespaceError):
        store.put(("notes", user_id), "k", {"content": "User likes tea"})
    with pytest.raises(InvalidNamespaceError):
        store.get(("memories",), "k")


def test_the_async_interface(client: Aurra, user_id: str) -> None:
    store = _store(client)
    namespace = ("memories", user_id)

    async def run() -> list[str]:
        await store.aput(namespace, "vim", {"content": VIM, "topic": "preferences", "valid_from": APRIL})
        await store.aput(namespace, "emacs", {"content": EMACS, "topic": "preferences", "valid_from": MAY})
        assert (await store.aget(namespace, "emacs")).value["content"] == EMACS
        return [item.value["content"] for item in await store.asearch(namespace, query="editor")]

    assert asyncio.run(run()) == [EMACS]


class _State(TypedDict):
    user_id: str
    question: str
    answer: str


def test_a_graph_remembers_and_recalls_through_the_store(client: Aurra, user_id: str) -> None:
    """A LangGraph app that took InMemoryStore() gets Aurra by passing AurraStore() instead."""

    def remember(state: _State, *, store: BaseStore) -> dict[str, str]:
        namespace = ("memories", state["user_id"])
        store.put(namespace, "vim", {"content": VIM, "topic": "preferences", "valid_from": APRIL})
        store.put(namespace, "emacs", {"content": EMACS, "topic": "preferences", "valid_from": MAY})
        return {}

    def recall(state: _State, *, store: BaseStore) -> dict[str, str]:
        found = store.search(("memories", state["user_id"]), query=state["question"], limit=1)
        return {"answer": found[0].value["content"] if found else ""}

    builder = StateGraph(_State)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    graph = builder.compile(store=_store(client))
    result = graph.invoke({"user_id": user_id, "question": "which editor does the user use", "answer": ""})
    assert "Emacs" in result["answer"]
