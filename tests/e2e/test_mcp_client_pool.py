"""`aurra mcp --http` against a flood of keys: its pool of API clients holds only keys the API
accepted, at most its size, none idle past its limit, and closes what it lets go; an event
stream (GET /mcp) opens only for a key the API accepts.

In process (the pool itself, against `aurra dev`) and as the user runs it (`aurra mcp --http`
in a subprocess: its open file descriptors and its sockets to the API, from /proc).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from dev_server import DevServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_http_process import McpProcess, running_mcp_http

from aurra import AsyncAurra
from aurra_local.mcp_server import ClientPool, _call

REPO = Path(__file__).resolve().parents[2]


def random_key() -> str:
    """Shaped like a key, accepted by nobody."""
    return f"aurra_{secrets.token_hex(6)}_{secrets.token_urlsafe(24)}"


class Recorded(AsyncAurra):
    closed = False

    async def close(self) -> None:
        self.closed = True
        await super().close()


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


def in_process_pool(dev_server: DevServer, size: int, idle_s: float = 300.0):
    made: dict[str | None, list[Recorded]] = {}

    def factory(key: str | None) -> AsyncAurra:
        client = Recorded(api_key=key, base_url=dev_server.base_url, max_retries=0)
        made.setdefault(key, []).append(client)
        return client

    clock = Clock()
    return ClientPool(factory, size=size, idle_s=idle_s, clock=clock), made, clock


async def one_request(pool: ClientPool, key: str) -> None:
    """What a tool does in one MCP request: one API call with the request's key."""
    async with pool.request_scope():
        with suppress(ToolError):
            await _call(pool.client_for(key).settings.get())


def test_the_pool_keeps_accepted_keys_only_at_most_its_size_and_closes_what_it_drops(
    dev_server: DevServer, new_key
) -> None:
    pool, made, clock = in_process_pool(dev_server, size=3, idle_s=60)
    valid = [new_key()[1] for _ in range(4)]
    invalid = [random_key() for _ in range(100)]

    async def scenario() -> None:
        for key in invalid:
            await one_request(pool, key)
        # Refused keys: never kept, each client closed.
        assert len(pool) == 0
        assert all(client.closed for key in invalid for client in made[key])
        for key in valid[:3]:
            await one_request(pool, key)
            await one_request(pool, key)  # reused, not made again
        assert len(pool) == 3 and all(len(made[key]) == 1 for key in valid[:3])
        # The fourth evicts the least recently used, and closes it.
        await one_request(pool, valid[3])
        assert len(pool) == 3 and made[valid[0]][0].closed
        assert not any(made[key][0].closed for key in valid[1:])
        # Idle past the limit: closed at the end of the next request.
        clock.now += 61
        await one_request(pool, valid[1])
        assert len(pool) == 1 and made[valid[2]][0].closed and made[valid[3]][0].closed
        assert not made[valid[1]][0].closed

    anyio.run(scenario)


def test_a_client_in_use_is_closed_only_when_its_request_ends(dev_server: DevServer, new_key) -> None:
    pool, made, _ = in_process_pool(dev_server, size=1)
    first, second = new_key()[1], new_key()[1]

    async def scenario() -> None:
        await one_request(pool, first)
        async with pool.request_scope():
            client = pool.client_for(first)
            await one_request(pool, second)  # evicts `first` while this request still uses it
            assert not made[first][0].closed
            await _call(client.settings.get())  # still usable
        assert made[first][0].closed and len(pool) == 1

    anyio.run(scenario)


def test_a_key_revoked_while_pooled_is_dropped_and_closed(dev_server: DevServer, new_key, db) -> None:
    pool, made, _ = in_process_pool(dev_server, size=4)
    caller, raw = new_key()

    async def scenario() -> None:
        await one_request(pool, raw)
        assert len(pool) == 1
        with db.transaction() as conn:
            conn.execute("UPDATE api_keys SET revoked_at = now() WHERE id = %s", (caller.api_key_id,))
        await one_request(pool, raw)
        assert len(pool) == 0 and made[raw][0].closed

    anyio.run(scenario)


# ---------------------------------------------------------------- `aurra mcp --http`, as run


@pytest.fixture
def mcp_http(dev_server: DevServer) -> Iterator[McpProcess]:
    with running_mcp_http(dev_server.base_url) as process:
        yield process


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def sockets_to(pid: int, port: int) -> int:
    """The process's TCP sockets whose remote end is `port` on loopback, in any state."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    count = 0
    for table in ("tcp", "tcp6"):
        with suppress(OSError):
            for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                fields = line.split()
                if int(fields[2].rsplit(":", 1)[1], 16) == port and fields[9] in inodes:
                    count += 1
    return count


HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def recall(client: httpx.Client, url: str, key: str) -> dict:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "recall", "arguments": {}}}
    response = client.post(url, json=body, headers={**HEADERS, "Authorization": f"Bearer {key}"})
    assert response.status_code == 200, response.text
    return response.json()["result"]


def test_a_flood_of_invalid_keys_leaves_the_pool_and_the_descriptors_bounded(mcp_http: McpProcess, new_key):
    _, valid = new_key()
    pid = mcp_http.process.pid
    with httpx.Client(timeout=30) as client:
        assert not recall(client, mcp_http.url, valid)["isError"]
        fds_before = open_fds(pid)

        def flood(_: int) -> bool:
            with httpx.Client(timeout=30) as own:
                return bool(recall(own, mcp_http.url, random_key())["isError"])

        with ThreadPoolExecutor(max_workers=4) as workers:
            refused = list(workers.map(flood, range(300)))
        assert all(refused) and len(refused) == 300
        # Each refused key's client was closed: no socket to the API is left behind for it
        # (before, one a key: 300 here), and the file descriptors stay where they were.
        assert sockets_to(pid, mcp_http.api_port) <= 4, sockets_to(pid, mcp_http.api_port)
        assert open_fds(pid) - fds_before <= 20, (fds_before, open_fds(pid))
        # The accepted key is still served, from the pool.
        assert not recall(client, mcp_http.url, valid)["isError"]


def _get_stream(url: str, key: str | None) -> tuple[bytes, bool]:
    """A raw GET of the MCP endpoint: the head of the answer, and whether the server closed
    the connection by itself (within 30 s) after answering."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    auth = b"" if key is None else b"Authorization: Bearer " + key.encode() + b"\r\n"
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(
            b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port.encode() + b"\r\n"
            b"Accept: text/event-stream\r\n" + auth + b"\r\n"
        )
        received = b""
        try:
            while b"\r\n\r\n" not in received:
                received += sock.recv(65536)
            if b"text/event-stream" in received.lower():
                return received, False
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            return received, False
    return received, True


def test_an_event_stream_opens_only_for_a_key_the_api_accepts(mcp_http: McpProcess, new_key) -> None:
    _, valid = new_key()
    with ThreadPoolExecutor(max_workers=16) as clients:  # at once, as the finding's 16 streams
        answers = list(clients.map(lambda key: _get_stream(mcp_http.url, key), [None] + [random_key()] * 15))
    for head, closed in answers:
        assert head.startswith(b"HTTP/1.1 401 "), head[:200]
        assert b"www-authenticate: bearer" in head.lower()
        assert closed, "a refused stream holds nothing open"
    head, _ = _get_stream(mcp_http.url, valid)
    assert head.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in head.lower(), head[:300]
