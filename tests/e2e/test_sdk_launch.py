"""The SDK's launch examples, word for word (plus base_url), against `aurra dev`."""

import asyncio
import contextlib
import io
import textwrap
from datetime import UTC, datetime, timedelta

import pytest
from dev_server import start_dev_server

LAUNCH_EXAMPLE = """
from aurra import Aurra
client = Aurra(api_key=KEY, base_url=BASE_URL)

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
"""


@pytest.fixture(scope="module")
def server_with_level2_off(pg_url, tmp_path_factory):
    server = start_dev_server(pg_url, tmp_path_factory.mktemp("level2-off"), AURRA_LEVEL2_ENABLED="false")
    yield server
    server.process.terminate()
    server.process.wait(10)


def test_launch_example_runs_as_written(server_with_level2_off, new_key):
    _, raw = new_key()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(textwrap.dedent(LAUNCH_EXAMPLE), {"KEY": raw, "BASE_URL": server_with_level2_off.base_url})
    assert out.getvalue() == (
        "SettingsResult(auto_supersede_default=False, excluded_categories=['health_medical', 'legal_status'], "
        "min_confidence=0.85, classifier_model='claude-haiku-4-5-20251001')\n"
        "AutoSupersedeResult(ran=False, skipped_reason='level_2_disabled_by_env')\n"
    )
    from aurra import Aurra

    after = Aurra(api_key=raw, base_url=server_with_level2_off.base_url).settings.get()
    assert after.auto_supersede_default is True and after.min_confidence == 0.92
    assert after.excluded_categories == ["health_medical", "legal_status", "financial"]


def test_supersession_and_time_travel_with_the_sync_client(dev_server, new_key):
    from aurra import Aurra

    _, raw = new_key()
    client = Aurra(api_key=raw, base_url=dev_server.base_url)
    client.settings.update(auto_supersede_default=True)
    vim = client.memories.add(
        content="User uses Vim", topic="preferences", valid_from=datetime(2026, 4, 1, tzinfo=UTC)
    )
    result = client.memories.add(
        content="User has been using Emacs as their daily editor, having moved away from Vim",
        topic="preferences",
        valid_from=datetime(2026, 5, 3, 10, tzinfo=UTC),
    )
    print(result.auto_supersede)
    assert result.auto_supersede.ran is True
    assert result.auto_supersede.supersession.superseded_id == vim.memory.id
    april = [m.content for m in client.memories.list(as_of=datetime(2026, 4, 15, tzinfo=UTC))]
    assert april == ["User uses Vim"]
    before = result.memory.recorded_at - timedelta(microseconds=1)
    known = client.memories.get(vim.memory.id, known_at=before)
    assert known.status == "current"
    assert [m.id for m in client.memories.history(vim.memory.id).chain] == [vim.memory.id, result.memory.id]
    assert [m.id for m in client.memories.history(vim.memory.id, known_at=before).chain] == [vim.memory.id]
    event = next(iter(client.audit.list()))
    assert event.type == "auto_supersede"
    restored = client.audit.revert(event.id)
    assert restored.restored.id == vim.memory.id


def test_supersession_and_time_travel_with_the_async_client(dev_server, new_key):
    from aurra import AsyncAurra

    _, raw = new_key()

    async def scenario():
        async with AsyncAurra(api_key=raw, base_url=dev_server.base_url) as client:
            await client.settings.update(auto_supersede_default=True)
            vim = await client.memories.add(
                content="User uses Vim", topic="preferences", valid_from=datetime(2026, 4, 1, tzinfo=UTC)
            )
            result = await client.memories.add(
                content="User switched from Vim to Emacs",
                topic="preferences",
                valid_from=datetime(2026, 5, 3, tzinfo=UTC),
            )
            april = [m.content async for m in client.memories.list(as_of=datetime(2026, 4, 15, tzinfo=UTC))]
            now = [m.content async for m in client.memories.list()]
            return vim, result, april, now

    vim, result, april, now = asyncio.run(scenario())
    assert result.auto_supersede.supersession.superseded_id == vim.memory.id
    assert april == ["User uses Vim"] and now == ["User switched from Vim to Emacs"]
