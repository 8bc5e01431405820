"""`aurra dev` started as a user would, against the session's database."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from dev_server import DevServer, start_dev_server


@pytest.fixture(scope="session")
def dev_server(pg_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevServer]:
    server = start_dev_server(pg_url, tmp_path_factory.mktemp("aurra-dev"))
    yield server
    server.process.terminate()
    server.process.wait(10)


@pytest.fixture(autouse=True)
def dev_server_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """A 500 from the session's server reaches a test only as "internal error"; the server's
    log says where it failed. Printed with the test's output, which a failed test shows."""
    if "dev_server" not in request.fixturenames:
        yield
        return
    server: DevServer = request.getfixturevalue("dev_server")
    before = len(server.errors)
    yield
    for line in server.errors[before:]:
        print(f"aurra dev logged: {line}")


@pytest.fixture
def api(dev_server: DevServer, new_key):
    """An HTTP client for a fresh tenant: api() -> (client, caller)."""
    clients = []

    def make():
        caller, raw = new_key()
        client = httpx.Client(
            base_url=dev_server.base_url, headers={"Authorization": f"Bearer {raw}"}, timeout=30
        )
        clients.append(client)
        return client, caller

    yield make
    for client in clients:
        client.close()
