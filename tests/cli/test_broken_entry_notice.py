"""Session 32 tester finding T10 (hfix2): a memory file's broken entry is said in the chat,
once, with how to find out what is wrong (it was only in the log)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from familiars.cli._chat_logs import NoticeHandler, OncePerTemplate


def _record(text: str, name: str = "familiars.memory._store") -> logging.LogRecord:
    return logging.LogRecord(name, logging.WARNING, __file__, 1, "%s", (text,), None)


def test_a_broken_entry_is_said_once_with_the_fix() -> None:
    said: list[str] = []
    handler = NoticeHandler(said.append)
    handler.addFilter(OncePerTemplate())
    err = "/w/users/nora/profile.md:10: broken memory entry: the comment is not closed"
    handler.handle(_record(err))
    handler.handle(_record(err))
    handler.handle(_record(err, "familiars.memory._index"))  # the index finds it too
    assert len(said) == 1
    assert "profile.md:10" in said[0] and "run familiars memory check" in said[0]


def test_the_status_says_how_many_entries_could_not_be_read(tmp_path: Path) -> None:
    from tests.cli.test_consolidate_cli import cli, seed

    workspace = tmp_path / "ws"
    asyncio.run(seed(workspace))
    assert "could not be read" not in cli(workspace, "status")
    [file] = list((workspace / "users").glob("*/*.md"))
    file.write_text(file.read_text(encoding="utf-8").replace(" -->", "", 2), encoding="utf-8")
    said = " ".join(cli(workspace, "status").split())
    assert "2 memory entries could not be read" in said and "familiars memory check" in said


def test_a_long_broken_entry_notice_keeps_what_it_holds_back() -> None:
    """Session 34 (fixrem 1): the notice's middle was cut, hiding the words that say a
    paragraph written after the broken entry is held with it."""
    said: list[str] = []
    handler = NoticeHandler(said.append)
    err = (
        "/tmp/some/longer/workspace/path/users/nora/profile.md:1: broken memory entry: bad "
        "JSON: Expecting ',' delimiter at column 51; the 2 paragraphs under it (lines 2-4, "
        "down to the next entry) are held with it, unread, until it is fixed: text written "
        'after it ("My son Mark lives in Leeds with his wife…") too'
    )
    handler.handle(_record(err))
    assert "My son Mark lives in Leeds" in said[0] and "run familiars memory check" in said[0]
    assert "…" not in said[0].replace("wife…", "")  # not cut in the middle
