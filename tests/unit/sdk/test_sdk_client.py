"""Client construction: key and URL resolution, headers, URL joining, owning and closing the HTTP client."""

from __future__ import annotations

import httpx
import pytest
from sdk_fakes import API_KEY, Server, make_client, settings_json

import aurra
from aurra import AsyncAurra, Aurra, AurraError, ConfigurationError


def test_version_is_exposed() -> None:
    assert isinstance(aurra.__version__, str) and aurra.__version__


def test_missing_key_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="AURRA_API_KEY") as caught:
        Aurra()
    assert isinstance(caught.value, AurraError)
    with pytest.raises(ConfigurationError):
        AsyncAurra()


def test_empty_env_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AURRA_API_KEY", "")
    with pytest.raises(ConfigurationError):
        Aurra()


def test_key_and_url_fall_back_to_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AURRA_API_KEY", "aurra_from_env")
    monkeypatch.setenv("AURRA_BASE_URL", "http://127.0.0.1:3999/")
    server = Server().reply(200, settings_json())
    client = Aurra(http_client=httpx.Client(transport=httpx.MockTransport(server)))
    assert client.base_url == "http://127.0.0.1:3999"
    client.settings.get()
    assert server.last.headers["Authorization"] == "Bearer aurra_from_env"
    assert str(server.last.url) == "http://127.0.0.1:3999/agent/settings"


def test_explicit_arguments_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AURRA_API_KEY", "aurra_from_env")
    monkeypatch.setenv("AURRA_BASE_URL", "http://env.test")
    client = Aurra(api_key="aurra_explicit", base_url="http://explicit.test")
    assert client._config.api_key == "aurra_explicit"
    assert client.base_url == "http://explicit.test"
    client.close()


def test_hosted_default_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hosted API's public address, when neither an argument nor AURRA_BASE_URL names one."""
    monkeypatch.setenv("AURRA_API_KEY", "k")
    monkeypatch.delenv("AURRA_BASE_URL", raising=False)
    with Aurra() as client:
        assert client.base_url == "https://api.aurra.us"


@pytest.mark.parametrize("url", ["localhost:3000", "ftp://x.test", "not a url", "http://"])
def test_unusable_base_url_is_refused(url: str) -> None:
    with pytest.raises(ConfigurationError, match="base_url"):
        Aurra(api_key="k", base_url=url)


@pytest.mark.parametrize("value", [-1, 1.5, True])
def test_bad_max_retries_is_refused(value: object) -> None:
    with pytest.raises(ConfigurationError, match="max_retries"):
        Aurra(api_key="k", max_retries=value)  # type: ignore[arg-type]


def test_base_url_path_prefix_is_kept() -> None:
    server = Server().reply(200, settings_json())
    client = make_client(server, base_url="https://gw.example.test/prod/")
    client.settings.get()
    assert str(server.last.url) == "https://gw.example.test/prod/agent/settings"


def test_request_headers(client, server) -> None:
    server.reply(200, settings_json())
    client.settings.get()
    headers = server.last.headers
    assert headers["Authorization"] == f"Bearer {API_KEY}"
    assert headers["Accept"] == "application/json"
    assert headers["User-Agent"] == f"aurra-python/{aurra.__version__}"


def test_timeout_applies_to_requests() -> None:
    server = Server().reply(200, settings_json())
    client = make_client(server, timeout=4.5)
    client.settings.get()
    assert server.last.extensions["timeout"] == {"connect": 4.5, "read": 4.5, "write": 4.5, "pool": 4.5}


def test_repr_never_shows_the_key() -> None:
    client = Aurra(api_key="aurra_secret_value", base_url="http://x.test")
    assert "aurra_secret_value" not in repr(client)
    assert repr(client) == "Aurra(base_url='http://x.test')"
    client.close()


def test_context_manager_closes_an_owned_client() -> None:
    with Aurra(api_key="k", base_url="http://x.test") as client:
        http = client._transport.http
    assert http.is_closed


def test_a_passed_http_client_is_left_open() -> None:
    http = httpx.Client(transport=httpx.MockTransport(Server()))
    with Aurra(api_key="k", base_url="http://x.test", http_client=http):
        pass
    assert not http.is_closed
    http.close()
