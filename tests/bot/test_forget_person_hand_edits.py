"""Forgetting a whole person takes what they (or anyone) typed by hand into their own memory
files too (tester F18): a hand-edited entry whose header does not parse, and text before the
first entry, are kept through every ordinary write (so nothing typed is lost), but the
person's folder ``users/<key>/`` holds only them, so when they are forgotten whole none of
it stays. The answer says what went that could not be read. Through each door: the words
("forget everything about me" + yes), ``/memory forget everything confirm`` and the CLI with
nothing running."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.bot._adapters.base import CommandInvocation
from familiars.cli import app as cli_app
from tests.bot.test_forget import files_holding
from tests.bot.test_forget_everywhere import ALICE, NOW, Bot, offline

pytestmark = pytest.mark.timeout(120)

NEEDLE = "floorboards"
BROKEN = (
    f"\n<!-- {{this header is not json -->\nThe user's secret diary is hidden under the {NEEDLE}.\n"
)
TYPED = f"# Notes I typed\nThe spare key is under the {NEEDLE} too.\n\n"


def hand_edit(ws: Path) -> Path:
    """A broken entry at the end of the person's file, and text before its first entry."""
    [path] = sorted((ws / "users" / ALICE).glob("*.md"))
    path.write_text(TYPED + path.read_text(encoding="utf-8") + BROKEN, encoding="utf-8")
    return path


async def by_words(bot: Bot) -> str:
    asked = await bot.say("forget everything about me")
    assert asked.startswith("About to forget everything about you"), asked
    return await bot.say("yes")


async def by_command(bot: Bot) -> str:
    assert bot.app.dialogues is not None
    inv = CommandInvocation(
        "telegram", "u1", "u1", "Alice", "memory", ("forget", "everything", "confirm"), ts=NOW
    )
    asked = (await bot.app.dialogues.command(replace(inv, args=inv.args[:-1]))).text
    assert asked.startswith("About to forget everything about you"), asked
    return (await bot.app.dialogues.command(inv)).text


@pytest.mark.parametrize("door", ["words", "command"])
async def test_a_whole_person_forget_takes_the_hand_edits_of_their_files(
    tmp_path: Path, door: str
) -> None:
    ws = tmp_path / "ws"
    async with offline(ws) as bot:
        await bot.say("My dog is called Pepper.")
        path = hand_edit(ws)
        await bot.say("I live in Denver.")  # an ordinary write keeps what was typed
        assert NEEDLE in path.read_text(encoding="utf-8")
        done = await (by_words(bot) if door == "words" else by_command(bot))
        assert done.startswith("Forgotten everything about you"), done
        assert files_holding(ws, NEEDLE) == []
        assert files_holding(ws, "Pepper") == []


def test_the_cli_forgets_the_hand_edits_and_says_what_it_could_not_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"

    async def chat() -> None:
        async with offline(ws) as bot:
            await bot.say("My dog is called Pepper.")

    asyncio.run(chat())
    hand_edit(ws)
    result = CliRunner().invoke(
        cli_app, ["--workspace", str(ws), "memory", "forget", "--person", ALICE, "--yes"]
    )
    assert result.exit_code == 0, result.output
    assert f"users/{ALICE}/" in result.output and "could not read" in result.output, result.output
    assert files_holding(ws, NEEDLE) == []
    assert files_holding(ws, "Pepper") == []


JOB = "sound engineer"


def break_header(ws: Path, needle: str) -> Path:
    """The entry holding ``needle`` gets a header that does not parse (a comma removed), as
    a person editing the file by hand might leave it."""
    [path] = [p for p in sorted((ws / "users" / ALICE).glob("*.md")) if needle in p.read_text()]
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if needle in line and "<!--" not in line) - 1
    assert lines[at].startswith("<!-- {"), lines[at]
    lines[at] = lines[at].replace(",", " ", 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


async def test_a_broken_entry_of_a_memory_leaves_no_history_when_the_person_goes(
    tmp_path: Path,
) -> None:
    """Tester s37: a memory whose entry was broken by hand (its header no longer parses)
    kept its words in the history sidecar after "forget everything about me": its first
    upsert, and a "removed by hand" event written at forget time. The question says the
    unreadable entries go too."""
    ws = tmp_path / "ws"
    async with offline(ws) as bot:
        await bot.say(f"I work as a {JOB}.")
        await bot.say("My dog is called Pepper.")
    assert any(p.endswith(".history.jsonl") for p in files_holding(ws, JOB))
    break_header(ws, JOB)
    async with offline(ws) as bot:
        asked = await bot.say("forget everything about me")
        assert "1 entry I could not read" in asked, asked
        done = await bot.say("yes")
        assert done.startswith("Forgotten everything about you"), done
        assert "no files and what I could not read in your files, everywhere" in done, done
        assert files_holding(ws, JOB) == []
        assert files_holding(ws, "Pepper") == []
    async with offline(ws):  # a start after it notes no hand edit with the words
        pass
    assert files_holding(ws, JOB) == []


@pytest.mark.parametrize("door", ["words", "id"])
async def test_a_single_forget_leaves_no_earlier_text_nor_a_hand_edit_with_it(
    tmp_path: Path, door: str
) -> None:
    """A memory changed by hand while the bot was off (its history holds the text before,
    in a "changed by hand" event), in a file with a broken entry of another memory: its
    forget leaves neither text in any history, then or at the next start."""
    ws = tmp_path / "ws"
    async with offline(ws) as bot:
        await bot.say(f"I work as a {JOB}.")
        await bot.say("My dog is called Pepper.")
    [path] = [p for p in sorted((ws / "users" / ALICE).glob("*.md")) if JOB in p.read_text()]
    path.write_text(path.read_text().replace(f"{JOB}.", f"{JOB} at Abbey Road."))
    break_header(ws, "Pepper")
    async with offline(ws) as bot:
        if door == "words":
            assert "Abbey Road" in await bot.say(f"forget that I work as a {JOB}")
            done = await bot.say("yes")
        else:
            [rec] = [r for r in await bot.app.memory.store.list() if JOB in r.content]
            assert bot.app.dialogues is not None
            inv = CommandInvocation(
                "telegram", "u1", "u1", "Alice", "memory", ("forget", rec.id, "confirm"), ts=NOW
            )
            asked = (await bot.app.dialogues.command(replace(inv, args=inv.args[:-1]))).text
            assert "Abbey Road" in asked, asked
            done = (await bot.app.dialogues.command(inv)).text
        assert done.startswith("Forgotten"), done
        assert files_holding(ws, JOB) == [] and files_holding(ws, "Abbey") == []
    async with offline(ws):
        pass
    assert files_holding(ws, JOB) == [] and files_holding(ws, "Abbey") == []
    assert files_holding(ws, "Pepper")  # the broken entry is the person's to fix
