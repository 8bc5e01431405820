"""Client settings: explicit arguments first, then environment variables, then defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

from aurra.errors import ConfigurationError

DEFAULT_BASE_URL = "https://api.aurra.us"
# Generous: a write may wait on the classifier before the server answers.
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 2

API_KEY_ENV = "AURRA_API_KEY"
BASE_URL_ENV = "AURRA_BASE_URL"


@dataclass(frozen=True)
class ClientConfig:
    api_key: str
    base_url: str
    timeout: httpx.Timeout
    max_retries: int

    @classmethod
    def resolve(
        cls,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx.Timeout | None,
        max_retries: int,
    ) -> ClientConfig:
        key = api_key or os.environ.get(API_KEY_ENV)
        if not key:
            raise ConfigurationError(
                f"No Aurra API key: pass api_key=... to the client or set the {API_KEY_ENV} environment variable"
            )
        url = (base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL).rstrip("/")
        try:
            parsed = httpx.URL(url)
        except httpx.InvalidURL:
            parsed = None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
            raise ConfigurationError(
                f"base_url must be an http(s) URL such as {DEFAULT_BASE_URL!r}, got {url!r}"
            )
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        return cls(
            api_key=key,
            base_url=url,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            max_retries=max_retries,
        )
