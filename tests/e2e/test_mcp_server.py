"""`aurra mcp` against `aurra dev`: a client session of the `mcp` package calls every tool.

In memory (the server object), over stdio (`aurra mcp` as a subprocess) and over streamable
HTTP (`aurra mcp --http`, the key in the client's Authorization header).
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from dev_server import DevServer
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_http_process import running_mcp_http

from aurra import AsyncAurra
from aurra_local.mcp_server import HTTP_CLIENT_LOGGERS, create_server, quiet_http_client_logs

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"remember", "recall", "history", "supersede", "audit", "revert", "review", "forget"}


def run(coroutine_function: Any) -> Any:
    return anyio.run(coroutine_function)


@asynccontextmanager
async def in_memory(base_url: str, key: str) -> AsyncIterator[Client]:
    server = create_server(lambda request_key: AsyncAurra(api_key=request_key or key, base_url=base_url))
    async with Client(server) as client:
        yield client


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


@pytest.fixture
def key(dev_server: DevServer, new_key) -> str:
    return new_key()[1]


def test_tools_are_listed_with_descriptions_and_honest_annotations(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        async with in_memory(dev_server.base_url, key) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = run(scenario)
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
    assert tools["recall"].annotations.read_only_hint is True
    assert tools["history"].annotations.read_only_hint is True
    assert tools["audit"].annotations.read_only_hint is True
    for name in ("supersede", "revert", "review", "forget"):
        assert tools[name].annotations.destructive_hint is True
    assert tools["remember"].annotations.destructive_hint is False
    assert set(tools["recall"].input_schema["properties"]) >= {
        "q",
        "topic",
        "user_id",
        "agent_id",
        "as_of",
        "known_at",
        "limit",
    }
    # Every tool whose API route takes a scope takes agent_id beside user_id, optional.
    for name in ("remember", "recall"):
        schema = tools[name].input_schema
        assert {"user_id", "agent_id"} <= set(schema["properties"]), name
        assert "agent_id" not in schema.get("required", []), name
        assert schema["properties"]["agent_id"]["description"]


def test_the_guide_names_every_argument_of_the_writes_and_reads(dev_server: DevServer, key: str) -> None:
    """docs/mcp.md's table of tools lists the arguments of remember and recall as they are."""

    async def scenario() -> dict[str, Any]:
        async with in_memory(dev_server.base_url, key) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = run(scenario)
    rows = {
        found.group(1): found.group(0)
        for found in re.finditer(
            r"^\| `([a-z_]+)` \|.*$", (REPO / "docs" / "mcp.md").read_text(), re.MULTILINE
        )
    }
    assert set(rows) >= TOOLS
    for name in ("remember", "recall"):
        for argument in tools[name].input_schema["properties"]:
            assert f"`{argument}`" in rows[name], f"docs/mcp.md: {name} does not name {argument}"


def test_vim_to_emacs_recall_in_time_history_and_revert(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with in_memory(dev_server.base_url, key) as client:
            vim = await client.call_tool(
                "remember",
                {"content": "User uses Vim", "topic": "preferences", "valid_from": "2026-04-01T00:00:00Z"},
            )
            out["vim"] = vim
            out["emacs"] = await client.call_tool(
                "remember",
                {
                    "content": "User switched from Vim to Emacs",
                    "topic": "preferences",
                    "valid_from": "2026-05-03T10:00:00Z",
                    "auto_supersede": True,
                },
            )
            out["now"] = await client.call_tool("recall", {"topic": "preferences"})
            out["april"] = await client.call_tool(
                "recall", {"topic": "preferences", "as_of": "2026-04-15T00:00:00Z"}
            )
            vim_id = vim.structured_content["memory"]["id"]
            out["history"] = await client.call_tool("history", {"memory_id": vim_id})
            out["audit"] = await client.call_tool("audit", {"memory_id": None})
            event_id = out["emacs"].structured_content["auto_supersede"]["supersession"]["audit_event_id"]
            out["revert"] = await client.call_tool("revert", {"event_id": event_id})
            out["after"] = await client.call_tool("recall", {"topic": "preferences"})
            out["vim_id"] = vim_id
        return out

    out = run(scenario)
    assert not out["emacs"].is_error, text_of(out["emacs"])
    supersession = out["emacs"].structured_content["auto_supersede"]["supersession"]
    assert supersession["superseded_id"] == out["vim_id"]
    assert "superseded" in text_of(out["emacs"])

    now = [m["content"] for m in out["now"].structured_content["memories"]]
    assert now == ["User switched from Vim to Emacs"]
    assert "Emacs" in text_of(out["now"])
    april = [m["content"] for m in out["april"].structured_content["memories"]]
    assert april == ["User uses Vim"]

    chain = [m["content"] for m in out["history"].structured_content["chain"]]
    assert chain == ["User uses Vim", "User switched from Vim to Emacs"]
    assert any(e["type"] == "auto_supersede" for e in out["audit"].structured_content["events"])

    assert out["revert"].structured_content["restored"]["id"] == out["vim_id"]
    after = sorted(m["content"] for m in out["after"].structured_content["memories"])
    assert "User uses Vim" in after


def test_forget_erases_a_memory_and_its_lineage_for_good(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with in_memory(dev_server.base_url, key) as client:
            vim = await client.call_tool("remember", {"content": "User uses Vim", "topic": "preferences"})
            kept = await client.call_tool("remember", {"content": "User drinks tea", "topic": "food"})
            vim_id = vim.structured_content["memory"]["id"]
            out["superseded"] = await client.call_tool(
                "supersede", {"memory_id": vim_id, "content": "User uses Emacs"}
            )
            out["forget"] = await client.call_tool("forget", {"memory_id": vim_id})
            out["again"] = await client.call_tool("forget", {"memory_id": vim_id})
            out["recall"] = await client.call_tool("recall", {})
            out["history"] = await client.call_tool("history", {"memory_id": vim_id})
            out["kept_id"] = kept.structured_content["memory"]["id"]
        return out

    out = run(scenario)
    assert not out["forget"].is_error, text_of(out["forget"])
    receipt = out["forget"].structured_content
    assert receipt["counts"]["memories"] == 2, "the memory and the one that replaced it"
    assert "Erased: 2 memory(ies)" in text_of(out["forget"])
    assert out["again"].structured_content["id"] == receipt["id"] and "already erased" in text_of(
        out["again"]
    )
    assert [m["id"] for m in out["recall"].structured_content["memories"]] == [out["kept_id"]]
    assert out["history"].is_error
    assert text_of(out["history"]).endswith(
        f"This memory was erased for good (receipt [{receipt['id']}]): it cannot be read or changed."
    )


def test_api_errors_and_bad_arguments_are_tool_errors(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        results: dict[str, Any] = {}
        async with in_memory(dev_server.base_url, key) as client:
            results["unknown"] = await client.call_tool(
                "history", {"memory_id": "0192f0c4-0000-7000-8000-000000000000"}
            )
            results["not_uuid"] = await client.call_tool("history", {"memory_id": "nope"})
            results["limit"] = await client.call_tool("recall", {"limit": 500})
            results["both"] = await client.call_tool("remember", {})
            results["zone"] = await client.call_tool("recall", {"as_of": "2026-04-01T00:00:00"})
            results["still_fine"] = await client.call_tool("recall", {})
        async with in_memory(dev_server.base_url, "aurra_wrong_key") as client:
            results["bad_key"] = await client.call_tool("recall", {})
        return results

    results = run(scenario)
    assert results["unknown"].is_error and "not found" in text_of(results["unknown"]).lower()
    assert results["not_uuid"].is_error
    assert results["limit"].is_error and "limit" in text_of(results["limit"])
    assert results["both"].is_error and "exactly one" in text_of(results["both"])
    assert results["zone"].is_error and "as_of" in text_of(results["zone"])
    assert not results["still_fine"].is_error, "the server keeps serving after errors"
    assert results["bad_key"].is_error
    assert "traceback" not in text_of(results["bad_key"]).lower()


def _stdio_params(key: str, base_url: str, *options: str) -> StdioServerParameters:
    env = {
        **os.environ,
        "AURRA_API_KEY": key,
        "AURRA_BASE_URL": base_url,
        "PYTHONPATH": os.pathsep.join(
            [str(REPO / "layers/core/python"), str(REPO), str(REPO / "sdk/python/src")]
        ),
    }
    return StdioServerParameters(
        command=sys.executable, args=["-m", "aurra_local.cli", "mcp", *options], env=env, cwd=REPO
    )


def test_stdio_subprocess(dev_server: DevServer, key: str, tmp_path: Path) -> None:
    params = _stdio_params(key, dev_server.base_url)
    stderr = tmp_path / "stderr.txt"

    async def scenario() -> tuple[set[str], Any, Any]:
        with stderr.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                stored = await client.call_tool("remember", {"content": "User's favourite tea is sencha"})
                found = await client.call_tool("recall", {"q": "tea"})
                return names, stored, found

    names, stored, found = run(scenario)
    assert names == TOOLS
    assert not stored.is_error, text_of(stored)
    assert "sencha" in text_of(found)
    # The server's stderr is the MCP client's log: no line per request to the Aurra API.
    logged = stderr.read_text()
    assert "HTTP Request" not in logged, logged
    assert dev_server.base_url not in logged, logged


def test_stdio_logs_requests_to_the_api_when_asked(dev_server: DevServer, key: str, tmp_path: Path) -> None:
    params = _stdio_params(key, dev_server.base_url, "--log-requests")
    stderr = tmp_path / "stderr.txt"

    async def scenario() -> Any:
        with stderr.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return await client.call_tool("recall", {})

    assert not run(scenario).is_error
    assert "HTTP Request" in stderr.read_text()


def test_the_http_client_keeps_its_warnings_and_errors() -> None:
    loggers = [logging.getLogger(name) for name in HTTP_CLIENT_LOGGERS]
    before = [logger.level for logger in loggers]
    try:
        quiet_http_client_logs()
        for logger in loggers:
            assert not logger.isEnabledFor(logging.INFO)
            assert logger.isEnabledFor(logging.WARNING)
            assert logger.isEnabledFor(logging.ERROR)
    finally:
        for logger, level in zip(loggers, before, strict=True):
            logger.setLevel(level)


@pytest.fixture(scope="module")
def http_mcp(dev_server: DevServer) -> Iterator[str]:
    with running_mcp_http(dev_server.base_url) as process:
        yield process.url


def test_streamable_http_takes_each_callers_key(http_mcp: str, new_key) -> None:
    first, second = new_key()[1], new_key()[1]

    async def call(key: str | None, tool: str, arguments: dict[str, Any]) -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(http_mcp, http_client=http)) as client,
        ):
            return await client.call_tool(tool, arguments)

    async def scenario() -> dict[str, Any]:
        return {
            "stored": await call(first, "remember", {"content": "User lives in Lisbon"}),
            "own": await call(first, "recall", {}),
            "other": await call(second, "recall", {}),
            "no_key": await call(None, "recall", {}),
        }

    results = run(scenario)
    assert not results["stored"].is_error, text_of(results["stored"])
    assert [m["content"] for m in results["own"].structured_content["memories"]] == ["User lives in Lisbon"]
    assert results["other"].structured_content["memories"] == [], "keys never see each other's tenants"
    assert results["no_key"].is_error and "AURRA_API_KEY" in text_of(results["no_key"])


def test_remember_a_conversation_in_a_users_scope(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        async with in_memory(dev_server.base_url, key) as client:
            stored = await client.call_tool(
                "remember",
                {
                    "messages": [
                        {"role": "user", "content": "I moved to Berlin last month."},
                        {"role": "assistant", "content": "Noted!"},
                    ],
                    "user_id": "alice",
                },
            )
            return {
                "stored": stored,
                "alice": await client.call_tool("recall", {"user_id": "alice"}),
                "bob": await client.call_tool("recall", {"user_id": "bob"}),
            }

    results = run(scenario)
    assert not results["stored"].is_error, text_of(results["stored"])
    facts = results["stored"].structured_content["facts"]
    assert facts and all(fact["memory"]["user_id"] == "alice" for fact in facts)
    assert "Berlin" in text_of(results["stored"])
    assert any("Berlin" in m["content"] for m in results["alice"].structured_content["memories"])
    assert results["bob"].structured_content["memories"] == []


def test_review_lists_approves_and_dismisses_proposals(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        # At a floor of 1.0 every contradiction the classifier finds waits for a person instead.
        async with AsyncAurra(api_key=key, base_url=dev_server.base_url) as sdk:
            await sdk.settings.update(min_confidence=1.0, proposal_min_confidence=0.5)
        out: dict[str, Any] = {}
        async with in_memory(dev_server.base_url, key) as client:
            for subject in ("User", "Dana"):
                await client.call_tool("remember", {"content": f"{subject} uses Vim", "topic": "preferences"})
                await client.call_tool(
                    "remember",
                    {
                        "content": f"{subject} switched from Vim to Emacs",
                        "topic": "preferences",
                        "auto_supersede": True,
                    },
                )
            out["queue"] = await client.call_tool("review", {"action": "list"})
            events = out["queue"].structured_content["events"]
            out["approved"] = await client.call_tool(
                "review", {"action": "approve", "event_id": events[0]["id"]}
            )
            out["dismissed"] = await client.call_tool(
                "review", {"action": "dismiss", "event_id": events[1]["id"]}
            )
            out["again"] = await client.call_tool(
                "review", {"action": "approve", "event_id": events[1]["id"]}
            )
            out["missing_id"] = await client.call_tool("review", {"action": "approve"})
            out["after"] = await client.call_tool("review", {"action": "list"})
        return out

    out = run(scenario)
    assert not out["queue"].is_error, text_of(out["queue"])
    assert len(out["queue"].structured_content["events"]) == 2
    assert "open proposal" in text_of(out["queue"])
    assert not out["approved"].is_error, text_of(out["approved"])
    assert out["approved"].structured_content["superseded"]["status"] == "superseded"
    assert not out["dismissed"].is_error, text_of(out["dismissed"])
    assert out["again"].is_error, "a dismissed proposal is no longer open"
    assert out["missing_id"].is_error and "event_id" in text_of(out["missing_id"])
    assert out["after"].structured_content["events"] == []


def test_agent_id_scopes_writes_lists_and_searches(dev_server: DevServer, key: str) -> None:
    async def scenario() -> dict[str, Any]:
        async with in_memory(dev_server.base_url, key) as client:
            out = {
                "fact": await client.call_tool(
                    "remember",
                    {"content": "User prefers dark mode", "user_id": "alice", "agent_id": "support-bot"},
                ),
                "conversation": await client.call_tool(
                    "remember",
                    {
                        "messages": [{"role": "user", "content": "I moved to Berlin last month."}],
                        "user_id": "alice",
                        "agent_id": "travel-bot",
                    },
                ),
            }
            out["support"] = await client.call_tool("recall", {"agent_id": "support-bot"})
            out["travel"] = await client.call_tool("recall", {"user_id": "alice", "agent_id": "travel-bot"})
            out["search"] = await client.call_tool("recall", {"q": "dark mode", "agent_id": "travel-bot"})
            out["search_support"] = await client.call_tool(
                "recall", {"q": "dark mode", "agent_id": "support-bot"}
            )
            out["unscoped"] = await client.call_tool("recall", {"user_id": "alice"})
            return out

    out = run(scenario)
    for name, result in out.items():
        assert not result.is_error, (name, text_of(result))
    assert out["fact"].structured_content["memory"]["agent_id"] == "support-bot"
    facts = out["conversation"].structured_content["facts"]
    assert facts and all(fact["memory"]["agent_id"] == "travel-bot" for fact in facts)

    support = out["support"].structured_content["memories"]
    assert [m["content"] for m in support] == ["User prefers dark mode"]
    assert "agent=support-bot" in text_of(out["support"])
    travel = out["travel"].structured_content["memories"]
    assert travel and all("Berlin" in m["content"] and m["agent_id"] == "travel-bot" for m in travel)
    # A search in another agent's scope never finds this agent's memory.
    searched = out["search"].structured_content["memories"]
    assert all(m["agent_id"] == "travel-bot" for m in searched)
    assert "User prefers dark mode" not in [m["content"] for m in searched]
    assert [m["content"] for m in out["search_support"].structured_content["memories"]] == [
        "User prefers dark mode"
    ]
    assert len(out["unscoped"].structured_content["memories"]) == 1 + len(travel)
