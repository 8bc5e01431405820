"""The launch example runs as written (plus base_url) and prints what the launch material shows."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sdk_fakes import API_KEY, BASE_URL, FakeAurraServer

from aurra import AsyncAurra, Aurra, ValidationError

EXPECTED_OUTPUT = (
    "SettingsResult(auto_supersede_default=False, excluded_categories=['health_medical', 'legal_status'], "
    "min_confidence=0.85, classifier_model='claude-haiku-4-5-20251001')\n"
    "AutoSupersedeResult(ran=False, skipped_reason='level_2_disabled_by_env')\n"
)


def test_launch_example(capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeAurraServer()
    http_client = httpx.Client(transport=httpx.MockTransport(fake))

    client = Aurra(api_key=API_KEY, base_url=BASE_URL, http_client=http_client)

    s = client.settings.get()
    print(s)

    client.settings.update(
        excluded_categories=["health_medical", "legal_status", "financial"],
        min_confidence=0.92,  # raise the floor (0.85 is the minimum)
    )

    result = client.memories.add(
        content="User has been using Emacs as their daily editor, having moved away from Vim",
        topic="preferences",
        auto_supersede=True,
    )
    print(result.auto_supersede)

    client.settings.update(auto_supersede_default=True)

    assert capsys.readouterr().out == EXPECTED_OUTPUT
    assert fake.settings == {
        "auto_supersede_default": True,
        "excluded_categories": ["health_medical", "legal_status", "financial"],
        "min_confidence": 0.92,
        "classifier_model": "claude-haiku-4-5-20251001",
    }

    with pytest.raises(ValidationError, match=r"^min_confidence must be >= 0\.85$"):
        client.settings.update(min_confidence=0.5)


def test_launch_example_async(capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeAurraServer()

    async def main() -> None:
        http_client = httpx.AsyncClient(transport=httpx.MockTransport(fake))
        async with AsyncAurra(api_key=API_KEY, base_url=BASE_URL, http_client=http_client) as client:
            s = await client.settings.get()
            print(s)
            await client.settings.update(
                excluded_categories=["health_medical", "legal_status", "financial"],
                min_confidence=0.92,
            )
            result = await client.memories.add(
                content="User has been using Emacs as their daily editor, having moved away from Vim",
                topic="preferences",
                auto_supersede=True,
            )
            print(result.auto_supersede)
            await client.settings.update(auto_supersede_default=True)
            with pytest.raises(ValidationError, match=r"^min_confidence must be >= 0\.85$"):
                await client.settings.update(min_confidence=0.5)

    asyncio.run(main())
    assert capsys.readouterr().out == EXPECTED_OUTPUT
    assert fake.settings["auto_supersede_default"] is True
