"""A forget of a person, by name or by relation, takes every memory and message that names
them, the name in any case: "/forget craig" and "/forget Craig" found nothing while
"/memory search craig" found "The user's sparky is called Craig."; "forget my husband" took
"your husband craig is an electrician" and left the sparky and the messages naming him
(tester s35 U6). "forget Headingley" alone was answered "Oh? Tell me more." (U24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from familiars.bot._adapters.base import CommandInvocation
from familiars.bot._forget_match import names_in_texts, names_said
from familiars.bot._forget_words import command_said, forget_about
from familiars.memory import make_record
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, NOW, Bot, running

pytestmark = pytest.mark.timeout(180)


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("forget Headingley", "Headingley"),
        ("please forget Craig Jones", "Craig Jones"),
        ("forget It", None),
        ("forget it", None),
        ("forget Everything", None),
    ],
)
def test_a_name_alone_after_forget_names_what_goes(text: str, what: str | None) -> None:
    assert forget_about(text) == what


def test_forget_command_words_are_a_forget_about_them() -> None:
    assert command_said("craig") == "forget about craig"
    assert command_said("that I live in Leeds") == "forget that I live in Leeds"
    assert command_said("my sister") == "forget my sister"


def test_a_name_written_small_is_the_name_unless_it_is_a_word() -> None:
    assert names_in_texts(["The user's husband craig is an electrician."]) == {"Craig"}
    assert names_said({"Craig"}, "craig fixed the boiler")
    assert not names_said({"May"}, "you may go")
    assert not names_said({"Will"}, "I will go")


async def _craig(bot: Bot) -> None:
    await bot.say("My husband craig is an electrician.", ago=300)
    await bot.say("craig fixed the boiler today", ago=200)
    await bot.say("I like green tea.", ago=100)
    await bot.app.memory.store.append(
        make_record(
            "The user's sparky is called Craig.", scope="user", category="relation", user_key=ALICE
        )
    )


async def _forget_command(bot: Bot, *words: str) -> str:
    assert bot.app.dialogues is not None
    inv = CommandInvocation("telegram", "u1", "u1", "Alice", "forget", words, ts=NOW)
    return (await bot.app.dialogues.command(inv)).text


@pytest.mark.parametrize("name", ["craig", "Craig"])
async def test_forget_a_name_takes_every_memory_and_message_naming_him(
    tmp_path: Path, name: str
) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await _craig(bot)
        asked = await _forget_command(bot, name)
        assert asked.startswith("About to forget") and "sparky" in asked, asked
        assert "boiler" in asked and "electrician" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert files_holding(ws, "craig") == []
        assert "green tea" in await bot.command("list")


async def test_forget_my_husband_takes_all_that_names_him(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await _craig(bot)
        asked = await bot.say("forget my husband")
        assert "sparky" in asked and "boiler" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert files_holding(ws, "craig") == []


async def test_forget_a_name_while_a_question_waits_is_a_forget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        await bot.say("We moved from Headingley last year.", ago=100)
        await bot.say("I like green tea.", ago=50)
        assert (await bot.say("forget that I like green tea")).startswith("About to forget")
        asked = await bot.say("forget Headingley")
        assert asked.startswith("About to forget") and "Headingley" in asked, asked
        assert (await bot.say("yes")).startswith("Forgotten")
        assert files_holding(ws, "Headingley") == []
