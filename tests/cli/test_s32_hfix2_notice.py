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
