"""Terminal escape sequences typed or pasted into a message are removed, whole, where every
message comes in, before anything is recorded (tester s36: "my fav colour is
\\e[31mRED\\e[0m and \\e]0;pwned\\a green" was stored as "your favourite colour is mREDm and
0;pwned green"). Newlines and tabs stay."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._dialogue import _clean_text
from tests.bot.test_forget import files_holding
from tests.harness import message, running_app, say

SAID = "my fav colour is \x1b[31mRED\x1b[0m and \x1b]0;pwned\x07 green"


async def test_escapes_are_not_kept_nor_noted(workspace: Path) -> None:
    async with running_app(workspace, model=None) as app:
        reply = await say(app, message(SAID))
        assert "pwned" not in reply and "mRED" not in reply, reply
        [colour] = [r.content for r in await app.memory.store.list()]
        assert "RED" in colour and "mRED" not in colour and "0;" not in colour, colour
        assert "pwned" not in colour, colour
        await say(app, message("first line\n\tsecond line \x1b[1mbold\x1b[0m", minutes=1))
    assert files_holding(workspace, "pwned") == []
    assert files_holding(workspace, "[31m") == []
    tree = (workspace / "agents/agent_0/dialogue_0/dialogue.json").read_text(encoding="utf-8")
    assert "first line\\n\\tsecond line bold" in tree


def test_a_stray_string_introducer_loses_no_words() -> None:
    said = "hi \x1bXplease remind me at 5\nand more \x1bPq#0;2\x1b\\ done \x1b_apc\x9c end"
    assert _clean_text(said)[0] == "hi please remind me at 5\nand more  done  end"
