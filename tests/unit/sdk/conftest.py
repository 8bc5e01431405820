"""Fixtures for the SDK unit tests: clients wired to httpx.MockTransport, never the network."""

from __future__ import annotations

import pytest
from sdk_fakes import Server, make_async_client, make_client

from aurra import AsyncAurra, Aurra


@pytest.fixture(autouse=True)
def _no_aurra_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # The developer's own AURRA_* variables must not leak into what the tests see.
    monkeypatch.delenv("AURRA_API_KEY", raising=False)
    monkeypatch.delenv("AURRA_BASE_URL", raising=False)


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(server: Server, sleeps: list[float]) -> Aurra:
    return make_client(server, sleeps)


@pytest.fixture
def async_client(server: Server, sleeps: list[float]) -> AsyncAurra:
    return make_async_client(server, sleeps)
