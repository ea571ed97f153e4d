"""Tester s38 (finding 6): "my insta pw is skaterboi2009 dont tell anyone lol" was kept in
clear ("door code is 4471" was masked), and "forget that" read it back. "pw" and the other
short words for a password are masked now; a forget's question or answer never reads a
password out, even one stored in clear (kept so by the privacy settings)."""

from __future__ import annotations

from pathlib import Path

from familiars.bot._forget_texts import shorten
from tests.harness import message, running_app, say

SAID = "my insta pw is skaterboi2009 dont tell anyone lol"


def _files_holding(root: Path, word: str) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]


async def test_a_pw_is_masked_at_rest_and_its_forget_reads_the_mask(workspace: Path) -> None:
    async with running_app(workspace) as app:
        await say(app, message(SAID))
        await app.settle()
        assert _files_holding(workspace, "skaterboi2009") == []
        said = await say(app, message("forget that, i shouldnt have said it", minutes=1))
        assert "skaterboi2009" not in said and "[PASSWORD]" in said, said


def test_a_forget_line_never_reads_a_password_out() -> None:
    for text in (SAID, "the door code is 4471", "pw: hunter2 and the cat is Tom"):
        line = shorten(text)
        assert "[PASSWORD]" in line, line
    assert shorten("my sister Jo lives in Leeds") == "my sister Jo lives in Leeds"
