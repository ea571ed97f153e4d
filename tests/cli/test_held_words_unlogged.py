"""Review s34 F15: a paragraph typed by hand under a broken entry had its opening words put
in the error's reason, logged at WARNING on every read (the log file keeps them, and a forget
never scrubs it). The log names file, line and lines held; only ``memory check``, shown to
the owner, quotes the opening."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from typer.testing import CliRunner

from familiars.cli import app
from familiars.config import Settings
from familiars.memory import MemoryStore, make_record, open_workspace

WORDS = "Dan's test came back positive"
PARAGRAPH = f"{WORDS} for HIV in March and he has told no one."


async def _broken_entry_with_a_typed_paragraph(ws: Path) -> Path:
    async with MemoryStore(ws) as store:
        rec = make_record("Nora likes tea", scope="user", category="profile", user_key="nora")
        await store.append(rec)
        path = store.path_of(rec)
    text = path.read_text(encoding="utf-8").replace('"scope":"user",', '"scope":"user",,', 1)
    path.write_text(text + f"\n{PARAGRAPH}\n", encoding="utf-8")
    return path


def _words_in(records: list[logging.LogRecord]) -> list[str]:
    said = []
    for record in records:
        said.append(record.getMessage())
        said += [str(v) for v in vars(record).values()]  # an extra= would be written too
    return [s for s in said if "Dan" in s or "HIV" in s]


async def test_a_broken_entry_s_typed_words_are_never_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ws = tmp_path / "ws"
    path = await _broken_entry_with_a_typed_paragraph(ws)
    with caplog.at_level(logging.DEBUG):
        async with MemoryStore(ws) as store:
            [err] = await store.parse_errors()
        async with open_workspace(Settings(workspace=ws), embedder=False) as mw:
            await mw.store.list()  # the store's read and the index reconcile's, both logged
    broken = [r for r in caplog.records if "broken memory entry" in r.getMessage()]
    assert broken, [r.getMessage() for r in caplog.records]  # it is logged, by place
    assert any(f"{path}:1" in r.getMessage() for r in broken)
    assert "2 paragraphs under it (lines 2-4" in broken[0].getMessage()
    assert _words_in(caplog.records) == []
    assert WORDS in err.shown() and WORDS not in str(err) and WORDS not in err.reason


def test_memory_check_still_quotes_the_paragraph(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    asyncio.run(_broken_entry_with_a_typed_paragraph(ws))
    runner = CliRunner()
    result = runner.invoke(app, ["--workspace", str(ws), "memory", "check"])
    assert result.exit_code == 1
    assert f'(from line 4: "{WORDS}' in result.output, result.output
    result = runner.invoke(app, ["--workspace", str(ws), "memory", "check", "--json"])
    [found] = json.loads(result.stdout)
    assert WORDS in found["reason"] and found["line"] == 1
