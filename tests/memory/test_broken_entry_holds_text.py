"""Session 34 tester finding (fixrem 1): a paragraph written by hand after a broken entry was
held with it, unread, and ``memory check`` named only the broken line. The error now says
what the break holds back (lines, and the opening words of text written after it), and a
rewrite of the file keeps every byte of it."""

from __future__ import annotations

from pathlib import Path

from familiars.memory import MemoryStore, make_record
from familiars.memory._entries import parse_text, read_file, render_file

PARAGRAPH = "My son Mark lives in Leeds with his wife Jo."


async def _file_with_a_broken_entry_and_a_paragraph(ws: Path) -> Path:
    async with MemoryStore(ws) as store:
        rec = make_record("Nora likes tea", scope="user", category="profile", user_key="nora")
        await store.append(rec)
        path = store.path_of(rec)
    text = path.read_text(encoding="utf-8").replace('"scope":"user",', '"scope":"user" ', 1)
    path.write_text(text + f"\n{PARAGRAPH}\n", encoding="utf-8")
    return path


async def test_check_says_text_after_a_broken_entry_is_held_with_it(tmp_path: Path) -> None:
    path = await _file_with_a_broken_entry_and_a_paragraph(tmp_path / "ws")
    async with MemoryStore(tmp_path / "ws") as store:
        [err] = await store.parse_errors()
    assert err.line == 1 and "bad JSON" in err.reason
    assert "the 2 paragraphs under it (lines 2-4" in err.reason, err.reason
    assert "text written after it (from line 4) too" in err.reason, err.reason
    assert '(from line 4: "My son Mark lives in Leeds with his wife…")' in err.shown()
    assert "held with it" in str(err) and "Mark" not in str(err)  # str() is logged: review F15
    assert PARAGRAPH in render_file(read_file(path))  # nothing of it is lost on a rewrite


def test_a_broken_entry_with_only_its_own_text_says_that_text_is_held() -> None:
    [err] = parse_text('<!-- {"id":"m_1","scope":"user" -->\nNora likes tea\n').errors
    assert err.reason.endswith(
        "; the text under it (line 2) is held with it, unread, until it is fixed"
    )
    [bare] = parse_text('<!-- {"id":"m_1","scope":"user" -->\n').errors
    assert "held" not in bare.reason  # nothing under it: nothing to say
