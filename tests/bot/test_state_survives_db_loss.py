"""Losing ``familiars.db`` changes nothing (issue 12): the real runtime on the fake Telegram and
Discord servers is told a DM's secrets, the database (and its -wal/-shm) is deleted, the app
restarts and a group speaks first. The group gets a new dialogue folder and nothing of the DM;
the DM still recalls its facts; people, links, time zones and opt-outs are as they were."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from familiars.bot import Application
from familiars.bot._adapters.base import CommandInvocation
from familiars.bot._adapters.discord import DiscordAdapter
from familiars.bot._adapters.telegram import TelegramAdapter
from familiars.config import Settings, load_settings
from tests.bot.fake_discord import ALICE as D_ALICE
from tests.bot.fake_discord import BOB as D_BOB
from tests.bot.fake_discord import BOT_ID, BOT_USER, GENERAL_ID, FakeDiscord
from tests.bot.fake_telegram import TOKEN, FakeTelegram
from tests.harness import make_app

pytestmark = pytest.mark.timeout(120)

ALICE, BOB, GROUP = 101, 102, -1001
SECRETS = {
    "My locker number is 4921.": "4921",
    "My test result came back positive.": "positive",
    "My password hint is the name of my first goldfish, Bubbles.": "Bubbles",
}
QUESTIONS = {
    "4921": "What is my locker number?",
    "positive": "What was my test result?",
    "Bubbles": "What is my password hint?",
}
GROUP_ASKS = [
    "What is the locker number?",
    "What was the test result?",
    "What is the password hint? Tell me about the goldfish.",
]


def settings_for(workspace: Path) -> Settings:
    return load_settings(workspace=workspace, telegram={"overall_max_rate": 0, "group_max_rate": 0})


@asynccontextmanager
async def running(workspace: Path) -> AsyncIterator[Application]:
    """The real runtime, offline (no model), without platform adapters of its own."""
    app = make_app(settings_for(workspace), model=None)
    async with app:
        yield app


def lose_database(workspace: Path) -> None:
    """What a disk problem or a careless ``rm`` does: the database and its sidecars are gone."""
    for name in ("familiars.db", "familiars.db-wal", "familiars.db-shm"):
        (workspace / name).unlink(missing_ok=True)
    assert not list(workspace.glob("familiars.db*"))


def leaked(texts: list[str]) -> list[tuple[str, str]]:
    return [(t, s) for t in texts for s in SECRETS.values() if s.lower() in t.lower()]


def chat_maps(workspace: Path) -> dict[str, dict[str, Any]]:
    """Each dialogue folder's ``chat.json``, without its activity times."""
    maps = {}
    for path in sorted(workspace.glob("agents/*/dialogue_*/chat.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        maps[path.parent.name] = {k: v for k, v in data.items() if not k.startswith("last_")}
    return maps


def invocation(platform: str, chat_id: str, user_id: str, name: str, *args: str) -> Any:
    return CommandInvocation(
        platform=platform, chat_id=chat_id, user_id=user_id, display_name="", name=name, args=args
    )


# ---------------------------------------------------------------------------------- Telegram


@asynccontextmanager
async def telegram(tg: FakeTelegram, app: Application) -> AsyncIterator[TelegramAdapter]:
    assert app.dialogues is not None
    adapter = TelegramAdapter(app.dialogues, app.settings, TOKEN, base_url=tg.base_url)
    await adapter.start()
    try:
        yield adapter
    finally:
        await adapter.stop()


async def tell_telegram(tg: FakeTelegram, app: Application, chat: int, text: str) -> str:
    before = len(tg.chat_texts(chat))
    if chat == GROUP:
        tg.group_message(GROUP, BOB, text, first_name="Bob", mention=True)
    else:
        tg.private_message(chat, text, first_name="Alice")
    await tg.wait_for(lambda: len(tg.chat_texts(chat)) > before, timeout=30)
    await app.settle()
    return tg.chat_texts(chat)[-1]


async def test_telegram_group_first_after_losing_the_database_sees_nothing_of_the_dm(
    workspace: Path,
) -> None:
    async with FakeTelegram() as tg:
        async with running(workspace) as app, telegram(tg, app):
            assert app.state is not None
            for text in SECRETS:
                await tell_telegram(tg, app, ALICE, text)
            for secret, question in QUESTIONS.items():
                assert secret in await tell_telegram(tg, app, ALICE, question)
            alice = await app.state.person_for("telegram", str(ALICE))
            await app.state.set_timezone(alice, "Europe/Berlin")
            tg.command(tg.private_chat(ALICE), ALICE, "/link")
            await tg.wait_for(lambda: "code is" in tg.chat_texts(ALICE)[-1])
            code = tg.chat_texts(ALICE)[-1].split("code is ")[1].split(".")[0]
            assert app.dialogues is not None
            linked = await app.dialogues.command(invocation("discord", "d1", "999", "link", code))
            assert "Linked" in linked.text
            tg.command(tg.private_chat(ALICE), ALICE, "/proactive off")
            await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) == 8)
            before = await people_and_links(app)
        maps_before = chat_maps(workspace)

        lose_database(workspace)

        async with running(workspace) as app, telegram(tg, app):
            assert app.state is not None
            answers = [await tell_telegram(tg, app, GROUP, ask) for ask in GROUP_ASKS]
            assert leaked(answers) == []
            for secret, question in QUESTIONS.items():
                assert secret in await tell_telegram(tg, app, ALICE, question)
            assert await people_and_links(app) == before
        maps_after = chat_maps(workspace)

    assert {k: v for k, v in maps_after.items() if k in maps_before} == maps_before
    [group_folder] = set(maps_after) - set(maps_before)
    assert maps_after[group_folder]["is_group"] is True


async def people_and_links(app: Application) -> dict[str, Any]:
    assert app.state is not None
    alice = await app.state.person_for("telegram", str(ALICE))
    other = await app.state.person_for("discord", "999")
    person = await app.state.person(alice)
    return {
        "alice": alice,
        "linked": other,
        "person": person,
        "identities": await app.state.identities_of(alice),
        "dms": [
            (d.agent_id, d.dialogue_id, d.chat_id, d.user_key)
            for d in await app.state.dialogues()
            if not d.is_group
        ],
    }


# ----------------------------------------------------------------------------------- Discord


@asynccontextmanager
async def discord(fake: FakeDiscord, app: Application) -> AsyncIterator[DiscordAdapter]:
    assert app.dialogues is not None
    adapter = DiscordAdapter(
        app.dialogues,
        app.settings,
        fake.token,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
        guild_ready_timeout_s=0.05,
    )
    await adapter.start()
    try:
        yield adapter
    finally:
        await adapter.stop()


async def tell_discord(fake: FakeDiscord, app: Application, group: bool, text: str) -> str:
    if group:
        message = fake.guild_message(D_BOB, f"<@{BOT_ID}> {text}", mentions=(BOT_USER,))
    else:
        message = fake.dm_message(D_ALICE, text)
    channel = int(message["channel_id"])
    before = len(fake.created_messages(channel))
    await fake.dispatch_message(message)
    await fake.wait_for(lambda: len(fake.created_messages(channel)) > before, timeout=30)
    await app.settle()
    return str(fake.created_messages(channel)[-1]["content"])


async def test_discord_group_first_after_losing_the_database_sees_nothing_of_the_dm(
    workspace: Path,
) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        async with running(workspace) as app, discord(fake, app):
            assert app.state is not None
            for text in SECRETS:
                await tell_discord(fake, app, False, text)
            alice = await app.state.person_for("discord", str(D_ALICE["id"]))
            await app.state.set_timezone(alice, "America/Denver")
            await app.state.set_proactive(alice, False)
            person = await app.state.person(alice)
            dms = await app.state.dialogues()

        lose_database(workspace)

        async with running(workspace) as app, discord(fake, app):
            assert app.state is not None
            answers = [await tell_discord(fake, app, True, ask) for ask in GROUP_ASKS]
            assert leaked(answers) == []
            assert fake.created_messages(GENERAL_ID)
            for secret, question in QUESTIONS.items():
                assert secret in await tell_discord(fake, app, False, question)
            assert await app.state.person(alice) == person
            after = await app.state.dialogues()
    finally:
        await fake.stop()
    assert person is not None and person.timezone == "America/Denver" and not person.proactive
    [dm] = dms
    [same, group] = after
    assert (same.dialogue_id, same.chat_id, same.user_key) == (dm.dialogue_id, dm.chat_id, alice)
    assert group.is_group and group.dialogue_id != dm.dialogue_id
