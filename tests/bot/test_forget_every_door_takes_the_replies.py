"""Every door to forgetting reaches the same end, the replies that repeated the memory
included: ``familiars memory forget <id>`` left the bot's earlier reply "Your wifes are
Latoya and Latisha." (which repeats "The user's wife is called Latoya.") in
``dialogue.json`` (tester s35 U14). Driven here through ``/memory forget``, the control
socket, the HTTP API, words and the CLI with nothing running."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app as cli_app
from familiars.memory import forgotten_of
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import (
    ALICE,
    TOKEN,
    Bot,
    by_api,
    by_command,
    by_control_socket,
    running,
)
from tests.fake_openai import Reply

pytestmark = pytest.mark.timeout(180)

NAME = "Latoya"


def test_a_reply_that_says_who_is_called_what_repeats_it() -> None:
    forgotten = forgotten_of((), ["The user's wife is called Latoya."])
    assert forgotten.echoed_in("Your wifes are Latoya and Latisha.")
    assert not forgotten.echoed_in("Latisha says hello.")


async def _wife(bot: Bot) -> str:
    bot.script.turn(Reply.text("Lovely."))
    await bot.say(f"My wife is called {NAME}.", ago=120)
    bot.script.turn(Reply.text(f"Your wifes are {NAME} and Latisha."))
    await bot.say("who are my wives?", ago=60)
    [rec] = [
        r
        for r in await bot.app.memory.store.list(scope="user", user_key=ALICE)
        if NAME in r.content
    ]
    return rec.id


async def _by_words(bot: Bot) -> None:
    asked = await bot.say(f"forget that my wife is called {NAME}")
    assert asked.startswith("About to forget"), asked
    assert (await bot.say("yes")).startswith("Forgotten")


async def _by_record_id(bot: Bot) -> None:
    """The shared doors find "the" record by ``PHRASE``: here by the name."""


DOORS = {
    "command": by_command,
    "control_socket": by_control_socket,
    "api": by_api,
    "words": _by_words,
    "cli": _by_record_id,
}


@pytest.mark.parametrize("door", list(DOORS))
async def test_every_door_takes_the_replies_that_repeated_the_memory(
    door: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAMILIARS_API_TOKEN", TOKEN)
    monkeypatch.setattr("tests.bot.test_forget_everywhere.PHRASE", NAME)
    ws = tmp_path / "ws"
    async with running(ws) as bot:
        rid = await _wife(bot)
        await DOORS[door](bot)
    if door == "cli":
        result = await asyncio.to_thread(
            CliRunner().invoke, cli_app, ["--workspace", str(ws), "memory", "forget", rid]
        )
        assert result.exit_code == 0, result.output
    assert files_holding(ws, NAME) == []
