"""Discord sharding: ``[discord] shard_count`` / ``shard_ids`` run discord.py's AutoShardedBot
on the shards named (each IDENTIFY says its [id, count] to the fake gateway), and the settings
refuse ids that cannot be."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from familiars.bot._adapters.discord import DiscordAdapter
from familiars.config import ConfigError, DiscordSettings, Settings, load_settings
from tests.bot.fake_discord import ALICE, FakeDiscord
from tests.bot.fake_telegram import FakeHandler

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    yield server
    await server.stop()


def adapter_for(fake: FakeDiscord, handler: FakeHandler, **discord_cfg: Any) -> DiscordAdapter:
    return DiscordAdapter(
        handler,
        Settings(discord=DiscordSettings(**discord_cfg)),
        fake.token,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        guild_ready_timeout_s=0.05,
        ready_timeout_s=20.0,
    )


async def test_unsharded_by_default(fake: FakeDiscord) -> None:
    adapter = adapter_for(fake, FakeHandler())
    await adapter.start()
    try:
        assert not isinstance(adapter.bot, discord.AutoShardedClient)
        assert fake.shards == [None]
    finally:
        await adapter.stop()


async def test_one_process_runs_the_shards_it_is_given_and_answers(fake: FakeDiscord) -> None:
    handler = FakeHandler()
    adapter = adapter_for(fake, handler, shard_count=4, shard_ids=[2])
    await adapter.start()
    try:
        assert isinstance(adapter.bot, discord.AutoShardedClient)
        assert fake.shards == [[2, 4]]
        assert adapter.bot.shard_ids == [2] and adapter.bot.shard_count == 4
        message = fake.dm_message(ALICE, "hello from shard 2")
        await fake.dispatch_message(message)
        channel = int(message["channel_id"])
        sent = await fake.wait_for(lambda: fake.created_messages(channel))
        assert sent[0]["content"] == "echo: hello from shard 2"
    finally:
        await adapter.stop()


async def test_two_shards_in_one_process_each_identify(fake: FakeDiscord) -> None:
    """discord.py waits 5 s between two IDENTIFYs (Discord's limit); not a timed check."""
    adapter = adapter_for(fake, FakeHandler(), shard_count=3, shard_ids=[0, 2])
    await adapter.start()
    try:
        assert sorted(s for s in fake.shards if s) == [[0, 3], [2, 3]]
        assert set(adapter.bot.shards) == {0, 2}  # type: ignore[attr-defined]
    finally:
        await adapter.stop()


@pytest.mark.parametrize(
    ("discord_cfg", "says"),
    [
        ({"shard_ids": [0]}, "needs discord.shard_count"),
        ({"shard_count": 4, "shard_ids": [4]}, r"\[4\] out of range: with shard_count = 4"),
        ({"shard_count": 2, "shard_ids": [-1, 1]}, r"\[-1\] out of range"),
        ({"shard_count": 4, "shard_ids": [1, 1]}, "lists a shard twice"),
        ({"shard_count": 4, "shard_ids": []}, "is empty"),
        ({"shard_count": 0}, "shard_count"),
    ],
)
def test_shard_settings_that_cannot_be_are_refused(
    tmp_path: Path, discord_cfg: dict[str, Any], says: str
) -> None:
    with pytest.raises(ConfigError, match=says):
        load_settings(workspace=tmp_path, discord=discord_cfg)
