"""Session 32 tester finding T10 (hfix2): a hand-edited memory file with a broken entry no
longer hides it silently: ``/memory list`` says how many entries could not be read, where,
and how to find out what is wrong (``familiars memory check``)."""

from __future__ import annotations

from pathlib import Path

from familiars.bot import Application
from tests.bot.test_dialogue import cmd, msg
from tests.harness import say


async def test_a_broken_entry_is_told_in_the_memory_list(app: Application, workspace: Path) -> None:
    assert app.dialogues is not None
    await say(app, msg("My name is Alice."))
    await say(app, msg("I love hiking.", minutes=1))
    assert "could not be read" not in (await app.dialogues.command(cmd("memory", "list"))).text
    files = sorted((workspace / "users").glob("*/*.md"))
    assert files
    broken = files[0]
    text = broken.read_text(encoding="utf-8")
    broken.write_text(text.replace(" -->", "", 1), encoding="utf-8")
    listed = (await app.dialogues.command(cmd("memory", "list"))).text
    assert "1 entry in your memory files could not be read" in listed, listed
    assert f"{broken.name} line 1" in listed and "familiars memory check" in listed
    assert "nor the text under it" in listed  # fixrem 1: text after it is held too
