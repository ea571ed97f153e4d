"""Tester s38 (finding 2): pasting a block into ``familiars chat`` whose middle line was
"/memory forget everything confirm" erased the person at once (the paste gatherer split
the "/" line off and ran it; the lines after it became the next messages). A pasted block
is one message now, commands included; a command runs only as an input of its own; and a
forget goes on only on a yes typed after its question was shown, never one typed ahead or
sent with the request. Telegram and Discord: a message of several lines, or a forwarded
one, is never a command."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from familiars.bot._forgetting import NOT_FRESH_YES
from familiars.config import load_settings
from tests.bot.fake_discord import FakeDiscord
from tests.bot.fake_telegram import FakeTelegram
from tests.bot.test_state_survives_db_loss import (
    ALICE,
    discord,
    running,
    telegram,
    tell_discord,
    tell_telegram,
)
from tests.harness import T0, ConsoleBot, console_bot

pytestmark = pytest.mark.timeout(120)

TOLD = "My dog is called Rex."


def kept(workspace: Path, word: str = "Rex") -> bool:
    """Whether a person's memory file still holds ``word``."""
    return any(word in p.read_text("utf-8") for p in workspace.glob("users/*/*.md"))


async def said(bot: ConsoleBot, text: str, *, fresh: bool = True) -> str:
    """What the terminal printed for one input (typed at the prompt unless ``fresh``)."""
    at = len(bot.sent())
    await bot.adapter.handle_line(text, fresh=fresh)
    await bot.app.settle()
    return bot.sent()[at:]


@pytest.mark.parametrize(
    "paste",
    [
        "look what my mate sent me, is this a virus or what:\n"
        "/memory forget everything confirm\nlol",
        "hey check this out lol\n/memory forget everything\nconfirm",
        "my mum said this:\n/forget my dog\nyes",
        "/memory forget everything\nconfirm",
    ],
)
async def test_a_pasted_block_is_one_message_and_runs_no_forget(
    workspace: Path, paste: str
) -> None:
    async with console_bot(load_settings(workspace=workspace), clock=[T0]) as bot:
        await bot.say(TOLD)
        assert kept(workspace)
        out = await said(bot, paste)
        out += await said(bot, "yes")  # a yes after it confirms nothing: nothing was asked
        assert "Forgotten" not in out, out
        assert kept(workspace)
        assert "Rex" in await bot.say("what is my dog called?")


async def test_a_forget_command_typed_ahead_asks_and_waits_for_a_fresh_yes(
    workspace: Path,
) -> None:
    """Lines typed (or pasted) while a reply was coming are each an input of their own,
    but not fresh: "/memory forget everything confirm" among them asks first, and a "yes"
    among them answers nothing; the yes typed after the question goes ahead."""
    async with console_bot(load_settings(workspace=workspace), clock=[T0]) as bot:
        await bot.say(TOLD)
        asked = await said(bot, "/memory forget everything confirm", fresh=False)
        assert "About to forget everything about you" in asked, asked
        assert NOT_FRESH_YES in await said(bot, "yes", fresh=False)
        assert kept(workspace)
        assert "Forgotten everything about you" in await said(bot, "yes")
        assert not kept(workspace)


@pytest.mark.parametrize(
    "line",
    [
        "/memory forget everything confirm",
        "/forget everything confirm",
        "/memory forget today confirm",
        "/forget today yes",
        "/memory forget everything yes",
    ],
)
async def test_a_confirm_sent_with_the_request_asks_first(workspace: Path, line: str) -> None:
    """A single line typed at the prompt with its own "confirm" (a whole person, a day's
    messages): the person never saw the question, so it is asked; the same confirm sent
    after the question (or a yes) goes ahead."""
    async with console_bot(load_settings(workspace=workspace), clock=[T0]) as bot:
        await bot.say(TOLD)
        asked = await said(bot, line)
        assert "About to forget" in asked and "Forgotten" not in asked, asked
        assert kept(workspace)
        assert "Forgotten" in await said(bot, line)  # now it answers the question shown
        assert not kept(workspace)


async def test_a_confirm_answers_only_the_question_asked(workspace: Path) -> None:
    """Asked about one memory, a confirm naming another (or everything) asks about that
    one; the question's own yes is then that one's."""
    async with console_bot(load_settings(workspace=workspace), clock=[T0]) as bot:
        await bot.say(TOLD)
        await bot.say("I live in Denver.")
        listing = await said(bot, "/memory list")
        ids = [part for part in listing.split("`") if part.startswith("m_")]
        assert len(ids) == 2, listing
        assert "About to forget" in await said(bot, f"/memory forget {ids[0]}")
        asked = await said(bot, "/memory forget everything confirm")
        assert "About to forget everything about you" in asked, asked
        asked = await said(bot, f"/memory forget {ids[1]} confirm")
        assert "About to forget" in asked and kept(workspace) and kept(workspace, "Denver")
        assert "Forgotten" in await said(bot, "yes")
        assert kept(workspace, "Rex") != kept(workspace, "Denver")  # the one asked last


async def test_a_forget_in_words_goes_on_a_fresh_yes_only(workspace: Path) -> None:
    async with console_bot(load_settings(workspace=workspace), clock=[T0]) as bot:
        await bot.say(TOLD)
        asked = await said(bot, "forget that my dog is called Rex")
        assert "About to forget for good" in asked, asked
        assert NOT_FRESH_YES in await said(bot, "yes", fresh=False)
        assert kept(workspace)
        assert "Forgotten" in await said(bot, "yes")
        assert not kept(workspace)


# ---------------------------------------------------------------------------------- Telegram


def _forwarded(tg: FakeTelegram, text: str, *, command: bool) -> None:
    """A forward into Alice's private chat of a message of someone else's."""
    extra: dict[str, object] = {
        "forward_origin": {
            "type": "hidden_user",
            "date": int(time.time()),
            "sender_user_name": "Mate",
        }
    }
    if command:
        extra["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
    tg.push_message(
        tg.private_chat(ALICE), {"id": ALICE, "is_bot": False, "first_name": "Alice"}, text, **extra
    )


async def test_telegram_runs_no_command_from_a_longer_or_forwarded_message(
    workspace: Path,
) -> None:
    async with FakeTelegram() as tg, running(workspace) as app, telegram(tg, app):
        await tell_telegram(tg, app, ALICE, TOLD)
        before = len(tg.chat_texts(ALICE))
        tg.command(tg.private_chat(ALICE), ALICE, "/memory forget everything\nconfirm")
        await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) > before, timeout=30)
        await app.settle()
        assert kept(workspace), tg.chat_texts(ALICE)[-1]
        # Alone and typed, the confirm still answers no question shown: it asks.
        before = len(tg.chat_texts(ALICE))
        tg.command(tg.private_chat(ALICE), ALICE, "/memory forget everything confirm")
        await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) > before, timeout=30)
        await app.settle()
        asked = tg.chat_texts(ALICE)[-1]
        assert "About to forget everything about you" in asked, asked
        assert kept(workspace)
        before = len(tg.chat_texts(ALICE))
        _forwarded(tg, "/memory forget everything confirm", command=True)
        await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) > before, timeout=30)
        await app.settle()
        assert kept(workspace), tg.chat_texts(ALICE)[-1]
        # A forwarded "yes" answers no question of the person's either.
        before = len(tg.chat_texts(ALICE))
        tg.command(tg.private_chat(ALICE), ALICE, "/memory forget everything")
        await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) > before, timeout=30)
        before = len(tg.chat_texts(ALICE))
        _forwarded(tg, "yes", command=False)
        await tg.wait_for(lambda: len(tg.chat_texts(ALICE)) > before, timeout=30)
        assert tg.chat_texts(ALICE)[-1] == NOT_FRESH_YES
        assert kept(workspace)
        assert "Forgotten everything" in await tell_telegram(tg, app, ALICE, "yes")
        assert not kept(workspace)


async def test_discord_runs_no_command_from_a_longer_message(workspace: Path) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        async with running(workspace) as app, discord(fake, app):
            await tell_discord(fake, app, False, TOLD)
            answer = await tell_discord(fake, app, False, "/memory forget everything\nconfirm")
            assert "Forgotten" not in answer, answer
            assert kept(workspace)
            alone = "/memory forget everything confirm"  # its question was never shown
            asked = await tell_discord(fake, app, False, alone)
            assert "About to forget everything" in asked and kept(workspace), asked
            asked = await tell_discord(fake, app, False, "/memory forget everything")
            assert "About to forget everything" in asked, asked
            assert "Forgotten everything" in await tell_discord(fake, app, False, "yes")
            assert not kept(workspace)
    finally:
        await fake.stop()
